// Telephony through the API: virtual numbers, forward rules, SIP trunks, interception, concierge
// doors, call history and the SIP service, each rule of spec comms §5, §6 and §8 with an allowed
// and a refused case, scope leaks included.
import { fullLicenseInfo, isSipPassword, type LicenseInfo } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { installLicense, removeLicenses } from '../../../test/licenses.js';
import { queryRows } from '../../core/db/client.js';
import { telephonyOf } from './telephony.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let devices: DeviceHarness;
let root: number;
let buildingA: number;
let buildingB: number;
let flatA1: number;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  devices = await deviceHarness(t);
  root = t.project.rootGroupId;
  buildingA = await makeGroup(t.database.db, t.project.projectId, root, 'Building A');
  buildingB = await makeGroup(t.database.db, t.project.projectId, root, 'Building B');
  flatA1 = await makeGroup(t.database.db, t.project.projectId, buildingA, 'Flat A1');
});
afterAll(async () => {
  await devices.close();
  await t.close();
});

const PW = 'Secret123abc';
let seq = 5000;
const nextNumber = () => String(++seq);

/** A signed-in user with exactly these permissions, in these groups. */
async function member(permissions: string[], groupIds: number[], extra: { license?: Partial<LicenseInfo>; name?: string } = {}) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, {
    projectId: t.project.projectId,
    roleId,
    groupIds,
    ...(extra.name ? { name: extra.name } : {}),
  });
  if (extra.license)
    await t.database.db.execute(sql`UPDATE users SET license_info = ${JSON.stringify(extra.license)}::jsonb WHERE id = ${u.id}`);
  return { ...u, api: client(t.app, await login(t.app, u.login, u.password)) };
}

async function setServerLicense(change: (l: LicenseInfo) => void) {
  const features = fullLicenseInfo();
  change(features);
  await removeLicenses(t);
  await installLicense(t, features);
}
async function resetServerLicense() {
  await removeLicenses(t);
}

const newNumber = async (body: Record<string, unknown> = {}) => {
  const res = await admin.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: root, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { id: number; number: string; purpose: string | null };
};

