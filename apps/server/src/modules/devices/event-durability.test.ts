import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AckingPublisher, countAcknowledged } from '../../../test/acknowledged-events.js';
import { initialisedPanel } from '../../../test/factories/device.factory.js';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { newInternalCredential, startEmbeddedBroker } from '../../gateways/mqtt/broker.js';
import { MqttGateway } from '../../gateways/mqtt/gateway.js';
import { mosquittoAvailable, type RunningMosquitto, startMosquitto } from '../../gateways/mqtt/mosquitto.test-broker.js';
import { MosquittoDynsec } from '../../gateways/mqtt/mosquitto-dynsec.js';
import { DevicesRepository } from './devices.repository.js';
import { DevicesService } from './devices.service.js';

// What a device was acknowledged (PUBACK) is stored, once: devices that record every PUBACK flood
// Atrium through the embedded broker (linked in-process, as `npm start` does) and through Mosquitto
// (shared subscription, as with MQTT_URL), while the database is slow, locked or away, or the broker
// restarts; then every acknowledged event must be in device_events, and none twice.

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

interface Rig {
  t: TestApp;
  url: string;
  gateway: MqttGateway;
  mosquitto?: RunningMosquitto;
  /** Atrium's gateway again, as after a restart of the server (the same client id at an external broker). */
  close(): Promise<void>;
}

async function embeddedRig(t: TestApp): Promise<Rig> {
  const broker = await startEmbeddedBroker({
    port: 0,
    host: '127.0.0.1',
    credentials: t.app.services.devices,
    internal: newInternalCredential(),
  });
  t.app.services.devices.attachAccounts(broker.accounts);
  const gateway = await MqttGateway.connect({ local: broker.local, handlers: t.app.services.devices });
  t.app.services.devices.attachGateway(gateway);
  return {
    t,
    url: `mqtt://127.0.0.1:${broker.port}`,
    gateway,
    close: async () => {
      t.app.services.devices.attachGateway(null);
      await gateway.close();
      await broker.close();
    },
  };
}

async function mosquittoRig(t: TestApp): Promise<Rig> {
  const m = await startMosquitto({ persistence: true });
  const dynsec = await MosquittoDynsec.connect({ url: m.url, ...m.admin });
  await dynsec.setup();
  t.app.services.devices.attachAccounts(dynsec);
  const gateway = await MqttGateway.connect({
    url: m.url,
    ...m.admin,
    clientId: `atrium-durability-${process.pid}`,
    // As `npm start` with MQTT_URL: one instance, a plain subscription in its persistent session.
    shared: false,
    handlers: t.app.services.devices,
    reconnectMs: 200,
  });
  t.app.services.devices.attachGateway(gateway);
  return {
    t,
    url: m.url,
    gateway,
    mosquitto: m,
    close: async () => {
      t.app.services.devices.attachGateway(null);
      await gateway.close();
      await dynsec.close();
      await m.stop();
    },
  };
}

let serials = 0;
/** `keepaliveS`: the devices' MQTT keep-alive (seconds). */
async function publishers(rig: Rig, count: number, keepaliveS = 30): Promise<AckingPublisher[]> {
  const admin = await adminClient(rig.t);
  const out: AckingPublisher[] = [];
  for (let i = 0; i < count; i++) {
    const serial = `DUR-${process.pid}-${++serials}`;
    const password = await initialisedPanel(admin, rig.t.project.rootGroupId, serial);
    out.push(await AckingPublisher.connect(rig.url, serial, password, keepaliveS));
  }
  return out;
}

const rigs: [string, (t: TestApp) => Promise<Rig>][] = [['embedded', embeddedRig]];
if (mosquittoAvailable()) rigs.push(['Mosquitto', mosquittoRig]);

