// Device alarms end to end: simulated panels on the embedded broker raise, repeat and clear alarms;
// operators hear of them (notifications and realtime) within their device scope, process them with a
// comment and delete them; the SOS call history shows SOS calls of numbers within the scope.
import { randomUUID } from 'node:crypto';
import { ALARM_REALTIME, type DeviceAlarm, type DeviceAlarmLog, type Notification } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';
import { queryRows } from '../../core/db/client.js';

let t: TestApp;
let base: string;
let admin: Awaited<ReturnType<typeof adminClient>>;
let devices: DeviceHarness;
let building: number;
let flat: number;
let elsewhere: number;
let panel: Awaited<ReturnType<DeviceHarness['device']>>;
let otherPanel: Awaited<ReturnType<DeviceHarness['device']>>;

const ALARM_PERMISSIONS = ['can_view_device_alarms', 'can_process_device_alarms', 'can_delete_device_alarms'];

beforeAll(async () => {
  t = await buildTestApp();
  base = await listenForSockets(t.app);
  admin = await adminClient(t);
  devices = await deviceHarness(t);
  building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'Building 1');
  flat = await makeGroup(t.database.db, t.project.projectId, building, 'Entrance 1');
  elsewhere = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'Building 2');
});
// The harness waits with expect.poll, so the two panels come online in the first test that needs them.
let online: Promise<void> | undefined;
const panels = () => {
  online ??= (async () => {
    panel = await devices.device({ serial: uniq('ALM'), groupId: flat });
    otherPanel = await devices.device({ serial: uniq('ALX'), groupId: elsewhere });
  })();
  return online;
};
afterAll(async () => {
  await devices?.close();
  await t?.close();
});

let seq = 0;
function uniq(p: string) {
  return `${p}-${++seq}-${randomUUID().slice(0, 6)}`.toUpperCase();
}

const ok = <T>(res: { statusCode: number; body: string; json(): { data: T } }): T => {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

/** A signed-in user of `groups` whose role holds `permissions`. */
async function person(permissions: string[], groups: number[], name = uniq('user')) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: groups, name });
  return { ...u, name, api: client(t.app, await login(t.app, u.login, u.password)) };
}

type Api = ReturnType<typeof client>;
const alarmsOf = async (api: Api, deviceId: number, extra = ''): Promise<DeviceAlarm[]> => {
  const filters = encodeURIComponent(
    JSON.stringify({ match: 'match_all', rules: [{ field: 'device_id', operator: 'equals', value: deviceId }] }),
  );
  return ok<DeviceAlarm[]>(await api.get(`/alarms?filters=${filters}&size=100${extra}`));
};
/** Waits until the device's events are stored and heard by the alarms area. */
const settle = async () => {
  await new Promise((r) => setTimeout(r, 150));
  await t.app.services.devices.flushEvents();
};
const notificationsOf = async (api: Api): Promise<Notification[]> =>
  ok<Notification[]>(await api.get('/notifications?type=alarm&limit=100'));

