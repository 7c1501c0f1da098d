// Licences of new users (issue 14): a self-registered client gets its client type's licence, anyone
// else the project's basic licence; periods end, the project's mobile apps run out, bad settings are refused.
import { fullLicenseInfo, UNLIMITED_PERIOD, userLicenseInEffect } from '@atrium/contract';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, client, login } from '../../../test/helpers.js';
import { installLicense, removeLicenses } from '../../../test/licenses.js';
import { codeIn, type RegistrationTestbed, registrationTestbed } from '../../../test/registration-setup.js';
import { auditEvents } from '../audit/audit.table.js';
import { users } from '../users/users.table.js';
import { newUserLicense } from './new-user-license.js';

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;

let bed: RegistrationTestbed;
let admin: Awaited<ReturnType<typeof adminClient>>;
let n = 0;
beforeAll(async () => {
  bed = await registrationTestbed();
  admin = await adminClient(bed.t);
});
afterAll(() => bed?.close());
beforeEach(async () => {
  await bed.switches({ self: true });
});
afterEach(async () => {
  vi.useRealTimers();
  await removeLicenses(bed.t);
  await admin.patch('/settings/general', {
    user_self_register_settings: { clients: [] },
    license_settings: { basic_license: { period: null, qty: null } },
  });
  await db().execute(sql`UPDATE users SET license_info = NULL`);
});

const db = () => bed.t.app.database.db;
const nowS = () => Math.floor(Date.now() / 1000);
const settings = (v: { clients?: unknown[]; basic?: { period: number | null; qty: number | null } }) =>
  admin.patch('/settings/general', {
    ...(v.clients ? { user_self_register_settings: { clients: v.clients } } : {}),
    ...(v.basic ? { license_settings: { basic_license: v.basic } } : {}),
  });
const storedLicense = async (id: number) => (await db().select().from(users).where(eq(users.id, id)))[0]?.licenseInfo ?? null;

/** Registers a person of `userType` and confirms the mailed code: the new account. */
async function selfRegister(userType: 'private' | 'company', password = 'olga-password-1') {
  const email = `licensed${++n}-${process.pid}@example.test`;
  const res = await bed.call('POST', '/registration/self', {
    user_name: 'Olga Petrova',
    user_country: 'lv',
    user_email: email,
    user_type: userType,
    user_phone: '+37120000000',
    object_name: `Flat ${n}`,
    user_password: password,
  });
  expect(res.statusCode, res.body).toBe(200);
  const mail = await bed.peer.next(email);
  const confirmed = await bed.call('POST', '/email/confirm', { code: codeIn(mail.text) });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return { ...(confirmed.json().data as { id: number; login: string }), email, password };
}

const newUser = (over: Record<string, unknown> = {}) =>
  admin.put('/users', { login: `new-${++n}-${process.pid}`, domains: [bed.t.project.rootGroupId], send_registration_link: false, ...over });