describe.each(rigs)('acknowledged device events on the %s broker', (_name, makeRig) => {
  let t: TestApp;
  let rig: Rig;
  let devices: AckingPublisher[] = [];
  beforeAll(async () => {
    t = await buildTestApp();
    rig = await makeRig(t);
  });
  afterEach(async () => {
    await Promise.all(devices.map((d) => d.close()));
    devices = [];
  });
  afterAll(async () => {
    await rig?.close();
    await t?.close();
  });

  it('keeps every event of devices with far more in flight than a device could once queue (1,000), and the same event id once', async () => {
    devices = await publishers(rig, 6);
    // 1,500 unacknowledged in flight per device, from its first event on (its sender not looked up yet).
    await Promise.all(devices.map((d) => d.send(2500, 1500)));
    expect(await settled(t, devices)).toMatchObject({ acknowledged: 15_000, lost: 0, storedTwice: 0, stored: 15_000 });
    expect(rig.gateway.stats.dropped.overloaded).toBe(0);
    // Sent again with the same event ids (a device that lost its PUBACKs): acknowledged, not stored again.
    const again = devices[0] as AckingPublisher;
    again.rewind();
    await again.send(500, 200);
    expect(again.acked.size).toBe(500);
    expect(await settled(t, devices)).toMatchObject({ lost: 0, storedTwice: 0, stored: 15_000 });
    const info = t.app.services.devices.intakeStats();
    expect(info.backlog).toBe(0);
    expect(info.awaiting_ack).toBe(0);
    expect(info.acknowledged).toBeGreaterThanOrEqual(15_500);
  }, 120_000);

  it.runIf(onPostgres)(
    'keeps every event of a device whose sender lookup waits (devices locked) with 1,500 in flight, beyond what a device could once queue',
    async () => {
      devices = await publishers(rig, 3);
      const locker = new pg.Client({ connectionString: await databaseUrl(t) });
      await locker.connect();
      let flow: Promise<unknown> = Promise.resolve();
      try {
        await locker.query('BEGIN');
        // The first events of these devices need their sender looked up, which waits for the lock:
        // more than 1,000 of each pile up behind it.
        await locker.query('LOCK TABLE devices IN ACCESS EXCLUSIVE MODE');
        flow = Promise.all(devices.map((d) => d.send(3000, 1500)));
        await new Promise((r) => setTimeout(r, 2500));
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      await flow;
      expect(await settled(t, devices)).toMatchObject({ acknowledged: 9000, lost: 0, storedTwice: 0, stored: 9000 });
      expect(rig.gateway.stats.dropped.overloaded).toBe(0);
    },
    120_000,
  );

  it.runIf(onPostgres)(
    'acknowledges nothing while device_events is locked (devices stay connected past three keep-alive periods), and everything once it is stored after',
    async () => {
      // A keep-alive of 1 s: the 3 s without a PUBACK are three of them, and the devices stay
      // connected (their pings answered by the embedded broker while their events wait; Mosquitto
      // acknowledges them itself).
      devices = await publishers(rig, 4, 1);
      const flow = Promise.all(devices.map((d) => d.send(3000, 200)));
      await expect.poll(() => devices.every((d) => d.acked.size > 100), { timeout: 20_000 }).toBe(true);
      const locker = new pg.Client({ connectionString: await databaseUrl(t) });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE device_events IN ACCESS EXCLUSIVE MODE');
        const lockedAt = Date.now();
        // Commits that were on their way when the lock was taken.
        await new Promise((r) => setTimeout(r, 300));
        const before = acks(rig, devices);
        await new Promise((r) => setTimeout(r, 3000));
        expect(acks(rig, devices)).toEqual(before);
        // The devices wait with their windows full, and the intake holds no more than those windows
        // (through Mosquitto the broker keeps the rest for Atrium's session: what it hands over
        // unacknowledged is its max_inflight_messages, not bounded here).
        const info = t.app.services.devices.intakeStats();
        expect(info.awaiting_ack).toBeGreaterThan(0);
        if (!rig.mosquitto) expect(info.backlog, JSON.stringify(info)).toBeLessThanOrEqual(4 * 200);
        expect(info.oldest_unstored_ms).toBeGreaterThan(2000);
        expect(Date.now() - lockedAt).toBeGreaterThan(3000);
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      await flow;
      expect(devices.map((d) => d.closes)).toEqual(devices.map(() => 0));
      expect(await settled(t, devices)).toMatchObject({
        acknowledged: 12_000,
        lost: 0,
        storedTwice: 0,
        stored: 12_000,
      });
    },
    120_000,
  );

  it.runIf(onPostgres)(
    'holds the events while the database is away and stores them when it is back, retrying (counted) meanwhile',
    async () => {
      devices = await publishers(rig, 4);
      const flow = Promise.all(devices.map((d) => d.send(3000, 200)));
      await expect.poll(() => devices.every((d) => d.acked.size > 100), { timeout: 20_000 }).toBe(true);
      const retries = t.app.services.devices.stats.eventWriteRetries;
      const name = await databaseName(t);
      const admin = new pg.Client({ connectionString: (await databaseUrl(t)).replace(/\/[^/]*$/, '/postgres') });
      await admin.connect();
      try {
        await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        await new Promise((r) => setTimeout(r, 300));
        const before = acks(rig, devices);
        await new Promise((r) => setTimeout(r, 3000));
        expect(acks(rig, devices)).toEqual(before);
        expect(t.app.services.devices.stats.eventWriteRetries).toBeGreaterThan(retries);
      } finally {
        await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`);
        await admin.end();
      }
      await flow;
      expect(await settled(t, devices)).toMatchObject({
        acknowledged: 12_000,
        lost: 0,
        storedTwice: 0,
        stored: 12_000,
      });
    },
    120_000,
  );

  it.runIf(makeRig === mosquittoRig)(
    'loses nothing and stores nothing twice when the external broker restarts during a flow',
    async () => {
      devices = await publishers(rig, 4);
      const flow = Promise.all(devices.map((d) => d.send(4000, 200)));
      await expect.poll(() => devices.every((d) => d.acked.size > 300), { timeout: 20_000 }).toBe(true);
      await rig.mosquitto?.restart(1500);
      await flow;
      expect(await settled(t, devices)).toMatchObject({
        acknowledged: 16_000,
        lost: 0,
        storedTwice: 0,
        stored: 16_000,
      });
    },
    120_000,
  );
});

/**
 * The acknowledgements Atrium has sent: on the embedded broker the devices' PUBACKs themselves; through
 * an external broker, which acknowledges devices itself and keeps what Atrium has not, Atrium's own.
 */
function acks(rig: Rig, devices: readonly AckingPublisher[]): number[] {
  return rig.mosquitto ? [rig.gateway.stats.acknowledged] : devices.map((d) => d.acked.size);
}

/**
 * The count once Atrium has nothing left on its way in. Through an external broker a device's PUBACK
 * is the broker's (it keeps the event for Atrium's session), so the events may still be arriving.
 */
async function settled(t: TestApp, devices: readonly AckingPublisher[]) {
  const acknowledged = devices.reduce((n, d) => n + d.acked.size, 0);
  await expect
    .poll(async () => (await countAcknowledged(t.database.db, devices)).stored, { timeout: 30_000, interval: 250 })
    .toBeGreaterThanOrEqual(acknowledged);
  await expect.poll(() => t.app.services.devices.intakeStats().backlog, { timeout: 10_000 }).toBe(0);
  return countAcknowledged(t.database.db, devices);
}

async function databaseName(t: TestApp): Promise<string> {
  const [row] = await queryRows<{ name: string }>(t.database.db, sql`SELECT current_database() AS name`);
  return row?.name as string;
}

async function databaseUrl(t: TestApp): Promise<string> {
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${await databaseName(t)}`;
  return url.toString();
}

describe.runIf(onPostgres && mosquittoAvailable())('an external broker while device_events is locked', () => {
  it('stops reading past what the intake may hold (the broker keeps the rest), then stores everything', async () => {
    const t = await buildTestApp();
    const m = await startMosquitto();
    const dynsec = await MosquittoDynsec.connect({ url: m.url, ...m.admin });
    const closers: (() => Promise<unknown>)[] = [() => t.close(), () => m.stop(), () => dynsec.close()];
    try {
      await dynsec.setup();
      t.app.services.devices.attachAccounts(dynsec);
      // An intake of its own that may hold 300 unstored events.
      const intake = new DevicesService(
        t.database.db,
        new DevicesRepository(t.database.db, t.database.copyFrom, () => t.database.copyPipelined === true),
        null,
        {
          eventsHeldMax: 300,
          sweepMs: 0,
        },
      );
      const gateway = await MqttGateway.connect({ url: m.url, ...m.admin, clientId: `atrium-held-${process.pid}`, handlers: intake });
      closers.unshift(() => gateway.close());
      const devices = await publishers({ t, url: m.url } as Rig, 3);
      closers.unshift(() => Promise.all(devices.map((d) => d.close())));
      const locker = new pg.Client({ connectionString: await databaseUrl(t) });
      await locker.connect();
      // Senders known (the first event of each looked up and stored): events go straight to the intake,
      // which counts them. Before that, the few waiting on the lookup are bounded by the broker's window.
      await Promise.all(devices.map((d) => d.send(1, 1)));
      await expect.poll(() => intake.stats.storedEvents, { timeout: 10_000 }).toBe(3);
      let flow: Promise<unknown> = Promise.resolve();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE device_events IN ACCESS EXCLUSIVE MODE');
        flow = Promise.all(devices.map((d) => d.send(2000, 200)));
        await expect.poll(() => gateway.stats.readPaused, { timeout: 10_000 }).toBeGreaterThan(0);
        await new Promise((r) => setTimeout(r, 1500));
        // One message past the bound at most: mqtt.js had it in hand when reading stopped.
        expect(intake.eventsHeld, JSON.stringify([intake.intakeStats(), gateway.stats])).toBeLessThanOrEqual(301);
        expect(intake.intakeStats().delayed.intake_full).toBeGreaterThan(0);
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      await flow;
      await expect
        .poll(async () => (await countAcknowledged(t.database.db, devices)).stored, { timeout: 30_000, interval: 250 })
        .toBeGreaterThanOrEqual(6003);
      expect(await countAcknowledged(t.database.db, devices)).toMatchObject({ acknowledged: 6003, lost: 0, storedTwice: 0, stored: 6003 });
    } finally {
      for (const c of closers) await c().catch(() => undefined);
    }
  }, 120_000);
});
