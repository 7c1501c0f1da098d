// Mobile clients (issue 14): a resident's app registers itself, lists and removes its own; an
// administrator sees a user's apps and removes one within the rules of acting on that user; every
// app counts against the mobile app licence (project, user, group); an SDK app shows the SDK key.
import { fullLicenseInfo, type LicenseInfo, MOBILE_SDK_KEY_HEADER } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { installLicense, removeLicenses } from '../../../test/licenses.js';
import { queryRows } from '../../core/db/client.js';
import { type Api, type ScopeTree, scopeTree } from '../users/scope.fixture.js';

let t: TestApp;
let tree: ScopeTree;
let n = 0;

beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
});
afterAll(() => t?.close());
afterEach(async () => {
  await t.database.db.execute(sql`DELETE FROM mobile_clients`);
  await t.database.db.execute(sql`UPDATE groups SET license_info = NULL WHERE project_id = ${t.project.projectId}`);
  await t.database.db.execute(sql`UPDATE projects SET settings = settings - 'mobile_sdk_settings'`);
  await removeLicenses(t);
});

/** A resident of group `groupId` (the root by default), signed in. */
async function resident(groupId = t.project.rootGroupId): Promise<{ id: number; api: Api }> {
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [groupId], login: `resident-${++n}` });
  return { id: u.id, api: client(t.app, await login(t.app, u.login, u.password)) };
}

const app = (over: Record<string, unknown> = {}) => ({
  mobile_client_id: `install-${++n}`,
  platform: 'ios',
  info: 'iPhone 15, iOS 18.1',
  vendor_id: 'A1B2-C3D4',
  push_token: `apns-${n}`,
  ...over,
});

const withMobile = (change: (m: LicenseInfo['mobile_app']) => void): LicenseInfo => {
  const f = fullLicenseInfo();
  change(f.mobile_app);
  return f;
};

