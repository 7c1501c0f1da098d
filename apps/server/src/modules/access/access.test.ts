// Access control through the API, with its sync to devices: schedules, rules and identifiers as an
// operator makes them, the sync tasks devices get, and the decisions a simulated door makes from them
// on the embedded broker, stored as access events and explained by /access/explain.
import { randomUUID } from 'node:crypto';
import { ACCESS_REALTIME } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';
import { queryRows } from '../../core/db/client.js';
import { SYNC_TASK_MAX_BYTES, splitSync } from './access.service.js';

let t: TestApp;
let base: string;
let admin: Awaited<ReturnType<typeof adminClient>>;
let devices: DeviceHarness;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listenForSockets(t.app);
  admin = await adminClient(t);
  devices = await deviceHarness(t);
});
afterAll(async () => {
  await devices.close();
  await t.close();
});

let seq = 0;
const uniq = (p: string) => `${p}-${++seq}-${randomUUID().slice(0, 6)}`;

/** A panel (AP-200: two locks) online on the embedded broker, with the simulator behind it. */
const onlinePanel = (groupId = t.project.rootGroupId) => devices.device({ serial: uniq('ACC').toUpperCase(), model: 'AP-200', groupId });
const synced = (deviceId: number) => devices.synced(deviceId);

const ok = <T>(res: { statusCode: number; body: string; json(): { data: T } }): T => {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('schedules', () => {
  it('are made with the default entry, validated, and kept to what the caller may see', async () => {
    const rule = ok<{ id: number; entries: unknown; time_zone: string }>(
      await admin.put('/time-rules', { name: 'Office hours', domain_id: t.project.rootGroupId, time_zone: 'europe/berlin' }),
    );
    expect(rule.time_zone).toBe('Europe/Berlin');
    expect(rule.entries).toEqual([{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32400, to: 64800 }]);
    const bad = await admin.put('/time-rules', {
      name: 'x',
      domain_id: t.project.rootGroupId,
      valid_from: '2026-05-01',
      valid_to: '2026-04-01',
      time_zone: 'Mars/Olympus',
      entries: [{ days: ['mon'], from: 0, to: 90_000 }],
    });
    expect(bad.statusCode).toBe(400);
    const fields = (bad.json().details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['entries.0.to', 'time_zone']);
    const backwards = await admin.put('/time-rules', {
      name: 'x',
      domain_id: t.project.rootGroupId,
      valid_from: '2026-05-01',
      valid_to: '2026-04-01',
    });
    expect(backwards.json().details).toEqual([expect.objectContaining({ field: 'valid_to' })]);
    const dup = await admin.put('/time-rules', {
      name: 'x',
      domain_id: t.project.rootGroupId,
      exceptions: [
        { date: '2026-12-25', open: false },
        { date: '2026-12-25', open: true },
      ],
    });
    expect(dup.statusCode).toBe(400);

    // A user of another branch sees none of it, and may not place a schedule in a group outside theirs.
    const branch = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const role = await makeRole(t.database.db, t.project.projectId, [
      'can_view_time_rules',
      'can_create_time_rules',
      'can_edit_time_rules',
    ]);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [branch] });
    const them = client(t.app, await login(t.app, u.login, u.password));
    expect((await them.get(`/time-rules/${rule.id}`)).statusCode).toBe(404);
    expect((await them.patch(`/time-rules/${rule.id}`, { name: 'mine' })).statusCode).toBe(404);
    expect((await them.put('/time-rules', { name: 'x', domain_id: t.project.rootGroupId })).json()).toMatchObject({
      code: 'invalid_related_entity',
    });
    const own = ok<{ id: number }>(await them.put('/time-rules', { name: 'Branch hours', domain_id: branch }));
    const listed = (await them.get('/time-rules')).json().data.map((r: { id: number }) => r.id);
    expect(listed).toEqual([own.id]);
    // Without the permission: no list at all.
    const nobody = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [branch],
    });
    expect((await client(t.app, await login(t.app, nobody.login, nobody.password)).get('/time-rules')).statusCode).toBe(403);
  });
});

