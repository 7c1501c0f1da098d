import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { MosquittoDynsec } from './mosquitto-dynsec.js';
import type { TestBroker } from './test-brokers.js';

/**
 * A real Mosquitto 2 for the device suite (Debian's `mosquitto`), started on a free port with a
 * generated config that loads the dynamic-security plugin, the way README "Running on Mosquitto"
 * tells an operator to. Atrium's side (MosquittoDynsec) then sets it up and gives devices accounts.
 */

export const MOSQUITTO_BIN = process.env.MOSQUITTO_BIN ?? '/usr/sbin/mosquitto';
export const DYNSEC_PLUGIN = process.env.MOSQUITTO_DYNSEC_PLUGIN ?? '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so';

function which(bin: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Mosquitto, mosquitto_ctrl and the plugin are all here (CI installs them; a developer may not have them). */
export function mosquittoAvailable(): boolean {
  return existsSync(MOSQUITTO_BIN) && existsSync(DYNSEC_PLUGIN) && which('mosquitto_ctrl') !== null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited (${child.exitCode}):\n${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`mosquitto did not listen on ${port}:\n${log()}`);
}

export interface RunningMosquitto {
  port: number;
  url: string;
  admin: { username: string; password: string };
  dir: string;
  /** Stops it (SIGTERM: with persistence it saves what it holds), waits `downMs`, and starts it again on the same port. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Mosquitto with a fresh dynamic-security config (admin account made by `mosquitto_ctrl dynsec init`). */
export async function startMosquitto(opts: { persistence?: boolean } = {}): Promise<RunningMosquitto> {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-mosquitto-'));
  const port = await freePort();
  const admin = { username: 'atrium-admin', password: randomBytes(18).toString('base64url') };
  const dynsecFile = path.join(dir, 'dynamic-security.json');
  execFileSync('mosquitto_ctrl', ['dynsec', 'init', dynsecFile, admin.username, admin.password], { stdio: 'ignore' });
  const conf = path.join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      ...(opts.persistence ? ['persistence true', `persistence_location ${dir}/`] : ['persistence false']),
      // Run as whoever runs the tests, so that the plugin can save its file in this directory.
      `user ${userInfo().username}`,
      'max_packet_size 262144',
      // As README "Running on Mosquitto": Atrium acknowledges an event once stored, so its client
      // has many in flight, and what waits for it must never be dropped.
      'max_inflight_messages 2000',
      'max_queued_messages 1000000',
      `plugin ${DYNSEC_PLUGIN}`,
      `plugin_opt_config_file ${dynsecFile}`,
      '',
    ].join('\n'),
  );
  let output = '';
  const run = async () => {
    const c = spawn(MOSQUITTO_BIN, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout?.on('data', (b: Buffer) => {
      output += b.toString();
    });
    c.stderr?.on('data', (b: Buffer) => {
      output += b.toString();
    });
    await waitForPort(port, c, () => output);
    return c;
  };
  let child = await run();
  const halt = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    admin,
    dir,
    restart: async (downMs) => {
      await halt();
      await new Promise((r) => setTimeout(r, downMs));
      child = await run();
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The device suite's Mosquitto: started, set up by Atrium, device accounts through dynamic security. */
export async function mosquittoTestBroker(): Promise<TestBroker> {
  const m = await startMosquitto();
  const dynsec = await MosquittoDynsec.connect({ url: m.url, ...m.admin });
  await dynsec.setup();
  return {
    name: 'mosquitto',
    url: m.url,
    server: m.admin,
    shared: true,
    mqtt5: true,
    refusals: [],
    addDevice: (serial, password) => dynsec.upsertDevice(serial, password),
    removeDevice: (serial) => dynsec.removeDevice(serial),
    close: async () => {
      await dynsec.close();
      await m.stop();
    },
  };
}