describe('a self-registered client', () => {
  it('gets its client type’s licence features, one count each, for the period from the registration', async () => {
    expect(
      (
        await settings({
          clients: [{ type: 'private', role_id: null, license_settings: { period: 30, features: ['sip', 'mobile_app'] } }],
          basic: { period: 5, qty: 4 },
        })
      ).statusCode,
    ).toBe(200);
    const before = nowS();
    const account = await selfRegister('private');
    const info = (await storedLicense(account.id)) as Record<
      string,
      { is_enabled: boolean; license_count: number; period: { from: number; to: number } }
    >;
    expect(Object.keys(info).sort()).toEqual(['mobile_app', 'sip']);
    expect(info.mobile_app).toMatchObject({ is_enabled: true, license_count: 1, is_remote_open_enabled: true });
    expect(info.sip).toMatchObject({ is_enabled: true, license_count: 1 });
    expect(info.mobile_app!.period.from).toBeGreaterThanOrEqual(before);
    expect(info.mobile_app!.period.from).toBeLessThanOrEqual(nowS());
    expect(info.mobile_app!.period.to - info.mobile_app!.period.from).toBe(30 * DAY_S);
    expect(info.sip!.period).toEqual(info.mobile_app!.period);
    // The person sees it on their profile; the audit of the registration names it and where it came from.
    const profile = (await client(bed.t.app, await login(bed.t.app, account.login, account.password)).get('/profile')).json().data;
    expect(profile.license_info.mobile_app).toMatchObject({ is_enabled: true, license_count: 1, period: info.mobile_app!.period });
    expect(profile.license_info.ukey2).toEqual({ is_enabled: false, license_count: null });
    expect(profile.license_state.features).toContain('mobile_app');
    expect(profile.license_state.expiring).toEqual({ sip: null, mobile_app: null });
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'user'), eq(auditEvents.entityId, String(account.id)), eq(auditEvents.action, 'register')));
    expect(audit!.after).toMatchObject({ license_source: 'client', license_info: { mobile_app: { license_count: 1 } } });
  });

  it('of a type without licence features (or a simple registration without one) gets the basic licence; none without one', async () => {
    await settings({
      clients: [
        { type: 'company', role_id: null, license_settings: { period: null, features: [] } },
        { type: 'private', role_id: null, license_settings: { period: null, features: ['ukey2'] } },
      ],
      basic: { period: null, qty: 3 },
    });
    const company = await selfRegister('company');
    expect(await storedLicense(company.id)).toEqual({ mobile_app: { ...fullLicenseInfo().mobile_app, license_count: 3 } });
    // The private type's licence, without a period: unlimited (no period kept).
    const simple = await bed.call('POST', '/registration/simple', { name: 'Tom', login: `tom-${++n}`, password: 'tom-password-1' });
    expect(simple.statusCode, simple.body).toBe(200);
    expect(await storedLicense(simple.json().data.id)).toEqual({ ukey2: { is_enabled: true, license_count: 1 } });
    await settings({ basic: { period: null, qty: null } });
    expect(await storedLicense((await selfRegister('company')).id)).toBeNull();
  });

  it('is made without a licence when the project’s mobile apps are all taken, and the audit says why', async () => {
    const features = fullLicenseInfo();
    features.mobile_app.license_count = 2;
    await installLicense(bed.t, features);
    await settings({ clients: [{ type: 'private', role_id: null, license_settings: { period: 10, features: ['mobile_app', 'sip'] } }] });
    const first = await selfRegister('private');
    const second = await selfRegister('private');
    expect(await storedLicense(first.id)).toMatchObject({ mobile_app: { license_count: 1 } });
    expect(await storedLicense(second.id)).toMatchObject({ mobile_app: { license_count: 1 } });
    const third = await selfRegister('private');
    expect(await storedLicense(third.id)).toBeNull();
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entityId, String(third.id)), eq(auditEvents.action, 'register')));
    expect(audit!.after).toMatchObject({
      license_info: null,
      license_refused: {
        code: 'mobile_app_limit_project',
        message: 'exceeding the maximum mobile apps in the project',
        max_count: 2,
        used: 2,
      },
    });
    // The account itself works.
    expect((await client(bed.t.app, await login(bed.t.app, third.login, third.password)).get('/profile')).statusCode).toBe(200);
  });

  it('is not handed a feature the project’s licence does not hold', async () => {
    const features = fullLicenseInfo();
    features.sip.is_enabled = false;
    await installLicense(bed.t, features);
    await settings({ clients: [{ type: 'private', role_id: null, license_settings: { period: null, features: ['sip', 'ukey2'] } }] });
    expect(await storedLicense((await selfRegister('private')).id)).toEqual({ ukey2: { is_enabled: true, license_count: 1 } });
  });
});

