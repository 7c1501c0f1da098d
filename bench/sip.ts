// `npm run bench -- sip`: Atrium's SIP registrar and proxy against Kamailio (Debian's, with
// deploy/kamailio/bench-registrar.cfg as it is) on the same machine in the same run, both driven by SIPp at
// fixed offered rates (-r/-rp), one after the other (never both under load at once):
//   1. REGISTER with digest authentication (REGISTER, 401, REGISTER with credentials, 200) for
//      BENCH_SIP_NUMBERS (1,000) numbers taking turns, offered at BENCH_SIP_REG_RATE (600/s) for
//      BENCH_SIP_SECONDS (30 s); response time from the first REGISTER to the 200 (what a phone waits);
//   2. authenticated INVITE through a forward rule at BENCH_SIP_INVITE_RATE (150 calls/s) for
//      BENCH_SIP_SECONDS: INVITE, 407, ACK, INVITE with credentials, 180, 486, ACK, each call from
//      another caller of the pool; the callee is a number in forward mode "manual" whose rule forwards
//      on no answer, its registered contact a SIPp UAS (behind both servers) that rings, then answers
//      486 Busy. Response time from the INVITE with credentials to the 180;
//   3. with BENCH_SIP_CAPACITY set, REGISTER offered at 6,000/s (at most 400 at once) for 10 s:
//      registrations completed per second, the registrar's capacity.
// Per run it prints what SIPp counted: calls completed and failed, retransmissions SIPp had to send
// (a request not answered within 500 ms), average, p99 and maximum response time, the count over 1 s,
// then Atrium beside Kamailio (ratio Atrium/Kamailio) and whether Atrium meets the targets: no failed
// call, no REGISTER retransmission, p99 ≤ 20 ms for both.
// Atrium runs as in production: apps/server/src/main.ts (SIP, HTTP, broker, recorder, one process
// whatever threads it uses inside) on PostgreSQL (a fresh database atrium_bench_sip on BENCH_PG, as the
// other benches), its default log level, its numbers created through the API (PUT /sip-numbers). Only
// its SIP UDP port is spoken to. Kamailio reads the same numbers and passwords from db_text files and
// authenticates REGISTER (www_authorize) and INVITE (proxy_authorize) as Atrium does. SIP listens on
// free ports only, never 5060.
// Env: BENCH_SIP_SECONDS, BENCH_SIP_REG_RATE, BENCH_SIP_INVITE_RATE, BENCH_SIP_NUMBERS, BENCH_SIP_CAPACITY,
// BENCH_KAMAILIO_CHILDREN (4), BENCH_SIP_ONLY (atrium | kamailio), BENCH_SIP_KEEP (keep SIPp's files),
// BENCH_SERVER_LOG, BENCH_CPU_PROF (a directory: Atrium runs with --cpu-prof there, and its profile is
// summarised per load at the end; see cpuprofile.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { registerContact } from '../apps/server/src/sip/testing.js';
import { summariseProfiles } from './cpuprofile.js';
import {
  type Cpu,
  freePort,
  freshDatabase,
  tempDir as newTempDir,
  quantile,
  ROOT,
  startProcess,
  treeCpu,
  treeCpuSince,
  waitFor,
} from './lib.js';

const NUMBERS = Number(process.env.BENCH_SIP_NUMBERS ?? 1_000);
const SECONDS = Number(process.env.BENCH_SIP_SECONDS ?? 30);
const REG_RATE = Number(process.env.BENCH_SIP_REG_RATE ?? 600);
const INVITE_RATE = Number(process.env.BENCH_SIP_INVITE_RATE ?? 150);
const CAPACITY = Boolean(process.env.BENCH_SIP_CAPACITY);
const CAPACITY_RATE = 6_000;
const CAPACITY_LIMIT = 400;
const CAPACITY_SECONDS = 10;
const KAMAILIO_CHILDREN = Number(process.env.BENCH_KAMAILIO_CHILDREN ?? 4);
const ONLY = process.env.BENCH_SIP_ONLY;
/** The targets Atrium is held to at those rates. */
const TARGET_P99_MS = 20;
const SIPP = '/usr/bin/sipp';
const KAMAILIO = '/usr/sbin/kamailio';
const KAMAILIO_CFG = path.join(ROOT, 'deploy/kamailio/bench-registrar.cfg');
const SCENARIOS = path.join(ROOT, 'bench/sipp');
const ADMIN_PASSWORD = 'bench-password';
/** The callee with a forward rule on no answer, and the number it forwards to. */
const CALLEE = '8000001';
const FORWARD_TO = '8000002';