describe('a resident’s app', () => {
  it('registers, registers again under the same id (auth_at moves on, fields kept), lists and removes its own', async () => {
    const me = await resident();
    const first = await me.api.put('/mobile-clients', app({ mobile_client_id: 'phone-1', sip_number: '1001', ukey2: '0AFF' }));
    expect(first.statusCode).toBe(200);
    const c = first.json().data;
    expect(c).toMatchObject({
      mobile_client_id: 'phone-1',
      platform: 'ios',
      info: 'iPhone 15, iOS 18.1',
      vendor_id: 'A1B2-C3D4',
      sip_number: '1001',
      ukey2: '0AFF',
      has_push_token: true,
      is_sdk: false,
    });
    expect(c).not.toHaveProperty('push_token');
    await new Promise((r) => setTimeout(r, 15));
    const again = (
      await me.api.put('/mobile-clients', { mobile_client_id: 'phone-1', platform: 'ios', info: 'iPhone 15, iOS 18.2' })
    ).json().data;
    expect(again.id).toBe(c.id);
    expect(again.info).toBe('iPhone 15, iOS 18.2');
    expect(again.vendor_id).toBe('A1B2-C3D4');
    expect(again.has_push_token).toBe(true);
    expect(Date.parse(again.auth_at)).toBeGreaterThan(Date.parse(c.auth_at));
    // A null token: no pushes to this app any more.
    expect(
      (await me.api.put('/mobile-clients', { mobile_client_id: 'phone-1', platform: 'ios', push_token: null })).json().data.has_push_token,
    ).toBe(false);
    expect((await me.api.get('/mobile-clients')).json().data.map((x: { id: number }) => x.id)).toEqual([c.id]);
    expect((await me.api.delete(`/mobile-clients/${c.id}`)).statusCode).toBe(200);
    expect((await me.api.get('/mobile-clients')).json().data).toEqual([]);
    expect((await me.api.delete(`/mobile-clients/${c.id}`)).statusCode).toBe(404);
  });

  it('is a person’s: an API key registers none, even one of a role with every permission', async () => {
    const key = (await tree.admin.put('/api-keys', { name: 'Integration', role: t.project.roleId })).json().data.key as string;
    const res = await client(t.app, key).put('/mobile-clients', app());
    expect(res.statusCode).toBe(403);
    expect((await tree.admin.get('/licenses/usage')).json().data.mobile_app_used).toBe(0);
  });

  it('refuses bad data: an unknown platform, an empty id, unknown fields', async () => {
    const me = await resident();
    for (const body of [app({ platform: 'symbian' }), app({ mobile_client_id: '' }), app({ owner: 1 }), app({ ukey2: 'not-hex' })]) {
      const res = await me.api.put('/mobile-clients', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
    }
  });

  it('cannot see or remove another user’s apps through its own calls', async () => {
    const me = await resident();
    const other = await resident();
    const theirs = (await other.api.put('/mobile-clients', app())).json().data;
    expect((await me.api.get('/mobile-clients')).json().data).toEqual([]);
    expect((await me.api.delete(`/mobile-clients/${theirs.id}`)).statusCode).toBe(404);
    // Without users permissions, neither through the user's page.
    expect((await me.api.get(`/users/${other.id}/mobile-clients`)).statusCode).toBe(404);
    expect((await me.api.delete(`/users/${other.id}/mobile-clients/${theirs.id}`)).statusCode).toBe(404);
    expect((await other.api.get('/mobile-clients')).json().data).toHaveLength(1);
  });

  it('signed in as someone else on the same phone: the install moves with its secret, and its push token leaves the other apps', async () => {
    const a = await resident();
    const b = await resident();
    const ca = (await a.api.put('/mobile-clients', app({ mobile_client_id: 'shared-phone', push_token: 'tok-shared' }))).json().data;
    expect(ca.client_secret).toEqual(expect.any(String));
    const other = (await a.api.put('/mobile-clients', app({ mobile_client_id: 'tablet', push_token: 'tok-tablet' }))).json().data;
    const moved = await b.api.put(
      '/mobile-clients',
      app({ mobile_client_id: 'shared-phone', push_token: 'tok-shared', client_secret: ca.client_secret }),
    );
    expect(moved.statusCode).toBe(200);
    const cb = moved.json().data;
    expect(cb.id).toBe(ca.id);
    // A new secret: the one the previous holder knew no longer moves the install back.
    expect(cb.client_secret).toEqual(expect.any(String));
    expect(cb.client_secret).not.toBe(ca.client_secret);
    expect((await a.api.get('/mobile-clients')).json().data.map((x: { id: number }) => x.id)).toEqual([other.id]);
    const back = await a.api.put('/mobile-clients', app({ mobile_client_id: 'shared-phone', client_secret: ca.client_secret }));
    expect(back.statusCode).toBe(403);
    expect((await b.api.get('/mobile-clients')).json().data.map((x: { id: number }) => x.id)).toEqual([ca.id]);
    // The same token sent by another install (the app was reinstalled): only the newest keeps it.
    await b.api.put('/mobile-clients', app({ mobile_client_id: 'reinstalled', push_token: 'tok-tablet' }));
    expect((await a.api.get('/mobile-clients')).json().data[0].has_push_token).toBe(false);
  });

  it('does not move to whoever names its id: another user without the install’s secret is refused and nothing changes', async () => {
    const a = await resident();
    const b = await resident();
    const ca = (await a.api.put('/mobile-clients', app({ mobile_client_id: 'victim-phone', push_token: 'tok-victim' }))).json().data;
    for (const extra of [{}, { client_secret: 'guessed' }, { client_secret: `${ca.client_secret}x` }]) {
      const res = await b.api.put('/mobile-clients', app({ mobile_client_id: 'victim-phone', push_token: 'tok-attacker', ...extra }));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'action_prohibited',
        details: [{ field: 'mobile_client_id', message: 'the install is registered to another user' }],
      });
    }
    const [stored] = await queryRows<{ user_id: number; push_token: string | null }>(
      t.database.db,
      sql`SELECT user_id, push_token FROM mobile_clients WHERE mobile_client_id = 'victim-phone'`,
    );
    expect(stored).toEqual({ user_id: a.id, push_token: 'tok-victim' });
    expect((await a.api.get('/mobile-clients')).json().data.map((x: { id: number }) => x.id)).toEqual([ca.id]);
    expect((await b.api.get('/mobile-clients')).json().data).toEqual([]);
  });

  it('registered by two users at once for the first time: one holds it, the other is refused', async () => {
    const a = await resident();
    const b = await resident();
    for (let i = 0; i < 8; i++) {
      const id = `raced-${i}`;
      const [ra, rb] = await Promise.all([
        a.api.put('/mobile-clients', app({ mobile_client_id: id, push_token: `tok-a-${i}` })),
        b.api.put('/mobile-clients', app({ mobile_client_id: id, push_token: `tok-b-${i}` })),
      ]);
      expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 403]);
      const winner = ra.statusCode === 200 ? a : b;
      const [row] = await queryRows<{ user_id: number; push_token: string }>(
        t.database.db,
        sql`SELECT user_id, push_token FROM mobile_clients WHERE mobile_client_id = ${id}`,
      );
      expect(row).toEqual({ user_id: winner.id, push_token: winner === a ? `tok-a-${i}` : `tok-b-${i}` });
    }
  });

  it('issues the secret once: its holder registers again without it and keeps it; an install from before secrets gets one', async () => {
    const me = await resident();
    const other = await resident();
    const first = (await me.api.put('/mobile-clients', app({ mobile_client_id: 'own-phone' }))).json().data;
    expect(first.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await queryRows<{ client_secret_hash: string }>(
      t.database.db,
      sql`SELECT client_secret_hash FROM mobile_clients WHERE id = ${first.id}`,
    );
    // Only its hash is kept.
    expect(row?.client_secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.client_secret_hash).not.toContain(first.client_secret);
    const again = await me.api.put('/mobile-clients', app({ mobile_client_id: 'own-phone' }));
    expect(again.statusCode).toBe(200);
    expect(again.json().data.id).toBe(first.id);
    expect(again.json().data).not.toHaveProperty('client_secret');
    // The secret issued first still moves it: a re-registration by its holder did not replace it.
    expect(
      (await other.api.put('/mobile-clients', app({ mobile_client_id: 'own-phone', client_secret: first.client_secret }))).statusCode,
    ).toBe(200);
    // A row registered before secrets existed: its holder's next registration issues one; until then nobody moves it.
    const old = (await me.api.put('/mobile-clients', app({ mobile_client_id: 'old-phone' }))).json().data;
    await t.database.db.execute(sql`UPDATE mobile_clients SET client_secret_hash = NULL WHERE id = ${old.id}`);
    expect((await other.api.put('/mobile-clients', app({ mobile_client_id: 'old-phone' }))).statusCode).toBe(403);
    const reissued = (await me.api.put('/mobile-clients', app({ mobile_client_id: 'old-phone' }))).json().data;
    expect(reissued.id).toBe(old.id);
    expect(reissued.client_secret).toEqual(expect.any(String));
    // The list never shows a secret.
    for (const c of (await me.api.get('/mobile-clients')).json().data) expect(c).not.toHaveProperty('client_secret');
  });

  it('is shown read-only in the user, and the users list, to an administrator', async () => {
    const me = await resident();
    const c = (await me.api.put('/mobile-clients', app({ mobile_client_id: 'seen', sip_number: '2002' }))).json().data;
    const user = (await tree.admin.get(`/users/${me.id}`)).json().data;
    expect(user.mobile_clients).toEqual([
      {
        id: c.id,
        mobile_client_id: 'seen',
        platform: 'ios',
        info: 'iPhone 15, iOS 18.1',
        auth_at: c.auth_at,
        vendor_id: 'A1B2-C3D4',
        sip_number: '2002',
        ukey2: null,
      },
    ]);
    const listed = (
      await tree.admin.get(
        `/users?with=mobile_clients&filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'id', operator: 'equals', value: me.id }] }))}`,
      )
    ).json();
    expect(listed.data[0]?.mobile_clients?.[0]?.mobile_client_id).toBe('seen');
    expect((await tree.admin.get(`/users/${me.id}/mobile-clients`)).json().data).toEqual(user.mobile_clients);
  });
});

