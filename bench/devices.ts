// `npm run bench -- devices`: Atrium with its embedded MQTT broker (aedes) on PostgreSQL and a fleet
// of simulated devices (tools/device-sim, real MQTT clients) spread over BENCH_FLEET_PROCESSES child
// processes (bench/devices-fleet.ts), so the fleet is not what is measured. Four figures, each with
// a baseline measured in the same run:
//   1. BENCH_DEVICES (10,000) devices connected at once: time until the server has them all online,
//      and the server's RSS against its RSS with none connected;
//   2. events at BENCH_EVENT_RATE (20,000/s) for BENCH_EVENT_SECONDS (60 s): stored / sent (no loss)
//      and whether storing kept up; then the intake's capacity, a burst of BENCH_EVENT_BURST events
//      offered faster than it can be stored, its stored rate against COPY FROM STDIN of as many rows
//      into a copy of the events table (why two phases: at `events()`);
//   3. a settings apply to BENCH_SETTINGS_DEVICES (1,000) online devices: until every task is
//      completed, against the time of its HTTP POSTs alone;
//   4. the devices list (20 rows sorted by name) p95 against a bare Fastify route, its throughput against
//      pgbench running the list's own statement (at 8 clients and at 1), and on one connection while the
//      steady events arrive against the same with none (when they last 25 s or more).
// Env: BENCH_DEVICES, BENCH_EVENT_SECONDS, BENCH_EVENT_RATE, BENCH_EVENT_BURST, BENCH_SETTINGS_DEVICES, BENCH_PG,
// BENCH_FLEET_PROCESSES (default: half the cores, at least 1); BENCH_FLEET_FLAGS, BENCH_FLEET_PROF (Node options, CPU profiles of the fleet);
// BENCH_FLEET_CLIENT=mqtt.js (the fleet's devices on mqtt.js instead of device-sim's lean client);
// BENCH_DEVICES_SKIP=list,settings leaves those parts out (while working on the others);
// BENCH_DEVICES_ONLY=list runs the list figure alone, its devices marked online in SQL (no fleet);
// BENCH_LIST_SECONDS (8): each list load and each pgbench run. BENCH_SERVER_SESSION=shared: the server in the
// bench's session instead of its own (with autogroup scheduling, a share of the cores it then shares with the fleet).
// It fails (exit code 1, after printing its figures) when a simulated device never came online.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { PERMISSION_CODES } from '@atrium/contract';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { hashPassword, verifyPassword } from '../apps/server/src/core/auth/password.js';
import type { Db } from '../apps/server/src/core/db/client.js';
import { threadNames } from '../apps/server/src/core/worker-threads.js';
import { DevicesRepository } from '../apps/server/src/modules/devices/devices.repository.js';
import { type AckOutcome, ProcessFleet } from './devices-fleet.js';
import {
  benchDatabaseName,
  cpuTimes,
  dropDatabase,
  type Figures,
  load,
  type PgbenchFigures,
  pgbench,
  pgbenchStatement,
  portOpen,
  print,
  type Servers,
  secs,
  startServers,
  type Turns,
  takingTurns,
  until,
} from './lib.js';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000);
const EVENT_SECONDS = Number(process.env.BENCH_EVENT_SECONDS ?? 60);
const EVENT_RATE = Number(process.env.BENCH_EVENT_RATE ?? 20_000);
const SETTINGS_DEVICES = Math.min(DEVICES, Number(process.env.BENCH_SETTINGS_DEVICES ?? 1_000));
// Half the machine's cores: on a small machine one process sends as much as two (each PUBACK a
// context switch fewer) and costs less per event (measured on 2 cores: 22–27 µs against 24–53 µs).
const FLEET_PROCESSES = Math.max(1, Number(process.env.BENCH_FLEET_PROCESSES ?? Math.floor(os.cpus().length / 2)));
/** COPY runs of the baseline; the fastest counts. */
const COPY_ROUNDS = 3;
const SKIP = new Set((process.env.BENCH_DEVICES_SKIP ?? '').split(',').map((s) => s.trim()));
/** BENCH_DEVICES_ONLY=list: the devices list figure alone, its devices marked online in SQL (no fleet, no broker clients). */
const ONLY = process.env.BENCH_DEVICES_ONLY?.trim() || null;
/** Seconds of each devices list load (and of its pgbench baseline). */
const LIST_SECONDS = Number(process.env.BENCH_LIST_SECONDS ?? 8);
/** The fleet's nice value while it floods the server (its autogroup's too): see events(). */
const FLEET_NICE = Number(process.env.BENCH_FLEET_NICE ?? 10);
export const PASSWORD = 'bench-device-password';
const MODEL = 'AP-100'; // the catalogue's first panel: what the simulator announces by default

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const serialOf = (i: number) => `BENCH-${String(i).padStart(6, '0')}`;
const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;