describe('virtual numbers', () => {
  it('refuse bad input with the spec’s messages', async () => {
    const put = (body: Record<string, unknown>) =>
      admin.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: root, ...body });
    const detail = async (body: Record<string, unknown>) => (await put(body)).json().details?.[0];
    expect(await detail({ password: 'alllowercase1' })).toMatchObject({ field: 'password', message: 'validation.sip_password' });
    expect(await detail({ password: 'NOLOWER123' })).toMatchObject({ field: 'password', message: 'validation.sip_password' });
    expect(await detail({ password: 'NoDigitsHere' })).toMatchObject({ field: 'password', message: 'validation.sip_password' });
    expect(await detail({ number: '12a' })).toMatchObject({ field: 'number' });
    expect(await detail({ domain_id: undefined })).toMatchObject({ field: 'domain_id' });
    expect(await detail({ forward_mode: 'sometimes' })).toMatchObject({ field: 'forward_mode' });
    expect(await detail({ extra: 1 })).toMatchObject({ message: 'validation.unknown_field' });
    expect(await detail({ forward_mode: 'manual' })).toMatchObject({ field: 'forward_rules', message: 'validation.forward_needs_number' });
    expect(await detail({ forward_mode: 'picked' })).toMatchObject({ field: 'forward_group_id', message: 'validation.required' });
    const user = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [root] });
    const panel = (await admin.put('/devices', { name: 'P', model: 'AP-100', serial_number: 'VN-BOTH', domain_id: root })).json().data;
    expect(await detail({ user_id: user.id, device_id: panel.id })).toMatchObject({ field: 'device_id' });
    expect((await put({ domain_id: 999_999 })).json().code).toBe('invalid_related_entity');
    expect((await put({ user_id: 999_999 })).json().code).toBe('invalid_related_entity');
    expect((await put({ forward_group_id: 999_999 })).json().code).toBe('invalid_related_entity');
  });

  it('are created, read with the password masked, listed with relations, filtered, sorted and searched', async () => {
    const owner = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [flatA1], name: 'Olga Owner' });
    const created = await admin.put('/sip-numbers', {
      number: '7001',
      name: 'Olga',
      password: PW,
      domain_id: flatA1,
      user_id: owner.id,
    });
    expect(created.statusCode, created.body).toBe(200);
    const n = created.json().data;
    expect(n).toMatchObject({ number: '7001', password: '********', user_id: owner.id, domain_id: flatA1, owner_info: 'Olga Owner' });
    // The first number of a user is their master number: the profile and the user record name it.
    expect(n.purpose).toBe('master_sip_number');
    const ownerApi = client(t.app, await login(t.app, owner.login, owner.password));
    expect((await ownerApi.get('/profile')).json().data.profile.sip_number).toBe('7001');
    expect((await admin.get(`/users/${owner.id}`)).json().data.profile.sip_number_id).toBe(n.id);
    const one = (await admin.get(`/sip-numbers/${n.id}?with=user,domain,device,forward_group`)).json().data;
    expect(one).toMatchObject({ user: { id: owner.id, name: 'Olga Owner' }, domain: { id: flatA1, name: 'Flat A1' }, device: null });
    expect(JSON.stringify(one)).not.toContain(PW);
    const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'domain_id', operator: 'equals', value: flatA1 }] }));
    const listed = (await admin.get(`/sip-numbers?filters=${filters}&with=user`)).json();
    expect(listed.data.map((x: { number: string }) => x.number)).toEqual(['7001']);
    expect(listed.data[0].user).toEqual({ id: owner.id, name: 'Olga Owner' });
    expect((await admin.get('/sip-numbers?search=olg')).json().data.map((x: { number: string }) => x.number)).toContain('7001');
    expect((await admin.get('/sip-numbers?sort=-number&size=1')).json().meta.total).toBeGreaterThan(0);
    expect((await admin.get('/sip-numbers?sort=password')).statusCode).toBe(400);
    expect((await admin.get('/sip-numbers?with=secrets')).statusCode).toBe(400);
    // A second number of the same user does not take over the master…
    const second = await newNumber({ user_id: owner.id, domain_id: flatA1 });
    expect(second.purpose).toBeNull();
    // …unless asked to: the previous master steps down.
    const third = await newNumber({ user_id: owner.id, domain_id: flatA1, purpose: 'master_sip_number' });
    expect(third.purpose).toBe('master_sip_number');
    expect((await admin.get(`/sip-numbers/${n.id}`)).json().data.purpose).toBeNull();
    expect((await ownerApi.get('/profile')).json().data.profile.sip_number).toBe(third.number);
  });

  it('keep the rules of §8: a free number, one number per device, one number per group, group and master numbers kept', async () => {
    const taken = await newNumber();
    const dup = await admin.put('/sip-numbers', { number: taken.number, password: PW, domain_id: root });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('virtual number is not free');

    const panel = (await admin.put('/devices', { name: 'Gate', model: 'AP-100', serial_number: 'VN-GATE', domain_id: buildingA })).json()
      .data;
    const withDevice = await newNumber({ device_id: panel.id, domain_id: buildingA });
    expect(withDevice.purpose).toBe('device_sip_number');
    const again = await admin.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: buildingA, device_id: panel.id });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('device already has virtual number');
    const lift = (
      await admin.put('/devices', { name: 'Lift', type: 'liftcontroller', model: 'LC-16', serial_number: 'VN-LIFT', domain_id: root })
    ).json().data;
    expect((await admin.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: root, device_id: lift.id })).json().code).toBe(
      'invalid_related_entity',
    );

    const groupNumber = await newNumber({ domain_id: buildingB, purpose: 'group_sip_number' });
    const second = await admin.put('/sip-numbers', {
      number: nextNumber(),
      password: PW,
      domain_id: buildingB,
      purpose: 'group_sip_number',
    });
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toBe('sip number for the group exists');
    const delGroup = await admin.delete(`/sip-numbers/${groupNumber.id}`);
    expect(delGroup.statusCode).toBe(409);
    expect(delGroup.json().message).toBe('cannot delete group numbers');

    const user = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [root] });
    const master = await newNumber({ user_id: user.id });
    const delMaster = await admin.delete(`/sip-numbers/${master.id}`);
    expect(delMaster.statusCode).toBe(409);
    expect(delMaster.json().message).toBe('cannot delete user master numbers');

    const spare = await newNumber();
    const bulk = (await admin.post('/sip-numbers/delete', { items: [spare.id, master.id, 999_999] })).json().data;
    expect(bulk.deleted).toEqual([spare.id]);
    expect(bulk.not_deleted.map((x: { code: string }) => x.code).sort()).toEqual(['cannot_delete_master_number', 'not_found']);
    expect((await admin.delete(`/sip-numbers/${withDevice.id}`)).statusCode).toBe(200);
    // Once its user is gone, a master number may go too.
    expect((await admin.delete(`/users/${user.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/sip-numbers/${master.id}`)).json().data.user_id).toBeNull();
    expect((await admin.delete(`/sip-numbers/${master.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/sip-numbers/${withDevice.id}`)).statusCode).toBe(404);
  });

  it('keep the password when an update omits it or sends the placeholder, and change it when a new one is sent', async () => {
    const { directory } = telephonyOf(t.app);
    const n = await newNumber();
    expect((await admin.patch(`/sip-numbers/${n.id}`, { name: 'renamed' })).statusCode).toBe(200);
    expect((await admin.patch(`/sip-numbers/${n.id}`, { password: '********' })).statusCode).toBe(200);
    expect(await directory.credentials(n.number)).toEqual({ password: PW });
    expect((await admin.patch(`/sip-numbers/${n.id}`, { password: 'weak' })).json().details[0]).toMatchObject({
      field: 'password',
      message: 'validation.sip_password',
    });
    expect((await admin.patch(`/sip-numbers/${n.id}`, { password: 'NewSecret456' })).statusCode).toBe(200);
    expect(await directory.credentials(n.number)).toEqual({ password: 'NewSecret456' });
    // Inactive and reserved (system) numbers may not register.
    await admin.patch(`/sip-numbers/${n.id}`, { is_active: false });
    expect(await directory.credentials(n.number)).toBeNull();
    await admin.patch(`/sip-numbers/${n.id}`, { is_active: true, is_reserved: true });
    expect(await directory.credentials(n.number)).toBeNull();
    expect(await directory.credentials('0000000')).toBeNull();
  });

  it('follow the user form: profile.sip_number_id picks the user’s master number', async () => {
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [root] });
    const other = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [root] });
    const free = await newNumber();
    const taken = await newNumber({ user_id: other.id });
    const picked = await admin.patch(`/users/${u.id}`, { profile: { sip_number_id: free.id } });
    expect(picked.statusCode, picked.body).toBe(200);
    expect(picked.json().data.profile.sip_number_id).toBe(free.id);
    expect((await admin.get(`/sip-numbers/${free.id}`)).json().data).toMatchObject({ user_id: u.id, purpose: 'master_sip_number' });
    expect((await admin.patch(`/users/${u.id}`, { profile: { sip_number_id: taken.id } })).json().code).toBe('invalid_related_entity');
    const cleared = await admin.patch(`/users/${u.id}`, { profile: { sip_number_id: null } });
    expect(cleared.json().data.profile.sip_number_id).toBeNull();
    expect((await admin.get(`/sip-numbers/${free.id}`)).json().data).toMatchObject({ user_id: u.id, purpose: null });
  });

  it('generate a free number and a strong password', async () => {
    const g = (await admin.get('/sip-numbers/generate')).json().data;
    expect(isSipPassword(g.password)).toBe(true);
    expect(g.password).toHaveLength(16);
    expect((await admin.put('/sip-numbers', { number: g.number, password: g.password, domain_id: root })).statusCode).toBe(200);
    expect((await admin.get('/sip-numbers/generate')).json().data.number).not.toBe(g.number);
  });

  it('need their permissions: view scopes, create, edit, activate, mark system, delete', async () => {
    const inA = await newNumber({ domain_id: flatA1 });
    const inB = await newNumber({ domain_id: buildingB });
    const none = await member([], [buildingA]);
    expect((await none.api.get('/sip-numbers')).statusCode).toBe(403);
    expect((await none.api.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: buildingA })).statusCode).toBe(403);
    expect((await none.api.get('/sip-numbers/generate')).statusCode).toBe(403);

    const viewer = await member(['can_view_descendant_virtual_numbers'], [buildingA]);
    const seen = (await viewer.api.get('/sip-numbers?size=1000')).json();
    const ids = seen.data.map((x: { id: number }) => x.id);
    expect(ids).toContain(inA.id);
    expect(ids).not.toContain(inB.id);
    expect(seen.meta.total).toBe(ids.length);
    expect((await viewer.api.get(`/sip-numbers/${inB.id}`)).statusCode).toBe(404);
    expect((await viewer.api.get(`/sip-numbers/${inA.id}`)).json().data).toMatchObject({ can_edit: false, can_delete: false });
    expect((await viewer.api.patch(`/sip-numbers/${inA.id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await viewer.api.delete(`/sip-numbers/${inA.id}`)).statusCode).toBe(403);

    const editor = await member(
      ['can_view_descendant_virtual_numbers', 'can_edit_virtual_numbers', 'can_create_virtual_numbers'],
      [buildingA],
    );
    expect((await editor.api.patch(`/sip-numbers/${inA.id}`, { name: 'ok' })).statusCode).toBe(200);
    expect((await editor.api.patch(`/sip-numbers/${inB.id}`, { name: 'no' })).statusCode).toBe(404);
    expect((await editor.api.patch(`/sip-numbers/${inA.id}`, { is_active: false })).statusCode).toBe(403);
    expect((await editor.api.patch(`/sip-numbers/${inA.id}`, { is_reserved: true })).statusCode).toBe(403);
    expect(
      (await editor.api.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: buildingA, is_reserved: true })).statusCode,
    ).toBe(403);
    // A group outside the editor's reach is not theirs to use.
    expect((await editor.api.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: buildingB })).json().code).toBe(
      'invalid_related_entity',
    );
    const made = await editor.api.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: flatA1 });
    expect(made.statusCode, made.body).toBe(200);
    const activator = await member(['can_view_all_virtual_numbers', 'can_edit_virtual_numbers', 'can_activate_virtual_numbers'], [root]);
    expect((await activator.api.patch(`/sip-numbers/${inB.id}`, { is_active: false })).json().data.is_active).toBe(false);

    const own = await member(['can_view_own_virtual_numbers'], [buildingB]);
    const mine = await newNumber({ user_id: own.id, domain_id: buildingB });
    const ownList = (await own.api.get('/sip-numbers')).json().data.map((x: { id: number }) => x.id);
    expect(ownList).toEqual([mine.id]);
  });

  it('never show a relation the viewer may not see', async () => {
    const hidden = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [buildingB], name: 'Hidden Harry' });
    // A number in the viewer's building given to a user of another building.
    const n = await newNumber({ domain_id: buildingA, user_id: hidden.id });
    const viewer = await member(['can_view_descendant_virtual_numbers'], [buildingA]);
    const got = (await viewer.api.get(`/sip-numbers/${n.id}?with=user,domain`)).json().data;
    expect(got.user).toBeNull();
    expect(got.owner_info).toBe('Building A');
    expect(got.domain).toEqual({ id: buildingA, name: 'Building A' });
    expect(JSON.stringify((await viewer.api.get('/sip-numbers?with=user&size=1000')).json())).not.toContain('Hidden Harry');
  });

  it('follow the SIP licence: off, over the total count, over a user’s count', async () => {
    try {
      await setServerLicense((l) => {
        l.sip.is_enabled = false;
      });
      expect((await admin.get('/sip-numbers')).statusCode).toBe(403);
      expect((await admin.get('/forward-rules')).statusCode).toBe(403);
      expect((await admin.get('/calls/history/items')).statusCode).toBe(403);
      // The user's own SIP licence is enough (hidden only when both are off).
      const licensed = await member(['can_view_all_virtual_numbers'], [root], {
        license: { sip: { is_enabled: true, is_sip_trunks_enabled: false, is_web_dialer_enabled: false, license_count: null } },
      });
      expect((await licensed.api.get('/sip-numbers')).statusCode).toBe(200);
      // …within its period only: one that ended yesterday or begins tomorrow is off.
      const day = 86_400;
      const now = Math.floor(Date.now() / 1000);
      for (const period of [
        { from: now - 30 * day, to: now - day },
        { from: now + day, to: now + 30 * day },
      ]) {
        const outside = await member(['can_view_all_virtual_numbers'], [root], {
          license: {
            sip: { is_enabled: true, is_sip_trunks_enabled: false, is_web_dialer_enabled: false, license_count: null, period } as never,
          },
        });
        expect((await outside.api.get('/sip-numbers')).statusCode).toBe(403);
      }
      const within = await member(['can_view_all_virtual_numbers'], [root], {
        license: {
          sip: {
            is_enabled: true,
            is_sip_trunks_enabled: false,
            is_web_dialer_enabled: false,
            license_count: null,
            period: { from: now - day, to: now + day },
          } as never,
        },
      });
      expect((await within.api.get('/sip-numbers')).statusCode).toBe(200);

      const used = (await queryRows<{ used: number }>(t.database.db, sql`SELECT count(*)::int AS used FROM sip_numbers`))[0]?.used ?? 0;
      await setServerLicense((l) => {
        l.sip.license_count = Number(used) + 1;
      });
      const last = await newNumber();
      const over = await admin.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: root });
      expect(over.statusCode).toBe(403);
      expect(over.json().message).toBe('total sip numbers limit reached');
      // Over the limit (the licence shrank): viewing and deleting remain, changes do not.
      await setServerLicense((l) => {
        l.sip.license_count = Number(used) - 1;
      });
      expect((await admin.get('/sip-numbers')).statusCode).toBe(200);
      expect((await admin.patch(`/sip-numbers/${last.id}`, { name: 'x' })).json().message).toBe('total sip numbers limit reached');
      expect((await admin.delete(`/sip-numbers/${last.id}`)).statusCode).toBe(200);
    } finally {
      await resetServerLicense();
    }
    const capped = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [root] });
    await t.database.db.execute(
      sql`UPDATE users SET license_info = ${JSON.stringify({ sip: { is_enabled: true, is_sip_trunks_enabled: false, is_web_dialer_enabled: true, license_count: 1 } })}::jsonb WHERE id = ${capped.id}`,
    );
    await newNumber({ user_id: capped.id });
    const more = await admin.put('/sip-numbers', { number: nextNumber(), password: PW, domain_id: root, user_id: capped.id });
    expect(more.statusCode).toBe(403);
    expect(more.json().message).toBe('sip numbers per user limit reached');
    const spare = await newNumber();
    expect((await admin.patch(`/sip-numbers/${spare.id}`, { user_id: capped.id })).json().message).toBe(
      'sip numbers per user limit reached',
    );
  });
});

describe('contacts and call info', () => {
  it('list the numbers the caller may call by the call rules, the caller excluded', async () => {
    const g = await makeGroup(t.database.db, t.project.projectId, root, 'Tower');
    const sub = await makeGroup(t.database.db, t.project.projectId, g, 'Tower floor 1');
    const other = await makeGroup(t.database.db, t.project.projectId, root, 'Elsewhere');
    const neighbour = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [g], name: 'Nina Neighbour' });
    const below = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [sub], name: 'Bob Below' });
    const stranger = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [other], name: 'Sam Stranger' });
    const nNeighbour = await newNumber({ user_id: neighbour.id, domain_id: g });
    const nBelow = await newNumber({ user_id: below.id, domain_id: sub });
    const nStranger = await newNumber({ user_id: stranger.id, domain_id: other });
    const panel = (await admin.put('/devices', { name: 'Tower door', model: 'AP-100', serial_number: 'CT-PANEL', domain_id: g })).json()
      .data;
    const nPanel = await newNumber({ device_id: panel.id, domain_id: g });
    const conciergeRole = await makeRole(t.database.db, t.project.projectId, ['can_receive_calls_as_concierge']);
    const concierge = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: conciergeRole,
      groupIds: [root],
      name: 'Connie',
    });
    const nConcierge = await newNumber({ user_id: concierge.id });

    const numbersOf = async (api: ReturnType<typeof client>) =>
      ((await api.get('/sip-numbers/contacts')).json().data as { number: string }[]).map((c) => c.number);
    const ownGroup = await member(['can_call_own_group'], [g]);
    await newNumber({ user_id: ownGroup.id, domain_id: g });
    const a = await numbersOf(ownGroup.api);
    expect(a).toContain(nNeighbour.number);
    expect(a).toContain(nConcierge.number); // a concierge of a group above the caller
    expect(a).not.toContain(nBelow.number);
    expect(a).not.toContain(nStranger.number);
    expect(a).not.toContain(nPanel.number); // panels need "call panels"

    const descendants = await member(['can_call_descendants', 'can_call_panel'], [g]);
    const mine = await newNumber({ user_id: descendants.id, domain_id: g });
    const b = await numbersOf(descendants.api);
    expect(b).toEqual(expect.arrayContaining([nNeighbour.number, nBelow.number, nPanel.number]));
    expect(b).not.toContain(nStranger.number);
    expect(b).not.toContain(mine.number);
    const contact = ((await descendants.api.get('/sip-numbers/contacts')).json().data as { number: string }[]).find(
      (c) => c.number === nBelow.number,
    );
    expect(contact).toMatchObject({ user: { id: below.id, name: 'Bob Below' }, owner_info: 'Bob Below' });

    const everyone = await member(['can_call_all'], [other]);
    await newNumber({ user_id: everyone.id, domain_id: other });
    const c = await numbersOf(everyone.api);
    expect(c).toEqual(expect.arrayContaining([nNeighbour.number, nBelow.number, nStranger.number]));
    expect(c).not.toContain(nPanel.number);

    // Without a number of one's own there is nobody to call from.
    const noNumber = await member(['can_call_all'], [root]);
    expect(await numbersOf(noNumber.api)).toEqual([]);

    // Call info: who stands behind a number, for its viewers and for the parties that may call it.
    const info = (await descendants.api.get(`/sip-numbers/${nPanel.id}/call-info`)).json().data;
    expect(info).toEqual({ user: 'Tower door', address: expect.stringContaining('Tower') });
    expect((await admin.get(`/sip-numbers/${nBelow.id}/call-info`)).json().data.user).toBe('Bob Below');
    expect((await descendants.api.get(`/sip-numbers/${nStranger.id}/call-info`)).statusCode).toBe(404);
  });
});

describe('forward rules', () => {
  const body = (extra: Record<string, unknown> = {}, params: Record<string, unknown> = {}) => ({
    name: 'Reception',
    domain_id: root,
    params: { numbers: ['9001'], ...params },
    ...extra,
  });
  beforeAll(async () => {
    await admin.put('/sip-numbers', { number: '9001', password: PW, domain_id: root });
    await admin.put('/sip-numbers', { number: '9002', password: PW, domain_id: buildingB });
  });

  it('keep their defaults and refuse bad input', async () => {
    const created = await admin.put('/forward-rules', body());
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().data).toMatchObject({
      name: 'Reception',
      params: {
        numbers: ['9001'],
        timeout: 60,
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        period: { from: 0, to: 86400 },
        trunk_numbers: [],
      },
      forward_rules: { redirect_if_no_answer: null, redirect_if_error: null },
    });
    const detail = async (b: Record<string, unknown>) => (await admin.put('/forward-rules', b)).json().details?.[0];
    expect(await detail(body({}, { numbers: [] }))).toMatchObject({ field: 'params.numbers', message: 'validation.forward_needs_number' });
    expect(await detail(body({}, { days: [] }))).toMatchObject({ field: 'params.days' });
    expect(await detail(body({}, { period: { from: 3600, to: 3600 } }))).toMatchObject({ field: 'params.period.to' });
    expect(await detail(body({}, { trunk_numbers: ['+44 20 7946 0958'], trunk_id: 1 }))).toMatchObject({ message: 'validation.no_spaces' });
    expect(await detail(body({}, { trunk_numbers: ['12345'], trunk_id: 1 }))).toMatchObject({ message: 'validation.phone_international' });
    expect(await detail(body({}, { trunk_numbers: ['+442079460958'] }))).toMatchObject({ field: 'params.trunk_id' });
    expect(await detail(body({ name: '' }))).toMatchObject({ field: 'name' });
    expect((await admin.put('/forward-rules', body({}, { numbers: ['123456789'] }))).json().code).toBe('invalid_related_entity');
    expect((await admin.put('/forward-rules', body({}, { trunk_numbers: ['+442079460958'], trunk_id: 999_999 }))).json().code).toBe(
      'invalid_related_entity',
    );
  });

  it('are read, updated, listed and deleted; numbers that picked a deleted group forward nothing', async () => {
    const fg = (await admin.put('/forward-rules', body({ name: 'Night desk' }))).json().data;
    const patched = await admin.patch(`/forward-rules/${fg.id}`, {
      params: { numbers: ['9001', '9002'], timeout: 30, days: ['sat', 'sun'], period: { from: 0, to: 3600 } },
      forward_rules: { redirect_if_no_answer: { numbers: ['9002'] } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.forward_rules.redirect_if_no_answer).toEqual({ timeout: 10, numbers: ['9002'] });
    expect((await admin.get(`/forward-rules/${fg.id}?with=domain`)).json().data.domain).toMatchObject({ id: root });
    expect((await admin.get('/forward-rules?search=night')).json().data.map((x: { id: number }) => x.id)).toEqual([fg.id]);
    const n = await newNumber({ forward_mode: 'picked', forward_group_id: fg.id });
    expect((await admin.delete(`/forward-rules/${fg.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/sip-numbers/${n.id}`)).json().data).toMatchObject({ forward_mode: 'disabled', forward_group_id: null });
    const a = (await admin.put('/forward-rules', body({ name: 'A' }))).json().data;
    expect((await admin.post('/forward-rules/delete', { items: [a.id, 999_999] })).json().data).toMatchObject({ deleted: [a.id] });
  });

  it('need their permissions, within the holder’s groups', async () => {
    const inB = (await admin.put('/forward-rules', body({ name: 'B desk', domain_id: buildingB }, { numbers: ['9002'] }))).json().data;
    const inRoot = (await admin.put('/forward-rules', body({ name: 'Root desk' }))).json().data;
    const none = await member([], [buildingB]);
    expect((await none.api.get('/forward-rules')).statusCode).toBe(403);
    expect((await none.api.put('/forward-rules', body({ domain_id: buildingB }, { numbers: ['9002'] }))).statusCode).toBe(403);
    const viewer = await member(['can_view_forward_rules'], [buildingB]);
    const seen = (await viewer.api.get('/forward-rules')).json();
    expect(seen.data.map((x: { id: number }) => x.id)).toEqual([inB.id]);
    expect(seen.meta.total).toBe(1);
    expect((await viewer.api.get(`/forward-rules/${inRoot.id}`)).statusCode).toBe(404);
    expect((await viewer.api.patch(`/forward-rules/${inB.id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await viewer.api.delete(`/forward-rules/${inB.id}`)).statusCode).toBe(403);
    const editor = await member(
      ['can_view_forward_rules', 'can_edit_forward_rules', 'can_delete_forward_rules', 'can_create_forward_rules'],
      [buildingB],
    );
    expect((await editor.api.patch(`/forward-rules/${inB.id}`, { name: 'B desk 2' })).statusCode).toBe(200);
    expect((await editor.api.patch(`/forward-rules/${inRoot.id}`, { name: 'no' })).statusCode).toBe(404);
    expect((await editor.api.put('/forward-rules', body({ domain_id: root }))).json().code).toBe('invalid_related_entity');
    expect((await editor.api.delete(`/forward-rules/${inB.id}`)).statusCode).toBe(200);
  });
});