const numberOf = (i: number) => `7${String(i).padStart(6, '0')}`;
const passwordOf = (n: string) => `Bench${n}Pw`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** CLOCK_MONOTONIC in µs, the clock of V8's CPU profiles: a load's window in Atrium's profile. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Directories this run wrote (tables, SIPp's traces): removed at the end unless BENCH_SIP_KEEP is set. */
const scratch: string[] = [];
function tempDir(): string {
  const dir = newTempDir();
  scratch.push(dir);
  return dir;
}

/** Every process this run started; all are ended on the way out, whatever happens. */
const children = new Set<ChildProcess>();
function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
function endAll(): void {
  for (const c of children) c.kill('SIGTERM');
}
process.once('exit', endAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    endAll();
    process.exit(130);
  });
}

async function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stop(child: ChildProcess, graceMs = 5000): Promise<void> {
  child.kill('SIGTERM');
  if (!(await exited(child, graceMs))) {
    child.kill('SIGKILL');
    await exited(child, 2000);
  }
}

const udpFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', () => resolve(false));
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A port free for both UDP and TCP on 127.0.0.1 (SIP takes both). */
async function freeSipPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port !== 5060 && (await udpFree(port))) return port;
  }
}

/**
 * Datagrams the kernel dropped so far at UDP sockets bound to `port` on this machine (/proc/net/udp,
 * its last column): what arrived while the socket's receive buffer was full, lost before the server
 * read it; SIPp sees that as a retransmission, or a call failed on a response that never came.
 */
function udpDrops(port: number): number {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let drops = 0;
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]?.endsWith(hex)) drops += Number(fields.at(-1)) || 0;
  }
  return drops;
}

/** SIPp's media port: it binds that UDP port and the three above it (audio and video, RTP and RTCP). */
async function freeMediaPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port > 65_000) continue;
    let free = true;
    for (let p = port; p < port + 4 && free; p++) free = await udpFree(p);
    if (free) return port;
  }
}

// --- the servers --------------------------------------------------------------------------------

interface Target {
  name: string;
  sipPort: number;
  pid: number;
  stop(): Promise<void>;
}

interface Atrium extends Target {
  base: string;
  database: string;
}