describe('identifiers', () => {
  it('are stored normalised, unique per type and value, revoked and deleted', async () => {
    const card = ok<{ id: number; value: string; type: string }>(await admin.put('/identifiers', { name: 'Card', value: '04-a1-b2-c3' }));
    expect(card).toMatchObject({ type: 'card', value: '04A1B2C3' });
    const again = await admin.put('/identifiers', { name: 'Copy', value: '04A1B2C3' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('identifier with this number and type already in system');
    // Same value as another type is another identifier.
    ok(await admin.put('/identifiers', { name: 'Plate', type: 'license_plate', value: '04a1 b2c3' }));
    const badValue = await admin.put('/identifiers', { name: 'x', type: 'card', value: 'not hex' });
    expect(badValue.statusCode).toBe(400);
    expect(badValue.json().details[0].field).toBe('value');
    const badPeriod = await admin.put('/identifiers', {
      name: 'x',
      value: 'AB',
      period_restrict_active: true,
      period_restrict_from: '2026-05-02T00:00:00Z',
      period_restrict_to: '2026-05-01T00:00:00Z',
    });
    expect(badPeriod.statusCode).toBe(400);
    // Its QR code: a PNG of its value, for those who may see it.
    const qr = await admin.raw('GET', `/identifiers/${card.id}/qr`);
    expect(qr.statusCode).toBe(200);
    expect(qr.headers['content-type']).toBe('image/png');
    expect(qr.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    // A photo of the holder: an image only.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const form = (name: string, data: Buffer) => {
      const boundary = '----atrium-photo';
      return {
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
          data,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      };
    };
    const photo = form('me.png', png);
    const withPhoto = await admin.raw('POST', `/identifiers/${card.id}/photo`, photo.payload, photo.headers);
    expect(withPhoto.statusCode, withPhoto.body).toBe(200);
    expect(withPhoto.json().data.photo_url).toMatch(/^\/api\/v0\/files\/identifiers\//);
    const notImage = form('me.txt', Buffer.from('not an image at all'));
    expect((await admin.raw('POST', `/identifiers/${card.id}/photo`, notImage.payload, notImage.headers)).statusCode).toBe(400);
    const revoked = ok<{ is_revoked: boolean }>(await admin.post(`/identifiers/${card.id}/revoke`));
    expect(revoked.is_revoked).toBe(true);
    expect((await admin.delete(`/identifiers/${card.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/identifiers/${card.id}`)).statusCode).toBe(404);
  });

  it('of type UKEY2 are listed, view-only, to those who may view UKEY2 keys', async () => {
    const key = ok<{ id: number }>(await admin.put('/identifiers', { name: 'Key two', type: 'ukey2', value: 'BB0011' }));
    const card = ok<{ id: number }>(await admin.put('/identifiers', { name: 'Not a key', type: 'card', value: 'BB0012' }));
    const role = await makeRole(t.database.db, t.project.projectId, ['can_view_ukey2']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [t.project.rootGroupId] });
    const viewer = client(t.app, await login(t.app, u.login, u.password));
    const listed = (await viewer.get('/ukey2')).json().data as { id: number; type: string; can_edit: boolean }[];
    expect(listed.map((i) => i.id)).toContain(key.id);
    expect(listed.every((i) => i.type === 'ukey2' && !i.can_edit)).toBe(true);
    expect((await viewer.get(`/ukey2/${key.id}`)).statusCode).toBe(200);
    expect((await viewer.get(`/ukey2/${card.id}`)).statusCode).toBe(404);
    // Seeing a key is not changing it.
    expect((await viewer.post(`/identifiers/${key.id}/revoke`)).statusCode).toBe(404);
    const nobody = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [t.project.rootGroupId],
    });
    expect((await client(t.app, await login(t.app, nobody.login, nobody.password)).get('/ukey2')).statusCode).toBe(403);
  });

  it('are seen by their owner and creator, and by everyone with "view all" only', async () => {
    const role = await makeRole(t.database.db, t.project.projectId, ['can_create_identifiers', 'can_edit_identifiers']);
    const owner = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [t.project.rootGroupId] });
    const other = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [t.project.rootGroupId] });
    const id = ok<{ id: number }>(await admin.put('/identifiers', { name: 'Owned', value: 'C0FFEE', owner_id: owner.id })).id;
    const ownerApi = client(t.app, await login(t.app, owner.login, owner.password));
    const otherApi = client(t.app, await login(t.app, other.login, other.password));
    expect((await ownerApi.get(`/identifiers/${id}`)).statusCode).toBe(200);
    expect((await otherApi.get(`/identifiers/${id}`)).statusCode).toBe(404);
    expect((await otherApi.post(`/identifiers/${id}/revoke`)).statusCode).toBe(404);
    expect((await otherApi.raw('GET', `/identifiers/${id}/qr`)).statusCode).toBe(404);
    expect((await otherApi.get('/identifiers')).json().data).toEqual([]);
    // Giving one's card to a user one cannot see is refused.
    const hidden = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: role,
      groupIds: [await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId)],
    });
    const refused = await otherApi.put('/identifiers', { name: 'x', value: 'BEEF01', owner_id: hidden.id });
    expect(refused.json()).toMatchObject({ code: 'invalid_related_entity' });
  });
});

