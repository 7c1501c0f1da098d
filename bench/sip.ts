// `npm run bench -- sip`: Atrium's embedded SIP registrar and proxy against Kamailio (Debian's, with
// deploy/kamailio/kamailio.cfg as it is) on the same machine in the same run, both driven by SIPp:
//   1. REGISTER with digest authentication (REGISTER, 401, REGISTER with credentials, 200) for
//      BENCH_SIP_NUMBERS (1,000) numbers, offered at BENCH_SIP_REG_RATE (6,000/s) for BENCH_SIP_REG_SECONDS
//      (10 s), at most BENCH_SIP_REG_LIMIT (400) at once: successful registrations per second;
//   2. INVITE to 180 through a forward rule: callers of the pool call a number in forward mode "manual"
//      whose rule forwards on no answer; its registered contact (a SIPp UAS) rings, then answers 486.
//      From the authenticated INVITE to the 180, per call, from SIPp's message trace (microseconds),
//      and SIPp's own response time (rtd, whole milliseconds of its clock) for its p95;
//      BENCH_SIP_INVITES (600) calls at BENCH_SIP_INVITE_RATE (30/s), each from another caller of the
//      pool unless BENCH_SIP_CALLERS says how many take turns: p50, p95, p99.
// Each figure is printed beside Kamailio's as the ratio Atrium/Kamailio.
// Atrium runs as in production (apps/server/src/main.ts): PGlite in a temporary data directory, or,
// with BENCH_DATABASE_URL (else TEST_DATABASE_URL), PostgreSQL: a fresh database atrium_bench_sip on
// that server. Its numbers are created through the API (PUT /sip-numbers); Kamailio reads the same
// numbers and passwords from db_text files. SIP listens on free ports only, never 5060.
// Env: BENCH_SIP_NUMBERS, BENCH_SIP_REG_RATE, BENCH_SIP_REG_SECONDS, BENCH_SIP_REG_LIMIT, BENCH_SIP_INVITES,
// BENCH_SIP_INVITE_RATE, BENCH_SIP_CALLERS, BENCH_KAMAILIO_CHILDREN (4), BENCH_SIP_KEEP, BENCH_SERVER_LOG, BENCH_CPU_PROF (a directory:
// Atrium runs with --cpu-prof there).
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { registerContact } from '../apps/server/src/sip/testing.js';
import { freePort, tempDir as newTempDir, quantile, ROOT, waitFor } from './lib.js';

const NUMBERS = Number(process.env.BENCH_SIP_NUMBERS ?? 1_000);
const REG_RATE = Number(process.env.BENCH_SIP_REG_RATE ?? 6_000);
const REG_SECONDS = Number(process.env.BENCH_SIP_REG_SECONDS ?? 10);
const REG_LIMIT = Number(process.env.BENCH_SIP_REG_LIMIT ?? 400);
const INVITES = Number(process.env.BENCH_SIP_INVITES ?? 600);
const INVITE_RATE = Number(process.env.BENCH_SIP_INVITE_RATE ?? 30);
/** Distinct callers of the INVITE run (the first of the pool); all of them by default, each call a new caller. */
const CALLERS = Number(process.env.BENCH_SIP_CALLERS ?? NUMBERS);
const KAMAILIO_CHILDREN = Number(process.env.BENCH_KAMAILIO_CHILDREN ?? 4);
const SIPP = '/usr/bin/sipp';
const KAMAILIO = '/usr/sbin/kamailio';
const KAMAILIO_CFG = path.join(ROOT, 'deploy/kamailio/kamailio.cfg');
const SCENARIOS = path.join(ROOT, 'bench/sipp');
const ADMIN_PASSWORD = 'bench-password';
/** The callee with a forward rule on no answer, and the number it forwards to. */
const CALLEE = '8000001';
const FORWARD_TO = '8000002';

