// The device plane in its supervised worker thread (host.ts), as `npm start` runs it: the embedded
// broker and the event intake on their own thread, the devices service on this one; devices that
// record every PUBACK flood it, and every acknowledged event must be stored, once — through the
// plane's own PostgreSQL connections, or across the channel to PGlite — even when the worker is
// killed in the middle of the flood.
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AckingPublisher, countAcknowledged } from '../../../../test/acknowledged-events.js';
import { initialisedPanel } from '../../../../test/factories/device.factory.js';
import { adminClient, buildTestApp, type TestApp } from '../../../../test/helpers.js';
import { queryRows } from '../../../core/db/client.js';
import { threadNames } from '../../../core/worker-threads.js';
import { newInternalCredential } from '../broker.js';
import { type DevicePlane, startDevicePlane } from './host.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function databaseUrl(t: TestApp): Promise<string | null> {
  if (!onPostgres) return null;
  const [row] = await queryRows<{ name: string }>(t.database.db, sql`SELECT current_database() AS name`);
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${row?.name}`;
  return url.toString();
}

let t: TestApp;
let plane: DevicePlane;
let devices: AckingPublisher[] = [];
let serials = 0;

async function publishers(count: number): Promise<AckingPublisher[]> {
  const admin = await adminClient(t);
  const out: AckingPublisher[] = [];
  for (let i = 0; i < count; i++) {
    const serial = `PLANE-${process.pid}-${++serials}`;
    const password = await initialisedPanel(admin, t.project.rootGroupId, serial);
    out.push(await AckingPublisher.connect(`mqtt://127.0.0.1:${plane.port}`, serial, password));
  }
  return out;
}

/** What the publishers were promised against what is stored, once storing has settled. */
async function settled(expected: number) {
  await expect
    .poll(async () => (await countAcknowledged(t.database.db, devices)).stored, { timeout: 60_000, interval: 250 })
    .toBeGreaterThanOrEqual(expected);
  return countAcknowledged(t.database.db, devices);
}

describe(`the device plane in its worker thread (${onPostgres ? 'PostgreSQL: events stored by the plane' : 'PGlite: batches cross to the main thread'})`, () => {
  beforeAll(async () => {
    t = await buildTestApp();
    plane = await startDevicePlane({
      broker: { kind: 'embedded', port: 0, host: '127.0.0.1', internal: newInternalCredential(), tls: null },
      databaseUrl: await databaseUrl(t),
      services: t.app.services.devices,
      log: silent,
    });
    t.app.services.devices.attachAccounts(plane.accounts);
    t.app.services.devices.attachGateway(plane);
  }, 60_000);
  afterEach(async () => {
    await Promise.all(devices.map((d) => d.close()));
    devices = [];
  });
  afterAll(async () => {
    t?.app.services.devices.attachGateway(null);
    await plane?.close();
    await t?.close();
  });

  it('acknowledges what is stored, stores each event once, and tells the main thread of the stored events', async () => {
    // The main thread's listeners of stored events: told of the events of types they want, and only those.
    const heard = new Set<string>();
    let unwanted = 0;
    t.app.services.devices.onEvents(
      async (events) => {
        for (const e of events) heard.add(e.eventId as string);
      },
      (types) => types.includes('sensor'),
    );
    t.app.services.devices.onEvents(
      async () => {
        unwanted++;
      },
      (types) => types.includes('no-such-type'),
    );
    devices = await publishers(3);
    await Promise.all(devices.map((d) => d.send(2000, 300)));
    expect(await settled(6000)).toMatchObject({ acknowledged: 6000, lost: 0, storedTwice: 0, stored: 6000 });
    await expect.poll(() => heard.size).toBe(6000);
    expect(unwanted).toBe(0);
    // Sent again with the same event ids: acknowledged, not stored again.
    const again = devices[0] as AckingPublisher;
    again.rewind();
    await again.send(500, 200);
    expect(again.acked.size).toBe(500);
    expect(await countAcknowledged(t.database.db, devices)).toMatchObject({ lost: 0, storedTwice: 0, stored: 6000 });
    // The counters cross once a second.
    await expect.poll(() => t.app.services.devices.intakeStats().acknowledged, { timeout: 5000 }).toBeGreaterThanOrEqual(6500);
    const info = t.app.services.devices.intakeStats();
    expect(info.stored).toBeGreaterThanOrEqual(6500);
    expect(info.backlog).toBe(0);
    // Its heap crosses with the counters: used, under the limit it would die at (/metrics).
    const health = t.app.services.devices.planeHealth();
    expect(health?.heapLimit).toBeGreaterThan(512 * 2 ** 20);
    expect(health?.heapUsed).toBeGreaterThan(0);
    expect(health?.heapUsed).toBeLessThan(health?.heapLimit as number);
    // The plane's thread is named, so its CPU can be told from the HTTP thread's (top -H, the devices bench).
    if (process.platform === 'linux') expect([...threadNames().values()]).toContain('atrium-devices');
  }, 120_000);

  it('a worker killed during a flood is replaced on the same port; its devices send again what had no PUBACK: 0 lost, 0 stored twice', async () => {
    devices = await publishers(4);
    const port = plane.port;
    const flow = Promise.all(devices.map((d) => d.send(3000, 200)));
    await expect.poll(() => devices.every((d) => d.acked.size > 300), { timeout: 30_000 }).toBe(true);
    const crashes = plane.crashes;
    await plane.worker.terminate();
    const ackedAtKill = devices.reduce((n, d) => n + d.acked.size, 0);
    expect(ackedAtKill).toBeLessThan(12_000);
    await plane.whenRunning();
    expect(plane.crashes).toBe(crashes + 1);
    expect(t.app.services.devices.planeHealth()?.crashes).toBe(crashes + 1);
    expect(plane.port).toBe(port);
    await flow;
    expect(await settled(12_000)).toMatchObject({ acknowledged: 12_000, lost: 0, storedTwice: 0, stored: 12_000 });
  }, 300_000);

  it.runIf(onPostgres)(
    'acknowledges nothing while device_events is locked, and everything once stored after',
    async () => {
      devices = await publishers(3);
      const flow = Promise.all(devices.map((d) => d.send(2000, 200)));
      await expect.poll(() => devices.every((d) => d.acked.size > 100), { timeout: 20_000 }).toBe(true);
      const locker = new pg.Client({ connectionString: (await databaseUrl(t)) as string });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE device_events IN ACCESS EXCLUSIVE MODE');
        await new Promise((r) => setTimeout(r, 300)); // commits on their way when the lock was taken
        const before = devices.map((d) => d.acked.size);
        await new Promise((r) => setTimeout(r, 2500));
        expect(devices.map((d) => d.acked.size)).toEqual(before);
        // The devices wait with their windows full; the plane holds no more than those windows.
        await expect.poll(() => t.app.services.devices.intakeStats().backlog, { timeout: 3000 }).toBeGreaterThan(0);
        const info = t.app.services.devices.intakeStats();
        expect(info.backlog).toBeLessThanOrEqual(3 * 200);
        expect(info.oldest_unstored_ms).toBeGreaterThan(1000);
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      await flow;
      expect(await settled(6000)).toMatchObject({ acknowledged: 6000, lost: 0, storedTwice: 0, stored: 6000 });
    },
    120_000,
  );
});