describe('access rules and the doors', () => {
  it('must have a device, with a lock the device has, that the caller may see', async () => {
    const d = await onlinePanel();
    const none = await admin.put('/access-rules', { name: 'Nothing', devices: [] });
    expect(none.statusCode).toBe(400);
    expect(none.json().details[0].field).toBe('devices');
    const lock3 = await admin.put('/access-rules', { name: 'Lock 3', devices: [{ id: d.id, lock_number: 3 }] });
    expect(lock3.statusCode).toBe(400);
    expect(lock3.json().details[0]).toMatchObject({ field: 'devices.0.lock_number', params: { max: 2 } });
    const role = await makeRole(t.database.db, t.project.projectId, ['can_create_access_rules', 'can_view_access_rules']);
    const branch = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [branch] });
    const them = client(t.app, await login(t.app, u.login, u.password));
    expect((await them.put('/access-rules', { name: 'Theirs', devices: [{ id: d.id, lock_number: 1 }] })).json()).toMatchObject({
      code: 'invalid_related_entity',
    });
  });

  it('syncs what a door must know, and the door decides as the rules say: schedules, locks, prohibitions, revocation, passes', async () => {
    const door = await onlinePanel();
    // Every identifier presented at the door makes an event the server counts passes from: counted here,
    // so the test can wait until the server has heard them all (a pass heard after a limit is set counts).
    let presented = 0;
    const present = (...a: Parameters<typeof door.sim.present>) => {
      presented++;
      return door.sim.present(...a);
    };
    const allHeard = async () => {
      await expect
        .poll(async () => {
          await t.app.services.devices.flushEvents();
          const [r] = await queryRows<{ n: number }>(
            t.database.db,
            sql`SELECT count(*)::int AS n FROM access_events WHERE device_id = ${door.id}`,
          );
          return Number(r?.n);
        })
        .toBe(presented);
    };
    const resident = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [t.project.rootGroupId],
    });
    const hours = ok<{ id: number }>(
      await admin.put('/time-rules', {
        name: 'Weekdays 9-18',
        domain_id: t.project.rootGroupId,
        time_zone: 'Europe/Berlin',
        entries: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32400, to: 64800 }],
      }),
    );
    const card = ok<{ id: number; value: string }>(
      await admin.put('/identifiers', { name: 'Resident card', value: 'CA01', owner_id: resident.id }),
    );
    // The rule names the resident (not the card): the card reaches the door through its owner.
    const rule = ok<{ id: number }>(
      await admin.put('/access-rules', {
        name: 'Entrance',
        devices: [{ id: door.id, lock_number: 1 }],
        users: [resident.id],
        time_rules: [hours.id],
      }),
    );
    await synced(door.id);
    const held = door.sim.synced.find('CA01');
    expect(held?.grants).toEqual([{ rule_id: rule.id, locks: [1], schedule_ids: [hours.id] }]);
    expect(door.sim.synced.schedules.get(hours.id)).toMatchObject({ time_zone: 'Europe/Berlin' });

    const monday10 = new Date('2026-11-23T09:00:00Z'); // 10:00 in Berlin
    const monday20 = new Date('2026-11-23T19:00:00Z'); // 20:00
    expect(await present('CA01', { lock: 1, at: monday10 })).toMatchObject({ granted: true });
    expect(await present('CA01', { lock: 1, at: monday20 })).toMatchObject({ granted: false, reason: 'schedule' });
    expect(await present('CA01', { lock: 2, at: monday10 })).toMatchObject({ granted: false, reason: 'lock' });

    // Access events: the decisions with the card and its owner.
    await t.app.services.devices.flushEvents();
    await expect
      .poll(
        async () =>
          (
            await admin.get(
              `/access-control/logs?filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'device_id', operator: 'equals', value: door.id }] }))}`,
            )
          ).json().data.length,
      )
      .toBe(3);
    const logs = (await admin.get('/access-control/logs')).json().data as {
      granted: boolean;
      identifier_id: number;
      user_id: number;
      reason: string | null;
    }[];
    expect(logs.filter((l) => l.identifier_id === card.id).map((l) => [l.granted, l.reason, l.user_id])).toEqual(
      expect.arrayContaining([
        [true, null, resident.id],
        [false, 'schedule', resident.id],
        [false, 'lock', resident.id],
      ]),
    );

    // The explanation agrees with the door, step by step.
    const explain = async (at: Date, lock = 1) =>
      ok<{ granted: boolean; reason: string | null; steps: { step: string; ok: boolean }[] }>(
        await admin.get(
          `/access/explain?identifier_id=${card.id}&device_id=${door.id}&lock=${lock}&at=${encodeURIComponent(at.toISOString())}`,
        ),
      );
    expect(await explain(monday10)).toMatchObject({ granted: true, reason: null });
    const late = await explain(monday20);
    expect(late).toMatchObject({ granted: false, reason: 'schedule' });
    expect(late.steps.find((s) => s.step === 'schedule')?.ok).toBe(false);
    expect((await admin.get(`/access/explain?user_id=${resident.id}&device_id=${door.id}&lock=2`)).json().data).toMatchObject({
      granted: false,
      reason: 'lock',
    });

    // A prohibition on lock 1 in the evening wins over nothing, and in the day over the permission.
    const always = ok<{ id: number }>(
      await admin.put('/time-rules', { name: 'Always', domain_id: t.project.rootGroupId, is_all_day: true }),
    );
    const ban = ok<{ id: number }>(
      await admin.put('/access-rules', {
        name: 'Banned',
        prohibition: true,
        devices: [{ id: door.id, lock_number: 1 }],
        identifiers: [card.id],
        time_rules: [always.id],
      }),
    );
    await synced(door.id);
    expect(await present('CA01', { lock: 1, at: monday10 })).toMatchObject({ granted: false, reason: 'prohibited' });
    expect(await explain(monday10)).toMatchObject({ granted: false, reason: 'prohibited' });
    const unban = await admin.delete(`/access-rules/${ban.id}`);
    expect(unban.statusCode, unban.body).toBe(200);
    await synced(door.id);
    expect(await present('CA01', { lock: 1, at: monday10 })).toMatchObject({ granted: true });

    // A pass limit of two: the third pass is refused once the door hears of the second. (The passes
    // before the limit, stored by now, do not count.)
    await allHeard();
    ok(await admin.patch(`/identifiers/${card.id}`, { passes_restrict_active: true, passes_restrict_max_count: 2 }));
    await synced(door.id);
    expect(await present('CA01', { lock: 1, at: monday10 })).toMatchObject({ granted: true });
    expect(await present('CA01', { lock: 1, at: monday10 })).toMatchObject({ granted: true });
    await t.app.services.devices.flushEvents();
    await expect.poll(async () => (await admin.get(`/identifiers/${card.id}`)).json().data.passes_restrict_passes_count).toBe(2);
    await synced(door.id);
    await expect.poll(() => door.sim.synced.find('CA01')?.exhausted).toBe(true);
    expect(await present('CA01', { lock: 1, at: monday10 })).toMatchObject({ granted: false, reason: 'passes' });
    ok(await admin.patch(`/identifiers/${card.id}`, { passes_restrict_active: false }));
    await synced(door.id);

    // Revoked: the door refuses it as revoked, and its owner hears of the try.
    ok(await admin.post(`/identifiers/${card.id}/revoke`));
    await synced(door.id);
    expect(await present('CA01', { lock: 1, at: monday10 })).toMatchObject({ granted: false, reason: 'revoked' });
    await t.app.services.devices.flushEvents();
    const bell = client(t.app, await login(t.app, resident.login, resident.password));
    await expect
      .poll(async () => (await bell.get('/notifications')).json().data.map((n: { type: string }) => n.type))
      .toContain('user_used_revoked_identifier');
    const told = (await bell.get('/notifications')).json().data.find((n: { type: string }) => n.type === 'user_used_revoked_identifier');
    expect(told.data).toMatchObject({ user: expect.any(String), identifier_type: 'card', identifier_number: 'CA01', device: door.serial });

    // Deleted: the door forgets it.
    expect((await admin.delete(`/identifiers/${card.id}`)).statusCode).toBe(200);
    await synced(door.id);
    expect(door.sim.synced.find('CA01')).toBeUndefined();
    expect(await present('CA01', { lock: 1, at: monday10, kind: 'card' })).toMatchObject({ granted: false, reason: 'unknown' });
    // The refused number stays on the event with what the reader took it for, so a console reads it as a card number.
    await allHeard();
    const refused = (await admin.get('/access-control/logs'))
      .json()
      .data.find((l: { reason: string | null; device_id: number }) => l.device_id === door.id && l.reason === 'unknown');
    expect(refused).toMatchObject({ value: 'CA01', identifier_id: null, identifier_type: 'card' });
  });

  it('reaches members of a rule’s group and its subgroups, and drops what a device no longer covers', async () => {
    const a = await onlinePanel();
    const b = await onlinePanel();
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const flat = await makeGroup(t.database.db, t.project.projectId, building);
    const resident = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [flat],
    });
    ok(await admin.put('/identifiers', { name: 'Key', type: 'ukey', value: 'BEEF', owner_id: resident.id }));
    const rule = ok<{ id: number }>(
      await admin.put('/access-rules', {
        name: 'Building',
        devices: [
          { id: a.id, lock_number: 1 },
          { id: b.id, lock_number: 2 },
        ],
        domains: [building],
      }),
    );
    await synced(a.id);
    await synced(b.id);
    expect(a.sim.synced.find('BEEF')?.grants).toEqual([{ rule_id: rule.id, locks: [1], schedule_ids: [] }]);
    expect(b.sim.synced.find('BEEF')?.grants).toEqual([{ rule_id: rule.id, locks: [2], schedule_ids: [] }]);
    ok(await admin.patch(`/access-rules/${rule.id}`, { devices: [{ id: a.id, lock_number: 1 }] }));
    await synced(b.id);
    expect(b.sim.synced.find('BEEF')).toBeUndefined();
    expect(a.sim.synced.find('BEEF')).toBeDefined();
    // The resident moves out of the building: their key leaves its doors; back in, it returns.
    const elsewhere = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    ok(await admin.patch(`/users/${resident.id}`, { domains: [elsewhere] }));
    await synced(a.id);
    expect(a.sim.synced.find('BEEF')).toBeUndefined();
    ok(await admin.patch(`/users/${resident.id}`, { domains: [flat] }));
    await synced(a.id);
    expect(a.sim.synced.find('BEEF')).toBeDefined();
    // An inactive identifier is on no door.
    const key = (await admin.get('/identifiers?search=BEEF')).json().data[0] as { id: number };
    ok(await admin.patch(`/identifiers/${key.id}`, { is_active: false }));
    await synced(a.id);
    expect(a.sim.synced.find('BEEF')).toBeUndefined();
    ok(await admin.patch(`/identifiers/${key.id}`, { is_active: true }));
    await synced(a.id);
    expect(a.sim.synced.find('BEEF')).toBeDefined();
    // A deleted resident's key (now without owner) opens nothing through the group any more.
    expect((await admin.delete(`/users/${resident.id}`)).statusCode).toBe(200);
    await synced(a.id);
    expect(a.sim.synced.find('BEEF')).toBeUndefined();
  });

  it('agrees with the simulated door on a few thousand random cases', async () => {
    const door = await onlinePanel();
    const owner = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [t.project.rootGroupId],
    });
    const zones = ['Europe/Berlin', 'Australia/Sydney', 'America/New_York'];
    let rnd = 42;
    const next = () => {
      rnd = (rnd * 1_103_515_245 + 12_345) % 2 ** 31;
      return rnd / 2 ** 31;
    };
    const days = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
    const scheduleIds: number[] = [];
    for (let i = 0; i < 4; i++) {
      const from = Math.floor(next() * 86_400);
      const to = Math.floor(next() * 86_400);
      scheduleIds.push(
        ok<{ id: number }>(
          await admin.put('/time-rules', {
            name: `Random ${i}`,
            domain_id: t.project.rootGroupId,
            time_zone: zones[i % zones.length],
            entries: [{ days: days.filter(() => next() < 0.6).concat('mon'), from, to }],
            exceptions: [{ date: '2026-12-25', open: next() < 0.5 }],
          }),
        ).id,
      );
    }
    const cards: { id: number; value: string }[] = [];
    for (let i = 0; i < 6; i++) {
      cards.push(ok(await admin.put('/identifiers', { name: `R${i}`, value: `DD${i}`, owner_id: owner.id })));
    }
    for (let i = 0; i < 5; i++) {
      const pick = <T>(list: T[]) => list.filter(() => next() < 0.5);
      ok(
        await admin.put('/access-rules', {
          name: `Rule ${i}`,
          prohibition: i === 4,
          devices: [{ id: door.id, lock_number: 1 + (i % 2) }],
          identifiers: pick(cards).map((c) => c.id),
          time_rules: pick(scheduleIds),
        }),
      );
    }
    await synced(door.id);
    const { AccessRepository } = await import('./access.repository.js');
    const repo = new AccessRepository(t.database.db);
    const actor = {
      userId: t.project.adminId,
      projectId: t.project.projectId,
      login: 'admin',
      roleId: null,
      permissions: new Set(['can_view_all_access_rules', 'can_view_all_devices', 'can_view_all_identifiers', 'can_view_all_users']),
      groupIds: [t.project.rootGroupId],
    };
    void repo;
    const { decideAccess } = await import('@atrium/device-sim');
    let granted = 0;
    for (let i = 0; i < 2000; i++) {
      const card = cards[Math.floor(next() * cards.length)]!;
      const lock = 1 + Math.floor(next() * 2);
      const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(next() * 730 * 86_400_000));
      const door_ = decideAccess(door.sim.synced, card.value, lock, at);
      const explained = await t.app.services.access.explain(actor, {
        identifier_id: card.id,
        device_id: door.id,
        lock,
        at: at.toISOString(),
      });
      expect([explained.granted, explained.reason], `${card.value} lock ${lock} at ${at.toISOString()}`).toEqual([
        door_.granted,
        door_.granted ? null : door_.reason,
      ]);
      if (door_.granted) granted++;
    }
    // Both verdicts occur: the cases are not all one way.
    expect(granted).toBeGreaterThan(50);
    expect(granted).toBeLessThan(1950);
  }, 120_000);
});

