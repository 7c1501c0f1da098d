// Device synchronisation as a panel maker meets it: a new, replaced or factory-reset panel ends with
// exactly what it must hold (full sync after init and on the device's request), messages that do not
// follow their device are refused and counted, a silent device is offline within three heartbeats,
// and a re-initialised device's old session ends at once. Every device here is the simulator on a
// real embedded broker, speaking MQTT as a panel does.
import { randomUUID } from 'node:crypto';
import { DEVICE_REALTIME } from '@atrium/contract';
import { SimDevice } from '@atrium/device-sim';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';
import { queryRows } from '../../core/db/client.js';

let t: TestApp;
let base: string;
let admin: Awaited<ReturnType<typeof adminClient>>;
let h: DeviceHarness;
const sims: SimDevice[] = [];
beforeAll(async () => {
  t = await buildTestApp();
  base = await listenForSockets(t.app);
  admin = await adminClient(t);
  h = await deviceHarness(t);
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.stop({ graceful: false })));
  await h.close();
  await t.close();
});

let seq = 0;
const uniq = (p: string) => `${p}-${++seq}-${randomUUID().slice(0, 6)}`.toUpperCase();
const ok = <T>(res: { statusCode: number; body: string; json(): { data: T } }): T => {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

/** A simulator the test stops at the end. */
const sim = (o: ConstructorParameters<typeof SimDevice>[0]) => {
  const s = new SimDevice({ heartbeatMs: 500, ...o });
  sims.push(s);
  return s;
};

const online = async (id: number) => ok<{ online: boolean }>(await admin.get(`/devices/${id}`)).online;
const tasksOf = (deviceId: number) =>
  queryRows<{ id: number; type: string; state: string; mode: string | null }>(
    t.database.db,
    sql`SELECT id, type, state, payload->>'mode' AS mode FROM device_tasks WHERE device_id = ${deviceId} ORDER BY seq`,
  );

/**
 * What a door must hold: three residents' cards through a rule with a schedule, one card of nobody
 * the rule names (must not be there), and one card deleted after it reached the door (must not be there).
 */
async function doorWithCards(doorId: number) {
  const resident = await makeUser(t.database.db, {
    projectId: t.project.projectId,
    roleId: await makeRole(t.database.db, t.project.projectId, []),
    groupIds: [t.project.rootGroupId],
  });
  const hours = ok<{ id: number }>(
    await admin.put('/time-rules', {
      name: uniq('Hours'),
      domain_id: t.project.rootGroupId,
      time_zone: 'Europe/Berlin',
      entries: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 25200, to: 68400 }],
    }),
  );
  const card = async (owner: number | null) =>
    ok<{ id: number }>(
      await admin.put('/identifiers', { name: uniq('Card'), value: randomUUID().replace(/-/g, '').slice(0, 10), owner_id: owner }),
    ).id;
  const held = [await card(resident.id), await card(resident.id), await card(resident.id)];
  const gone = await card(resident.id);
  const stranger = await card(null);
  const rule = ok<{ id: number }>(
    await admin.put('/access-rules', {
      name: uniq('Entrance'),
      devices: [{ id: doorId, lock_number: 1 }],
      users: [resident.id],
      time_rules: [hours.id],
    }),
  );
  return { held, gone, stranger, rule: rule.id, schedule: hours.id };
}

/** Holds exactly these identifiers (by id), each through the rule with its schedule, and the schedule. */
function holdsExactly(s: SimDevice, want: { held: number[]; rule: number; schedule: number }) {
  expect([...s.synced.identifiers.keys()].sort((a, b) => a - b)).toEqual([...want.held].sort((a, b) => a - b));
  for (const i of s.synced.identifiers.values())
    expect(i.grants).toEqual([{ rule_id: want.rule, locks: [1], schedule_ids: [want.schedule] }]);
  expect([...s.synced.schedules.keys()]).toEqual([want.schedule]);
}

