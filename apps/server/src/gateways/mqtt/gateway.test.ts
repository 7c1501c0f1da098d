import { randomUUID } from 'node:crypto';
import { DEVICE_DISCOVERY_PATH, DEVICE_TASK_TYPES, DEVICE_TYPES, MQTT_MAX_PACKET_BYTES, type ScreenFrameMessage } from '@atrium/contract';
import { SimDevice, type SimDeviceOptions } from '@atrium/device-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventReport, EventStored, PresenceReport, SyncAckReport, TaskUpdateReport } from '../../modules/devices/devices.gateway.js';
import { type GatewayHandlers, MqttGateway } from './gateway.js';
import { mosquittoAvailable, mosquittoTestBroker } from './mosquitto.test-broker.js';
import { embeddedTestBroker, gatewayLink, type TestBroker } from './test-brokers.js';

// The wire end to end: simulated devices (tools/device-sim) on a real broker, the gateway reading
// them, and what it hands the devices service recorded here. Runs on the embedded broker (the gateway
// linked in-process as `npm start` does, and as an MQTT client over TCP), and on Mosquitto with its
// dynamic-security plugin when the machine has it.

/** What the gateway handed the devices service, per device. */
class Recorder implements GatewayHandlers {
  presence: { serial: string; report: PresenceReport }[] = [];
  updates: { serial: string; report: TaskUpdateReport }[] = [];
  events: { serial: string; report: EventReport }[] = [];
  acks: { serial: string; report: SyncAckReport }[] = [];
  frames: { serial: string; frame: ScreenFrameMessage }[] = [];
  seen: ReadonlyMap<string, Date>[] = [];
  async onPresence(serial: string, report: PresenceReport) {
    this.presence.push({ serial, report });
  }
  async onTaskUpdate(serial: string, report: TaskUpdateReport) {
    this.updates.push({ serial, report });
  }
  // Taken is stored, here: the device's PUBACK may go at once.
  async onEvent(serial: string, report: EventReport, stored?: EventStored) {
    this.events.push({ serial, report });
    stored?.();
  }
  /** Devices whose events acceptEvent takes synchronously: those with an odd `data.value` (the even go to onEvent). */
  readonly acceptsOdd = new Set<string>();
  accepted = 0;
  acceptEvent(serial: string, report: EventReport, stored?: EventStored): boolean {
    if (!this.acceptsOdd.has(serial) || (report.data?.value as number) % 2 === 0) return false;
    this.accepted++;
    this.events.push({ serial, report });
    stored?.();
    return true;
  }
  syncRequests: string[] = [];
  async onSyncRequest(serial: string) {
    this.syncRequests.push(serial);
  }
  async onSyncAck(serial: string, report: SyncAckReport) {
    this.acks.push({ serial, report });
  }
  async onScreenFrame(serial: string, frame: ScreenFrameMessage) {
    this.frames.push({ serial, frame });
  }
  async onLastSeen(seen: ReadonlyMap<string, Date>) {
    this.seen.push(seen);
  }
  states(serial: string, taskId: number) {
    return this.updates.filter((u) => u.serial === serial && u.report.task_id === taskId).map((u) => u.report.state);
  }
  eventsOf(serial: string) {
    return this.events.filter((e) => e.serial === serial).map((e) => e.report);
  }
  onlineOf(serial: string) {
    return this.presence.filter((p) => p.serial === serial).map((p) => p.report.online);
  }
}

// The devices speak through mqtt.js, and (last rows) through device-sim's lean client, which the
// benchmark's fleet uses: the same protocol, every rule the same, on both brokers.
const brokers: [string, () => Promise<TestBroker>, SimDeviceOptions['client']][] = [
  ['embedded (in-process link)', () => embeddedTestBroker({ inProcess: true }), 'mqtt.js'],
  ['embedded (TCP client)', () => embeddedTestBroker(), 'mqtt.js'],
  ['embedded (in-process link), devices on the lean client', () => embeddedTestBroker({ inProcess: true }), 'lean'],
];
if (mosquittoAvailable()) {
  brokers.push(['mosquitto', mosquittoTestBroker, 'mqtt.js']);
  brokers.push(['mosquitto, devices on the lean client', mosquittoTestBroker, 'lean']);
}