describe('an administrator removing a user’s app', () => {
  /** Edits users of group A and below. */
  const GROUP_ADMIN = ['can_view_descendant_users', 'can_edit_descendant_users', 'can_view_descendant_domains'];

  it('may within their scope, and the app is gone from the user', async () => {
    const admin = await tree.actor(GROUP_ADMIN, ['A']);
    const inA1 = await resident(tree.groups.A1);
    const c = (await inA1.api.put('/mobile-clients', app())).json().data;
    expect((await admin.api.get(`/users/${inA1.id}/mobile-clients`)).json().data).toHaveLength(1);
    expect((await admin.api.delete(`/users/${inA1.id}/mobile-clients/${c.id}`)).statusCode).toBe(200);
    expect((await inA1.api.get('/mobile-clients')).json().data).toEqual([]);
    const audit = await queryRows(
      t.database.db,
      sql`SELECT 1 FROM audit_events WHERE entity = 'mobile_client' AND action = 'delete' AND entity_id = ${String(c.id)}`,
    );
    expect(audit).toHaveLength(1);
  });

  it('may not outside their scope (not found), nor in another project', async () => {
    const admin = await tree.actor(GROUP_ADMIN, ['A']);
    const inB = await resident(tree.groups.B);
    const c = (await inB.api.put('/mobile-clients', app())).json().data;
    expect((await admin.api.get(`/users/${inB.id}/mobile-clients`)).statusCode).toBe(404);
    expect((await admin.api.delete(`/users/${inB.id}/mobile-clients/${c.id}`)).statusCode).toBe(404);
    expect((await tree.other.admin.get(`/users/${inB.id}/mobile-clients`)).statusCode).toBe(404);
    expect((await tree.other.admin.delete(`/users/${inB.id}/mobile-clients/${c.id}`)).statusCode).toBe(404);
    // Another user's client id under a user in scope: not found either.
    const inA = await resident(tree.groups.A);
    expect((await admin.api.delete(`/users/${inA.id}/mobile-clients/${c.id}`)).statusCode).toBe(404);
    expect((await inB.api.get('/mobile-clients')).json().data).toHaveLength(1);
  });

  it('may not with view permission only, nor on a more privileged user in scope', async () => {
    const viewer = await tree.actor(['can_view_descendant_users'], ['A']);
    const inA1 = await resident(tree.groups.A1);
    const c = (await inA1.api.put('/mobile-clients', app())).json().data;
    expect((await viewer.api.get(`/users/${inA1.id}/mobile-clients`)).statusCode).toBe(200);
    expect((await viewer.api.delete(`/users/${inA1.id}/mobile-clients/${c.id}`)).statusCode).toBe(403);

    const admin = await tree.actor(GROUP_ADMIN, ['A']);
    const boss = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: t.project.roleId,
      groupIds: [tree.groups.A1],
      login: `boss-${++n}`,
    });
    const bossApi = client(t.app, await login(t.app, boss.login, boss.password));
    const bc = (await bossApi.put('/mobile-clients', app())).json().data;
    expect((await admin.api.delete(`/users/${boss.id}/mobile-clients/${bc.id}`)).statusCode).toBe(403);
    expect((await bossApi.get('/mobile-clients')).json().data).toHaveLength(1);
  });
});