describe('full sync', () => {
  it('a panel replaced by a new one under the same serial (initialised again) ends with exactly the cards, rule and schedule it must hold', async () => {
    const door = await h.device({ serial: uniq('SYNC-R') });
    const want = await doorWithCards(door.id);
    ok(await admin.delete(`/identifiers/${want.gone}`));
    await h.synced(door.id);
    holdsExactly(door.sim, want);

    const socket = await connectSocket(base, await login(t.app, t.adminLogin, t.adminPassword));
    try {
      expect((await socket.subscribe(DEVICE_REALTIME.statusTopic)).event).toBe('subscribed');
      // The installer mounts a new unit and initialises the device again: a new password.
      const { password } = ok<{ password: string }>(await admin.post(`/devices/${door.id}/init/apply`, {}));
      // The old unit's session ends at once, with the reason, and it cannot come back with the old password.
      const offline = await socket.next(
        (m) => m.event === DEVICE_REALTIME.events.status && (m.data as { id: number }).id === door.id,
        5000,
      );
      expect(offline.data).toEqual({ id: door.id, online: false, reason: 'reinit' });
      expect(await online(door.id)).toBe(false);
      await expect.poll(() => door.sim.connected, { timeout: 2000, interval: 20 }).toBe(false);
      await new Promise((r) => setTimeout(r, 1500)); // its reconnects (every second) are refused
      expect(door.sim.connected).toBe(false);
      const initsBefore = door.sim.received.filter((x) => x.type === 'init').length;

      const fresh = sim({ url: h.url, serial: door.serial, password, model: 'AP-100' });
      await fresh.start();
      await expect.poll(() => fresh.initialized, { timeout: 10_000 }).toBe(true);
      await h.synced(door.id);
      holdsExactly(fresh, want);
      expect(fresh.received.map((x) => [x.type, x.type === 'sync' ? x.payload.mode : null])).toEqual([
        ['init', null],
        ['sync', 'full'],
      ]);
      // Nothing meant for the new unit reached the old one.
      expect(door.sim.received.filter((x) => x.type === 'init')).toHaveLength(initsBefore);
      // The unit asked for a full sync too (it holds nothing): one was already on its way, so only one.
      expect(fresh.syncRequests.map((r) => r.reason)).toEqual(['empty']);
      expect((await tasksOf(door.id)).filter((x) => x.mode === 'full')).toHaveLength(2);
    } finally {
      socket.close();
    }
  });

  it('a factory-reset panel (same serial and password, empty store) asks for a full sync and ends with exactly its cards', async () => {
    const door = await h.device({ serial: uniq('SYNC-F') });
    const want = await doorWithCards(door.id);
    ok(await admin.delete(`/identifiers/${want.gone}`));
    await h.synced(door.id);
    holdsExactly(door.sim, want);
    await door.sim.stop();
    await expect.poll(() => online(door.id)).toBe(false);
    const fullBefore = (await tasksOf(door.id)).filter((x) => x.mode === 'full').length;

    door.sim.factoryReset();
    expect(door.sim.synced.identifiers.size).toBe(0);
    await door.sim.start();
    await expect.poll(() => door.sim.fullSynced, { timeout: 10_000 }).toBe(true);
    await h.synced(door.id);
    holdsExactly(door.sim, want);
    expect((await tasksOf(door.id)).filter((x) => x.mode === 'full')).toHaveLength(fullBefore + 1);
  });

  it('a new device taking an old one’s place ends with exactly the cards the old one held; changes after it still go as deltas', async () => {
    const old = await h.device({ serial: uniq('SYNC-O') });
    const want = await doorWithCards(old.id);
    await h.synced(old.id);
    // The new device is added, takes the old one's place in the rule, and is initialised.
    const created = ok<{ id: number }>(
      await admin.put('/devices', { name: 'New door', model: 'AP-100', serial_number: uniq('SYNC-N'), domain_id: t.project.rootGroupId }),
    );
    ok(await admin.patch(`/access-rules/${want.rule}`, { devices: [{ id: created.id, lock_number: 1 }] }));
    ok(await admin.delete(`/identifiers/${want.gone}`));
    const serial = ok<{ serial_number: string }>(await admin.get(`/devices/${created.id}`)).serial_number;
    const { password } = ok<{ password: string }>(await admin.post(`/devices/${created.id}/init/apply`, {}));
    const fresh = sim({ url: h.url, serial, password, model: 'AP-100' });
    await fresh.start();
    await expect.poll(() => fresh.fullSynced, { timeout: 10_000 }).toBe(true);
    await h.synced(created.id);
    holdsExactly(fresh, want);
    await h.synced(old.id);
    expect(old.sim.synced.identifiers.size).toBe(0);

    // A card revoked afterwards reaches it as a delta, not another full sync.
    ok(await admin.post(`/identifiers/${want.held[0]}/revoke`));
    await h.synced(created.id);
    // The deltas queued while it waited for its init (the rule, the deleted card) were superseded by the full sync.
    const tasks = (await tasksOf(created.id)).filter((x) => x.type === 'sync');
    expect(tasks.map((x) => [x.mode, x.state])).toEqual([
      ['delta', 'stopped'],
      ['delta', 'stopped'],
      ['full', 'completed'],
      ['delta', 'completed'],
    ]);
    expect(fresh.received.filter((x) => x.type === 'sync').map((x) => x.type === 'sync' && x.payload.mode)).toEqual(['full', 'delta']);
    expect(fresh.synced.identifiers.get(want.held[0] as number)?.revoked).toBe(true);
  });
});