const numberOf = (i: number) => `7${String(i).padStart(6, '0')}`;
const passwordOf = (n: string) => `Bench${n}Pw`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Directories this run wrote (data, tables, SIPp's traces): removed at the end unless BENCH_SIP_KEEP is set. */
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

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (!(await exited(child, 5000))) {
    child.kill('SIGKILL');
    await exited(child, 2000);
  }
}

/** A port free for both UDP and TCP on 127.0.0.1 (SIP takes both). */
async function freeSipPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const ok = await new Promise<boolean>((resolve) => {
      const s = dgram.createSocket('udp4');
      s.once('error', () => resolve(false));
      s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok && port !== 5060) return port;
  }
}

// --- the servers --------------------------------------------------------------------------------

interface Target {
  name: string;
  sipPort: number;
  pid: number;
  stop(): Promise<void>;
}

async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Atrium extends Target {
  base: string;
  database: string;
}

async function startAtrium(): Promise<Atrium> {
  const pgServer = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const databaseUrl = pgServer ? await freshDatabase(pgServer, 'atrium_bench_sip') : undefined;
  const dataDir = tempDir();
  const [port, sipPort, wsPort, mqttPort] = [await freePort(), await freeSipPort(), await freePort(), await freePort()];
  const profDir = process.env.BENCH_CPU_PROF;
  if (profDir) mkdirSync(profDir, { recursive: true });
  const child = track(
    spawn(
      process.execPath,
      [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), '--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          DATA_DIR: dataDir,
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
          LOG_LEVEL: 'error',
        },
        stdio: ['ignore', process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, 'a') : 'ignore', 'inherit'],
      },
    ),
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
    database: databaseUrl ? `PostgreSQL (${new URL(databaseUrl).host}/atrium_bench_sip)` : `PGlite (${dataDir})`,
    stop: () => stop(child),
  };
}

/** Kamailio with deploy/kamailio/kamailio.cfg, its tables as db_text files in a temporary directory. */
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

interface SippResult {
  code: number | null;
  wallMs: number;
  successful: number;
  failed: number;
  dir: string;
}

/** One SIPp run in its own directory; resolves with SIPp's own count of successful and failed calls. */
async function sipp(target: number, scenario: string, args: string[], timeoutS: number): Promise<SippResult> {
  const dir = tempDir();
  const [port, mediaPort] = [await freeSipPort(), await freeSipPort()];
  const t = performance.now();
  const child = track(
    spawn(
      SIPP,
      [
        `127.0.0.1:${target}`,
        '-sf',
        path.join(SCENARIOS, scenario),
        '-i',
        '127.0.0.1',
        '-p',
        String(port),
        '-mp',
        String(mediaPort),
        '-nostdin',
        '-timeout',
        `${timeoutS}s`,
        '-recv_timeout',
        '5000',
        '-trace_stat',
        '-stf',
        path.join(dir, 'stat.csv'),
        '-fd',
        '3600',
        '-trace_err',
        '-error_file',
        path.join(dir, 'errors.log'),
        ...args,
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'ignore'] },
    ),
  );
  await exited(child, (timeoutS + 30) * 1000);
  if (child.exitCode === null) await stop(child);
  const wallMs = performance.now() - t;
  const [head, ...rows] = readFileSync(path.join(dir, 'stat.csv'), 'utf8').trim().split('\n');
  const cols = (head ?? '').split(';');
  const last = (rows.at(-1) ?? '').split(';');
  const col = (name: string) => Number(last[cols.indexOf(name)] ?? Number.NaN);
  return { code: child.exitCode, wallMs, successful: col('SuccessfulCall(C)'), failed: col('FailedCall(C)'), dir };
}

function injection(file: string, numbers: string[]): string {
  // SIPp expands a keyword held in a field, not a field inside a keyword: the whole [authentication] goes in.
  writeFileSync(file, `SEQUENTIAL\n${numbers.map((n) => `${n};[authentication username=${n} password=${passwordOf(n)}]`).join('\n')}\n`);
  return file;
}

interface RegisterFigure {
  perSecond: number;
  successful: number;
  failed: number;
  seconds: number;
}