describe('SIP trunks', () => {
  const trunk = (extra: Record<string, unknown> = {}) => ({
    name: 'City line',
    outgoing_number: '+442079460958',
    termination_uri: 'sip:trunk.example.net:5060',
    login: 'atrium',
    password: 'trunk-secret',
    domains: [root],
    ...extra,
  });

  it('keep the rules of §5 and §8 and never send the password back', async () => {
    const created = await admin.put('/sip-trunks', trunk());
    expect(created.statusCode, created.body).toBe(200);
    const tr = created.json().data;
    expect(tr).toMatchObject({ outgoing_number: '+442079460958', password: '********', domains: [root] });
    const detail = async (b: Record<string, unknown>) => (await admin.put('/sip-trunks', b)).json();
    expect((await detail(trunk({ outgoing_number: '+44 20 7946 0958' }))).details[0]).toMatchObject({ message: 'validation.no_spaces' });
    expect((await detail(trunk({ outgoing_number: '2079460958' }))).details[0]).toMatchObject({
      message: 'validation.phone_international',
    });
    expect((await detail(trunk({ domains: [] }))).details[0]).toMatchObject({ field: 'domains', message: 'validation.required' });
    expect((await detail(trunk({ termination_uri: 'http://x' }))).details[0]).toMatchObject({ message: 'validation.sip_uri' });
    // This server however its address is spelt: IPv4 shorthand, IPv4-mapped IPv6, another loopback, a name.
    for (const uri of [
      'sip:127.0.0.1',
      'sip:localhost:5060',
      'sips:user@[::1]:5061;transport=tls',
      'sip:127.1',
      'sip:0x7f.1:5060',
      'sip:2130706433',
      'sip:[::ffff:127.0.0.1]',
      'sip:[0:0:0:0:0:ffff:7f00:1]:5060',
      'sip:127.0.0.2',
      'sip:LOCALHOST',
    ]) {
      const res = await admin.put('/sip-trunks', trunk({ termination_uri: uri }));
      expect(res.statusCode, uri).toBe(400);
      expect(res.json().message).toBe('sip trunk uri equals server address');
    }
    // Another port of this host is not this SIP server (another SIP service may listen there).
    const beside = await admin.put('/sip-trunks', trunk({ name: 'Local PBX', termination_uri: 'sip:127.0.0.1:5070' }));
    expect(beside.statusCode, beside.body).toBe(200);
    expect((await admin.post('/sip-trunks/delete', { items: [beside.json().data.id] })).statusCode).toBe(200);
    expect((await detail(trunk({ domains: [999_999] }))).code).toBe('invalid_related_entity');
    // The placeholder keeps the password; the trunk routes with the real one.
    expect((await admin.patch(`/sip-trunks/${tr.id}`, { password: '********', name: 'City line 2' })).json().data.password).toBe(
      '********',
    );
    const [row] = await queryRows<{ password: string }>(t.database.db, sql`SELECT password FROM sip_trunks WHERE id = ${tr.id}`);
    expect(row?.password).toBe('trunk-secret');
    expect((await admin.get('/sip-trunks?search=city')).json().data.map((x: { id: number }) => x.id)).toContain(tr.id);
    expect((await admin.post('/sip-trunks/delete', { items: [tr.id] })).json().data.deleted).toEqual([tr.id]);
    expect((await admin.get(`/sip-trunks/${tr.id}`)).statusCode).toBe(404);
  });

  it('are seen, changed and deleted at four scopes, and need the trunks licence', async () => {
    const inA = (await admin.put('/sip-trunks', trunk({ name: 'A line', domains: [buildingA] }))).json().data;
    const inB = (await admin.put('/sip-trunks', trunk({ name: 'B line', domains: [buildingB] }))).json().data;
    const none = await member([], [buildingA]);
    expect((await none.api.get('/sip-trunks')).statusCode).toBe(403);
    expect((await none.api.put('/sip-trunks', trunk({ domains: [buildingA] }))).statusCode).toBe(403);
    const domain = await member(['can_view_domain_sip_trunks', 'can_edit_domain_sip_trunks'], [buildingA]);
    expect((await domain.api.get('/sip-trunks')).json().data.map((x: { id: number }) => x.id)).toEqual([inA.id]);
    expect((await domain.api.get(`/sip-trunks/${inB.id}`)).statusCode).toBe(404);
    expect((await domain.api.patch(`/sip-trunks/${inA.id}`, { name: 'A line 2' })).statusCode).toBe(200);
    expect((await domain.api.delete(`/sip-trunks/${inA.id}`)).statusCode).toBe(403);
    const descendants = await member(['can_view_descendants_sip_trunks'], [root]);
    expect((await descendants.api.get('/sip-trunks?size=100')).json().data.map((x: { id: number }) => x.id)).toEqual(
      expect.arrayContaining([inA.id, inB.id]),
    );
    const own = await member(['can_create_sip_trunks', 'can_view_own_sip_trunks', 'can_delete_own_sip_trunks'], [buildingB]);
    const mine = (await own.api.put('/sip-trunks', trunk({ name: 'Mine', domains: [buildingB] }))).json().data;
    expect((await own.api.get('/sip-trunks')).json().data.map((x: { id: number }) => x.id)).toEqual([mine.id]);
    expect((await own.api.put('/sip-trunks', trunk({ domains: [buildingA] }))).json().code).toBe('invalid_related_entity');
    expect((await own.api.delete(`/sip-trunks/${mine.id}`)).statusCode).toBe(200);
    try {
      await setServerLicense((l) => {
        l.sip.is_sip_trunks_enabled = false;
      });
      expect((await admin.get('/sip-trunks')).statusCode).toBe(403);
      expect((await admin.put('/sip-trunks', trunk())).statusCode).toBe(403);
    } finally {
      await resetServerLicense();
    }
  });
});