describe('device alarms', () => {
  it('are raised, repeated and cleared by a device, processed with a comment, logged step by step, then deleted', async () => {
    await panels();
    const guard = await person([...ALARM_PERMISSIONS, 'can_view_descendant_devices'], [building], 'Guard Anna');
    await panel.sim.alarmOn({ kind: 'fire', zone: 'entrance' });
    await expect.poll(async () => (await alarmsOf(guard.api, panel.id)).map((a) => a.status)).toEqual(['active']);
    const [alarm] = await alarmsOf(guard.api, panel.id);
    expect(alarm).toMatchObject({
      kind: 'fire',
      zone: 'entrance',
      is_active: true,
      device_id: panel.id,
      device_name: panel.serial,
      domain_id: flat,
      domain_name: 'Entrance 1',
      processed_at: null,
      processed_by: null,
      can_process: true,
      can_delete: false,
    });
    const id = alarm!.id;

    // The same alarm again while it is on: one alarm, a second log entry.
    await panel.sim.alarmOn({ kind: 'fire', zone: 'entrance' });
    await expect
      .poll(async () => ok<DeviceAlarmLog[]>(await guard.api.get(`/alarms/${id}/logs`)).map((l) => l.event))
      .toEqual(['enabled', 'repeated']);
    expect(await alarmsOf(guard.api, panel.id)).toHaveLength(1);

    // Not processed yet: it cannot be deleted.
    const early = await guard.api.delete(`/alarms/${id}`);
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toBe('alarm not processed');

    // The device clears it: cleared, still to be processed.
    await panel.sim.alarmOff({ zone: 'entrance' });
    await expect.poll(async () => ok<DeviceAlarm>(await guard.api.get(`/alarms/${id}`)).status).toBe('cleared');
    expect(ok<DeviceAlarm>(await guard.api.get(`/alarms/${id}`))).toMatchObject({ is_active: false, cleared_at: expect.any(String) });

    const processed = ok<DeviceAlarm>(
      await guard.api.post(`/alarms/${id}/process`, { comment: '  Checked: a false alarm, smoke from a kettle  ' }),
    );
    expect(processed).toMatchObject({
      status: 'processed',
      comment: 'Checked: a false alarm, smoke from a kettle',
      processed_by: { id: guard.id, name: 'Guard Anna' },
      can_process: false,
      can_delete: true,
    });
    const again = await guard.api.post(`/alarms/${id}/process`, { comment: 'twice' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('alarm already processed');

    const logs = ok<DeviceAlarmLog[]>(await guard.api.get(`/alarms/${id}/logs`));
    expect(logs.map((l) => l.event)).toEqual(['enabled', 'repeated', 'disabled', 'processed']);
    expect(logs[0]).toMatchObject({ alarm_id: id, user: null, info: expect.objectContaining({ kind: 'fire', zone: 'entrance' }) });
    expect(logs[3]).toMatchObject({ user: { id: guard.id, name: 'Guard Anna' }, comment: 'Checked: a false alarm, smoke from a kettle' });

    // Processing and deleting are audited.
    const audit = await queryRows<{ action: string }>(
      t.database.db,
      sql`SELECT action FROM audit_events WHERE entity = 'device_alarm' AND entity_id = ${String(id)} ORDER BY id`,
    );
    expect(audit.map((r) => r.action)).toEqual(['process']);
    ok(await guard.api.delete(`/alarms/${id}`));
    expect((await guard.api.get(`/alarms/${id}`)).statusCode).toBe(404);
    expect((await guard.api.get(`/alarms/${id}/logs`)).statusCode).toBe(404);
  });

  it('keep one alarm per kind and zone, take tamper as an alarm, and are cleared all at once by a bare alarm_off', async () => {
    const serial = uniq('ALT');
    const d = await devices.device({ serial, groupId: flat });
    await d.sim.alarmOn({ kind: 'sensor', zone: 'door_contact_1' });
    await d.sim.alarmOn({});
    await d.sim.tamper('front cover');
    await expect
      .poll(async () => (await alarmsOf(admin, d.id)).map((a) => `${a.kind}/${a.zone ?? '-'}/${a.status}`).sort())
      .toEqual(['device/-/active', 'sensor/door_contact_1/active', 'tamper/front cover/active']);
    await d.sim.alarmOff({ kind: 'sensor' });
    await expect
      .poll(async () =>
        (await alarmsOf(admin, d.id))
          .filter((a) => a.status === 'active')
          .map((a) => a.kind)
          .sort(),
      )
      .toEqual(['device', 'tamper']);
    await d.sim.alarmOff();
    await expect.poll(async () => (await alarmsOf(admin, d.id)).map((a) => a.status)).toEqual(['cleared', 'cleared', 'cleared']);

    // A processed alarm still on does not stop a new one of the same kind and zone.
    await d.sim.alarmOn({ kind: 'intrusion', zone: 'hall' });
    await expect.poll(async () => (await alarmsOf(admin, d.id)).length).toBe(4);
    const [first] = (await alarmsOf(admin, d.id)).filter((a) => a.kind === 'intrusion');
    ok(await admin.post(`/alarms/${first!.id}/process`, { comment: 'Patrol sent' }));
    await d.sim.alarmOn({ kind: 'intrusion', zone: 'hall' });
    await expect
      .poll(async () => (await alarmsOf(admin, d.id)).filter((a) => a.kind === 'intrusion').map((a) => a.status))
      .toEqual(['active', 'processed']);

    // Filters: status, and the search on device name, zone or kind.
    const statusIs = (s: string) =>
      encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'status', operator: 'equals', value: s }] }));
    const processedOnes = ok<DeviceAlarm[]>(await admin.get(`/alarms?filters=${statusIs('processed')}&size=1000`));
    expect(processedOnes.length).toBeGreaterThan(0);
    expect(processedOnes.every((a) => a.status === 'processed')).toBe(true);
    const found = ok<DeviceAlarm[]>(await admin.get(`/alarms?search=${encodeURIComponent('front co')}`));
    expect(found.map((a) => a.kind)).toEqual(['tamper']);
    const bad = await admin.get(
      `/alarms?filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'comment', operator: 'equals', value: 'x' }] }))}`,
    );
    expect(bad.statusCode).toBe(400);
    expect((await admin.get('/alarms?sort=secret')).statusCode).toBe(400);
  });

  it('notify those who may view the device and its alarms, and tell their consoles live', async () => {
    const serial = uniq('ALN');
    const d = await devices.device({ serial, groupId: flat });
    const guard = await person([...ALARM_PERMISSIONS, 'can_view_descendant_devices'], [building]);
    const colleague = await person(['can_view_device_alarms', 'can_view_devices'], [flat]);
    const notMine = await person([...ALARM_PERMISSIONS, 'can_view_descendant_devices'], [elsewhere]);
    const noAlarms = await person(['can_view_all_devices'], [building]);
    const socket = await connectSocket(base, await login(t.app, guard.login, guard.password));
    expect((await socket.subscribe(ALARM_REALTIME.topic)).event).toBe('subscribed');
    const outsider = await connectSocket(base, await login(t.app, notMine.login, notMine.password));
    expect((await outsider.subscribe(ALARM_REALTIME.topic)).event).toBe('subscribed');

    await d.sim.alarmOn({ kind: 'gas', zone: 'boiler room' });
    await settle();
    await expect.poll(async () => (await alarmsOf(guard.api, d.id)).length).toBe(1);
    const [alarm] = await alarmsOf(guard.api, d.id);
    const live = await socket.next((m) => m.topic === ALARM_REALTIME.topic && (m.data as { id: number }).id === alarm!.id);
    expect(live).toMatchObject({ event: ALARM_REALTIME.events.changed, data: { id: alarm!.id, device_id: d.id, status: 'active' } });

    await expect.poll(async () => (await notificationsOf(guard.api)).filter((n) => n.data.alarm_id === alarm!.id).length).toBe(1);
    const [enabled] = (await notificationsOf(guard.api)).filter((n) => n.data.alarm_id === alarm!.id);
    expect(enabled).toMatchObject({
      type: 'device_alarm_enabled',
      significance: 'important',
      data: { device: serial, group: 'Entrance 1', kind: 'gas', zone: 'boiler room', sensors: 'gas: boiler room' },
      popup_action: { code: 'goto:page', params: { page: `/devices/alarms/${alarm!.id}/edit` } },
    });
    expect((await notificationsOf(colleague.api)).some((n) => n.data.alarm_id === alarm!.id)).toBe(true);
    expect((await notificationsOf(notMine.api)).some((n) => n.data.alarm_id === alarm!.id)).toBe(false);
    expect((await notificationsOf(noAlarms.api)).some((n) => n.data.alarm_id === alarm!.id)).toBe(false);

    await d.sim.alarmOff({});
    await expect
      .poll(async () =>
        (await notificationsOf(colleague.api))
          .filter((n) => n.data.alarm_id === alarm!.id)
          .map((n) => n.type)
          .sort(),
      )
      .toEqual(['device_alarm_disabled', 'device_alarm_enabled']);
    ok(await guard.api.post(`/alarms/${alarm!.id}/process`, { comment: 'Gas service called' }));
    await expect
      .poll(
        async () =>
          (await notificationsOf(colleague.api)).find((n) => n.type === 'device_alarm_processed' && n.data.alarm_id === alarm!.id)?.data,
      )
      .toMatchObject({ device: serial, user: guard.name, comment: 'Gas service called' });
    // The one who processed it is not told of what they did.
    expect((await notificationsOf(guard.api)).some((n) => n.type === 'device_alarm_processed' && n.data.alarm_id === alarm!.id)).toBe(
      false,
    );
    await socket.next((m) => m.topic === ALARM_REALTIME.topic && (m.data as { status: string }).status === 'processed');

    // The outsider's console heard nothing of this device.
    await new Promise((r) => setTimeout(r, 200));
    expect(outsider.inbox.filter((m) => m.topic === ALARM_REALTIME.topic && (m.data as { device_id: number }).device_id === d.id)).toEqual(
      [],
    );
    socket.close();
    outsider.close();
  });

  it('are kept to the caller’s scope and permissions: view, process, delete, bulk delete', async () => {
    await panels();
    await otherPanel.sim.alarmOn({ kind: 'flood', zone: 'basement' });
    await panel.sim.alarmOn({ kind: 'intrusion', zone: 'roof' });
    await expect.poll(async () => (await alarmsOf(admin, otherPanel.id)).filter((a) => a.status === 'active').length).toBe(1);
    await expect.poll(async () => (await alarmsOf(admin, panel.id)).filter((a) => a.status === 'active').length).toBe(1);
    const [theirs] = (await alarmsOf(admin, otherPanel.id)).filter((a) => a.status === 'active');
    const [ours] = (await alarmsOf(admin, panel.id)).filter((a) => a.status === 'active');

    const guard = await person([...ALARM_PERMISSIONS, 'can_view_descendant_devices'], [building]);
    // Only the own group's device alarms are listed, counted and reachable.
    const listed = ok<DeviceAlarm[]>(await guard.api.get('/alarms?size=1000'));
    expect(listed.some((a) => a.device_id === otherPanel.id)).toBe(false);
    expect(listed.some((a) => a.id === ours!.id)).toBe(true);
    const total = (
      await guard.api.get(
        `/alarms?filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'device_id', operator: 'equals', value: otherPanel.id }] }))}`,
      )
    ).json();
    expect(total.meta.total).toBe(0);
    for (const res of [
      await guard.api.get(`/alarms/${theirs!.id}`),
      await guard.api.get(`/alarms/${theirs!.id}/logs`),
      await guard.api.post(`/alarms/${theirs!.id}/process`, { comment: 'not mine' }),
      await guard.api.delete(`/alarms/${theirs!.id}`),
    ]) {
      expect(res.statusCode).toBe(404);
    }
    expect(ok<DeviceAlarm>(await admin.get(`/alarms/${theirs!.id}`)).status).toBe('active');

    // "Devices of my groups" only: the entrance's panel is below the building, so not in scope.
    const narrow = await person([...ALARM_PERMISSIONS, 'can_view_devices'], [building]);
    expect((await narrow.api.get(`/alarms/${ours!.id}`)).statusCode).toBe(404);

    // Viewing without processing or deleting rights.
    const viewer = await person(['can_view_device_alarms', 'can_view_descendant_devices'], [building]);
    expect(ok<DeviceAlarm>(await viewer.api.get(`/alarms/${ours!.id}`))).toMatchObject({ can_process: false, can_delete: false });
    const refused = await viewer.api.post(`/alarms/${ours!.id}/process`, { comment: 'seen' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('action prohibited');
    // No alarms permission: nothing at all, not even the SOS history.
    const blind = await person(['can_view_all_devices'], [building]);
    for (const path of ['/alarms', '/alarms/calls', `/alarms/${ours!.id}`, `/alarms/${ours!.id}/logs`]) {
      expect((await blind.api.get(path)).statusCode, path).toBe(403);
    }

    // Validation: a comment is required, trimmed, bounded; nothing else may be sent.
    for (const body of [{}, { comment: '   ' }, { comment: 'x'.repeat(2001) }, { comment: 'ok', status: 'processed' }, { comment: 5 }]) {
      const res = await guard.api.post(`/alarms/${ours!.id}/process`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
      expect(res.json().details.length).toBeGreaterThan(0);
    }
    expect((await guard.api.post('/alarms/0/process', { comment: 'x' })).statusCode).toBe(400);

    // Bulk delete: only processed alarms within scope go; each refusal says why.
    ok(await guard.api.post(`/alarms/${ours!.id}/process`, { comment: 'Roof hatch closed' }));
    ok(await admin.post(`/alarms/${theirs!.id}/process`, { comment: 'Pump started' }));
    const [stillOn] = await (async () => {
      await panel.sim.alarmOn({ kind: 'sensor', zone: 'window 3' });
      await expect.poll(async () => (await alarmsOf(guard.api, panel.id)).filter((a) => a.status === 'active').length).toBe(1);
      return (await alarmsOf(guard.api, panel.id)).filter((a) => a.status === 'active');
    })();
    const result = ok<{ deleted: number[]; not_deleted: { id: number; message: string }[] }>(
      await guard.api.post('/alarms/delete', { items: [ours!.id, theirs!.id, stillOn!.id, 2_000_000] }),
    );
    expect(result.deleted).toEqual([ours!.id]);
    expect(result.not_deleted).toEqual([
      { id: theirs!.id, message: 'item not found', code: 'not_found' },
      { id: stillOn!.id, message: 'alarm not processed', code: 'alarm_not_processed' },
      { id: 2_000_000, message: 'item not found', code: 'not_found' },
    ]);
    expect(ok<DeviceAlarm>(await admin.get(`/alarms/${theirs!.id}`)).status).toBe('processed');
    const viewerDelete = await viewer.api.post('/alarms/delete', { items: [theirs!.id] });
    expect(ok<{ deleted: number[] }>(viewerDelete).deleted).toEqual([]);
    expect((await guard.api.post('/alarms/delete', { items: [] })).statusCode).toBe(400);
  });
});

describe('the SOS call history', () => {
  it('lists SOS calls of the numbers within the caller’s device scope, filtered and sorted', async () => {
    await panels();
    const db = t.database.db;
    const number = async (n: string, v: { deviceId?: number; groupId?: number; userId?: number }) => {
      await db.execute(sql`INSERT INTO sip_numbers (project_id, number, password, device_id, group_id, user_id, forward_rules)
        VALUES (${t.project.projectId}, ${n}, 'Secret-pass1', ${v.deviceId ?? null}, ${v.groupId ?? null}, ${v.userId ?? null}, '{}'::jsonb)`);
    };
    const resident = await makeUser(db, { projectId: t.project.projectId, groupIds: [flat] });
    await number('7100', { deviceId: panel.id });
    await number('7200', { deviceId: otherPanel.id });
    await number('7300', { userId: resident.id });
    await number('7400', { groupId: elsewhere });
    const call = async (from: string, to: string, sos: boolean, minutesAgo: number, status = 'answered') => {
      await db.execute(sql`INSERT INTO call_history (project_id, call_id, from_number, to_number, status, duration, sos, created_at)
        VALUES (${t.project.projectId}, ${randomUUID()}, ${from}, ${to}, ${status}, 30, ${sos}, now() - make_interval(mins => ${minutesAgo}))`);
    };
    await call('7100', '7400', true, 5);
    await call('7300', '7400', true, 10, 'noanswer');
    await call('7200', '7400', true, 15);
    await call('7100', '7400', false, 20);
    await call('9999', '8888', true, 25);

    const guard = await person(['can_view_device_alarms', 'can_view_descendant_devices'], [building]);
    const mine = ok<{ from: { number: string }; sos: boolean; status: string }[]>(await guard.api.get('/alarms/calls'));
    expect(mine.map((c) => c.from.number)).toEqual(['7100', '7300']);
    expect(mine.every((c) => c.sos)).toBe(true);

    const all = ok<{ from: { number: string } }[]>(await admin.get('/alarms/calls?sort=created_at'));
    // Every device in scope: every SOS call, numbers of no one included (a trunk's caller).
    expect(all.map((c) => c.from.number)).toEqual(['9999', '7200', '7300', '7100']);
    const unanswered = ok<{ status: string }[]>(
      await admin.get(
        `/alarms/calls?filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'status', operator: 'equals', value: 'noanswer' }] }))}`,
      ),
    );
    expect(unanswered).toHaveLength(1);
    expect((await admin.get('/alarms/calls?sort=password')).statusCode).toBe(400);
    expect((await admin.get('/alarms/calls?size=100000')).statusCode).toBe(400);
  });
});
