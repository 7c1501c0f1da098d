import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const PG_ADMIN = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The database a run uses: BENCH_DB when set (a run to keep, or to look at afterwards), else
 * `<prefix>_<pid>`, its own, so two runs at once never drop each other's database.
 */
export const benchDatabaseName = (prefix: string): string => process.env.BENCH_DB ?? `${prefix}_${process.pid}`;

/** Drops a benchmark's database (what a run named after its process leaves). */
export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** The machine's load average (1, 5 and 15 minutes), printed beside a run's figures: they move with it. */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** A fresh PostgreSQL database for one benchmark run (with `keep`, the one there is, when there is one). */
export async function freshDatabase(name: string, keep = false): Promise<string> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount;
  if (!(keep && exists)) {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  }
  await admin.end();
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function waitFor(url: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer in time`);
}

/** Starts a TypeScript entry in its own process, so load generator and server do not share a loop (an undefined variable is unset). */
export function startProcess(
  entry: string,
  env: Record<string, string | undefined>,
  serverFlags: string[] = [],
  ownSession = false,
): ChildProcess {
  // BENCH_CPU_PROF=dir: the server runs with --cpu-prof there (a .cpuprofile per process, written at exit).
  const prof = process.env.BENCH_CPU_PROF && entry.endsWith('main.ts') ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  // BENCH_SERVER_FLAGS="--flag …": Node options for the server alone (a V8 setting, --trace-gc), not the fleet.
  const flags = entry.endsWith('main.ts') ? [...(process.env.BENCH_SERVER_FLAGS?.split(' ') ?? []), ...serverFlags] : [];
  const child = spawn(process.execPath, [...prof, ...flags, '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    // A session of its own: on Linux with autogroup scheduling, its own share of the cores, as a server
    // run as a service has (see ServerOptions.ownSession).
    detached: ownSession,
    // BENCH_SERVER_LOG=file: the processes' standard output (the server's log lines) appended there, to see why a call failed.
    stdio: ['ignore', process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, 'a') : 'ignore', 'inherit'],
  });
  stopOnInterrupt(child, ownSession);
  return child;
}

/** What startProcess started and is still running, with whether it leads a process group of its own. */
const running = new Map<ChildProcess, boolean>();
let interruptHeard = false;

/**
 * A bench interrupted (Ctrl-C, a kill) stops what it started: a server in a session of its own is not
 * in the bench's process group, so it (with its children) would otherwise outlive the bench and hold
 * its ports and database. A bench with its own cleanup (cluster.ts) listens too and exits itself.
 */
function stopOnInterrupt(child: ChildProcess, ownGroup: boolean): void {
  running.set(child, ownGroup);
  child.once('exit', () => running.delete(child));
  if (interruptHeard) return;
  interruptHeard = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      for (const [c, group] of running) {
        try {
          if (group && c.pid) process.kill(-c.pid, 'SIGTERM');
          else c.kill('SIGTERM');
        } catch {
          // Already gone.
        }
      }
      if (process.listenerCount(signal) === 1) {
        console.error(`interrupted: stopped what the bench started (its database, if any, is left: drop it by hand)`);
        process.exit(130);
      }
    });
  }
}

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

/** Each load's time span (CLOCK_MONOTONIC µs, as V8's profiles count), written beside BENCH_CPU_PROF's profiles as windows.json. */
const loadWindows: { name: string; from: number; to: number }[] = [];
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

export async function load(name: string, opts: autocannon.Options): Promise<Figures> {
  const from = monotonicUs();
  const run = autocannon({ connections: 8, duration: 8, ...opts });
  // autocannon's own latency figures are whole milliseconds and have no p95 (p97.5 is the nearest):
  // at 4 ms a millisecond is a quarter of the figure, so the percentiles come from every response's
  // own time (hrtime, fractions of a millisecond).
  const times: number[] = [];
  run.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  const r = await run;
  if (process.env.BENCH_CPU_PROF) {
    // `npx tsx bench/cpuprofile.ts <dir>` then summarises the server's profile per load, start-up and seeding left out.
    loadWindows.push({ name, from, to: monotonicUs() });
    writeFileSync(path.join(process.env.BENCH_CPU_PROF, 'windows.json'), JSON.stringify(loadWindows));
  }
  times.sort((a, b) => a - b);
  return {
    name,
    rps: Math.round(r.requests.average),
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    errors: r.errors + r.non2xx,
  };
}

/** The `p`th percentile of sorted times (nearest rank), in ms to a tenth; 0 with none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return Math.round((sorted[rank - 1] as number) * 10) / 10;
}

export function print(rows: Figures[], baseline: Figures): void {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(
    `\n${'call'.padEnd(34)}${pad('req/s', 9)}${pad('p50 ms', 9)}${pad('p95 ms', 9)}${pad('p99 ms', 9)}${pad('errors', 8)}${pad('× bare rps', 12)}`,
  );
  for (const r of [baseline, ...rows]) {
    console.log(
      `${r.name.padEnd(34)}${pad(r.rps, 9)}${pad(r.p50, 9)}${pad(r.p95, 9)}${pad(r.p99, 9)}${pad(r.errors, 8)}${pad((r.rps / baseline.rps).toFixed(3), 12)}`,
    );
  }
}

export const tempDir = () => mkdtempSync(path.join(tmpdir(), 'atrium-bench-'));

export interface Servers {
  /** PostgreSQL URL of the benchmark's database. */
  url: string;
  /** Base address of Atrium. */
  base: string;
  /** The baseline route. */
  bareUrl: string;
  /** Process id of Atrium's server (its memory is read from /proc). */
  pid: number;
  /** The embedded broker's address, when started with `embeddedMqtt`. */
  mqttUrl: string | null;
  /** Signs in as the administrator and answers the authorization header. */
  auth(): Promise<Record<string, string>>;
  /** With `recordSqlTo`: the statements the server sends while `during` runs. */
  recordSql(during: () => Promise<unknown>): Promise<RecordedStatement[]>;
  /** Stops both servers; resolves once Atrium's has exited. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  /**
   * Atrium's own embedded broker (aedes) on a free port, where devices sign in with their serial
   * number and device password, instead of the machine's Mosquitto on 1883 (which has no device accounts).
   */
  embeddedMqtt?: boolean;
  /** The database URL the server is given, from the fresh database's (a proxy in between, to cut it). */
  serverDatabaseUrl?: (url: string) => string;
  /**
   * The server records its statements (bench/record-sql.mjs) into this file between two
   * `Servers.recordSql()` calls.
   */
  recordSqlTo?: string;
  /**
   * The server in a session of its own. Linux's autogroup scheduling divides the cores between
   * sessions first, then between the threads of each by nice value: started in the bench's session,
   * the server's threads share one group with the load generators (a simulated fleet, autocannon),
   * which a server run as a service (its own cgroup) never does, and a thread's nice value is then
   * weighed against theirs instead of against its own process's other threads.
   */
  ownSession?: boolean;
  /** The database of an earlier run as it is, when there is one (freshDatabase's keep). */
  keepDatabase?: boolean;
}

/** A statement the server sent, as bench/record-sql.mjs wrote it. */
export interface RecordedStatement {
  at: number;
  text: string;
  values: unknown[];
}

/** Atrium on a fresh PostgreSQL database and the bare baseline server, each in its own process. */
export async function startServers(dbName: string, opts: ServerOptions = {}): Promise<Servers> {
  const url = await freshDatabase(dbName, opts.keepDatabase);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const mqttPort = opts.embeddedMqtt ? await freePort() : 0;
  const server = startProcess(
    path.join(ROOT, 'apps/server/src/main.ts'),
    {
      DATABASE_URL: opts.serverDatabaseUrl?.(url) ?? url,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: tempDir(),
      ...(opts.embeddedMqtt
        ? { MQTT_URL: undefined, MQTT_DYNSEC: undefined, MQTT_PORT: String(mqttPort), MQTT_HOST: '127.0.0.1' }
        : { MQTT_URL: 'mqtt://127.0.0.1:1883' }),
      ADMIN_LOGIN: 'admin',
      ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'error',
      ...(opts.recordSqlTo ? { BENCH_RECORD_SQL: opts.recordSqlTo } : {}),
    },
    opts.recordSqlTo ? ['--import', path.join(ROOT, 'bench/record-sql.mjs')] : [],
    opts.ownSession === true,
  );
  const barePort = await freePort();
  const bare = startProcess(path.join(ROOT, 'bench/bare-server.ts'), { PORT: String(barePort) });
  const exited = new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) resolve();
    else server.once('exit', () => resolve());
  });
  const stop = async () => {
    server.kill('SIGTERM');
    bare.kill('SIGTERM');
    // Its database may be dropped next: first the server gone (a shutdown takes a few seconds at most).
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  };
  try {
    // Migrating a fresh database and starting takes over a minute on a 2-core machine others load too.
    await waitFor(`${base}/api/v0/info`, 180_000);
    await waitFor(`http://127.0.0.1:${barePort}/bare`);
  } catch (e) {
    stop();
    throw e;
  }
  return {
    url,
    base,
    bareUrl: `http://127.0.0.1:${barePort}/bare`,
    pid: server.pid as number,
    mqttUrl: opts.embeddedMqtt ? `mqtt://127.0.0.1:${mqttPort}` : null,
    async auth() {
      const res = await fetch(`${base}/api/v0/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: LOGIN_BODY,
      });
      const body = await res.json();
      return { authorization: `Bearer ${body.data.sessions[0].token}` };
    },
    async recordSql(during) {
      const file = opts.recordSqlTo;
      if (!file) throw new Error('the server was started without recordSqlTo');
      writeFileSync(file, '');
      server.kill('SIGUSR2');
      // The server takes the signal between other work: on a loaded machine, 50 ms was not always enough.
      await new Promise((r) => setTimeout(r, 500));
      await during();
      server.kill('SIGUSR2');
      const end = Date.now() + 5000;
      while (Date.now() < end && !readFileSync(file, 'utf8')) await new Promise((r) => setTimeout(r, 50));
      return JSON.parse(readFileSync(file, 'utf8') || '[]') as RecordedStatement[];
    },
    stop,
  };
}

const ADMIN_PASSWORD = 'bench-password';
export const LOGIN_BODY = JSON.stringify({ login: 'admin', password: ADMIN_PASSWORD });

/** The q-quantile of ascending `sorted` (NaN when empty). */
export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** A duration in seconds, as the benches print it. */
export const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Polls `probe` until it answers true or `ms` pass; resolves with whether it did. */
export async function until(probe: () => Promise<boolean> | boolean, ms: number, every = 200): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, every));
  }
  return probe();
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** CPU seconds, in user space and in the kernel (system calls: sockets, files). */
export interface Cpu {
  user: number;
  kernel: number;
}

/**
 * User and kernel CPU seconds a process has used so far (/proc/pid/stat, ticks of 1/100 s), or with
 * `tid` one of its threads (/proc/pid/task/tid/stat: /proc/tid/stat would count the whole process);
 * NaN once it is gone.
 */
export function cpuTimes(pid: number, tid?: number): Cpu {
  const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  let stat: string;
  try {
    stat = readFileSync(file, 'utf8');
  } catch {
    return { user: Number.NaN, kernel: Number.NaN };
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, kernel: Number(fields[12]) / 100 };
}

/** CPU times of a process and of its children (a server that forks workers, as Kamailio does), by pid. */
export function treeCpu(pid: number): Map<number, Cpu> {
  const cpu = new Map<number, Cpu>([[pid, cpuTimes(pid)]]);
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) cpu.set(Number(p), cpuTimes(Number(p)));
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/** CPU the process tree of `pid` used since `before` (treeCpu then); a process gone meanwhile is left out. */
export function treeCpuSince(pid: number, before: Map<number, Cpu>): Cpu {
  const sum = { user: 0, kernel: 0 };
  for (const [p, now] of treeCpu(pid)) {
    if (!Number.isFinite(now.user)) continue;
    sum.user += now.user - (before.get(p)?.user ?? 0);
    sum.kernel += now.kernel - (before.get(p)?.kernel ?? 0);
  }
  return sum;
}

/** pgbench of this machine: on PATH, else in Debian's PostgreSQL directories (newest first); null when absent. */
export function pgbenchPath(): string | null {
  const onPath = spawnSync('sh', ['-c', 'command -v pgbench'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => path.join(root, v, 'bin/pgbench')).find((p) => existsSync(p)) ?? null;
}

export interface PgbenchFigures {
  tps: number;
  latencyMs: number;
  failed: number;
}

/**
 * Runs a pgbench script (`pgbench -M extended -n -c <clients> -T <seconds> -f script`) against `url`:
 * the database's own throughput for the statements a route sends, the baseline of that route. Rejects
 * when pgbench is missing or fails.
 */
export async function pgbench(url: string, script: string, opts: { clients: number; seconds: number }): Promise<PgbenchFigures> {
  const bin = pgbenchPath();
  if (!bin) throw new Error('pgbench not found (Debian: postgresql-client or postgresql-contrib)');
  const file = path.join(tempDir(), 'script.sql');
  writeFileSync(file, script);
  const u = new URL(url);
  const args = ['-M', 'extended', '-n', '-c', String(opts.clients), '-j', String(Math.min(opts.clients, 2)), '-T', String(opts.seconds)];
  args.push('-f', file, '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), u.pathname.slice(1));
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(bin, args, { env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) } });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench exited with ${code}: ${text.slice(-500)}`))));
  });
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? Number.NaN);
  return {
    tps: num(/tps = ([\d.]+)/),
    latencyMs: num(/latency average = ([\d.]+) ms/),
    failed: num(/number of failed transactions: (\d+)/) || 0,
  };
}