/** Resident memory of a process (kB), as the kernel counts it. */
export function rssKb(pid: number): number {
  if (!existsSync(`/proc/${pid}`)) return Number.NaN; // the server exited
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

/** CPU seconds so far of each thread of `pid`, by the part of the server it is (/proc/pid/task/tid/stat and comm). */
function threadCpu(pid: number): Map<string, number> {
  const byPart = new Map<string, number>();
  for (const [tid, name] of threadNames(pid)) {
    // A thread that ended meanwhile reads NaN and is left out.
    const { user, kernel } = cpuTimes(pid, tid);
    if (Number.isNaN(user)) continue;
    // The HTTP thread is the process's first; the planes name theirs (core/worker-threads.ts nameThisThread).
    const part = tid === pid ? 'HTTP thread' : name.startsWith('atrium-') ? name : "V8's and libuv's helpers";
    byPart.set(part, (byPart.get(part) ?? 0) + user + kernel);
  }
  return byPart;
}

/** Each part's CPU between two threadCpu readings, largest first. */
function threadCpuSince(pid: number, before: Map<string, number>): string {
  return [...threadCpu(pid)]
    .map(([part, s]) => [part, s - (before.get(part) ?? 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([part, s]) => `${part} ${s.toFixed(1)} s`)
    .join(', ');
}

/**
 * The server's threads by nice value (each /proc/pid/task/TID/stat), e.g. "0 ×11, 10 ×1": the device plane's
 * thread runs at DEVICE_PLANE_NICE (default 0: the same as the others) when one is set.
 */
function threadNices(pid: number): string {
  const byNice = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      byNice.set(nice, (byNice.get(nice) ?? 0) + 1);
    }
  } catch {
    return 'unknown (no /proc)';
  }
  return [...byNice]
    .sort((a, b) => a[0] - b[0])
    .map(([nice, n]) => `${nice} ×${n}`)
    .join(', ');
}

/** CPU time (user + system, seconds) a process has used so far; the kernel counts in ticks of 1/100 s. */
function cpuSeconds(pid: number): number {
  const t = cpuTimes(pid);
  return t.user + t.kernel;
}

/** CPU time (seconds) of each PostgreSQL process of this machine (the database the server writes to), by pid. */
function postgresCpu(): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') cpu.set(Number(pid), cpuSeconds(Number(pid)) || 0);
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/** PostgreSQL's CPU seconds since `before` (a process that ended meanwhile is left out: a floor). */
function postgresCpuSince(before: Map<number, number>): number {
  let sum = 0;
  for (const [pid, s] of postgresCpu()) sum += s - (before.get(pid) ?? 0);
  return sum;
}

/** Runs `work` over `items` with at most `concurrency` at a time. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

interface Row {
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
}

function table(rows: Row[]): void {
  // Each column as wide as its widest cell, and two spaces between.
  const cells = (r: Row) => [r.figure, r.value, r.baseline, r.ratio];
  const w = [0, 1, 2, 3].map(
    (i) => Math.max(...[['figure', 'value', 'baseline (same run)', 'ratio'], ...rows.map(cells)].map((c) => c[i]!.length)) + 2,
  );
  console.log(`\n${'figure'.padEnd(w[0]!)}${'value'.padEnd(w[1]!)}${'baseline (same run)'.padEnd(w[2]!)}${'ratio'.padEnd(w[3]!)}target`);
  for (const r of rows) {
    console.log(`${r.figure.padEnd(w[0]!)}${r.value.padEnd(w[1]!)}${r.baseline.padEnd(w[2]!)}${r.ratio.padEnd(w[3]!)}${r.target}`);
  }
}

/** The devices straight into the migrated schema: one argon2id hash of the one password for all of them. */
export async function seedDevices(db: pg.Client, count: number): Promise<{ hashMs: number; verifyMs: number }> {
  let t = performance.now();
  const hash = await hashPassword(PASSWORD);
  const hashMs = performance.now() - t;
  t = performance.now();
  if (!(await verifyPassword(hash, PASSWORD))) throw new Error('the seeded hash does not verify');
  const verifyMs = performance.now() - t;
  const { rows } = await db.query(`SELECT min(id) AS id FROM groups WHERE project_id = 1`);
  await db.query(
    // management as PUT /devices gives it: a task's payload carries it, and the protocol requires both fields.
    `INSERT INTO devices (project_id, group_id, name, type, model, serial_number, password_hash, protocol, management, initialized_at)
     SELECT 1, $1, 'Device ' || lpad(((i * 7919) % $3)::text, 6, '0') || ' ' || i, 'panel', $4, 'BENCH-' || lpad(i::text, 6, '0'), $2, 'mqtt',
       '{"heartbeat": 30, "realtime_logging": false}'::jsonb, now()
     FROM generate_series(1, $3) i`,
    [rows[0].id, hash, count, MODEL],
  );
  await db.query('VACUUM ANALYZE devices');
  return { hashMs, verifyMs };
}

async function count(db: pg.Client, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query(sql, params);
  return Number(rows[0].n);
}

/** 1. Every device connected at once; resolves when the server has them all online. */
async function connectFleet(servers: Servers, db: pg.Client, rows: Row[], problems: string[]): Promise<ProcessFleet> {
  const url = servers.mqttUrl as string;
  const port = Number(new URL(url).port);
  if (!(await until(() => portOpen(port), 30_000))) throw new Error(`the embedded broker did not listen on ${url}`);
  const fleet = ProcessFleet.spawn(FLEET_PROCESSES);
  await sleep(2000); // let the idle server (and the fleet's processes) settle before reading its memory
  const before = rssKb(servers.pid);
  console.log(`connecting ${DEVICES} devices to ${url} from ${fleet.processes} processes (200 at a time, up to 5 attempts each)…`);
  const cpu0 = cpuSeconds(servers.pid);
  const t0 = performance.now();
  const started = await fleet.start({
    url,
    serials: Array.from({ length: DEVICES }, (_, i) => serialOf(i + 1)),
    password: PASSWORD,
    concurrency: 200,
    attempts: 5,
  });
  const refused = started.refused;
  const tConnected = performance.now() - t0;
  if (started.retried) {
    console.log(
      `${started.retried} devices were not answered in time on their first attempt; ${started.recovered} of them came online on a later one`,
    );
  }
  const allOnline = await until(
    async () => (await count(db, `SELECT count(*) AS n FROM device_status WHERE online`)) >= DEVICES,
    refused.length ? 10_000 : 300_000,
    250,
  );
  const tOnline = performance.now() - t0;
  const online = await count(db, `SELECT count(*) AS n FROM device_status WHERE online`);
  const after = rssKb(servers.pid);
  const cpu = cpuSeconds(servers.pid) - cpu0;
  if (refused.length) {
    const reasons = new Map<string, number>();
    for (const r of refused) reasons.set(r.error, (reasons.get(r.error) ?? 0) + 1);
    console.log(
      `NOT ONLINE after every attempt: ${refused.length} devices (${[...reasons].map(([e, n]) => `${n}× ${e}`).join('; ')}; first: ${refused[0]?.serial})`,
    );
  }
  if (online < DEVICES) problems.push(`${DEVICES - online} of ${DEVICES} simulated devices never came online (the server has ${online})`);
  console.log(
    `clients connected and online-announced in ${secs(tConnected)}; the server had ${online}/${DEVICES} online after ${secs(tOnline)}${allOnline ? '' : ' (gave up waiting)'}; server CPU ${cpu.toFixed(1)} s (${Math.round((cpu / (tOnline / 1000)) * 100)}% of one core)`,
  );
  rows.push({
    figure: `${DEVICES} devices online (server's view)`,
    value: secs(tOnline),
    baseline: `${Math.round(DEVICES / (tOnline / 1000))} devices/s`,
    ratio: '',
    target: `${online}/${DEVICES} online: ${online >= DEVICES ? 'met' : 'NOT met'}`,
  });
  rows.push({
    figure: `server RSS with ${DEVICES} connected`,
    value: mib(after),
    baseline: `${mib(before)} with none connected`,
    ratio: `${(after / before).toFixed(2)}×`,
    target: `${(((after - before) * 1024) / DEVICES / 1024).toFixed(1)} KiB per device`,
  });
  return fleet;
}

/** An autocannon request maker asking for the devices list's pages one after the other (20 rows by name), round and round. */
function pageAfterPage(): (req: { path?: string }) => { path: string } {
  const pages = Math.max(1, Math.floor(DEVICES / 20));
  let asked = 0;
  return (req) => ({ ...req, path: `/api/v0/devices?page=${1 + (asked++ % pages)}&size=20&sort=name` });
}

/** 4. The devices list against the bare route; answers its one-connection figure (the baseline of the list while events arrive). */
async function listLatency(servers: Servers, auth: Record<string, string>, rows: Row[]): Promise<Figures | null> {
  const { base } = servers;
  const pages = Math.max(1, Math.floor(DEVICES / 20));
  const listUrl = `${base}/api/v0/devices?page=${Math.min(3, pages)}&size=20&sort=name`;
  const probe = await fetch(listUrl, { headers: auth });
  if (!probe.ok) {
    console.log(`devices list not measured: GET /devices answered ${probe.status} ${await probe.text()}`);
    return null;
  }
  const body = await probe.json();
  console.log(`\ndevices list: ${body.data.length} rows of ${body.meta.total}${body.meta.estimated ? ' (estimated)' : ''}`);
  const eachPage = pageAfterPage();
  const duration = LIST_SECONDS;
  const baseline = await load('bare Fastify route (baseline)', { url: servers.bareUrl, duration });
  const out: Figures[] = [];
  out.push(await load('GET /devices (name, 20) same page', { url: listUrl, headers: auth, duration }));
  const server0 = cpuSeconds(servers.pid);
  out.push(
    await load('GET /devices … each page in turn', { url: listUrl, headers: auth, duration, requests: [{ setupRequest: eachPage }] }),
  );
  // The server's CPU per answer, which a busy machine inflates less than it does throughput (PostgreSQL's
  // is left out: its processes serve everything else the machine runs as well).
  const served = Math.max(1, (out[1]?.rps ?? 0) * duration);
  console.log(`each page in turn: ${(((cpuSeconds(servers.pid) - server0) * 1e6) / served).toFixed(0)} µs of server CPU per answer`);
  out.push(
    await load('GET /devices … each page, 1 conn', {
      url: listUrl,
      headers: auth,
      duration,
      connections: 1,
      requests: [{ setupRequest: eachPage }],
    }),
  );
  print(out, baseline);
  for (const f of out) {
    rows.push({
      figure: `list p95: ${f.name.replace('GET /devices ', '').replace('… ', '')}`,
      value: `${f.p95} ms`,
      baseline: `bare p95 ${baseline.p95} ms, ${baseline.rps} req/s`,
      ratio: `${(f.rps / baseline.rps).toFixed(3)}`,
      target: `${f.rps} req/s, ${f.errors} errors (ratio: × bare rps)`,
    });
  }
  await listAgainstPgbench(servers, auth, pages, out, rows);
  return out[2] ?? null;
}

/** Rounds of the list and of pgbench taking turns at 8 connections (listAgainstPgbench), each this long (s). */
const LIST_ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 3);
const LIST_ROUND_SECONDS = 4;