describe('the mobile app licence', () => {
  it('counts registered apps as mobile_app_used, and refuses one beyond the project’s count', async () => {
    await installLicense(
      t,
      withMobile((m) => (m.license_count = 2)),
    );
    const a = await resident();
    const b = await resident();
    expect((await a.api.put('/mobile-clients', app({ mobile_client_id: 'a-1' }))).statusCode).toBe(200);
    expect((await b.api.put('/mobile-clients', app({ mobile_client_id: 'b-1' }))).statusCode).toBe(200);
    expect((await tree.admin.get('/licenses/usage')).json().data).toMatchObject({ mobile_app_used: 2, limits: { mobile_app: 2 } });
    const over = await b.api.put('/mobile-clients', app({ mobile_client_id: 'b-2' }));
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      message: 'exceeding the maximum mobile apps in the project',
      details: [{ params: { max_count: 2, used: 3 } }],
    });
    // Nothing was written; an app already counted still signs in again.
    expect((await b.api.get('/mobile-clients')).json().data).toHaveLength(1);
    expect((await b.api.put('/mobile-clients', app({ mobile_client_id: 'b-1' }))).statusCode).toBe(200);
    expect((await tree.admin.get('/licenses/usage')).json().data.mobile_app_used).toBe(2);
  });

  it('refuses registration when the mobile app feature is off for the server and the user', async () => {
    await installLicense(
      t,
      withMobile((m) => (m.is_enabled = false)),
    );
    const me = await resident();
    const res = await me.api.put('/mobile-clients', app());
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('mobile app is not licensed');
    // A user's own licence whose period has ended is off.
    const now = Math.floor(Date.now() / 1000);
    const ended = { mobile_app: { ...fullLicenseInfo().mobile_app, license_count: 1, period: { from: now - 864_000, to: now - 86_400 } } };
    await t.database.db.execute(sql`UPDATE users SET license_info = ${JSON.stringify(ended)}::jsonb WHERE id = ${me.id}`);
    expect((await me.api.put('/mobile-clients', app())).json().message).toBe('mobile app is not licensed');
    // The user's own licence turns it on (the hide-when-both-off rule), with the user's count.
    const info = { mobile_app: { ...fullLicenseInfo().mobile_app, license_count: 1 } };
    await t.database.db.execute(sql`UPDATE users SET license_info = ${JSON.stringify(info)}::jsonb WHERE id = ${me.id}`);
    expect((await me.api.put('/mobile-clients', app())).statusCode).toBe(200);
    const second = await me.api.put('/mobile-clients', app());
    expect(second.json()).toMatchObject({
      message: 'exceeding the maximum mobile apps of the user',
      details: [{ params: { max_count: 1 } }],
    });
  });

  it('refuses an app beyond the count of a group the user belongs to (or is below)', async () => {
    await t.database.db.execute(
      sql`UPDATE groups SET license_info = '{"is_enabled":true,"mobile_app":{"is_enabled":true,"license_count":1}}'::jsonb WHERE id = ${tree.groups.A}`,
    );
    const inA1 = await resident(tree.groups.A1);
    const inA1a = await resident(tree.groups.A1a);
    const inB = await resident(tree.groups.B);
    expect((await inA1.api.put('/mobile-clients', app())).statusCode).toBe(200);
    const over = await inA1a.api.put('/mobile-clients', app());
    expect(over.json()).toMatchObject({
      message: 'exceeding the maximum mobile apps in the group',
      details: [{ params: { domain_id: tree.groups.A, domain: 'A', max_count: 1, used: 2 } }],
    });
    // Group B has no count of its own.
    expect((await inB.api.put('/mobile-clients', app())).statusCode).toBe(200);
  });
});