describe('the access matrix and downloads', () => {
  it('lists who opens which lock through which rule and when, limited to the devices the caller sees, and downloads it', async () => {
    const branch = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const seen = await onlinePanel(branch);
    const unseen = await onlinePanel();
    const person = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [branch],
    });
    const card = ok<{ id: number }>(await admin.put('/identifiers', { name: 'Matrix card', value: 'AB12CD', owner_id: person.id }));
    const hours = ok<{ id: number }>(await admin.put('/time-rules', { name: 'Matrix hours', domain_id: t.project.rootGroupId }));
    const rule = ok<{ id: number }>(
      await admin.put('/access-rules', {
        name: 'Matrix rule',
        devices: [
          { id: seen.id, lock_number: 2 },
          { id: unseen.id, lock_number: 1 },
        ],
        users: [person.id],
        time_rules: [hours.id],
      }),
    );
    const all = ok<{ device_id: number; lock_number: number; rule_name: string; user_name: string; schedules: { name: string }[] }[]>(
      await admin.get(`/access-matrix?identifier_id=${card.id}`),
    );
    expect(all.map((r) => [r.device_id, r.lock_number]).sort()).toEqual(
      [
        [seen.id, 2],
        [unseen.id, 1],
      ].sort(),
    );
    expect(all[0]).toMatchObject({ rule_name: 'Matrix rule', user_id: person.id, schedules: [{ id: hours.id, name: 'Matrix hours' }] });
    // An operator of the branch sees only the branch's door.
    const role = await makeRole(t.database.db, t.project.projectId, [
      'can_view_access_matrix',
      'can_view_devices',
      'can_view_access_control_events',
    ]);
    const operator = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [branch] });
    const op = client(t.app, await login(t.app, operator.login, operator.password));
    const mine = (await op.get(`/access-matrix?rule_id=${rule.id}`)).json();
    expect(mine.data.map((r: { device_id: number }) => r.device_id)).toEqual([seen.id]);
    expect(mine.meta.total).toBe(1);
    const csv = await op.raw('GET', `/access-matrix/download?export_format=csv&rule_id=${rule.id}`);
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe(
      'user_id,user_name,identifier_id,identifier_name,identifier_type,device_id,device_name,lock_number,rule_id,rule_name,prohibition,schedules',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('Matrix hours');
    // Without the permission, nothing.
    const nobody = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [branch],
    });
    const no = client(t.app, await login(t.app, nobody.login, nobody.password));
    expect((await no.get('/access-matrix')).statusCode).toBe(403);
    expect((await no.get('/access-control/logs')).statusCode).toBe(403);
    expect((await no.get('/access-control/logs/download')).statusCode).toBe(403);

    // Access events of the branch door only, live and downloadable.
    const socket = await connectSocket(base, await login(t.app, operator.login, operator.password));
    expect((await socket.subscribe(ACCESS_REALTIME.eventsTopic)).event).toBe('subscribed');
    await seen.sim.present('AB12CD', { lock: 2 });
    await unseen.sim.present('AB12CD', { lock: 1 });
    await t.app.services.devices.flushEvents();
    await expect.poll(async () => (await op.get('/access-control/logs')).json().data.length).toBe(1);
    expect((await socket.next((m) => m.event === ACCESS_REALTIME.events.decision)).data).toEqual({ device_id: seen.id, count: 1 });
    await new Promise((r) => setTimeout(r, 200));
    // The other door's decision is not the operator's to hear of.
    expect(socket.inbox.filter((m) => m.event === ACCESS_REALTIME.events.decision)).toEqual([]);
    socket.close();
    const events = await op.raw('GET', '/access-control/logs/download?export_format=csv');
    expect(events.statusCode).toBe(200);
    const rows = events.body.trim().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(`,${seen.id},`);
  });
});