/**
 * The list's throughput against the database's own for the same statement: pgbench runs the text
 * the server prepares (DevicesRepository.listStatementText, as the signed-in administrator sends
 * it), a random page each time, in the same run. Target: ≥ 0.5 at 8 connections, the two taking
 * turns (`takingTurns`). At 1 (no target) against the one-connection load above.
 */
async function listAgainstPgbench(
  servers: Servers,
  auth: Record<string, string>,
  pages: number,
  out: Figures[],
  rows: Row[],
): Promise<void> {
  const { url } = servers;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  let script: string;
  try {
    const repo = new DevicesRepository(drizzle(pool) as unknown as Db);
    const statement = pgbenchStatement(repo.listStatementText('name', { permissions: new Set(PERMISSION_CODES) }));
    // The administrator's project is the first; the cap is the list's (EXACT_TOTAL_CAP + 1).
    script = `\\set offset random(0, ${pages - 1}) * 20\n\\set size 20\n\\set cap 10001\n\\set projectId 1\n${statement}`;
  } finally {
    await pool.end();
  }
  console.log(`\npgbench script (the list's statement):\n${script}`);
  let turns: Turns;
  try {
    turns = await takingTurns(
      'GET /devices … each page in turn (round)',
      { url: `${servers.base}/api/v0/devices`, headers: auth, requests: [{ setupRequest: pageAfterPage() }] },
      url,
      script,
      LIST_ROUNDS,
      LIST_ROUND_SECONDS,
    );
  } catch (e) {
    console.log(`pgbench baseline not measured: ${(e as Error).message}`);
    return;
  }
  console.log(
    `the list and pgbench -M extended -c 8 taking turns in rounds of ${LIST_ROUND_SECONDS} s (req/s / tps): ${turns.pairs.join(', ')}`,
  );
  const ratio8 = turns.rps / turns.tps;
  rows.push({
    figure: `list req/s, each page, 8 conn`,
    value: `${turns.rps.toFixed(0)} req/s`,
    baseline: `pgbench ${turns.tps.toFixed(0)} tps, same SQL, -c 8`,
    ratio: ratio8.toFixed(3),
    target: `≥ 0.5: ${ratio8 >= 0.5 ? 'met' : 'NOT met'} (${LIST_ROUNDS} rounds each)`,
  });
  const one = out[2];
  let db1: PgbenchFigures;
  try {
    db1 = await pgbench(url, script, { clients: 1, seconds: LIST_SECONDS });
  } catch (e) {
    console.log(`pgbench baseline not measured: ${(e as Error).message}`);
    return;
  }
  console.log(
    `pgbench -M extended -c 1: ${db1.tps.toFixed(0)} tps, latency average ${db1.latencyMs} ms, ${db1.failed} failed; the list: ${one?.rps} req/s`,
  );
  if (!one) return;
  rows.push({
    figure: `list req/s, each page, 1 conn`,
    value: `${one.rps} req/s`,
    baseline: `pgbench ${db1.tps.toFixed(0)} tps, same SQL, -c 1`,
    ratio: (one.rps / db1.tps).toFixed(3),
    target: 'one operator (no target)',
  });
}

