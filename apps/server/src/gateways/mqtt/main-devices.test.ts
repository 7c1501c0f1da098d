// `npm start` with a device: the process main.ts runs, its broker (embedded, or a real Mosquitto
// through MQTT_URL with MQTT_DYNSEC) and its own gateway client, a simulated panel signing in
// with the password set at init, and the device's tasks and status as the API shows them.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SimDevice } from '@atrium/device-sim';
import { afterEach, describe, expect, it } from 'vitest';
import { mosquittoAvailable, type RunningMosquitto, startMosquitto } from './mosquitto.test-broker.js';
import { MosquittoDynsec } from './mosquitto-dynsec.js';

const MAIN = path.resolve(import.meta.dirname, '../../main.ts');

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
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Starts main.ts; resolves the API base and the printed lines once it runs. */
async function startAtrium(env: Record<string, string>): Promise<{ base: string; output: () => string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-main-devices-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      ADMIN_PASSWORD: 'main-devices-password',
      // Not what these tests are about, and another Atrium on the machine may hold the SIP ports.
      SIP_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.push(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  await expect.poll(() => out, { timeout: 60_000, interval: 100 }).toContain('Atrium is running at');
  return { base: `http://127.0.0.1:${port}/api/v0`, output: () => out };
}

async function signIn(base: string) {
  const body = await (
    await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password: 'main-devices-password' }),
    })
  ).json();
  expect(body).toHaveProperty('data.sessions');
  const token = body.data.sessions[0].token as string;
  return async (method: string, url: string, payload?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    return { status: res.status, data: ((await res.json()) as { data: unknown }).data };
  };
}

/**
 * Adds and initialises a device through the API, brings the simulator up with the password init
 * gave, and follows its init and a settings apply to completed, then its status to offline.
 */
async function deviceLifecycle(base: string, mqttUrl: string, serial: string, accounts?: MosquittoDynsec) {
  const api = await signIn(base);
  const groups = (await api('GET', '/domains')).data as { id: number }[];
  const created = await api('PUT', '/devices', { name: 'Gate', model: 'AP-100', serial_number: serial, domain_id: groups[0]?.id });
  expect(created.status).toBe(200);
  const device = created.data as { id: number };
  const init = (await api('POST', `/devices/${device.id}/init/apply`, {})).data as { password: string; task: { id: number } };
  // On Mosquitto, the account init made is the device's own: its subtree and nothing else.
  if (accounts) expect(await accounts.listDevices()).toContain(serial);

  const sim = new SimDevice({ url: mqttUrl, serial, password: init.password, heartbeatMs: 200 });
  cleanup.push(() => sim.stop({ graceful: false }));
  await sim.start();
  const taskState = async (id: number) => {
    const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'id', operator: 'equals', value: id }] }));
    const r = await api('GET', `/devices/tasks?filters=${filters}`);
    if (!Array.isArray(r.data)) throw new Error(JSON.stringify(r));
    return (r.data as { state: string }[])[0]?.state;
  };
  const online = async () => ((await api('GET', `/devices/${device.id}`)).data as { online: boolean }).online;
  // The init task waited for the device and ran once it came online.
  await expect.poll(() => taskState(init.task.id), { timeout: 15_000 }).toBe('completed');
  expect(sim.initialized).toBe(true);
  expect(await online()).toBe(true);

  const apply = (await api('POST', `/devices/${device.id}/settings/apply`, {})).data as { id: number };
  await expect.poll(() => taskState(apply.id), { timeout: 15_000 }).toBe('completed');
  expect(sim.settings).not.toBeNull();

  await sim.stop();
  await expect.poll(online, { timeout: 10_000 }).toBe(false);

  // Back again, then switched off MQTT: the broker cuts it off and refuses it from then on.
  await sim.start();
  await expect.poll(online, { timeout: 10_000 }).toBe(true);
  expect((await api('POST', `/devices/${device.id}/protocol`, { protocol: 'none' })).status).toBe(200);
  await expect.poll(() => sim.connected, { timeout: 10_000 }).toBe(false);
  await expect.poll(online, { timeout: 10_000 }).toBe(false);
  const refused = new SimDevice({ url: mqttUrl, serial, password: init.password, reconnectMs: 0 });
  await expect(refused.start()).rejects.toThrow();
  await refused.stop({ graceful: false });
  // Deleted: its account goes with it.
  expect((await api('DELETE', `/devices/${device.id}`)).status).toBe(200);
  if (accounts) await expect.poll(() => accounts.listDevices(), { timeout: 10_000 }).not.toContain(serial);
}

describe('npm start with a device', () => {
  it('on the embedded broker: its gateway is linked in-process (no MQTT connection of its own); a device initialised through the API runs its tasks, online then offline', async () => {
    const mqttPort = await freePort();
    const { base } = await startAtrium({ MQTT_PORT: String(mqttPort) });
    await deviceLifecycle(base, `mqtt://127.0.0.1:${mqttPort}`, 'MAIN-SIM-1');
    // Restarted from the broker tab: a new broker on the same port, and the gateway linked to it.
    const api = await signIn(base);
    const restarted = await api('POST', '/settings/broker/restart', { type: 'broker' });
    expect(restarted.status).toBe(200);
    await deviceLifecycle(base, `mqtt://127.0.0.1:${mqttPort}`, 'MAIN-SIM-3');
  }, 150_000);

  it.skipIf(!mosquittoAvailable())(
    'on Mosquitto (MQTT_URL, MQTT_DYNSEC): Atrium sets up dynamic security, reads devices through shared subscriptions and sends them tasks',
    async () => {
      const m: RunningMosquitto = await startMosquitto();
      cleanup.push(() => m.stop());
      const url = `mqtt://${m.admin.username}:${encodeURIComponent(m.admin.password)}@127.0.0.1:${m.port}`;
      const { base, output } = await startAtrium({
        MQTT_URL: url,
        MQTT_DYNSEC: 'true',
        MQTT_SHARED_SUBSCRIPTION: 'true',
        MQTT_CLIENT_ID: `atrium-main-devices-${process.pid}`,
      });
      expect(output()).toContain(`MQTT: 127.0.0.1:${m.port} (Mosquitto; Atrium manages its dynamic security)`);
      expect(output()).not.toContain(m.admin.password);
      // Atrium makes, disables and removes the device's account itself; this client only looks.
      const accounts = await MosquittoDynsec.connect({ url });
      cleanup.push(() => accounts.close());
      await deviceLifecycle(base, m.url, 'MAIN-SIM-2', accounts);
    },
    90_000,
  );
});