describe('apps built on the mobile SDK', () => {
  const sdk = (v: { is_enabled: boolean; api_key: string | null }) =>
    t.database.db.execute(sql`UPDATE projects SET settings = settings || jsonb_build_object('mobile_sdk_settings', ${JSON.stringify(v)}::jsonb)
      WHERE id = ${t.project.projectId}`);

  it('register with the project’s SDK api key', async () => {
    await sdk({ is_enabled: true, api_key: 'sdk-key-0123456789' });
    const me = await resident();
    const res = await me.api.raw('PUT', '/mobile-clients', app({ is_sdk: true }), { [MOBILE_SDK_KEY_HEADER]: 'sdk-key-0123456789' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.is_sdk).toBe(true);
  });

  it('are refused with a wrong or missing key, or when the SDK is off; the project’s own app needs no key', async () => {
    await sdk({ is_enabled: true, api_key: 'sdk-key-0123456789' });
    const me = await resident();
    const wrong = await me.api.raw('PUT', '/mobile-clients', app({ is_sdk: true }), { [MOBILE_SDK_KEY_HEADER]: 'sdk-key-0123456780' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().message).toBe('invalid mobile sdk api key');
    const missing = await me.api.put('/mobile-clients', app({ is_sdk: true }));
    expect(missing.json().message).toBe('invalid mobile sdk api key');
    // A key presented is a claim to be an SDK app, even without is_sdk.
    const bare = await me.api.raw('PUT', '/mobile-clients', app(), { [MOBILE_SDK_KEY_HEADER]: 'guess' });
    expect(bare.json().message).toBe('invalid mobile sdk api key');
    expect((await me.api.put('/mobile-clients', app())).statusCode).toBe(200);

    await sdk({ is_enabled: false, api_key: 'sdk-key-0123456789' });
    const off = await me.api.raw('PUT', '/mobile-clients', app({ is_sdk: true }), { [MOBILE_SDK_KEY_HEADER]: 'sdk-key-0123456789' });
    expect(off.statusCode).toBe(403);
    expect(off.json().message).toBe('mobile sdk is disabled');
    // Enabled without a key: no key matches.
    await sdk({ is_enabled: true, api_key: null });
    expect((await me.api.raw('PUT', '/mobile-clients', app({ is_sdk: true }), { [MOBILE_SDK_KEY_HEADER]: '' })).json().message).toBe(
      'invalid mobile sdk api key',
    );
    expect((await me.api.get('/mobile-clients')).json().data).toHaveLength(1);
  });

  it('still need the user’s session', async () => {
    await sdk({ is_enabled: true, api_key: 'sdk-key-0123456789' });
    const res = await client(t.app).raw('PUT', '/mobile-clients', app({ is_sdk: true }), { [MOBILE_SDK_KEY_HEADER]: 'sdk-key-0123456789' });
    expect(res.statusCode).toBe(401);
  });
});