/** 3. A settings apply to SETTINGS_DEVICES online devices, 50 HTTP requests at a time. */
async function settingsApply(servers: Servers, auth: Record<string, string>, db: pg.Client, rows: Row[]): Promise<void> {
  const { rows: ids } = await db.query(
    `SELECT d.id FROM devices d JOIN device_status s ON s.device_id = d.id WHERE s.online ORDER BY d.id LIMIT $1`,
    [SETTINGS_DEVICES],
  );
  const before = await count(db, `SELECT count(*) AS n FROM device_tasks WHERE type = 'apply_settings'`);
  let failed = 0;
  let firstFailure = '';
  console.log(`\napplying settings to ${ids.length} online devices (50 requests at a time)…`);
  const t0 = performance.now();
  await pool(
    ids.map((r) => r.id as number),
    50,
    async (id) => {
      const res = await fetch(`${servers.base}/api/v0/devices/${id}/settings/apply`, { method: 'POST', headers: auth });
      if (!res.ok) {
        failed++;
        firstFailure ||= `${res.status} ${await res.text()}`;
      } else await res.arrayBuffer();
    },
  );
  const tPosts = performance.now() - t0;
  const want = before + ids.length - failed;
  const done = () => count(db, `SELECT count(*) AS n FROM device_tasks WHERE type = 'apply_settings' AND state IN ('completed', 'error')`);
  const finished = await until(async () => (await done()) >= want, 120_000, 50);
  const tDone = performance.now() - t0;
  const completed = await count(db, `SELECT count(*) AS n FROM device_tasks WHERE type = 'apply_settings' AND state = 'completed'`);
  const states = await db.query(
    `SELECT state, count(*)::int AS n FROM device_tasks WHERE type = 'apply_settings' GROUP BY state ORDER BY state`,
  );
  console.log(
    `POSTs answered after ${secs(tPosts)} (${failed} failed${firstFailure ? `: ${firstFailure.slice(0, 200)}` : ''}); tasks by state: ${states.rows.map((r) => `${r.state} ${r.n}`).join(', ')}${finished ? '' : ' (gave up waiting)'}`,
  );
  rows.push({
    figure: `settings apply to ${ids.length}: all completed`,
    value: secs(tDone),
    baseline: `${secs(tPosts)} for the ${ids.length} POSTs alone`,
    ratio: `${(tDone / tPosts).toFixed(2)}×`,
    target: `< 10 s: ${tDone < 10_000 && completed - before >= ids.length ? 'met' : 'NOT met'} (${completed - before} completed)`,
  });
}