describe('messages that do not follow their device', () => {
  it('a sync acknowledgement counts only for the device’s own sync task waiting for its result', async () => {
    const a = await h.device({ serial: uniq('ACK-A') });
    const b = await h.device({ serial: uniq('ACK-B') });
    await h.synced(a.id);
    await h.synced(b.id);
    const syncOf = async (deviceId: number) => (await tasksOf(deviceId)).find((x) => x.type === 'sync') as { id: number };
    const bTask = (await syncOf(b.id)).id;
    const aTask = (await syncOf(a.id)).id;
    const errorsOf = async (id: number) => (await admin.get(`/devices/${id}/sync-errors`)).json();
    const beforeA = await errorsOf(a.id);
    const beforeB = await errorsOf(b.id);
    // Both tasks in flight again, as if just sent.
    await t.database.db.execute(sql`UPDATE device_tasks SET state = 'started' WHERE id IN (${aTask}, ${bTask})`);
    const refused = t.app.services.devices.stats.refused.sync_ack_foreign;
    const ack = (taskId: number) => ({ task_id: taskId, errors: [{ entity: 'identifier', id: 77, message: 'forged' }] });

    // A names B's task; then a task that is not a sync; then its own finished one.
    expect(await a.sim.sendRaw('sync-acks', JSON.stringify(ack(bTask)))).toBe('sent');
    const init = (await tasksOf(a.id)).find((x) => x.type === 'init') as { id: number };
    expect(await a.sim.sendRaw('sync-acks', JSON.stringify(ack(init.id)))).toBe('sent');
    // A broker's acknowledgement may come before the message is handed on: the count is waited for.
    const refusals = () => t.app.services.devices.stats.refused.sync_ack_foreign;
    await expect.poll(refusals).toBe(refused + 2);
    await h.gateway.idle();
    expect(await errorsOf(a.id)).toEqual(beforeA);
    expect(await errorsOf(b.id)).toEqual(beforeB);

    // Its own task waiting for the result: taken.
    expect(await a.sim.sendRaw('sync-acks', JSON.stringify(ack(aTask)))).toBe('sent');
    await h.gateway.idle();
    await expect.poll(async () => JSON.stringify(await errorsOf(a.id))).toContain('forged');
    expect(await errorsOf(b.id)).toEqual(beforeB);
    await t.database.db.execute(sql`UPDATE device_tasks SET state = 'completed' WHERE id IN (${aTask}, ${bTask})`);
    expect(await a.sim.sendRaw('sync-acks', JSON.stringify({ ...ack(aTask), errors: [] }))).toBe('sent');
    await expect.poll(refusals).toBe(refused + 3);
    await h.gateway.idle();
    expect(JSON.stringify(await errorsOf(a.id))).toContain('forged');
  });

  it('a status naming another model or type is refused and counted: the device stays as it was, its heartbeats do not bring it online', async () => {
    const metric = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${await login(t.app, t.adminLogin, t.adminPassword)}` },
      });
      const line = res.body.split('\n').find((l) => l.startsWith('atrium_device_messages_refused_total{reason="status_mismatch"}'));
      return Number(line?.split(' ')[1]);
    };
    const before = await metric();
    // The record says AP-100; the unit on the wall says it is an AP-300F.
    const created = ok<{ id: number; serial_number: string }>(
      await admin.put('/devices', { name: 'Door', model: 'AP-100', serial_number: uniq('MM'), domain_id: t.project.rootGroupId }),
    );
    const { password } = ok<{ password: string }>(await admin.post(`/devices/${created.id}/init/apply`, {}));
    const impostor = sim({ url: h.url, serial: created.serial_number, password, model: 'AP-300F', heartbeatMs: 100 });
    await impostor.start();
    await new Promise((r) => setTimeout(r, 800)); // several heartbeats
    await h.gateway.idle();
    expect(await online(created.id)).toBe(false);
    expect(h.gateway.isOnline(created.serial_number)).toBe(false);
    expect(impostor.received).toEqual([]);
    expect(await metric()).toBe(before + 1);
    await impostor.stop();

    // The right model: online, and its init arrives.
    const right = sim({ url: h.url, serial: created.serial_number, password, model: 'AP-100' });
    await right.start();
    await expect.poll(() => online(created.id)).toBe(true);
    await expect.poll(() => right.initialized, { timeout: 10_000 }).toBe(true);

    // The same device then says it is a monitor, and another model: refused, nothing changed.
    const firmware = async () => ok<{ firmware: string | null }>(await admin.get(`/devices/${created.id}`)).firmware;
    const wasFirmware = await firmware();
    for (const lie of [
      { type: 'monitor', model: 'AM-7' },
      { type: 'panel', model: 'AP-200' },
    ]) {
      const status = { state: 'online', ...lie, firmware: 'evil-9', capabilities: { locks: 9 }, heartbeat: 30 };
      expect(await right.sendRaw('status', JSON.stringify(status))).toBe('sent');
    }
    await expect.poll(metric).toBe(before + 3);
    await h.gateway.idle();
    expect(await firmware()).toBe(wasFirmware);
    expect(await online(created.id)).toBe(true);
  });

  it('a task id out of range (past int4, not a safe integer) is refused as invalid, without a database error, and changes nothing', async () => {
    const a = await h.device({ serial: uniq('RANGE') });
    await h.synced(a.id);
    const before = await tasksOf(a.id);
    const { dropped } = h.gateway.stats;
    const invalid = dropped.invalid;
    const failed = dropped.handler_failed;
    const ids = ['2147483648', '9007199254740993', '1e300', '-1', '1.5'];
    for (const id of ids) {
      expect(await a.sim.sendRaw('task-updates', `{"task_id":${id},"state":"completed"}`)).toBe('sent');
      expect(await a.sim.sendRaw('sync-acks', `{"task_id":${id},"errors":[]}`)).toBe('sent');
    }
    // In the same turn, a good report of the same device is still applied (no batch lost to a database error).
    const task = ok<{ id: number }>(await admin.post(`/devices/${a.id}/settings/apply`));
    await expect.poll(async () => (await tasksOf(a.id)).find((x) => x.id === task.id)?.state, { timeout: 10_000 }).toBe('completed');
    await h.gateway.idle();
    expect(h.gateway.stats.dropped.invalid).toBe(invalid + ids.length * 2);
    expect(h.gateway.stats.dropped.handler_failed).toBe(failed);
    expect((await tasksOf(a.id)).filter((x) => x.id !== task.id)).toEqual(before);
  });
});

describe('presence', () => {
  it('a device that goes silent (no will) is offline within three heartbeat periods of its last word', { timeout: 40_000 }, async () => {
    const d = await h.device({ serial: uniq('HB'), sim: { heartbeatSeconds: 5, heartbeatMs: 5000 } });
    // The status announced a 5 s period; wait for a heartbeat, then the unit hangs (connected, silent).
    await new Promise<void>((r) => d.sim.once('heartbeat', () => r()));
    const last = Date.now();
    d.sim.freeze();
    await expect.poll(() => online(d.id), { timeout: 25_000, interval: 100 }).toBe(false);
    const took = Date.now() - last;
    expect(took).toBeGreaterThanOrEqual(14_000);
    expect(took).toBeLessThanOrEqual(15_500);
    // A word from it brings it online again.
    await d.sim.beat();
    await expect.poll(() => online(d.id), { timeout: 5000 }).toBe(true);
  });

  it('the old session of a re-initialised device ends at once even when the new password is given by the caller', async () => {
    const d = await h.device({ serial: uniq('RE') });
    const closed = new Promise<number>((r) => d.sim.once('disconnected', () => r(Date.now())));
    const asked = Date.now();
    ok(await admin.post(`/devices/${d.id}/init/apply`, { password: 'a-new-password-for-the-unit' }));
    expect((await closed) - asked).toBeLessThan(2000);
    expect(await online(d.id)).toBe(false);
    // The broker tells the gateway too (the session's will): not online anywhere until the unit signs in again.
    await expect.poll(() => h.gateway.isOnline(d.serial), { timeout: 3000 }).toBe(false);
  });
});
