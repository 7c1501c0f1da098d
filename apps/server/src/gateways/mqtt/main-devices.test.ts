// `npm start` with a device: the process main.ts runs, its embedded broker and its own gateway
// client, a simulated panel signing in with the password set at init, and the device's tasks and
// status as the API shows them.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SimDevice } from '@atrium/device-sim';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../../main.ts');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let child: ChildProcess | undefined;
let sim: SimDevice | undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-main-devices-'));

afterAll(async () => {
  await sim?.stop({ graceful: false });
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child?.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start with a device', () => {
  it('connects its gateway to its embedded broker: a device initialised through the API signs in, runs its tasks and shows online, then offline', async () => {
    const [port, mqttPort] = [await freePort(), await freePort()];
    child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        MQTT_PORT: String(mqttPort),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
        ADMIN_PASSWORD: 'main-devices-password',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += String(d);
    });
    child.stderr?.on('data', (d) => {
      out += String(d);
    });
    await expect.poll(() => out, { timeout: 60_000, interval: 100 }).toContain('Atrium is running');

    const base = `http://127.0.0.1:${port}/api/v0`;
    const signIn = await (
      await fetch(`${base}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'admin', password: 'main-devices-password' }),
      })
    ).json();
    expect(signIn, JSON.stringify(signIn)).toHaveProperty('data.sessions');
    const token = signIn.data.sessions[0].token as string;
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as { data: unknown } };
    };
    const groups = (await api('GET', '/domains')).body.data as { id: number }[];
    const created = await api('PUT', '/devices', { name: 'Gate', model: 'AP-100', serial_number: 'MAIN-SIM-1', domain_id: groups[0]?.id });
    expect(created.status).toBe(200);
    const device = created.body.data as { id: number };
    const init = (await api('POST', `/devices/${device.id}/init/apply`, {})).body.data as { password: string; task: { id: number } };

    sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial: 'MAIN-SIM-1', password: init.password, heartbeatMs: 200 });
    await sim.start();
    const taskState = async (id: number) => {
      const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'id', operator: 'equals', value: id }] }));
      const r = await api('GET', `/devices/tasks?filters=${filters}`);
      if (!Array.isArray(r.body.data)) throw new Error(JSON.stringify(r));
      return (r.body.data as { state: string }[])[0]?.state;
    };
    // The init task waited for the device and ran once it came online.
    await expect.poll(() => taskState(init.task.id), { timeout: 15_000 }).toBe('completed');
    expect(sim.initialized).toBe(true);
    expect(((await api('GET', `/devices/${device.id}`)).body.data as { online: boolean }).online).toBe(true);

    const apply = (await api('POST', `/devices/${device.id}/settings/apply`, {})).body.data as { id: number };
    await expect.poll(() => taskState(apply.id), { timeout: 15_000 }).toBe('completed');

    await sim.stop();
    await expect
      .poll(async () => ((await api('GET', `/devices/${device.id}`)).body.data as { online: boolean }).online, { timeout: 10_000 })
      .toBe(false);
  }, 90_000);
});