describe('interception', () => {
  it('is read and set within the user’s groups, with at least one group, fixed while on', async () => {
    const none = await member([], [buildingA]);
    expect((await none.api.get('/calls/interception')).statusCode).toBe(403);
    const op = await member(['can_intercept_calls'], [buildingA]);
    const start = (await op.api.get('/calls/interception')).json().data;
    expect(start).toMatchObject({ isActive: false, groups: [] });
    expect(start.userGroups).toEqual(
      expect.arrayContaining([
        { id: buildingA, name: 'Test project / Building A' },
        { id: flatA1, name: 'Test project / Building A / Flat A1' },
      ]),
    );
    expect(start.userGroups.map((g: { id: number }) => g.id)).not.toContain(buildingB);
    const empty = await op.api.post('/calls/interception', { is_active: true, domains: [] });
    expect(empty.json().details[0]).toMatchObject({ field: 'domains', message: 'validation.at_least_on_group_must_be_selected' });
    expect((await op.api.post('/calls/interception', { is_active: true, domains: [buildingB] })).json().code).toBe(
      'invalid_related_entity',
    );
    const on = await op.api.post('/calls/interception', { is_active: true, domains: [flatA1] });
    expect(on.json().data).toMatchObject({ isActive: true, groups: [flatA1] });
    expect((await op.api.post('/calls/interception', { is_active: true, domains: [buildingA] })).statusCode).toBe(400);
    expect((await op.api.post('/calls/interception', { is_active: false, domains: [] })).json().data).toMatchObject({
      isActive: false,
      groups: [flatA1],
    });
    expect((await op.api.post('/calls/interception', { is_active: true, domains: [buildingA] })).json().data.groups).toEqual([buildingA]);
  });
});

