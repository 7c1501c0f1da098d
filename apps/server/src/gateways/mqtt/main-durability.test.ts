// kill -9 of the server during a flood of events: `npm start` (main.ts) as a child process on
// PostgreSQL, with its embedded broker or a Mosquitto at MQTT_URL, devices that record every PUBACK,
// the server killed and started again; then every acknowledged event is stored, and none twice.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { AckingPublisher, countAcknowledged } from '../../../test/acknowledged-events.js';
import { freshDatabase } from '../../../test/helpers.js';
import { type Database, queryRows } from '../../core/db/client.js';
import { mosquittoAvailable, type RunningMosquitto, startMosquitto } from './mosquitto.test-broker.js';

const MAIN = path.resolve(import.meta.dirname, '../../main.ts');
const PASSWORD = 'main-durability-password';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

/** main.ts in a child process; resolves once it runs, with the way to kill it (SIGKILL: no goodbye). */
async function startAtrium(env: Record<string, string>): Promise<{ kill(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'error', ADMIN_PASSWORD: PASSWORD, SIP_ENABLED: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  };
  cleanup.push(() => kill('SIGTERM'));
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  await expect.poll(() => out, { timeout: 60_000, interval: 100 }).toContain('Atrium is running at');
  return { kill: () => kill() };
}

/** Devices made and initialised through the API; answers each one's serial number and password. */
async function makeDevices(base: string, count: number): Promise<{ serial: string; password: string }[]> {
  const login = await (
    await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password: PASSWORD }),
    })
  ).json();
  const token = login.data.sessions[0].token as string;
  const api = async (method: string, url: string, body?: unknown) =>
    (
      (await (
        await fetch(`${base}${url}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      ).json()) as { data: unknown }
    ).data;
  const groups = (await api('GET', '/domains')) as { id: number }[];
  const out: { serial: string; password: string }[] = [];
  for (let i = 0; i < count; i++) {
    const serial = `KILL-${process.pid}-${i}`;
    const d = (await api('PUT', '/devices', { name: serial, model: 'AP-100', serial_number: serial, domain_id: groups[0]?.id })) as {
      id: number;
    };
    const init = (await api('POST', `/devices/${d.id}/init/apply`, {})) as { password: string };
    out.push({ serial, password: init.password });
  }
  return out;
}

async function databaseUrl(database: Database): Promise<string> {
  const [row] = await queryRows<{ name: string }>(database.db, sql`SELECT current_database() AS name`);
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${row?.name}`;
  return url.toString();
}

const brokers: ['embedded' | 'Mosquitto'][] = [['embedded']];
if (mosquittoAvailable()) brokers.push(['Mosquitto']);

describe.runIf(process.env.TEST_DATABASE_URL).each(brokers)('kill -9 of the server during a flood of events, %s broker', (broker) => {
  it('stores every acknowledged event once the server is back, and none twice', async () => {
    const database = await freshDatabase();
    cleanup.push(() => database.close());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-main-durability-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    let deviceUrl: string;
    const env: Record<string, string> = { PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: await databaseUrl(database) };
    if (broker === 'Mosquitto') {
      const m: RunningMosquitto = await startMosquitto({ persistence: true });
      cleanup.push(() => m.stop());
      env.MQTT_URL = `mqtt://${m.admin.username}:${encodeURIComponent(m.admin.password)}@127.0.0.1:${m.port}`;
      env.MQTT_DYNSEC = 'true';
      env.MQTT_CLIENT_ID = `atrium-kill-${process.pid}`;
      deviceUrl = m.url;
    } else {
      const mqttPort = await freePort();
      env.MQTT_PORT = String(mqttPort);
      deviceUrl = `mqtt://127.0.0.1:${mqttPort}`;
    }
    const first = await startAtrium(env);
    const accounts = await makeDevices(`http://127.0.0.1:${port}/api/v0`, 4);
    const devices = await Promise.all(accounts.map((a) => AckingPublisher.connect(deviceUrl, a.serial, a.password)));
    cleanup.push(async () => {
      await Promise.all(devices.map((d) => d.close()));
    });
    const flow = Promise.all(devices.map((d) => d.send(3000, 200)));
    await expect.poll(() => devices.every((d) => d.acked.size > 500), { timeout: 30_000 }).toBe(true);
    await first.kill();
    const ackedAtKill = devices.reduce((n, d) => n + d.acked.size, 0);
    // Back on the same ports and database: the devices (or the broker, for Atrium's session) send again what has no PUBACK.
    await startAtrium(env);
    await flow;
    expect(ackedAtKill).toBeLessThan(12_000);
    await expect
      .poll(async () => (await countAcknowledged(database.db, devices)).stored, { timeout: 30_000, interval: 250 })
      .toBeGreaterThanOrEqual(12_000);
    expect(await countAcknowledged(database.db, devices)).toMatchObject({ acknowledged: 12_000, lost: 0, storedTwice: 0, stored: 12_000 });
  }, 180_000);
});
