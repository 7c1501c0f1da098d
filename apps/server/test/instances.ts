/**
 * Several Atrium processes (src/main.ts) on one PostgreSQL database of their own: what the tests of
 * more than one instance (cluster, device liveness, devices on RabbitMQ) share — the database made
 * and dropped, each process started with its output kept, signed in to, and stopped.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { freePort } from '../src/core/ports.js';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

export { freePort } from '../src/core/ports.js';

export async function waitFor(check: () => Promise<boolean> | boolean, what: () => string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what()}: not in time`);
}

export interface Instance {
  child: ChildProcess;
  name: string;
  port: number;
  base: string;
  /** The port its embedded broker was given (unused with an external one). */
  mqttPort: number;
  output(): string;
}

interface StartOptions {
  port?: number;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Kills an instance as a crash would (SIGKILL), once it has exited. */
export async function kill9(i: { child: ChildProcess }): Promise<void> {
  const exited = new Promise((r) => i.child.once('exit', r));
  i.child.kill('SIGKILL');
  await exited;
}

export type Api = (method: string, url: string, payload?: unknown) => Promise<{ status: number; data: Record<string, unknown> }>;

export class InstanceRig {
  private readonly children: ChildProcess[] = [];
  private readonly dirs: string[] = [];
  private dbName = '';
  databaseUrl = '';

  /**
   * `pg`: the tests' PostgreSQL (TEST_DATABASE_URL), in whose server the rig's database is made;
   * `prefix`: the database's and data directories' name; `secret`: every instance's JWT_SECRET.
   */
  constructor(
    private readonly pg: string,
    private readonly prefix: string,
    readonly admin: { login: string; password: string },
    private readonly secret: string,
  ) {}

  createDatabase(): void {
    const url = new URL(this.pg);
    this.dbName = `atrium_${this.prefix}_${process.pid}_${Date.now()}`;
    execFileSync('psql', [this.adminUrl(), '-qc', `CREATE DATABASE ${this.dbName}`]);
    url.pathname = `/${this.dbName}`;
    this.databaseUrl = url.toString();
  }

  /** A process whose output is kept, stopped with the rig. */
  spawnLogged(cmd: string, args: string[], env: Record<string, string>): { child: ChildProcess; output(): string } {
    const child = spawn(cmd, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let out = '';
    child.stdout?.on('data', (d) => {
      out += String(d);
    });
    child.stderr?.on('data', (d) => {
      out += String(d);
    });
    return { child, output: () => out };
  }

  /**
   * Starts main.ts on the rig's database and waits until it says it runs (or fails with its output).
   * Without a given port, a port another process took meanwhile is chosen again.
   */
  async start(name: string, opts: StartOptions = {}): Promise<Instance> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.startOnce(name, opts);
      } catch (e) {
        if (opts.port !== undefined || attempt >= 3 || !String(e).includes('EADDRINUSE')) throw e;
      }
    }
  }

  private async startOnce(name: string, opts: StartOptions): Promise<Instance> {
    const port = opts.port ?? (await freePort());
    const mqttPort = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), `atrium-${this.prefix}-${name}-`));
    this.dirs.push(dataDir);
    const s = this.spawnLogged(process.execPath, ['--import', 'tsx', MAIN], {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: this.databaseUrl,
      INSTANCE_NAME: name,
      MQTT_PORT: String(mqttPort),
      SIP_ENABLED: 'false',
      LOG_LEVEL: 'error',
      JWT_SECRET: this.secret,
      ADMIN_LOGIN: this.admin.login,
      ADMIN_PASSWORD: this.admin.password,
      ...opts.env,
    });
    await waitFor(
      () => {
        if (s.child.exitCode !== null) throw new Error(`instance ${name} exited\n${s.output()}`);
        return s.output().includes('Atrium is running');
      },
      () => `instance ${name} start\n${s.output()}`,
      opts.timeoutMs ?? 150_000,
    );
    return { child: s.child, name, port, base: `http://127.0.0.1:${port}`, mqttPort, output: s.output };
  }

  psql(sqlText: string): string {
    return execFileSync('psql', [this.databaseUrl, '-Atqc', sqlText]).toString().trim();
  }

  /** The administrator's token at `base`, and calls made with it. */
  async signIn(base: string): Promise<{ token: string; api: Api }> {
    const res = await fetch(`${base}/api/v0/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(this.admin),
    });
    expect(res.status).toBe(200);
    const token = ((await res.json()) as { data: { sessions: { token: string }[] } }).data.sessions[0]!.token;
    const api: Api = async (method, url, payload) => {
      const r = await fetch(`${base}/api/v0${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      return { status: r.status, data: ((await r.json()) as { data: unknown }).data as Record<string, unknown> };
    };
    return { token, api };
  }

  /** Stops every process still running (SIGTERM, each waited for), removes the data directories, drops the database. */
  async close(): Promise<void> {
    for (const c of this.children.splice(0)) {
      if (c.exitCode === null && c.signalCode === null) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await exited;
      }
    }
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    if (this.dbName) execFileSync('psql', [this.adminUrl(), '-qc', `DROP DATABASE IF EXISTS ${this.dbName} WITH (FORCE)`]);
  }

  /** How many processes it started (instances and others). */
  get started(): number {
    return this.children.length;
  }

  private adminUrl(): string {
    const admin = new URL(this.pg);
    admin.pathname = '/postgres';
    return admin.toString();
  }
}