describe('concierge doors', () => {
  it('list the panels of the concierge’s groups and open one by its token', async () => {
    const g = await makeGroup(t.database.db, t.project.projectId, root, 'Lobby');
    const panel = await devices.device({ serial: 'CONC-PANEL', type: 'panel', model: 'AP-100', groupId: g });
    const n = await newNumber({ device_id: panel.id, domain_id: g });
    const away = await devices.device({ serial: 'CONC-AWAY', type: 'panel', model: 'AP-100', groupId: buildingB });
    const none = await member([], [g]);
    expect((await none.api.get('/calls/management/devices')).statusCode).toBe(403);
    const concierge = await member(['can_receive_calls_as_concierge'], [g]);
    const list = (await concierge.api.get('/calls/management/devices')).json().data as {
      token: string;
      name: string;
      sip_number: unknown;
    }[];
    expect(list).toEqual([{ token: expect.any(String), name: expect.any(String), sip_number: { number: n.number } }]);
    const token = list[0]!.token;
    expect((await concierge.api.post(`/calls/management/devices/open/${token}x`)).statusCode).toBe(404);
    expect((await concierge.api.post(`/calls/management/devices/open/${away.id}.${token.split('.')[1]}`)).statusCode).toBe(404);
    const opened = await concierge.api.post(`/calls/management/devices/open/${token}`);
    expect(opened.statusCode, opened.body).toBe(200);
    await expect.poll(() => panel.sim.opened.length).toBe(1);
    // Someone else's token (a panel outside the concierge's groups) opens nothing.
    const other = await member(['can_receive_calls_as_concierge'], [buildingA]);
    expect((await other.api.post(`/calls/management/devices/open/${token}`)).statusCode).toBe(404);
    // An offline panel cannot be reached.
    await panel.sim.stop();
    await expect.poll(async () => (await admin.get(`/devices/${panel.id}`)).json().data.online).toBe(false);
    const offline = await concierge.api.post(`/calls/management/devices/open/${token}`);
    expect(offline.statusCode).toBe(409);
    expect(offline.json().message).toBe('device status offline, unable to connect');
  });
});