let serials = 0;
let taskIds = 1000;

describe.each(brokers)('devices on the %s broker', (_name, makeBroker, client) => {
  let broker: TestBroker;
  let gateway: MqttGateway;
  let rec: Recorder;
  const sims: SimDevice[] = [];

  beforeAll(async () => {
    broker = await makeBroker();
    rec = new Recorder();
    gateway = await MqttGateway.connect({ ...gatewayLink(broker), handlers: rec, flushMs: 100, shared: broker.shared });
  });
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.stop({ graceful: false })));
    await gateway?.close();
    await broker?.close();
  });

  /** A simulated device with an account on the broker, started and seen online by the gateway. */
  async function device(opts: Partial<SimDeviceOptions> = {}, start = true): Promise<SimDevice> {
    const serial = `SIM-${process.pid}-${++serials}`;
    const password = `pw-${serial}-secret`;
    await broker.addDevice(serial, password);
    const d = new SimDevice({ url: broker.url, serial, password, heartbeatMs: 50, taskDelayMs: 10, reconnectMs: 0, client, ...opts });
    sims.push(d);
    if (start) {
      await d.start();
      await expect.poll(() => gateway.isOnline(serial)).toBe(true);
    }
    return d;
  }

  const task = (type: string, payload: Record<string, unknown> = {}) => ({ id: ++taskIds, type, payload });
  const settings = { device_settings: { sip: { enabled: true } }, management: { heartbeat: 30, realtime_logging: false } };

  it('tracks presence: online with model, firmware and capabilities; heartbeats only in memory; offline on a clean stop and by the last will', async () => {
    const d = await device({ type: 'accesscontroller', model: 'AC-4' });
    const online = rec.presence.find((p) => p.serial === d.serial)?.report;
    expect(online).toEqual({
      online: true,
      type: 'accesscontroller',
      model: 'AC-4',
      firmware: 'sim-1.0.0',
      capabilities: expect.objectContaining({ locks: 4 }),
    });
    // Heartbeats arrive every 50 ms: no presence report for them, one last-seen batch per flush.
    await expect.poll(() => rec.seen.some((s) => s.has(d.serial))).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(rec.onlineOf(d.serial)).toEqual([true]);
    expect(gateway.lastSeen(d.serial)?.getTime()).toBeGreaterThan(Date.now() - 1000);
    await d.stop();
    await expect.poll(() => rec.onlineOf(d.serial)).toEqual([true, false]);
    expect(gateway.isOnline(d.serial)).toBe(false);

    const lost = await device();
    await lost.stop({ graceful: false }); // the connection drops: the broker publishes the will
    await expect.poll(() => rec.onlineOf(lost.serial), { timeout: 5000 }).toEqual([true, false]);
  });

  it('declares a device that went silent offline after three missed heartbeats, and online again when it speaks', async () => {
    const quiet = new Recorder();
    // The device announces a heartbeat every 5 s; this gateway gives up after 5 s × 0.05 = 250 ms of silence.
    const watcher = await MqttGateway.connect({ ...gatewayLink(broker), handlers: quiet, flushMs: 50, staleHeartbeats: 0.05 });
    try {
      const d = await device({ heartbeatSeconds: 5, heartbeatMs: 60_000 });
      await expect.poll(() => quiet.onlineOf(d.serial), { timeout: 5000 }).toEqual([true, false]);
      expect(watcher.isOnline(d.serial)).toBe(false);
      await d.beat();
      await expect.poll(() => quiet.onlineOf(d.serial)).toEqual([true, false, true]);
      expect(watcher.isOnline(d.serial)).toBe(true);
    } finally {
      await watcher.close();
    }
  });

  it('runs every task type, reporting started then completed, in order', async () => {
    const d = await device({ type: 'panel', model: 'AP-200' });
    const sent = {
      apply_settings: task('apply_settings', settings),
      init: task('init', settings),
      sync: task('sync', { mode: 'full', identifiers: [{ id: 1, value: 'CARD-1' }], schedules: [] }),
      restart: task('restart'),
      remote_control: task('remote_control', { session: randomUUID(), expires_at: new Date(Date.now() + 5000).toISOString() }),
      play_audio: task('play_audio', { name: 'chime' }),
      open_lock: task('open_lock', { lock: 2 }),
      call_elevator: task('call_elevator', { floor: 3, ports: [3], direction: 'up' }),
      stop_audio: task('stop_audio', {}),
      lockdown: task('lockdown', { active: false }),
      broker_settings: task('broker_settings', { url: 'mqtt://atrium.example.org:1883', tls: null }),
    };
    expect(Object.keys(sent).sort()).toEqual([...DEVICE_TASK_TYPES].sort());
    for (const [type, t] of Object.entries(sent)) {
      await expect.poll(() => gateway.isOnline(d.serial), { timeout: 5000 }).toBe(true);
      await gateway.sendTask(d.serial, t);
      await expect.poll(() => rec.states(d.serial, t.id), { timeout: 5000 }).toContain('completed');
      expect(rec.states(d.serial, t.id)[0], type).toBe('started');
      // A restart answers before it goes: wait until the device is back, or the next task would meet it leaving.
      if (type === 'restart') await expect.poll(() => rec.onlineOf(d.serial).slice(-2), { timeout: 10_000 }).toEqual([false, true]);
    }
    expect(d.initialized).toBe(true);
    expect(d.settings).toEqual(settings.device_settings);
    expect(d.synced.find('CARD-1')?.id).toBe(1);
    expect(d.played).toEqual(['chime']);
    expect(d.opened.map((o) => [o.lock, o.by])).toEqual([[2, 'task']]);
    expect(d.calls).toEqual([{ floor: 3, ports: [3], direction: 'up' }]);
    await expect.poll(() => rec.eventsOf(d.serial).map((e) => e.type)).toContain('door_opened');
    // The restart took the device offline and back.
    expect(rec.onlineOf(d.serial)).toEqual(expect.arrayContaining([true, false, true]));
    // The remote session sends frames.
    expect(rec.frames.some((f) => f.serial === d.serial && f.frame.session === sent.remote_control.payload.session)).toBe(true);
  });

  it('keeps what was synced and decides access from it: granted, and denied with the reason', async () => {
    const d = await device();
    const now = Date.now();
    const sync = task('sync', {
      mode: 'full',
      schedules: [{ id: 7, time_zone: 'UTC', entries: [{ days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'], from: 0, to: 1 }] }],
      identifiers: [
        { id: 1, value: '1111', kind: 'card' },
        { id: 2, value: '2222', revoked: true },
        { id: 3, value: '3333', valid_to: new Date(now - 60_000).toISOString() },
        { id: 4, value: '4444', valid_from: new Date(now + 60_000).toISOString() },
        { id: 5, value: '5555', locks: [2] },
        { id: 6, value: '6666', schedule_ids: [7] },
        { id: 8, value: '8888', schedule_ids: [99] },
      ],
    });
    await gateway.sendTask(d.serial, sync);
    await expect.poll(() => rec.states(d.serial, sync.id)).toContain('completed');
    const ack = rec.acks.find((a) => a.serial === d.serial)?.report;
    expect(ack).toEqual({ task_id: sync.id, errors: [{ entity: 'identifier', id: 8, message: 'unknown schedule 99' }] });

    const at = new Date('2030-01-01T12:00:00Z'); // outside schedule 7 (00:00:00–00:00:01)
    expect(await d.present('1111', { at })).toMatchObject({ granted: true });
    for (const [value, reason] of [
      ['0000', 'unknown'],
      ['2222', 'revoked'],
      ['3333', 'expired'],
      ['4444', 'not_yet_valid'],
      ['5555', 'lock'],
      ['6666', 'schedule'],
    ] as const) {
      expect(await d.present(value, { lock: 1, at: value === '3333' || value === '4444' ? new Date(now) : at })).toEqual({
        granted: false,
        reason,
      });
    }
    expect(await d.present('6666', { at: new Date('2030-01-01T00:00:00Z') })).toMatchObject({ granted: true });
    await expect.poll(() => rec.eventsOf(d.serial).length).toBe(10);
    const events = rec.eventsOf(d.serial);
    expect(events[0]).toMatchObject({
      type: 'access_granted',
      identifier: '1111',
      data: expect.objectContaining({ lock: 1, kind: 'card' }),
    });
    expect(events[1]).toMatchObject({ type: 'door_opened', identifier: '1111' });
    expect(events.filter((e) => e.type === 'access_denied').map((e) => [e.identifier, e.data?.reason])).toEqual([
      ['0000', 'unknown'],
      ['2222', 'revoked'],
      ['3333', 'expired'],
      ['4444', 'not_yet_valid'],
      ['5555', 'lock'],
      ['6666', 'schedule'],
    ]);
    // A delta sync drops one identifier and keeps the rest.
    const delta = task('sync', { mode: 'delta', removed: { identifiers: [1] } });
    await gateway.sendTask(d.serial, delta);
    await expect.poll(() => rec.states(d.serial, delta.id)).toContain('completed');
    expect(d.synced.find('1111')).toBeUndefined();
    expect(d.synced.find('6666')).toBeDefined();
  });

  it('streams the screen during remote control and takes taps, keys and door openings from the console', async () => {
    const d = await device({ frameMs: 50 });
    const session = randomUUID();
    const t = task('remote_control', { session, expires_at: new Date(Date.now() + 10_000).toISOString() });
    await gateway.sendTask(d.serial, t);
    await expect.poll(() => rec.frames.filter((f) => f.frame.session === session).length).toBeGreaterThan(2);
    const frame = rec.frames.find((f) => f.frame.session === session)?.frame;
    expect(frame).toMatchObject({ format: 'png', width: 120, height: 160 });
    expect(
      Buffer.from(frame?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    await gateway.sendInput(d.serial, { session, kind: 'tap', x: 10, y: 20 });
    await gateway.sendInput(d.serial, { session, kind: 'key', key: '5' });
    await gateway.sendInput(d.serial, { session, kind: 'open_door', lock: 1 });
    await expect.poll(() => rec.eventsOf(d.serial).find((e) => e.type === 'door_opened')?.data).toMatchObject({ lock: 1, by: 'remote' });
    expect(d.session).toMatchObject({ taps: [{ x: 10, y: 20 }], keys: ['5'] });
    await gateway.sendInput(d.serial, { session, kind: 'end' });
    await expect.poll(() => d.session).toBeNull();
  });

  it('reports failures, waits out offline periods, and answers a repeated task once', async () => {
    const d = await device({ failureRate: 1 });
    const failing = task('open_lock', {});
    await gateway.sendTask(d.serial, failing);
    await expect.poll(() => rec.states(d.serial, failing.id)).toEqual(['started', 'started', 'error']);
    expect(rec.updates.find((u) => u.report.task_id === failing.id && u.report.state === 'error')?.report.error).toBe('simulated failure');
    expect(d.opened).toEqual([]);

    d.failureRate = 0;
    d.taskDelayMs = [20, 40];
    await d.goOffline(400);
    await expect.poll(() => gateway.isOnline(d.serial), { timeout: 5000 }).toBe(false);
    await expect(gateway.sendTask(d.serial, task('restart'))).rejects.toThrow(/not online/);
    await expect.poll(() => gateway.isOnline(d.serial), { timeout: 5000 }).toBe(true);

    const once = task('open_lock', { lock: 1 });
    await gateway.sendTask(d.serial, once);
    await expect.poll(() => rec.states(d.serial, once.id)).toContain('completed');
    await gateway.sendTask(d.serial, once); // sent again (a lapsed lease): not run again, answered again
    await expect.poll(() => rec.states(d.serial, once.id).filter((s) => s === 'completed').length).toBe(2);
    expect(d.opened).toHaveLength(1);
  });

  it('refuses to send what the protocol does not allow', async () => {
    const d = await device();
    await expect(gateway.sendTask(d.serial, task('open_lock', { lock: 0 }))).rejects.toThrow(/does not match/);
    await expect(gateway.sendTask(d.serial, task('fly_to_the_moon'))).rejects.toThrow(/does not match/);
    await expect(gateway.sendTask('NO-SUCH-DEVICE', task('restart'))).rejects.toThrow(/not online/);
    await expect(gateway.sendTask('bad/serial/#', task('restart'))).rejects.toThrow(/topic level/);
  });

  it('counts, logs and drops malformed, invalid and oversized messages, and carries on', async () => {
    const d = await device();
    const before = structuredClone(gateway.stats.dropped);
    await d.sendMalformed('events');
    await d.sendInvalid('events');
    await d.sendOversized('events');
    await d.sendRaw('task-updates', JSON.stringify({ task_id: 1, state: 'error' })); // an error says why
    await d.sendRaw('status', JSON.stringify({ state: 'online' })); // no model, firmware, heartbeat
    await d.sendRaw('nonsense', '{}');
    await expect.poll(() => gateway.stats.dropped.not_json - before.not_json).toBe(1);
    await expect.poll(() => gateway.stats.dropped.invalid - before.invalid).toBe(3);
    expect(gateway.stats.dropped.too_large - before.too_large).toBe(1);
    expect(rec.eventsOf(d.serial)).toEqual([]);
    // Still served.
    const t = task('play_audio', { name: 'ok' });
    await gateway.sendTask(d.serial, t);
    await expect.poll(() => rec.states(d.serial, t.id)).toContain('completed');
  });

  it('loses the connection of a device whose message is beyond the broker limit', async () => {
    const d = await device();
    await d.sendOversized('events', MQTT_MAX_PACKET_BYTES + 1024).catch(() => undefined);
    await expect.poll(() => rec.onlineOf(d.serial), { timeout: 5000 }).toEqual([true, false]);
    expect(rec.eventsOf(d.serial)).toEqual([]);
  });

  it("never delivers a device's message on another device's topic, and refuses a wrong password", async () => {
    const victim = await device();
    const rogue = await device();
    for (const [leaf, message] of [
      ['events', { type: 'door_opened', data: { lock: 1 } }],
      ['status', { state: 'offline' }],
      ['task-updates', { task_id: 1, state: 'completed' }],
    ] as const) {
      // The embedded broker closes the connection of a client publishing where it may not; Mosquitto drops the message.
      if (!rogue.connected) await rogue.start();
      await rogue.publishAs(victim.serial, leaf, message);
    }
    // The victim's own event arrives after anything the rogue sent would have.
    await victim.event({ type: 'tamper', data: {} });
    await expect.poll(() => rec.eventsOf(victim.serial).length).toBe(1);
    expect(rec.eventsOf(victim.serial)[0]?.type).toBe('tamper');
    expect(rec.onlineOf(victim.serial)).toEqual([true]);
    expect(rec.updates.filter((u) => u.serial === victim.serial)).toEqual([]);

    expect(await victim.signInWithWrongPassword()).toBe(true);
    const stranger = new SimDevice({
      url: broker.url,
      serial: `UNKNOWN-${process.pid}`,
      password: 'whatever-it-is',
      reconnectMs: 0,
      client,
    });
    await expect(stranger.start()).rejects.toThrow();
    expect(gateway.isOnline(victim.serial)).toBe(true);
  });

  it('passes replayed task results on as the same task (the devices service keeps them idempotent)', async () => {
    const d = await device();
    const t = task('open_lock', {});
    await gateway.sendTask(d.serial, t);
    await expect.poll(() => rec.states(d.serial, t.id)).toContain('completed');
    expect(await d.replayResults()).toBe(1);
    await expect.poll(() => rec.states(d.serial, t.id).filter((s) => s === 'completed').length).toBe(2);
  });

  it('survives a flood of events: handled in order or dropped as overload, never a crash', async () => {
    const d = await device();
    const before = gateway.stats.dropped.overloaded;
    const sent = await d.flood(5000);
    await expect
      .poll(() => rec.eventsOf(d.serial).length + gateway.stats.dropped.overloaded - before, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(Math.floor(sent * 0.5)); // QoS 0: a broker may drop some of a flood itself
    await gateway.idle();
    const values = rec
      .eventsOf(d.serial)
      .filter((e) => e.type === 'sensor')
      .map((e) => e.data?.value as number);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    const t = task('restart');
    await gateway.sendTask(d.serial, t);
    await expect.poll(() => rec.states(d.serial, t.id), { timeout: 5000 }).toContain('completed');
  });

  it("hands events over synchronously when the handler can take them, and keeps each device's order when it cannot", async () => {
    const d = await device();
    rec.acceptsOdd.add(d.serial);
    const sensor = (name: string) => rec.eventsOf(d.serial).filter((e) => e.type === 'sensor' && e.data?.sensor === name);
    // Coming online the device sends its status and then asks for a full sync (sync-requests); both are
    // handled in the device's queue, in that order, and an event arriving meanwhile joins it. So first
    // the sync request handled and the queue gone.
    await expect.poll(() => rec.syncRequests.includes(d.serial)).toBe(true);
    const queues = (gateway as unknown as { queues: Map<string, unknown> }).queues;
    await expect.poll(() => queues.has(d.serial)).toBe(false);
    // One at a time nothing of the device waits, so each is taken at once. In a burst an even event
    // waits in the device's queue and every later one joins it to keep the order, so whether any odd
    // one is taken at once depends on the machine's load; the burst checks the order and that the
    // even ones never are.
    const alone = rec.accepted;
    for (const value of [1, 3, 5]) {
      await d.event({ type: 'sensor', data: { sensor: 'alone', value } });
      await expect.poll(() => sensor('alone').length, { timeout: 10_000 }).toBe((value + 1) / 2);
    }
    expect(rec.accepted - alone).toBe(3);
    const before = rec.accepted;
    // Sent at once, so odd events arrive while an even one still waits in the device's queue.
    await Promise.all(Array.from({ length: 200 }, (_, i) => d.event({ type: 'sensor', data: { sensor: 'order', value: i + 1 } })));
    await expect.poll(() => sensor('order').length, { timeout: 10_000 }).toBe(200);
    expect(sensor('order').map((e) => e.data?.value as number)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // The even ones always went through onEvent.
    expect(rec.accepted - before).toBeLessThanOrEqual(100);
  });

  it('answers IP discovery over HTTP on its loopback address', async () => {
    const port = 20000 + (process.pid % 20000);
    const d = await device({ type: 'barrier', discovery: { ip: '127.0.0.23', port } }, false);
    await d.start();
    const res = await fetch(`http://127.0.0.23:${port}${DEVICE_DISCOVERY_PATH}`);
    expect(await res.json()).toEqual({ serial_number: d.serial, type: 'barrier', model: 'BR-1', firmware: 'sim-1.0.0' });
    await d.stop();
    await expect(fetch(`http://127.0.0.23:${port}${DEVICE_DISCOVERY_PATH}`)).rejects.toThrow();
  });

  it('runs a device of every type, over MQTT 3.1.1 (and 5 where the broker speaks it)', async () => {
    for (const type of DEVICE_TYPES) {
      const d = await device({ type, protocolVersion: type === 'panel' && broker.mqtt5 ? 5 : 4 });
      const t = task('apply_settings', settings);
      await gateway.sendTask(d.serial, t);
      await expect.poll(() => rec.states(d.serial, t.id)).toContain('completed');
      await d.stop();
    }
  });
});

describe('closing the gateway', () => {
  it('never hangs on a handler that does not settle: it goes on after closeMs and says which devices waited', async () => {
    const broker = await embeddedTestBroker({ inProcess: true });
    const warnings: { obj: object; msg: string }[] = [];
    const rec = new Recorder();
    // Every event is handled by a call that never ends.
    rec.onEvent = () => new Promise<void>(() => undefined);
    const gateway = await MqttGateway.connect({
      ...gatewayLink(broker),
      handlers: rec,
      closeMs: 300,
      log: { info: () => undefined, error: () => undefined, warn: (obj, msg) => warnings.push({ obj, msg }) },
    });
    const serial = `SIM-${process.pid}-stuck`;
    await broker.addDevice(serial, 'stuck-secret');
    const d = new SimDevice({ url: broker.url, serial, password: 'stuck-secret', heartbeatMs: 50, reconnectMs: 0 });
    try {
      await d.start();
      await expect.poll(() => gateway.isOnline(serial)).toBe(true);
      // Never stored, so never acknowledged: the device waits for its PUBACK.
      void d.event({ type: 'tamper', data: {} }).catch(() => undefined);
      await expect.poll(() => gateway.stats.awaitingAck).toBe(1);
      const t0 = Date.now();
      await gateway.close();
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(warnings).toContainEqual({
        obj: expect.objectContaining({ stage: 'device messages', devices: [serial] }),
        msg: 'mqtt gateway: still closing after 0.3 s, going on',
      });
    } finally {
      await d.stop({ graceful: false });
      await broker.close();
    }
  });
});