async function registerLoad(target: Target, pool: string[]): Promise<RegisterFigure> {
  const total = REG_RATE * REG_SECONDS;
  const inf = injection(path.join(tempDir(), 'numbers.csv'), pool);
  const r = await sipp(
    target.sipPort,
    'register.xml',
    ['-inf', inf, '-r', String(REG_RATE), '-rp', '1000', '-l', String(REG_LIMIT), '-m', String(total)],
    REG_SECONDS * 6 + 30,
  );
  const seconds = r.wallMs / 1000;
  return { perSecond: r.successful / seconds, successful: r.successful, failed: r.failed, seconds };
}

interface LatencyFigure {
  p50: number;
  p95: number;
  p99: number;
  /** p95 of SIPp's own response time (rtd), which it counts in whole milliseconds of its clock tick. */
  rtdP95: number;
  samples: number;
  successful: number;
  failed: number;
}

/**
 * Per call, from SIPp's message trace (microsecond stamps): the first sending of the INVITE with
 * credentials (CSeq 2) to the first 180 received, in ms, sorted.
 */
function inviteTo180(trace: string): number[] {
  const sent = new Map<string, number>();
  const out: number[] = [];
  for (const block of trace.split(/^-{10,} /m)) {
    const stamp = /^\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d\.\d+)/.exec(block);
    const callId = /^Call-ID:\s*(\S+)/im.exec(block)?.[1];
    if (!stamp || !callId) continue;
    const at = (Number(stamp[1]) * 3600 + Number(stamp[2]) * 60 + Number(stamp[3])) * 1000;
    if (/message sent/.test(block) && /^CSeq:\s*2 INVITE/im.test(block) && /^INVITE /m.test(block)) {
      if (!sent.has(callId)) sent.set(callId, at);
    } else if (/message received/.test(block) && /^SIP\/2\.0 180 /m.test(block)) {
      const t0 = sent.get(callId);
      if (t0 !== undefined) {
        out.push(at - t0);
        sent.delete(callId);
      }
    }
  }
  return out.sort((a, b) => a - b);
}

async function inviteLatency(target: Target, pool: string[]): Promise<LatencyFigure> {
  // The callee's phone: a SIPp UAS registered as the callee, ringing then busy, for the whole run.
  const uasDir = tempDir();
  const [uasPort, uasMedia] = [await freeSipPort(), await freeSipPort()];
  const uas = track(
    spawn(
      SIPP,
      ['-sf', path.join(SCENARIOS, 'uas-ring-busy.xml'), '-i', '127.0.0.1', '-p', String(uasPort), '-mp', String(uasMedia), '-nostdin'],
      {
        cwd: uasDir,
        stdio: 'ignore',
      },
    ),
  );
  try {
    await sleep(300);
    const status = await registerContact(target.sipPort, CALLEE, passwordOf(CALLEE), uasPort);
    if (status !== 200) throw new Error(`${target.name}: the callee's phone could not register (${status})`);
    const inf = injection(path.join(tempDir(), 'callers.csv'), pool.slice(0, Math.max(1, CALLERS)));
    const r = await sipp(
      target.sipPort,
      'invite-180.xml',
      [
        '-inf',
        inf,
        '-s',
        CALLEE,
        '-r',
        String(INVITE_RATE),
        '-m',
        String(INVITES),
        '-l',
        '100',
        '-trace_rtt',
        '-rtt_freq',
        '1',
        '-trace_msg',
      ],
      Math.ceil(INVITES / INVITE_RATE) * 4 + 30,
    );
    const rtt = readdirSync(r.dir).find((f) => f.endsWith('_rtt.csv'));
    const rtd = rtt
      ? readFileSync(path.join(r.dir, rtt), 'utf8')
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => Number(line.split(';')[1]))
          .filter((x) => Number.isFinite(x))
          .sort((a, b) => a - b)
      : [];
    const log = readdirSync(r.dir).find((f) => f.endsWith('_messages.log'));
    const times = log ? inviteTo180(readFileSync(path.join(r.dir, log), 'utf8')) : [];
    return {
      p50: quantile(times, 0.5),
      p95: quantile(times, 0.95),
      p99: quantile(times, 0.99),
      rtdP95: quantile(rtd, 0.95),
      samples: times.length,
      successful: r.successful,
      failed: r.failed,
    };
  } finally {
    await stop(uas);
  }
}