describe('a user made by an administrator', () => {
  it('gets the basic licence: qty mobile apps for period days, shown on the user', async () => {
    await settings({ basic: { period: 10, qty: 2 } });
    const res = await newUser({ email: `invited${n}@example.test`, send_registration_link: true });
    expect(res.statusCode, res.body).toBe(200);
    const user = res.json().data;
    expect(user.license_info.mobile_app).toMatchObject({ is_enabled: true, license_count: 2 });
    const { from, to } = user.license_info.mobile_app.period;
    expect(Math.abs(from - nowS())).toBeLessThanOrEqual(5);
    expect(to - from).toBe(10 * DAY_S);
    expect((await admin.get(`/users/${user.id}`)).json().data.license_info).toEqual(user.license_info);
    // Licence info sent with the user wins, null included (no licence).
    const none = await newUser({ license_info: null });
    expect(none.json().data.license_info).toBeNull();
    const own = await newUser({ license_info: { ukey2: { is_enabled: true, license_count: 5 } } });
    expect(own.json().data.license_info).toEqual({ ukey2: { is_enabled: true, license_count: 5 } });
  });

  it('is given the basic licence by one who may create users but not edit licences, who still cannot send one', async () => {
    await settings({ basic: { period: null, qty: 1 } });
    const role = await makeRole(db(), bed.t.project.projectId, ['can_create_users', 'can_view_all_users', 'can_edit_all_users']);
    const u = await makeUser(db(), { projectId: bed.t.project.projectId, roleId: role, groupIds: [bed.t.project.rootGroupId] });
    const creator = client(bed.t.app, await login(bed.t.app, u.login, u.password));
    const made = await creator.put('/users', {
      login: `by-creator-${++n}`,
      domains: [bed.t.project.rootGroupId],
      send_registration_link: false,
    });
    expect(made.statusCode, made.body).toBe(200);
    expect(await storedLicense(made.json().data.id)).toEqual({ mobile_app: { ...fullLicenseInfo().mobile_app, license_count: 1 } });
    const refused = await creator.put('/users', {
      login: `by-creator-${++n}`,
      domains: [bed.t.project.rootGroupId],
      send_registration_link: false,
      license_info: null,
    });
    expect(refused.statusCode).toBe(403);
  });

  it('is refused with the spec’s licence message when the project’s mobile apps cannot hold the basic licence', async () => {
    const features = fullLicenseInfo();
    features.mobile_app.license_count = 3;
    await installLicense(bed.t, features);
    await settings({ basic: { period: 30, qty: 2 } });
    expect((await newUser()).statusCode).toBe(200);
    const login = `over-${++n}`;
    const over = await newUser({ login });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      code: 'mobile_app_limit_project',
      message: 'exceeding the maximum mobile apps in the project',
      details: [{ field: 'license_info', params: { max_count: 3, used: 4 } }],
    });
    expect(await db().select().from(users).where(eq(users.login, login))).toEqual([]);
    // Without a licence (sent by one who may) the user is made.
    expect((await newUser({ login, license_info: null })).statusCode).toBe(200);
  });
});