async function startAtrium(): Promise<Atrium> {
  const databaseUrl = await freshDatabase('atrium_bench_sip');
  const [port, sipPort, wsPort, mqttPort] = [await freePort(), await freeSipPort(), await freePort(), await freePort()];
  if (process.env.BENCH_CPU_PROF) mkdirSync(process.env.BENCH_CPU_PROF, { recursive: true });
  // startProcess adds --cpu-prof (BENCH_CPU_PROF), BENCH_SERVER_FLAGS and BENCH_SERVER_LOG for main.ts.
  const child = track(
    startProcess(path.join(ROOT, 'apps/server/src/main.ts'), {
      DATABASE_URL: databaseUrl,
      DATA_DIR: tempDir(),
      PORT: String(port),
      HOST: '127.0.0.1',
      SIP_HOST: '127.0.0.1',
      SIP_PUBLIC_HOST: '127.0.0.1',
      SIP_PORT: String(sipPort),
      SIP_WS_PORT: String(wsPort),
      // Its own embedded broker on a free port: the machine's Mosquitto on 1883 has no Atrium account.
      MQTT_URL: undefined,
      MQTT_DYNSEC: undefined,
      MQTT_PORT: String(mqttPort),
      MQTT_HOST: '127.0.0.1',
      ADMIN_LOGIN: 'admin',
      ADMIN_PASSWORD,
      // Production's level (config.ts defaults to info), so the per-message cost of logging counts.
      LOG_LEVEL: undefined,
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/api/v0/info`, 120_000);
  } catch (e) {
    await stop(child);
    throw e;
  }
  return {
    name: 'Atrium',
    base,
    sipPort,
    pid: child.pid as number,
    database: `PostgreSQL (${new URL(databaseUrl).host}/atrium_bench_sip)`,
    // A profiled server writes its .cpuprofile as it exits: more time before SIGKILL.
    stop: () => stop(child, process.env.BENCH_CPU_PROF ? 30_000 : 5000),
  };
}

/** Kamailio with deploy/kamailio/bench-registrar.cfg, its tables as db_text files in a temporary directory. */
async function startKamailio(numbers: string[]): Promise<Target> {
  const dir = tempDir();
  const tables = path.join(dir, 'tables');
  const run = path.join(dir, 'run');
  mkdirSync(tables);
  mkdirSync(run);
  writeFileSync(
    path.join(tables, 'subscriber'),
    `id(int,auto) username(string) password(string) \n${numbers.map((n, i) => `${i + 1}:${n}:${passwordOf(n)}`).join('\n')}\n`,
  );
  writeFileSync(
    path.join(tables, 'forward'),
    `id(int,auto) key_name(string) key_type(int) value_type(int) key_value(string) expires(int) \n1:${CALLEE}:0:0:${FORWARD_TO}:0\n`,
  );
  writeFileSync(
    path.join(tables, 'version'),
    'id(int,auto) table_name(string) table_version(int) \n1:htable:2\n2:forward:2\n3:subscriber:7\n',
  );
  const sipPort = await freeSipPort();
  const log = path.join(dir, 'kamailio.log');
  const child = track(
    spawn(
      KAMAILIO,
      [
        '-DD', // stays in the foreground (this process ends it), its workers still forked
        '-E',
        '-f',
        KAMAILIO_CFG,
        '-l',
        `udp:127.0.0.1:${sipPort}`,
        '-n',
        String(KAMAILIO_CHILDREN),
        '-A',
        `DB_URL="text://${tables}"`,
        '-Y',
        run,
        '-w',
        run,
        '-m',
        '256',
        '-M',
        '16',
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', openSync(log, 'a')] },
    ),
  );
  // Ready once a REGISTER is answered at all.
  const end = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`kamailio exited with ${child.exitCode}; see ${log}`);
    if ((await registerContact(sipPort, numbers[0] as string, 'wrong', 1).catch(() => 0)) > 0) break;
    if (Date.now() > end) {
      await stop(child);
      throw new Error(`kamailio did not answer on ${sipPort}; see ${log}`);
    }
    await sleep(200);
  }
  return { name: 'Kamailio', sipPort, pid: child.pid as number, stop: () => stop(child) };
}

// --- Atrium's numbers through its API -------------------------------------------------------------

async function api(base: string, auth: Record<string, string>, method: string, url: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}/api/v0${url}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return (JSON.parse(text) as { data: unknown }).data;
}

async function seedAtrium(atrium: Atrium, pool: string[]): Promise<void> {
  const login = (await api(atrium.base, {}, 'POST', '/login', { login: 'admin', password: ADMIN_PASSWORD })) as {
    sessions: { token: string }[];
  };
  const auth = { authorization: `Bearer ${login.sessions[0]?.token}` };
  const groups = (await api(atrium.base, auth, 'GET', '/domains/completely')) as { id: number; parent_id: number | null }[];
  const root = groups.find((g) => g.parent_id === null)?.id;
  if (root === undefined) throw new Error('no root group');
  const create = (number: string, extra: Record<string, unknown> = {}) =>
    api(atrium.base, auth, 'PUT', '/sip-numbers', { number, password: passwordOf(number), domain_id: root, ...extra });
  const t = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < pool.length) await create(pool[next++] as string);
    }),
  );
  await create(FORWARD_TO);
  await create(CALLEE, { forward_mode: 'manual', forward_rules: { redirect_if_no_answer: { timeout: 10, numbers: [FORWARD_TO] } } });
  console.log(`created ${pool.length + 2} virtual numbers through PUT /sip-numbers in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

// --- SIPp -------------------------------------------------------------------------------------

export interface SippFigures {
  /** What was offered: calls per second, and how many calls in all. */
  rate: number;
  calls: number;
  successful: number;
  failed: number;
  /** Why calls failed, as SIPp counts it (FailedCallTimeout, FailedMaxUDPRetrans, …), the causes seen. */
  failures: Map<string, number>;
  /** Requests SIPp sent again because no answer came within 500 ms (T1). */
  retransmissions: number;
  /** Response times in ms (SIPp's rtd 1), ascending. */
  times: number[];
  wallSeconds: number;
  /** CPU seconds the server (all its processes and threads) used meanwhile. */
  serverCpu: Cpu;
  /** Datagrams to the server's SIP port the kernel dropped meanwhile (its receive buffer full). */
  drops: number;
}

/** The last row of SIPp's -trace_stat file as column → value. */
export function lastStatRow(csv: string): Map<string, number> {
  const [head, ...rows] = csv.trim().split('\n');
  const cols = (head ?? '').split(';');
  const last = (rows.at(-1) ?? '').split(';');
  return new Map(cols.map((name, i) => [name, Number(last[i])]));
}

/** SIPp's -trace_rtt file (one line per response time with -rtt_freq 1): the times of rtd `rtd`, in ms, ascending. */
export function responseTimes(csv: string, rtd = '1'): number[] {
  const out: number[] = [];
  for (const line of csv.trim().split('\n').slice(1)) {
    const [, ms, name] = line.split(';');
    const x = Number(ms);
    if (Number.isFinite(x) && name?.trim() === rtd) out.push(x);
  }
  return out.sort((a, b) => a - b);
}

/**
 * One SIPp client run in its own directory at a fixed offered rate: `calls` calls at `rate` per
 * second. Its limit of calls at once is high enough that a slow server does not slow the offer down.
 */
async function sipp(
  target: Target,
  scenario: string,
  opts: { rate: number; calls: number; limit?: number; args?: string[] },
): Promise<SippFigures> {
  const dir = tempDir();
  const [port, mediaPort] = [await freeSipPort(), await freeMediaPort()];
  const timeoutS = Math.ceil(opts.calls / opts.rate) * 3 + 60;
  const cpu0 = treeCpu(target.pid);
  const drops0 = udpDrops(target.sipPort);
  const t = performance.now();
  const child = track(
    spawn(
      SIPP,
      [
        `127.0.0.1:${target.sipPort}`,
        '-sf',
        path.join(SCENARIOS, scenario),
        '-i',
        '127.0.0.1',
        '-p',
        String(port),
        '-mp',
        String(mediaPort),
        '-nostdin',
        '-r',
        String(opts.rate),
        '-rp',
        '1000',
        '-m',
        String(opts.calls),
        '-l',
        String(opts.limit ?? opts.rate * 20),
        '-timeout',
        `${timeoutS}s`,
        '-recv_timeout',
        '10000',
        '-trace_stat',
        '-stf',
        path.join(dir, 'stat.csv'),
        '-fd',
        '3600',
        '-trace_rtt',
        '-rtt_freq',
        '1',
        '-trace_err',
        '-error_file',
        path.join(dir, 'errors.log'),
        ...(opts.args ?? []),
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'ignore'] },
    ),
  );
  await exited(child, (timeoutS + 30) * 1000);
  if (child.exitCode === null) await stop(child);
  const wallSeconds = (performance.now() - t) / 1000;
  const serverCpu = treeCpuSince(target.pid, cpu0);
  const drops = udpDrops(target.sipPort) - drops0;
  const statFile = path.join(dir, 'stat.csv');
  const row = existsSync(statFile) ? lastStatRow(readFileSync(statFile, 'utf8')) : new Map<string, number>();
  if (!row.get('TotalCallCreated')) {
    // SIPp stopped before its first call (a port taken meanwhile, say): no figure to print.
    const errors = path.join(dir, 'errors.log');
    throw new Error(
      `SIPp (${scenario}) made no call: ${existsSync(errors) ? readFileSync(errors, 'utf8').slice(0, 500) : `exit ${child.exitCode}`}`,
    );
  }
  const stat = (name: string) => row.get(name) ?? Number.NaN;
  const failures = new Map<string, number>();
  for (const [name, n] of row) if (/^Failed.+\(C\)$/.test(name) && name !== 'FailedCall(C)' && n > 0) failures.set(name.slice(6, -3), n);
  const rtt = readdirSync(dir).find((f) => f.endsWith('_rtt.csv'));
  return {
    rate: opts.rate,
    calls: opts.calls,
    successful: stat('SuccessfulCall(C)'),
    failed: stat('FailedCall(C)'),
    failures,
    retransmissions: stat('Retransmissions(C)'),
    times: rtt ? responseTimes(readFileSync(path.join(dir, rtt), 'utf8')) : [],
    wallSeconds,
    serverCpu,
    drops,
  };
}

function injection(file: string, numbers: string[]): string {
  // SIPp expands a keyword held in a field, not a field inside a keyword: the whole [authentication] goes in.
  writeFileSync(file, `SEQUENTIAL\n${numbers.map((n) => `${n};[authentication username=${n} password=${passwordOf(n)}]`).join('\n')}\n`);
  return file;
}

/** The registered callee of the INVITE run: a SIPp UAS that rings, then answers 486, for as long as it runs. */
async function startCallee(target: Target): Promise<ChildProcess> {
  const [uasPort, uasMedia] = [await freeSipPort(), await freeMediaPort()];
  const uas = track(
    spawn(
      SIPP,
      ['-sf', path.join(SCENARIOS, 'uas-ring-busy.xml'), '-i', '127.0.0.1', '-p', String(uasPort), '-mp', String(uasMedia), '-nostdin'],
      { cwd: tempDir(), stdio: 'ignore' },
    ),
  );
  await sleep(300);
  const status = await registerContact(target.sipPort, CALLEE, passwordOf(CALLEE), uasPort).catch(() => 0);
  if (status !== 200) {
    await stop(uas);
    throw new Error(`${target.name}: the callee's phone could not register (${status})`);
  }
  return uas;
}

// --- the run ------------------------------------------------------------------------------------

interface Measured {
  register: SippFigures;
  invite: SippFigures;
  capacity: SippFigures | null;
}

/** A load's window in CLOCK_MONOTONIC µs, for cutting Atrium's CPU profile. */
interface Window {
  name: string;
  from: number;
  to: number;
}

/** Server CPU per completed call, µs (the kernel counts CPU in 10 ms ticks: a floor of 10 ms over the run). */
const cpuPerCall = (f: SippFigures) => (1e6 * (f.serverCpu.user + f.serverCpu.kernel)) / Math.max(f.successful, 1);
const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : '—');

function describe(what: string, f: SippFigures): void {
  console.log(
    `  ${what}: offered ${f.rate}/s × ${(f.calls / f.rate).toFixed(0)} s; ${f.successful} of ${f.calls} completed, ${f.failed} failed` +
      `${f.failures.size ? ` (${[...f.failures].map(([why, n]) => `${why} ${n}`).join(', ')})` : ''}, ${f.retransmissions} retransmissions, ${f.drops} datagrams dropped by the kernel at the server's full receive buffer;` +
      ` response time avg ${ms(mean(f.times))}, p99 ${ms(quantile(f.times, 0.99))}, max ${ms(f.times.at(-1) ?? Number.NaN)},` +
      ` ${f.times.filter((x) => x > 1000).length} over 1 s; server CPU ${f.serverCpu.user.toFixed(1)} s user + ${f.serverCpu.kernel.toFixed(1)} s kernel (${cpuPerCall(f).toFixed(0)} µs a call)`,
  );
}

async function measure(target: Target, pool: string[], windows: Window[]): Promise<Measured> {
  console.log(`\n${target.name} (SIP udp 127.0.0.1:${target.sipPort}, pid ${target.pid})`);
  const during = async (name: string, load: () => Promise<SippFigures>) => {
    const from = monotonicUs();
    const f = await load();
    windows.push({ name, from, to: monotonicUs() });
    return f;
  };
  const registrations = injection(path.join(tempDir(), 'numbers.csv'), pool);
  const register = await during('REGISTER', () =>
    sipp(target, 'register.xml', { rate: REG_RATE, calls: REG_RATE * SECONDS, args: ['-inf', registrations] }),
  );
  describe('REGISTER with digest (first REGISTER → 200)', register);
  const uas = await startCallee(target);
  let invite: SippFigures;
  try {
    const callers = injection(path.join(tempDir(), 'callers.csv'), pool);
    invite = await during('INVITE', () =>
      sipp(target, 'invite-180.xml', { rate: INVITE_RATE, calls: INVITE_RATE * SECONDS, args: ['-inf', callers, '-s', CALLEE] }),
    );
  } finally {
    await stop(uas);
  }
  describe('INVITE with digest via forward rule (INVITE with credentials → 180)', invite);
  let capacity: SippFigures | null = null;
  if (CAPACITY) {
    capacity = await during('REGISTER capacity', () =>
      sipp(target, 'register.xml', {
        rate: CAPACITY_RATE,
        calls: CAPACITY_RATE * CAPACITY_SECONDS,
        limit: CAPACITY_LIMIT,
        args: ['-inf', registrations],
      }),
    );
    console.log(
      `  REGISTER capacity: ${(capacity.successful / capacity.wallSeconds).toFixed(0)}/s completed (offered ${CAPACITY_RATE}/s, at most ${CAPACITY_LIMIT} at once), ${capacity.failed} failed`,
    );
  }
  return { register, invite, capacity };
}

interface Row {
  figure: string;
  atrium: number | null;
  kamailio: number | null;
  unit: string;
  /** Atrium's target: the largest value that meets it. */
  atMost?: number;
}

function table(rows: Row[]): boolean {
  const w = [46, 13, 13, 17, 10];
  const fmt = (x: number | null, unit: string) =>
    x === null || !Number.isFinite(x) ? '—' : `${x.toFixed(unit === 'ms' ? 1 : 0)}${unit ? ` ${unit}` : ''}`;
  console.log(
    `\n${'figure'.padEnd(w[0]!)}${'Atrium'.padEnd(w[1]!)}${'Kamailio'.padEnd(w[2]!)}${'Atrium/Kamailio'.padEnd(w[3]!)}${'target'.padEnd(w[4]!)}met`,
  );
  let all = true;
  for (const r of rows) {
    const ratio = r.atrium !== null && r.kamailio !== null && r.kamailio > 0 ? (r.atrium / r.kamailio).toFixed(1) : '—';
    const target = r.atMost === undefined ? '' : `≤ ${r.atMost}${r.unit ? ` ${r.unit}` : ''}`;
    const met = r.atMost === undefined || r.atrium === null ? '' : r.atrium <= r.atMost ? 'yes' : 'NO';
    if (met === 'NO') all = false;
    console.log(
      `${r.figure.padEnd(w[0]!)}${fmt(r.atrium, r.unit).padEnd(w[1]!)}${fmt(r.kamailio, r.unit).padEnd(w[2]!)}${ratio.padEnd(w[3]!)}${target.padEnd(w[4]!)}${met}`,
    );
  }
  return all;
}

export async function run(): Promise<void> {
  const pool = Array.from({ length: NUMBERS }, (_, i) => numberOf(i + 1));
  const windows: Window[] = [];
  let a: Measured | null = null;
  let k: Measured | null = null;
  try {
    if (ONLY !== 'kamailio') {
      const atrium = await startAtrium();
      try {
        console.log(`Atrium on ${atrium.database}`);
        await seedAtrium(atrium, pool);
        a = await measure(atrium, pool, windows);
      } finally {
        await atrium.stop();
      }
    }
    if (ONLY !== 'atrium') {
      const kamailio = await startKamailio([...pool, CALLEE, FORWARD_TO]);
      try {
        k = await measure(kamailio, pool, []);
      } finally {
        await kamailio.stop();
      }
    }
  } finally {
    if (process.env.BENCH_SIP_KEEP) console.log(`kept: ${scratch.join(' ')}`);
    else for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  }
  const pick = (m: Measured | null, f: (m: Measured) => number) => (m ? f(m) : null);
  const rows: Row[] = [
    {
      figure: `REGISTER ${REG_RATE}/s: failed`,
      atrium: pick(a, (m) => m.register.failed),
      kamailio: pick(k, (m) => m.register.failed),
      unit: '',
      atMost: 0,
    },
    {
      figure: `REGISTER ${REG_RATE}/s: retransmissions`,
      atrium: pick(a, (m) => m.register.retransmissions),
      kamailio: pick(k, (m) => m.register.retransmissions),
      unit: '',
      atMost: 0,
    },
    {
      figure: `REGISTER ${REG_RATE}/s: average`,
      atrium: pick(a, (m) => mean(m.register.times)),
      kamailio: pick(k, (m) => mean(m.register.times)),
      unit: 'ms',
    },
    {
      figure: `REGISTER ${REG_RATE}/s: p99`,
      atrium: pick(a, (m) => quantile(m.register.times, 0.99)),
      kamailio: pick(k, (m) => quantile(m.register.times, 0.99)),
      unit: 'ms',
      atMost: TARGET_P99_MS,
    },
    {
      figure: `INVITE ${INVITE_RATE}/s: failed calls`,
      atrium: pick(a, (m) => m.invite.failed),
      kamailio: pick(k, (m) => m.invite.failed),
      unit: '',
      atMost: 0,
    },
    {
      figure: `INVITE ${INVITE_RATE}/s: retransmissions`,
      atrium: pick(a, (m) => m.invite.retransmissions),
      kamailio: pick(k, (m) => m.invite.retransmissions),
      unit: '',
    },
    {
      figure: `INVITE ${INVITE_RATE}/s: average`,
      atrium: pick(a, (m) => mean(m.invite.times)),
      kamailio: pick(k, (m) => mean(m.invite.times)),
      unit: 'ms',
    },
    {
      figure: `INVITE ${INVITE_RATE}/s: p99`,
      atrium: pick(a, (m) => quantile(m.invite.times, 0.99)),
      kamailio: pick(k, (m) => quantile(m.invite.times, 0.99)),
      unit: 'ms',
      atMost: TARGET_P99_MS,
    },
    {
      figure: 'REGISTER: datagrams dropped, buffer full',
      atrium: pick(a, (m) => m.register.drops),
      kamailio: pick(k, (m) => m.register.drops),
      unit: '',
    },
    {
      figure: 'INVITE: datagrams dropped, buffer full',
      atrium: pick(a, (m) => m.invite.drops),
      kamailio: pick(k, (m) => m.invite.drops),
      unit: '',
    },
    {
      figure: 'server CPU per registration',
      atrium: pick(a, (m) => cpuPerCall(m.register)),
      kamailio: pick(k, (m) => cpuPerCall(m.register)),
      unit: 'µs',
    },
    {
      figure: 'server CPU per call',
      atrium: pick(a, (m) => cpuPerCall(m.invite)),
      kamailio: pick(k, (m) => cpuPerCall(m.invite)),
      unit: 'µs',
    },
  ];
  if (CAPACITY) {
    const perSecond = (m: Measured) => (m.capacity ? m.capacity.successful / m.capacity.wallSeconds : Number.NaN);
    rows.push({ figure: 'REGISTER capacity, completed', atrium: pick(a, perSecond), kamailio: pick(k, perSecond), unit: '/s' });
  }
  const met = table(rows);
  console.log(
    `\nResponse times are SIPp's (rtd 1, its clock in ms); a retransmission is a request SIPp sent again after 500 ms without an answer.` +
      `\nKamailio: ${KAMAILIO_CHILDREN} UDP workers (deploy/kamailio/bench-registrar.cfg, db_text tables), digest on REGISTER and INVITE as Atrium;` +
      ` it does not do call rules, forward groups, interception, call records or the API. Atrium: main.ts on PostgreSQL.` +
      `\nSIPp, the server under load and the machine's other work share ${availableParallelism()} cores.`,
  );
  if (a)
    console.log(
      `\nAtrium ${met ? 'meets' : 'does NOT meet'} the targets (no failed call, no REGISTER retransmission, p99 ≤ ${TARGET_P99_MS} ms).`,
    );
  const prof = process.env.BENCH_CPU_PROF;
  if (prof && a) {
    // Kept beside the profiles, so `npx tsx bench/cpuprofile.ts <dir>` cuts them the same way later.
    writeFileSync(path.join(prof, 'windows.json'), JSON.stringify(windows));
    summariseProfiles(prof, windows);
  }
}