/** The same rows into a scratch copy of device_events (same columns, defaults, indexes and foreign key) with COPY FROM STDIN (psql's \copy). */
async function copyBaseline(url: string, db: pg.Client, deviceIds: readonly number[], n: number): Promise<{ ms: number; how: string }> {
  await db.query(`DROP TABLE IF EXISTS bench_events_copy`);
  await db.query(`CREATE TABLE bench_events_copy (LIKE device_events INCLUDING DEFAULTS INCLUDING INDEXES)`);
  await db.query(`ALTER TABLE bench_events_copy ADD FOREIGN KEY (device_id) REFERENCES devices(id) ON DELETE CASCADE`);
  // Its own id sequence (LIKE copies the default, which would draw on device_events' sequence).
  await db.query(`DROP SEQUENCE IF EXISTS bench_events_copy_id`);
  await db.query(`CREATE SEQUENCE bench_events_copy_id`);
  await db.query(`ALTER TABLE bench_events_copy ALTER COLUMN id SET DEFAULT nextval('bench_events_copy_id')`);
  const now = Date.now();
  const line = (i: number) => {
    const id = deviceIds[i % deviceIds.length] as number;
    const data = JSON.stringify({ sensor: 'bench', value: i, event_id: `${serialOf(id)}-${i}` });
    return `1\t${id}\tsensor\t\\N\t${data}\t${new Date(now + i).toISOString()}\n`;
  };
  // The fastest of COPY_ROUNDS runs: whatever else the machine does (the fleet's heartbeats, another
  // process) only slows COPY down, so the best run is the truest figure, and the ratio errs on the strict side.
  let ms = Number.POSITIVE_INFINITY;
  let dbCpu = Number.POSITIVE_INFINITY;
  try {
    for (let round = 0; round < COPY_ROUNDS; round++) {
      if (round) await db.query(`TRUNCATE bench_events_copy`);
      const t0 = performance.now();
      const db0 = postgresCpu();
      await new Promise<void>((resolve, reject) => {
        const psql = spawn(
          'psql',
          [
            url,
            '-q',
            '-v',
            'ON_ERROR_STOP=1',
            '-c',
            '\\copy bench_events_copy (project_id, device_id, type, identifier, data, occurred_at) FROM STDIN',
          ],
          { stdio: ['pipe', 'ignore', 'inherit'] },
        );
        psql.once('error', reject);
        psql.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited with ${code}`))));
        void (async () => {
          const chunk: string[] = [];
          for (let i = 0; i < n; i++) {
            chunk.push(line(i));
            if (chunk.length === 2000 || i === n - 1) {
              if (!psql.stdin.write(chunk.join(''))) await new Promise((r) => psql.stdin.once('drain', r));
              chunk.length = 0;
            }
          }
          psql.stdin.end();
        })().catch(reject);
      });
      ms = Math.min(ms, performance.now() - t0);
      dbCpu = Math.min(dbCpu, postgresCpuSince(db0));
      const copied = await count(db, `SELECT count(*) AS n FROM bench_events_copy`);
      if (copied !== n) throw new Error(`COPY stored ${copied} of ${n}`);
    }
    console.log(`COPY baseline: PostgreSQL ${((dbCpu * 1e6) / n).toFixed(1)} µs of CPU per row (least of ${COPY_ROUNDS} runs)`);
    return { ms, how: `COPY FROM STDIN (psql \\copy), best of ${COPY_ROUNDS}` };
  } catch (e) {
    // No psql on this machine: multi-row INSERTs of 1,000 rows instead (the label says so).
    console.log(`COPY through psql failed (${(e as Error).message}); baseline falls back to multi-row INSERT`);
    await db.query(`TRUNCATE bench_events_copy`);
    const t1 = performance.now();
    for (let from = 0; from < n; from += 1000) {
      const values: string[] = [];
      const params: unknown[] = [];
      for (let i = from; i < Math.min(n, from + 1000); i++) {
        const [, id, , , data, at] = line(i).trimEnd().split('\t');
        params.push(Number(id), data, at);
        const k = params.length;
        values.push(`(1, $${k - 2}, 'sensor', NULL, $${k - 1}::jsonb, $${k}::timestamptz)`);
      }
      await db.query(
        `INSERT INTO bench_events_copy (project_id, device_id, type, identifier, data, occurred_at) VALUES ${values.join(', ')}`,
        params,
      );
    }
    return { ms: performance.now() - t1, how: 'multi-row INSERT ×1000 (no COPY available)' };
  } finally {
    await db.query(`DROP TABLE IF EXISTS bench_events_copy`);
    await db.query(`DROP SEQUENCE IF EXISTS bench_events_copy_id`);
  }
}

interface Offered {
  sent: number;
  tSent: number;
  behind: number;
  stored: number;
  tStored: number;
  ack: AckOutcome | null;
  /** Events acknowledged (PUBACK) and not in the table afterwards: lost. Null when not all were answered. */
  ackedMissing: number | null;
  rssBefore: number;
  rssPeak: number;
  cpu: number;
  /** Of which in the kernel (system calls, and on loopback the peer's share of TCP). */
  cpuKernel: number;
  /** The server's CPU by thread: the HTTP thread, the device plane's, V8's and libuv's helpers. */
  threads: string;
  /** CPU seconds of the fleet's processes and of PostgreSQL over the same time. */
  fleetCpu: number;
  fleetKernel: number;
  dbCpu: number;
  /** The device plane thread's heap at most (bytes, its 1 s counters sampled), its limit, and how often it died meanwhile. */
  plane: { heapPeak: number; heapLimit: number; crashes: number } | null;
}

/** The server's /metrics text, or what went wrong in its place (a line no metric reads as). */
const metricsText = (servers: Servers, auth: Record<string, string>): Promise<string> =>
  fetch(`${servers.base}/metrics`, { headers: auth })
    .then(async (r) => (r.ok ? r.text() : `/metrics answered ${r.status}`))
    .catch((e: Error) => `/metrics: ${e.message}`);

/** The device plane's heap (used, limit) and crashes in a /metrics text; null when not told. */
function planeHealth(text: string): { used: number; limit: number; crashes: number } | null {
  const read = (name: string) => {
    const m = new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const used = read('atrium_device_plane_heap_bytes{kind="used"}');
  const limit = read('atrium_device_plane_heap_bytes{kind="limit"}');
  const crashes = read('atrium_device_plane_crashes_total');
  return used === null || limit === null || crashes === null ? null : { used, limit, crashes };
}

/** `total` events offered at `rate` a second, spread round-robin over the fleet, followed until every one is stored (or nothing more arrives). */
async function offer(
  servers: Servers,
  fleet: ProcessFleet,
  db: pg.Client,
  total: number,
  rate: number,
  auth?: Record<string, string>,
): Promise<Offered> {
  const before = await count(db, `SELECT count(*) AS n FROM device_events`);
  // Progress is followed by the newest id (an index lookup): counting a table of millions of rows
  // four times a second would take the database's time from the intake being measured.
  const newest = () => count(db, `SELECT coalesce(max(id), 0) AS n FROM device_events`);
  const idBefore = await newest();
  const rssBefore = rssKb(servers.pid);
  let rssPeak = rssBefore;
  const server0 = cpuTimes(servers.pid);
  const threads0 = threadCpu(servers.pid);
  // The fleet's processes together.
  const fleetTimes = () =>
    fleet.pids
      .map((p) => cpuTimes(p))
      .reduce((sum, t) => ({ user: sum.user + (t.user || 0), kernel: sum.kernel + (t.kernel || 0) }), { user: 0, kernel: 0 });
  const fleet0 = fleetTimes();
  const db0 = postgresCpu();
  const t0 = performance.now();
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssKb(servers.pid) || 0);
  }, 500);
  // The plane's heap, as its counters tell it once a second: a plane that dies closes every device's connection.
  const plane0 = auth ? planeHealth(await metricsText(servers, auth)) : null;
  let heapPeak = plane0?.used ?? 0;
  let heapLimit = plane0?.limit ?? 0;
  let heapSampling = !!plane0;
  const heapSampler = (async () => {
    while (heapSampling && auth) {
      const h = planeHealth(await metricsText(servers, auth));
      if (h) {
        heapPeak = Math.max(heapPeak, h.used);
        heapLimit = h.limit;
      }
      await sleep(1000);
    }
  })();
  // The fleet stands in for devices on other machines: while it sends it takes the cores the server
  // and the database leave, so that what the console's list meets is the server's own work, not a
  // load generator's share of two cores (whether it still offers the rate asked is printed). Once
  // sent it takes its normal share again, so that what it still holds in its own buffers (a fleet
  // starved by the machine's other work) reaches the server while the storing is awaited.
  fleet.setPriority(FLEET_NICE);
  // As panels do, an event whose connection closed before its PUBACK is sent again (same event id)
  // once connected: the server may close a connection to shed load, and what it never acknowledged
  // is the device's to send again. Each acknowledged event's id comes back, to find it in the table.
  const { sent: s, acked: ackedP } = await fleet.events(total, rate, undefined, true, true).finally(() => fleet.setPriority(0));
  clearInterval(sampler);
  let ack: Offered['ack'] = null;
  ackedP.then(
    (a) => {
      ack = a;
    },
    () => undefined,
  );
  // Until every row is stored (or nothing more arrives): acknowledgements (PUBACK: the broker has the
  // event) and stored rows are followed together, since the broker may acknowledge long after the send.
  let stored = 0;
  let tStored = s.sentMs;
  let last = -1;
  let still = Date.now();
  await until(
    async () => {
      rssPeak = Math.max(rssPeak, rssKb(servers.pid) || 0);
      stored = (await newest()) - idBefore; // ids are handed out in order, without gaps unless a batch was refused
      if (stored !== last) {
        last = stored;
        still = Date.now();
        tStored = performance.now() - t0;
      }
      const quiet = Date.now() - still;
      if (!existsSync(`/proc/${servers.pid}`)) {
        console.log('the server process exited while events were being stored');
        return true;
      }
      const a = ack as Offered['ack'];
      return stored >= s.sent - (a?.failed ?? 0) || (quiet > 15_000 && a !== null) || quiet > 60_000;
    },
    900_000,
    250,
  );
  // Every event stored, its last acknowledgements may still be on their way.
  if (ack === null) await Promise.race([ackedP.catch(() => undefined), sleep(30_000)]);
  heapSampling = false;
  await heapSampler;
  stored = (await count(db, `SELECT count(*) AS n FROM device_events`)) - before;
  const answered = ack as Offered['ack'];
  const ackedMissing =
    answered === null
      ? null
      : Number(
          (
            await db.query(
              `SELECT count(*)::int AS n FROM unnest($1::text[]) AS a(id) WHERE NOT EXISTS (SELECT 1 FROM device_events e WHERE e.event_id = a.id)`,
              [answered.ids],
            )
          ).rows[0].n,
        );
  let metrics = '';
  if (auth) {
    // What the server delayed so far (events read past, connections asked to reconnect, …) and, when
    // events are missing, where they are: held by the server (its backlog, unacknowledged) or never received.
    metrics = await metricsText(servers, auth);
    const gauges = metrics.split('\n').filter((l) => /^atrium_(device_|mqtt)/.test(l));
    if (stored < s.sent) {
      const lines = gauges.length ? gauges : [metrics.slice(0, 300)];
      console.log(`${s.sent - stored} sent and not stored; the server says:\n  ${lines.join('\n  ')}`);
    } else {
      const delayed = gauges.filter((l) => l.startsWith('atrium_device_events_delayed_total') && !l.endsWith(' 0'));
      console.log(
        `the server's delays so far: ${delayed.length ? delayed.map((l) => l.replace('atrium_device_events_delayed_total', '')).join(', ') : 'none'}`,
      );
    }
  }
  const plane1 = planeHealth(metrics);
  const server1 = cpuTimes(servers.pid);
  const threads = threadCpuSince(servers.pid, threads0);
  const fleet1 = fleetTimes();
  return {
    sent: s.sent,
    tSent: s.sentMs,
    behind: s.behind,
    stored,
    tStored,
    ack,
    ackedMissing,
    rssBefore,
    rssPeak,
    cpu: server1.user + server1.kernel - (server0.user + server0.kernel),
    cpuKernel: server1.kernel - server0.kernel,
    threads,
    fleetCpu: fleet1.user + fleet1.kernel - (fleet0.user + fleet0.kernel),
    fleetKernel: fleet1.kernel - fleet0.kernel,
    dbCpu: postgresCpuSince(db0),
    plane: plane0 && plane1 ? { heapPeak, heapLimit, crashes: plane1.crashes - plane0.crashes } : null,
  };
}

/**
 * Lost is what was acknowledged and is not stored: the device, told it was stored, never sends it
 * again. An event still unacknowledged after its device's tries is not lost (the device keeps it),
 * but it is not stored either, so it is said too.
 */
function lossVerdict(o: Offered): string {
  if (o.ackedMissing === null) return 'no loss: NOT known (not every event was answered)';
  const unacked = o.ack?.failed ? `, ${o.ack.failed} still unacknowledged after the devices' tries` : '';
  return `no acknowledged event lost: ${o.ackedMissing === 0 ? 'met' : `NOT met (${o.ackedMissing} lost)`}${unacked}`;
}

/** Said beside a phase's figure when the device plane died during it (its heap past its limit, most likely). */
const planeVerdict = (o: Offered) => (o.plane?.crashes ? `; the device plane DIED ${o.plane.crashes}×` : '');

function describe(o: Offered): void {
  const a = o.ack;
  console.log(
    `sent ${o.sent} in ${secs(o.tSent)} (${Math.round(o.sent / (o.tSent / 1000))}/s${o.behind ? `, generators behind schedule in ${o.behind} ticks` : ''}); ${a ? `acknowledged ${a.acked} (all after ${secs(a.ackedMs)})${a.failed ? `, ${a.failed} failed` : ''}${a.resent ? `, ${a.resent} sent again` : ''}${a.failures ? ` (${a.failures})` : ''}` : 'not all acknowledged'}; stored ${o.stored} after ${secs(o.tStored)}${o.ackedMissing === null ? '' : `; acknowledged and not stored: ${o.ackedMissing}`}`,
  );
  console.log(
    `server: RSS ${mib(o.rssBefore)} before, ${mib(o.rssPeak)} at most; CPU ${o.cpu.toFixed(1)} s over ${secs(o.tStored)} (${Math.round((o.cpu / (o.tStored / 1000)) * 100)}% of one core, ${((o.cpu * 1e6) / Math.max(1, o.stored)).toFixed(0)} µs per stored event, ${((o.cpuKernel * 1e6) / Math.max(1, o.stored)).toFixed(0)} µs of it in the kernel)`,
  );
  console.log(`the server's threads: ${o.threads}`);
  if (o.plane)
    console.log(
      `the device plane's heap: ${mib(o.plane.heapPeak / 1024)} at most of its ${mib(o.plane.heapLimit / 1024)} limit; ${o.plane.crashes ? `it DIED ${o.plane.crashes} time(s) (every device reconnected)` : 'it never died'}`,
    );
  const per = (s: number) => `${s.toFixed(1)} s, ${((s * 1e6) / Math.max(1, o.stored)).toFixed(0)} µs per event`;
  console.log(
    `beside it: the fleet ${per(o.fleetCpu)} (${((o.fleetKernel * 1e6) / Math.max(1, o.stored)).toFixed(0)} in the kernel); PostgreSQL ${per(o.dbCpu)} (CPU over the same time)`,
  );
}

/** The devices list, page after page on one connection, for 10 s starting 10 s from now (while the steady events arrive). */
async function duringEvents(servers: Servers, auth: Record<string, string>): Promise<Figures> {
  await sleep(10_000);
  return load('GET /devices … while events arrive', {
    url: `${servers.base}/api/v0/devices?page=1&size=20&sort=name`,
    headers: auth,
    connections: 1,
    duration: 10,
    requests: [{ setupRequest: pageAfterPage() }],
  });
}

/**
 * 2. Events. First EVENT_RATE a second for EVENT_SECONDS: every one stored (no loss), and whether
 * storing kept up with the offer. A stored rate measured there can never exceed the offered rate, so
 * it says nothing of how close to COPY the server's intake comes (20,000/s against a COPY of 90,000
 * rows/s could never reach 0.3, however fast the server). The intake's capacity is measured next: a
 * burst offered faster than it can be stored (BENCH_EVENT_BURST events, default 15 s of the rate, at
 * five times the rate), its stored rate (first sent → last stored) against COPY of the same rows.
 * The fleet shares the machine's cores with the server and the database, so on a small machine the
 * capacity figure is a floor.
 */
async function events(
  servers: Servers,
  fleet: ProcessFleet,
  db: pg.Client,
  rows: Row[],
  auth: Record<string, string>,
  idleList: Figures | null,
): Promise<void> {
  const total = Math.round(EVENT_RATE * EVENT_SECONDS);
  const burst = Number(process.env.BENCH_EVENT_BURST ?? EVENT_RATE * 15);
  const { rows: idRows } = await db.query(`SELECT device_id AS id FROM device_status WHERE online ORDER BY device_id`);
  const ids = idRows.map((r) => r.id as number);
  const copy = await copyBaseline(servers.url, db, ids, total);
  const copyRate = total / (copy.ms / 1000);
  console.log(`\nbaseline: ${total} rows by ${copy.how} in ${secs(copy.ms)} (${Math.round(copyRate)} rows/s)`);

  console.log(
    `publishing ${total} events (QoS 1) from ${ids.length} devices in ${fleet.processes} processes at ${EVENT_RATE}/s for ${EVENT_SECONDS} s…`,
  );
  console.log(`the fleet at nice ${FLEET_NICE} while it sends, its sessions too (BENCH_FLEET_NICE; 0: equal priority)`);
  // A console at work meanwhile: the devices list, one request after another, from 10 s into the phase.
  const during = EVENT_SECONDS >= 25 ? duringEvents(servers, auth) : null;
  const steady = await offer(servers, fleet, db, total, EVENT_RATE, auth);
  describe(steady);
  const busy = await during;
  if (busy) {
    console.log(
      `devices list while events arrive: p50 ${busy.p50} ms, p95 ${busy.p95} ms, p99 ${busy.p99} ms, ${busy.rps} req/s, ${busy.errors} errors`,
    );
    rows.push({
      figure: `list p95 at ${EVENT_RATE} events/s`,
      value: `${busy.p95} ms`,
      baseline: idleList ? `${idleList.p95} ms with no events` : '',
      ratio: idleList ? `${(busy.p95 / Math.max(1, idleList.p95)).toFixed(2)}×` : '',
      target: `${busy.rps} req/s, 1 connection, ${busy.errors} errors`,
    });
  }
  const steadyRate = steady.stored / (steady.tStored / 1000);
  const lag = steady.tStored - steady.tSent;
  rows.push({
    figure: `events stored / sent`,
    value: `${steady.stored} / ${steady.sent}`,
    baseline: '',
    ratio: (steady.stored / steady.sent).toFixed(4),
    target: `${lossVerdict(steady)}${planeVerdict(steady)}`,
  });
  rows.push({
    figure: `events sent rate (target ${EVENT_RATE}/s)`,
    value: `${Math.round(steady.sent / (steady.tSent / 1000))}/s`,
    baseline: '',
    ratio: '',
    target: `over ${secs(steady.tSent)}`,
  });
  rows.push({
    figure: `events stored rate at ${EVENT_RATE}/s offered`,
    value: `${Math.round(steadyRate)}/s`,
    baseline: `${Math.round(copyRate)} rows/s ${copy.how}`,
    ratio: (steadyRate / copyRate).toFixed(3),
    target: `kept up: last stored ${secs(lag)} after the last sent (capped by the offer)`,
  });

  console.log(`\nintake capacity: ${burst} events offered at ${EVENT_RATE * 5}/s (more than can be stored)…`);
  const peak = await offer(servers, fleet, db, burst, EVENT_RATE * 5, auth);
  describe(peak);
  const peakRate = peak.stored / (peak.tStored / 1000);
  rows.push({
    figure: `events intake capacity (burst of ${burst})`,
    value: `${Math.round(peakRate)}/s`,
    baseline: `${Math.round(copyRate)} rows/s ${copy.how}`,
    ratio: (peakRate / copyRate).toFixed(3),
    target: `≥ 0.3: ${peakRate / copyRate >= 0.3 ? 'met' : 'NOT met'}; ${lossVerdict(peak)}${planeVerdict(peak)}`,
  });
}

/** The 1-minute load average: the figures are only comparable on a machine about as busy. */
const loadNow = () => os.loadavg()[0]!.toFixed(1);

export async function run(): Promise<void> {
  if (ONLY && ONLY !== 'list') throw new Error(`BENCH_DEVICES_ONLY=${ONLY}: only "list" can run alone`);
  const loadAtStart = loadNow();
  // A database of the run's own (named after its process, so runs at once never meet), dropped at its
  // end; BENCH_DB names one that stays.
  const dbName = benchDatabaseName(ONLY === 'list' ? 'atrium_bench_devices_list' : 'atrium_bench_devices');
  // BENCH_SERVER_SESSION=shared: the server in the bench's own session (see ServerOptions.ownSession).
  const ownSession = process.env.BENCH_SERVER_SESSION !== 'shared';
  const servers = await startServers(dbName, { embeddedMqtt: true, ownSession });
  console.log(`server in ${ownSession ? 'a session of its own' : "the bench's session"} (BENCH_SERVER_SESSION)`);
  const db = new pg.Client({ connectionString: servers.url });
  await db.connect();
  let fleet: ProcessFleet | null = null;
  const rows: Row[] = [];
  const problems: string[] = [];
  try {
    console.log(`seeding ${DEVICES} devices (protocol mqtt, one argon2id hash of one password)…`);
    const t0 = Date.now();
    const { hashMs, verifyMs } = await seedDevices(db, DEVICES);
    console.log(
      `seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s (one hash ${hashMs.toFixed(0)} ms, one verify ${verifyMs.toFixed(0)} ms)`,
    );
    const auth = await servers.auth();

    if (ONLY === 'list') {
      // The list reads presence, not connections: online rows as the gateway writes them, straight in SQL.
      await db.query(
        `INSERT INTO device_status (device_id, online, last_seen_at, firmware) SELECT id, TRUE, now(), '1.0.0' FROM devices
         ON CONFLICT (device_id) DO UPDATE SET online = TRUE, last_seen_at = now()`,
      );
      await db.query('VACUUM ANALYZE device_status');
      await listLatency(servers, auth, rows);
      table(rows);
      return;
    }
    fleet = await connectFleet(servers, db, rows, problems);
    console.log(
      `server threads by nice value: ${threadNices(servers.pid)} (DEVICE_PLANE_NICE=${process.env.DEVICE_PLANE_NICE ?? 'default'})`,
    );
    const idleList = SKIP.has('list') ? null : await listLatency(servers, auth, rows);
    if (!SKIP.has('settings')) await settingsApply(servers, auth, db, rows);
    if (EVENT_SECONDS > 0) await events(servers, fleet, db, rows, auth, idleList);
    console.log(`\nserver RSS at the end: ${mib(rssKb(servers.pid))}`);
    console.log(`machine: ${os.cpus().length} cores, load average ${loadAtStart} at the start, ${loadNow()} at the end`);
    table(rows);
    console.log(
      `\nnote: every seeded device has the same password hash, and the server remembers a verified (hash, password) pair,\n` +
        `so only the first sign-in paid argon2id (${verifyMs.toFixed(0)} ms here); ${DEVICES} devices with their own passwords would add\n` +
        `about ${((DEVICES * verifyMs) / 1000).toFixed(0)} s of argon2id CPU on their first connect (spread over libuv's 4 threads).`,
    );
    if (problems.length) throw new Error(`the devices benchmark failed: ${problems.join('; ')}`);
  } finally {
    const stopped = servers.stop();
    await db.end().catch(() => undefined);
    if (fleet) await Promise.race([fleet.stop(), sleep(8000)]);
    await stopped;
    if (!process.env.BENCH_DB) await dropDatabase(dbName).catch(() => undefined);
  }
}