describe('the end of a new user’s licence period', () => {
  it('warns as it nears, turns the feature off and frees the mobile app once it is over (a moved clock)', async () => {
    const features = fullLicenseInfo();
    features.mobile_app.license_count = 1;
    await installLicense(bed.t, features);
    await settings({
      clients: [{ type: 'private', role_id: null, license_settings: { period: 20, features: ['mobile_app'] } }],
      basic: { period: null, qty: 1 },
    });
    const account = await selfRegister('private');
    const start = Date.now();
    /** The person's profile, and whether an administrator can make a user with the basic licence, `days` on. */
    const at = async (days: number) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(start + days * DAY_MS);
      bed.t.app.services.licenses.invalidate();
      const me = client(bed.t.app, await login(bed.t.app, account.login, account.password));
      const made = await client(bed.t.app, await login(bed.t.app, bed.t.adminLogin, bed.t.adminPassword)).put('/users', {
        login: `later-${++n}`,
        domains: [bed.t.project.rootGroupId],
        send_registration_link: false,
      });
      return { profile: (await me.get('/profile')).json().data, made: made.json() };
    };
    const early = await at(1);
    expect(early.profile.license_state.expiring.mobile_app).toBeNull();
    expect(early.made.code).toBe('mobile_app_limit_project');
    const near = await at(17);
    expect(near.profile.license_state.expiring.mobile_app).toEqual({ status: 'will_expire', days: 3 });
    expect(near.made.code).toBe('mobile_app_limit_project');
    const over = await at(21);
    expect(over.profile.license_state.expiring.mobile_app).toEqual({ status: 'already_expired', days: 0 });
    expect(over.profile.license_state.expiring.sip).toBeNull();
    // Its licence info stays as granted, period included; its app no longer takes the project's only one.
    expect(over.profile.license_info.mobile_app).toMatchObject({ is_enabled: true, license_count: 1 });
    expect(over.made.data.license_info.mobile_app).toMatchObject({ is_enabled: true, license_count: 1 });
  });

  it('is evaluated block by block: pending before, off after, unlimited without a period', () => {
    const now = Date.UTC(2026, 0, 10);
    const s = Math.floor(now / 1000);
    const stored = {
      sip: { is_enabled: true, license_count: 1, period: { from: s + DAY_S, to: s + 10 * DAY_S } },
      mobile_app: { is_enabled: true, license_count: 2, period: { from: s - 10 * DAY_S, to: s - 1 } },
      ukey2: { is_enabled: true, license_count: 1 },
    };
    const { info, expiring } = userLicenseInEffect(stored, now);
    expect(info.sip.is_enabled).toBe(false);
    expect(info.mobile_app).toMatchObject({ is_enabled: false, license_count: null, period: stored.mobile_app.period });
    expect(info.ukey2).toEqual({ is_enabled: true, license_count: 1 });
    expect(info.elevator).toEqual({ is_enabled: false });
    expect(expiring).toEqual({ sip: null, mobile_app: { status: 'already_expired', days: 0 }, ukey2: null });
    expect(userLicenseInEffect({ sip: { is_enabled: true, period: { from: s, to: s + DAY_S } } }, now).expiring.sip).toEqual({
      status: 'will_expire',
      days: 1,
    });
    // A period that would run past the spec's unlimited end is cut there, never beyond.
    const far = newUserLicense({ clients: null, basic: { period: 36_500, qty: 1 } }, null, fullLicenseInfo(), 999_000_000_000_000);
    expect(far?.info.mobile_app?.period).toEqual({ from: 999_000_000_000, to: UNLIMITED_PERIOD.to });
  });
});

describe('the general settings of new users’ licences', () => {
  it('refuses bad periods, quantities and features with field details, and writes nothing', async () => {
    const before = (await admin.get('/settings/general')).json().data;
    const bad = await admin.patch('/settings/general', {
      user_self_register_settings: {
        clients: [
          { type: 'private', role_id: null, license_settings: { period: 0, features: ['mobile_app'] } },
          { type: 'company', role_id: null, license_settings: { period: 30, features: ['elevator'] } },
        ],
      },
      license_settings: { basic_license: { period: 36_501, qty: 2.5 } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('invalid data sent');
    const fields = bad
      .json()
      .details.map((d: { field: string }) => d.field)
      .sort();
    expect(fields).toEqual(
      [
        'license_settings.basic_license.period',
        'license_settings.basic_license.qty',
        'user_self_register_settings.clients.0.license_settings.period',
        'user_self_register_settings.clients.1.license_settings.features.0',
      ].sort(),
    );
    // A period says how long a licence lasts: it needs features (a client) or a quantity (the basic licence).
    const nothing = await admin.patch('/settings/general', {
      user_self_register_settings: { clients: [{ type: 'private', role_id: null, license_settings: { period: 30, features: [] } }] },
      license_settings: { basic_license: { period: 30, qty: null } },
    });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: 'user_self_register_settings.clients.0.license_settings.features',
          message: 'validation.required',
        }),
        expect.objectContaining({ field: 'license_settings.basic_license.qty', message: 'validation.required' }),
      ]),
    );
    expect((await admin.get('/settings/general')).json().data).toEqual(before);
    // What is valid is kept and answered.
    const ok = await settings({ basic: { period: 365, qty: 1 } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.license_settings).toEqual({ basic_license: { period: 365, qty: 1 } });
  });
});