describe('calls, history and the SIP service', () => {
  it('record a call, show it to its parties only, and keep its history', async () => {
    const { recorder } = telephonyOf(t.app);
    const alice = await member([], [buildingA], { name: 'Alice' });
    const bob = await member(['can_view_call_history', 'can_view_descendant_virtual_numbers'], [buildingA], { name: 'Bob' });
    const eve = await member(['can_view_call_history', 'can_view_descendant_virtual_numbers'], [buildingB]);
    const na = await newNumber({ user_id: alice.id, domain_id: buildingA });
    const nb = await newNumber({ user_id: bob.id, domain_id: buildingA });
    const at = Date.now();
    recorder.onCallEvent({ type: 'created', callId: 'c-1', caller: na.number, callee: nb.number, sos: false, speechId: 'speech-1', at });
    recorder.onCallEvent({ type: 'ringing', callId: 'c-1', numbers: [nb.number], at: at + 100 });
    await recorder.flush();
    const live = (await bob.api.get('/calls/management/list')).json().data;
    expect(live).toEqual([
      {
        id: 'speech-1',
        status: 'calling',
        type: 'normal',
        caller: na.number,
        callee: nb.number,
        answered_by: null,
        sos: false,
        created_at: Math.floor(at / 1000),
        answered_at: null,
        info: { user: 'Alice', address: expect.any(String) },
      },
    ]);
    expect((await eve.api.get('/calls/management/list')).json().data).toEqual([]);
    recorder.onCallEvent({ type: 'answered', callId: 'c-1', by: `${nb.number}-web1`, at: at + 1000 });
    await recorder.flush();
    // Answered: when, for the dialer's timer (also after a reload).
    expect((await bob.api.get('/calls/management/list')).json().data).toMatchObject([
      { status: 'answered', answered_by: nb.number, answered_at: Math.floor((at + 1000) / 1000) },
    ]);
    recorder.onCallEvent({ type: 'ended', callId: 'c-1', outcome: 'answered', status: null, at: at + 43_000 });
    await recorder.flush();
    expect((await bob.api.get('/calls/management/list')).json().data).toEqual([]);
    const recents = (await bob.api.get(`/calls/history/dialer/${nb.number}`)).json();
    expect(recents.meta).toMatchObject({ page: 1, size: 50, total: 1 });
    expect(recents.data[0]).toMatchObject({
      status: 'answered',
      duration: 42,
      direction: 'incoming',
      from: { number: na.number, user: { id: alice.id, name: 'Alice' } },
      to: { number: nb.number, user: { id: bob.id, name: 'Bob' } },
      answered_by: nb.number,
    });
    expect((await alice.api.get(`/calls/history/dialer/${na.number}`)).json().data[0].direction).toBe('outgoing');
    expect((await alice.api.get(`/calls/history/dialer/${nb.number}`)).statusCode).toBe(403);
    expect((await alice.api.get('/calls/history/items')).statusCode).toBe(403);
    expect((await bob.api.get('/calls/history/items')).json().data.map((h: { call_id: string }) => h.call_id)).toContain('speech-1');
    // The general list: Bob was called. The administrator took no part: the call is seen from the
    // numbers they look after, here the caller's (outgoing); a call in from outside is incoming.
    const bobs = (await bob.api.get('/calls/history/items')).json().data.find((h: { call_id: string }) => h.call_id === 'speech-1');
    expect(bobs.direction).toBe('incoming');
    recorder.onCallEvent({
      type: 'created',
      callId: 'c-out',
      caller: '+74951234567',
      callee: nb.number,
      sos: false,
      speechId: 'speech-out',
      at,
    });
    recorder.onCallEvent({ type: 'ended', callId: 'c-out', outcome: 'noanswer', status: 480, at: at + 5000 });
    await recorder.flush();
    const admins = (await admin.get('/calls/history/items')).json().data as Array<{ call_id: string; direction: string | null }>;
    expect(admins.find((h) => h.call_id === 'speech-1')?.direction).toBe('outgoing');
    expect(admins.find((h) => h.call_id === 'speech-out')?.direction).toBe('incoming');
    expect(admins.every((h) => h.direction === 'incoming' || h.direction === 'outgoing')).toBe(true);
    expect((await eve.api.get('/calls/history/items')).json()).toMatchObject({ data: [], meta: { total: 0 } });
    const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'status', operator: 'equals', value: 'busy' }] }));
    expect((await admin.get(`/calls/history/items?filters=${filters}`)).json().data).toEqual([]);
    expect((await admin.get('/calls/history/items?sort=secret')).statusCode).toBe(400);

    // A call stopped from the console while no SIP server runs ends in its record.
    recorder.onCallEvent({ type: 'created', callId: 'c-2', caller: na.number, callee: nb.number, sos: true, speechId: null, at });
    await recorder.flush();
    const [call] = (await bob.api.get('/calls/management/list')).json().data;
    expect(call.sos).toBe(true);
    expect((await eve.api.post(`/calls/management/${call.id}/stop`)).statusCode).toBe(404);
    expect((await bob.api.post(`/calls/management/${call.id}/stop`)).statusCode).toBe(200);
    expect((await bob.api.get('/calls/management/list')).json().data).toEqual([]);
  });

  it('answer the dialer’s credentials to a user with a master number and the web dialer licence', async () => {
    const u = await member([], [root], { name: 'Dialer User' });
    expect((await u.api.get('/calls/dialer/credentials')).statusCode).toBe(404);
    const n = await newNumber({ user_id: u.id });
    const creds = (await u.api.get('/calls/dialer/credentials')).json().data;
    expect(creds).toMatchObject({
      number: n.number,
      password: PW,
      name: 'Dialer User',
      ws_url: expect.stringMatching(/^wss:\/\/.+:8443$/),
    });
    try {
      await setServerLicense((l) => {
        l.sip.is_web_dialer_enabled = false;
      });
      expect((await u.api.get('/calls/dialer/credentials')).statusCode).toBe(403);
    } finally {
      await resetServerLicense();
    }
  });

  it('report the SIP service and pass reinit and restart to it', async () => {
    const { calls } = telephonyOf(t.app);
    const none = await member([], [root]);
    expect((await none.api.get('/sip/status')).statusCode).toBe(403);
    expect((await none.api.post('/sip/reinit')).statusCode).toBe(403);
    expect((await admin.get('/sip/status')).json().data).toEqual({ is_running: false, started_at: null, instances: [] });
    const noService = await admin.post('/sip/reinit');
    expect(noService.statusCode).toBe(409);
    expect(noService.json().message).toBe('error starting sip service');
    const done: string[] = [];
    const instance = { type: 'embedded', ip_address: '10.0.0.5', status: 'running' as const, registrations: 3, active_calls: 1 };
    calls.attachSip({
      status: () => ({ is_running: true, started_at: '2026-01-01T00:00:00.000Z', instances: [instance] }),
      reinit: async () => {
        done.push('reinit');
      },
      restartInstance: async (type, ip) => {
        done.push(`restart ${type} ${ip}`);
      },
      stopCall: async () => true,
    });
    try {
      expect((await admin.get('/sip/status')).json().data.instances).toEqual([instance]);
      expect((await admin.post('/sip/reinit')).statusCode).toBe(200);
      expect((await admin.post('/sip/restart-instance', { type: 'embedded', ip_address: '10.0.0.5' })).statusCode).toBe(200);
      expect((await admin.post('/sip/restart-instance', { type: 'embedded', ip_address: '10.9.9.9' })).statusCode).toBe(404);
      expect((await admin.post('/sip/restart-instance', {})).statusCode).toBe(400);
      expect(done).toEqual(['reinit', 'restart embedded 10.0.0.5']);
      const types = ((await admin.get('/notifications?limit=50')).json().data as { type: string; data: { error?: boolean } }[])
        .filter((x) => x.type.startsWith('sip_reboot'))
        .map((x) => `${x.type}${x.data.error === undefined ? '' : `:${x.data.error}`}`);
      expect(types.sort()).toEqual([
        'sip_reboot_completed:false',
        'sip_reboot_completed:false',
        'sip_reboot_started',
        'sip_reboot_started',
      ]);
    } finally {
      calls.attachSip(null);
    }
  });
});