describe('guest access', () => {
  it('grants a guest a QR on rules available for guests within the group limits; the guest page opens the door twice, then says the limit is reached', async () => {
    const door = await onlinePanel();
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const flat = await makeGroup(t.database.db, t.project.projectId, building);
    // The building's rule for guests; a resident of a flat in it may offer it.
    const guestRule = ok<{ id: number }>(
      await admin.put('/access-rules', {
        name: 'Guests: entrance',
        available_for_guest: true,
        devices: [{ id: door.id, lock_number: 2 }],
        domains: [building],
      }),
    );
    const staffRule = ok<{ id: number }>(
      await admin.put('/access-rules', { name: 'Staff only', devices: [{ id: door.id, lock_number: 1 }], domains: [building] }),
    );
    await t.database.db.execute(
      sql`UPDATE groups SET guest_identifier_limits = '{"max_passes_count": 5, "max_period_days": 3}'::jsonb WHERE id = ${building}`,
    );
    const resident = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, ['can_create_guest_identifiers']),
      groupIds: [flat],
    });
    const res = client(t.app, await login(t.app, resident.login, resident.password));
    // The rules a resident may offer: those for guests only.
    const offered = (await res.get('/guest-access/access-rules')).json().data.map((r: { id: number }) => r.id);
    expect(offered).toContain(guestRule.id);
    expect(offered).not.toContain(staffRule.id);
    const now = Date.now();
    const period = { valid_from: new Date(now - 60_000).toISOString(), valid_to: new Date(now + 86_400_000).toISOString() };
    expect(
      (await res.put('/guest-access', { access_rules: [staffRule.id], ...period, restrict_pass_count: true, pass_limit: 2 })).json(),
    ).toMatchObject({
      code: 'invalid_related_entity',
    });
    // Beyond the group's limits: 5 passes, 3 days.
    const tooMany = await res.put('/guest-access', { access_rules: [guestRule.id], ...period, restrict_pass_count: true, pass_limit: 9 });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({
      message: 'maximum passes count and maximum period limits reached',
      details: [{ params: { max_count: 5, max_days: 3 } }],
    });
    const tooLong = await res.put('/guest-access', {
      access_rules: [guestRule.id],
      valid_from: period.valid_from,
      valid_to: new Date(now + 10 * 86_400_000).toISOString(),
      restrict_pass_count: true,
      pass_limit: 2,
    });
    expect(tooLong.statusCode).toBe(400);
    expect((await res.put('/guest-access', { access_rules: [guestRule.id], ...period, restrict_pass_count: false })).statusCode).toBe(400);

    const grant = ok<{ identifier: { id: number; name: string; type: string; value: string }; key: string; url: string }>(
      await res.put('/guest-access', {
        access_rules: [guestRule.id],
        ...period,
        restrict_pass_count: true,
        pass_limit: 2,
        key_message: 'Welcome!',
      }),
    );
    expect(grant.identifier).toMatchObject({ name: 'Guest identifier', type: 'qr' });
    expect(grant.url).toMatch(new RegExp(`/guest-access/${grant.key}$`));
    await synced(door.id);
    // The QR reaches the door with the guest rule's lock only.
    expect(door.sim.synced.find(grant.identifier.value)?.grants).toEqual([{ rule_id: guestRule.id, locks: [2], schedule_ids: [] }]);

    // The public page: no sign-in.
    const anon = client(t.app);
    const info = ok<{ qr: string; passes_left: number; key_message: string; doors: { token: string; name: string; lock: number }[] }>(
      await anon.get(`/guest-access/key/${grant.key}`),
    );
    expect(info).toMatchObject({ qr: grant.identifier.value, passes_left: 2, key_message: 'Welcome!' });
    expect(info.doors).toHaveLength(1);
    const token = info.doors[0]!.token;
    const open = () => anon.post(`/guest-access/key/${grant.key}/open`, { token });
    expect(ok(await open())).toEqual({ opened: true, passes_left: 1 });
    await expect.poll(() => door.sim.opened.filter((o) => o.by === 'task').map((o) => o.lock)).toEqual([2]);
    expect(ok(await open())).toEqual({ opened: true, passes_left: 0 });
    const third = await open();
    expect(third.statusCode).toBe(409);
    expect(third.json().message).toBe('pass limit reached');
    // And the door itself refuses the QR once it hears the limit is used up.
    await synced(door.id);
    expect(await door.sim.present(grant.identifier.value, { lock: 2 })).toMatchObject({ granted: false, reason: 'passes' });

    // Another door's token, a made-up key: nothing about anything else.
    expect((await anon.post(`/guest-access/key/${grant.key}/open`, { token: 'x'.repeat(32) })).json().message).toMatch(
      /pass limit reached|device not found/,
    );
    const unknown = await anon.get(`/guest-access/key/${'A'.repeat(24)}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('invalid identifier');
    // The resident revokes their guest (no identifier permissions needed): the page says invalid, the door forgets it.
    const revoked = ok<{ is_revoked: boolean }>(await res.post(`/guest-access/${grant.identifier.id}/revoke`));
    expect(revoked.is_revoked).toBe(true);
    expect((await anon.get(`/guest-access/key/${grant.key}`)).json().message).toBe('invalid identifier');
    await synced(door.id);
    expect(await door.sim.present(grant.identifier.value, { lock: 2 })).toMatchObject({ granted: false });
    // Someone else's guest, a plain identifier, an unknown id: not found for the resident.
    const neighbour = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, ['can_create_guest_identifiers']),
      groupIds: [flat],
    });
    const other = client(t.app, await login(t.app, neighbour.login, neighbour.password));
    expect((await other.post(`/guest-access/${grant.identifier.id}/revoke`)).statusCode).toBe(404);
    expect((await other.delete(`/guest-access/${grant.identifier.id}`)).statusCode).toBe(404);
    const card = ok<{ id: number }>(await admin.put('/identifiers', { name: 'Not a guest', value: '0F0E0D0C' }));
    expect((await res.delete(`/guest-access/${card.id}`)).statusCode).toBe(404);
    // The resident deletes their guests in bulk; what is not theirs is reported, not deleted.
    const second = ok<{ identifier: { id: number } }>(
      await res.put('/guest-access', { access_rules: [guestRule.id], ...period, restrict_pass_count: true, pass_limit: 1 }),
    );
    const bulk = ok<{ deleted: number[]; not_deleted: { id: number }[] }>(
      await res.post('/guest-access/delete', { items: [grant.identifier.id, second.identifier.id, card.id] }),
    );
    expect(bulk.deleted.sort()).toEqual([grant.identifier.id, second.identifier.id].sort());
    expect(bulk.not_deleted.map((n) => n.id)).toEqual([card.id]);
    expect((await admin.get(`/identifiers/${grant.identifier.id}`)).statusCode).toBe(404);
    await synced(door.id);
    expect(door.sim.synced.find(grant.identifier.value)).toBeFalsy();
    // Without the permission, no guests.
    const plain = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [flat],
    });
    const noGuests = client(t.app, await login(t.app, plain.login, plain.password));
    expect(
      (await noGuests.put('/guest-access', { access_rules: [guestRule.id], ...period, restrict_pass_count: true, pass_limit: 1 }))
        .statusCode,
    ).toBe(403);
  });

  it('limits how often a guest page may be asked, per address', async () => {
    const anon = client(t.app);
    let last = 0;
    for (let i = 0; i < 31; i++)
      last = (await anon.raw('GET', `/guest-access/key/${'B'.repeat(24)}`, undefined, { 'x-forwarded-for': '203.0.113.77' })).statusCode;
    expect(last).toBe(429);
    // Another address is not held back by it.
    expect(
      (await anon.raw('GET', `/guest-access/key/${'B'.repeat(24)}`, undefined, { 'x-forwarded-for': '203.0.113.78' })).statusCode,
    ).toBe(404);
  });
});

describe('sync payloads', () => {
  it('split a large sync into tasks under the size limit: the first full, the rest deltas, nothing lost', () => {
    const ids = Array.from({ length: 6000 }, (_, i) => ({
      id: i + 1,
      value: `VALUE-${i}-${'x'.repeat(20)}`,
      kind: 'card',
      grants: [{ rule_id: 1, locks: [1, 2], schedule_ids: [1, 2, 3] }],
    }));
    const parts = splitSync(true, ids, [{ id: 1 }], [7]);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((p) => p.mode)).toEqual(['full', ...Array(parts.length - 1).fill('delta')]);
    for (const p of parts) expect(JSON.stringify(p).length).toBeLessThanOrEqual(SYNC_TASK_MAX_BYTES);
    expect(parts.flatMap((p) => (p.identifiers as { id: number }[]).map((i) => i.id))).toEqual(ids.map((i) => i.id));
    expect(parts[0]).toMatchObject({ schedules: [{ id: 1 }], removed: { identifiers: [7] } });
    expect(splitSync(false, [], [], [3])).toEqual([{ mode: 'delta', identifiers: [], schedules: [], removed: { identifiers: [3] } }]);
  });
});