// --- the run ------------------------------------------------------------------------------------

interface Measured {
  register: RegisterFigure;
  invite: LatencyFigure;
}

async function measure(target: Target, pool: string[]): Promise<Measured> {
  console.log(`\n${target.name} (SIP udp 127.0.0.1:${target.sipPort}, pid ${target.pid})`);
  const register = await registerLoad(target, pool);
  console.log(
    `  REGISTER with digest: ${register.successful} successful, ${register.failed} failed in ${register.seconds.toFixed(1)} s (offered ${REG_RATE}/s, at most ${REG_LIMIT} at once)`,
  );
  const invite = await inviteLatency(target, pool);
  console.log(
    `  INVITE→180 through a forward rule: ${invite.samples} response times, ${invite.successful} calls completed, ${invite.failed} failed`,
  );
  return { register, invite };
}

function table(rows: { figure: string; atrium: number; kamailio: number; unit: string; target: string }[]): void {
  const w = [40, 14, 14, 18];
  console.log(`\n${'figure'.padEnd(w[0]!)}${'Atrium'.padEnd(w[1]!)}${'Kamailio'.padEnd(w[2]!)}${'Atrium/Kamailio'.padEnd(w[3]!)}target`);
  for (const r of rows) {
    const fmt = (x: number) => `${x.toFixed(r.unit === 'ms' ? 2 : 0)} ${r.unit}`;
    console.log(
      `${r.figure.padEnd(w[0]!)}${fmt(r.atrium).padEnd(w[1]!)}${fmt(r.kamailio).padEnd(w[2]!)}${(r.atrium / r.kamailio).toFixed(2).padEnd(w[3]!)}${r.target}`,
    );
  }
}

export async function run(): Promise<void> {
  const pool = Array.from({ length: NUMBERS }, (_, i) => numberOf(i + 1));
  let a: Measured;
  let k: Measured;
  try {
    const atrium = await startAtrium();
    try {
      console.log(`Atrium on ${atrium.database}`);
      await seedAtrium(atrium, pool);
      a = await measure(atrium, pool);
    } finally {
      await atrium.stop();
    }
    const kamailio = await startKamailio([...pool, CALLEE, FORWARD_TO]);
    try {
      k = await measure(kamailio, pool);
    } finally {
      await kamailio.stop();
    }
  } finally {
    if (process.env.BENCH_SIP_KEEP) console.log(`kept: ${scratch.join(' ')}`);
    else for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  }
  table([
    {
      figure: 'REGISTER with digest, successful',
      atrium: a.register.perSecond,
      kamailio: k.register.perSecond,
      unit: '/s',
      target: '≥ 1000/s',
    },
    { figure: 'INVITE→180 via forward rule, p50', atrium: a.invite.p50, kamailio: k.invite.p50, unit: 'ms', target: '' },
    { figure: 'INVITE→180 via forward rule, p95', atrium: a.invite.p95, kamailio: k.invite.p95, unit: 'ms', target: '< 20 ms' },
    { figure: 'INVITE→180 via forward rule, p99', atrium: a.invite.p99, kamailio: k.invite.p99, unit: 'ms', target: '' },
    { figure: 'INVITE→180 p95, SIPp rtd (1 ms ticks)', atrium: a.invite.rtdP95, kamailio: k.invite.rtdP95, unit: 'ms', target: '< 20 ms' },
  ]);
  console.log(
    `\nKamailio ${KAMAILIO_CHILDREN} UDP workers (deploy/kamailio/kamailio.cfg, db_text tables); Atrium one Node process. SIPp, both servers and the machine's other work share ${availableParallelism()} cores.`,
  );
}