/** What `takingTurns` measured: the API's mean req/s, pgbench's mean tps, each round's pair as text. */
export interface Turns {
  rps: number;
  tps: number;
  pairs: string[];
}

/**
 * The API and pgbench on the same statements, taking turns: `rounds` times an autocannon load of
 * `seconds` (`opts`), then pgbench with 8 clients for as long. A shared machine's speed drifts over a
 * minute by more than an API-against-SQL ratio is meant to show, so one load now and the other a minute
 * later measured the drift; turns of a few seconds share it between the two.
 */
export async function takingTurns(
  name: string,
  opts: autocannon.Options,
  url: string,
  script: string,
  rounds: number,
  seconds: number,
): Promise<Turns> {
  let rps = 0;
  let tps = 0;
  const pairs: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const a = await load(name, { ...opts, duration: seconds });
    const b = await pgbench(url, script, { clients: 8, seconds });
    rps += a.rps;
    tps += b.tps;
    pairs.push(`${a.rps} / ${b.tps.toFixed(0)}`);
  }
  return { rps: rps / rounds, tps: tps / rounds, pairs };
}

/**
 * A statement as drizzle renders it (`$1`… and its parameters) as a pgbench script line: a
 * placeholder becomes the pgbench variable of its name (sent as a parameter under -M extended),
 * any other value a literal.
 */
export function pgbenchStatement(q: { sql: string; params: unknown[] }): string {
  const quote = (t: string) => `'${t.replaceAll("'", "''")}'`;
  const literal = (v: unknown): string =>
    typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : v === null || v === undefined
        ? 'NULL'
        : v instanceof Date
          ? quote(v.toISOString())
          : Array.isArray(v)
            ? quote(`{${v.map((x) => (typeof x === 'number' ? String(x) : `"${String(x).replaceAll('"', '\\"')}"`)).join(',')}}`)
            : quote(String(v));
  const text = q.sql.replace(/\$(\d+)/g, (_, n) => {
    const v = q.params[Number(n) - 1];
    const name = v && typeof v === 'object' && 'name' in v ? String((v as { name: unknown }).name) : null;
    return name ? `:${name}` : literal(v);
  });
  return `${text.replace(/\s+/g, ' ').trim()};\n`;
}
