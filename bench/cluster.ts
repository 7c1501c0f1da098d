// `npm run bench -- cluster`: the whole cluster on this machine, as deploy/ lays it out. Two Atrium
// instances (main.ts) on a PostgreSQL database of their own, three clustered RabbitMQ nodes on their
// own ports (devices on the MQTT plugin, Atrium a competing consumer over AMQP, device sign-in asked
// of Atrium through the HTTP auth backend), and HAProxy in front with deploy/haproxy's files (HTTP to
// the instances, MQTT and AMQP to the nodes). Then:
//
// 1. Throughput of one instance against two, same load through the proxy (the second instance put in
//    maintenance through HAProxy's runtime socket, then back), three rounds in turn: the ratio.
// 2. Under load — a device fleet (tools/device-sim through the proxy's MQTT port) sending
//    BENCH_CLUSTER_RATE (100) events a second from BENCH_CLUSTER_DEVICES (200) devices, and
//    BENCH_CLUSTER_CONSOLES (4) console clients signing in and reading lists through the proxy — one
//    Atrium instance is killed (-9), then the RabbitMQ node leading the devices' queue. Meanwhile two
//    phones call each other through Kamailio at the SIP edge (the instances run with SIP_EDGE=kamailio).
//
// Printed: requests failed, events acknowledged to the devices and not stored (must be 0), events
// stored twice (must be 0), SIP calls placed, answered, failed and dropped while up (must be 0), and
// how long the API and the event flow took to recover from each loss.
// Every process, directory and the database are removed at the end, whatever happened.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type RabbitCluster, rabbitmqAvailable, startRabbitCluster } from '../apps/server/src/gateways/mqtt/rabbitmq.test-broker.js';
import { startAnsweringPhone, startKamailio, stopChild } from '../apps/server/src/sip/kamailio.testing.js';
import { freeUdpPort } from '../apps/server/src/sip/testing.js';
import { PASSWORD, seedDevices, serialOf } from './devices.js';
import { ProcessFleet } from './devices-fleet.js';
import { type Figures, freePort, freshDatabase, LOGIN_BODY, load, PG_ADMIN, ROOT, secs, startProcess, tempDir, until } from './lib.js';

const DEVICES = Number(process.env.BENCH_CLUSTER_DEVICES ?? 200);
const RATE = Number(process.env.BENCH_CLUSTER_RATE ?? 100);
const CONSOLES = Number(process.env.BENCH_CLUSTER_CONSOLES ?? 4);
/** Events flow this long in all; the instance dies at a third of it, the node at two thirds. */
const SECONDS = Number(process.env.BENCH_CLUSTER_SECONDS ?? 45);
/** Each device holds at most this many events unacknowledged (a panel keeps the rest itself). */
const WINDOW = 20;
const HAPROXY = process.env.HAPROXY_BIN ?? '/usr/sbin/haproxy';
const DB_NAME = process.env.BENCH_DB ?? 'atrium_bench_cluster';
const SECRET = 'bench-cluster-secret-bench-cluster-secret';

interface Instance {
  name: string;
  port: number;
  child: ChildProcess;
}

/** What the console clients saw: every call's end time and whether it succeeded. */
interface Calls {
  ok: number;
  failed: { at: number; what: string }[];
}

/** A command on HAProxy's runtime socket (e.g. `disable server atrium/atrium2`); resolves with its answer. */
function haproxyCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect(socket);
    let out = '';
    c.on('data', (d) => (out += String(d)));
    c.on('error', reject);
    c.on('end', () => resolve(out));
    c.write(`${command}\n`);
  });
}

/** Whether HAProxy sees `server` of `backend` up (show stat's CSV, status column). */
async function serverUp(socket: string, backend: string, server: string): Promise<boolean> {
  const csv = await haproxyCommand(socket, 'show stat');
  return csv.split('\n').some((l) => {
    const f = l.split(',');
    return f[0] === backend && f[1] === server && f[17] === 'UP';
  });
}

/**
 * A console client through the proxy until `stop`: signs in, then reads the devices and users lists
 * and the instance info in turn, signing in again every 100 calls; every call counted.
 */
async function consoleClient(base: string, calls: Calls, stopped: () => boolean): Promise<void> {
  let token = '';
  let n = 0;
  const call = async (what: string, url: string, init?: RequestInit) => {
    try {
      const res = await fetch(`${base}${url}`, { ...init, signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { data?: { sessions?: { token: string }[] } };
      if (!res.ok) throw new Error(`${res.status}`);
      calls.ok++;
      return body;
    } catch (e) {
      calls.failed.push({ at: performance.now(), what: `${what}: ${(e as Error).message}` });
      return null;
    }
  };
  while (!stopped()) {
    if (!token || n % 100 === 0) {
      const body = await call('sign-in', '/api/v0/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: LOGIN_BODY,
      });
      token = body?.data?.sessions?.[0]?.token ?? token;
      if (!token) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
    }
    const headers = { authorization: `Bearer ${token}` };
    const url = ['/api/v0/devices', '/api/v0/users', '/api/v0/info'][n++ % 3] as string;
    await call(`GET ${url}`, url, { headers });
  }
}

// ─── SIP calls through Kamailio ───────────────────────────────────────────────────────────────────
// Kamailio at the SIP edge (deploy/kamailio/kamailio.cfg) is a third load beside the fleet and the
// console clients: on its own port with the cluster's database, asking both instances (the one killed
// first), two phones registered through it, one calling the other at SIP_RATE calls a second, each
// call up for SIP_TALK_MS, from before the losses until after them.
const SIP_RATE = Number(process.env.BENCH_CLUSTER_SIP_RATE ?? 2);
const SIP_TALK_MS = Number(process.env.BENCH_CLUSTER_SIP_TALK_MS ?? 3000);
const SIP_PASSWORD = (n: string) => `Bench${n}pass`;

interface SipCounts {
  placed: number;
  answered: number;
  /** Ended with an error before an answer (refused, timed out). */
  failed: number;
  /** Answered, then not ended normally: the BYE lost or refused (the dialog gone). */
  dropped: number;
  /** When calls were dropped: what SIPp's error log and Kamailio's output say of them. */
  why: string[];
}

interface SipLoad {
  start(): Promise<void>;
  stop(): Promise<SipCounts>;
  close(): Promise<void>;
}

/** Kamailio in front of `instances`, numbers 8001 (the caller) and 8002 (a phone answering every call) made through the API. */
async function startSipLoad(databaseUrl: string, instances: string[], api: string, token: string): Promise<SipLoad> {
  const stops: (() => Promise<void>)[] = [];
  let caller: ChildProcess | null = null;
  const dir = tempDir();
  const close = async () => {
    if (caller) await stopChild(caller);
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const domains = (await (await fetch(`${api}/api/v0/domains`, { headers })).json()) as { data: { id: number }[] };
    for (const number of ['8001', '8002']) {
      const res = await fetch(`${api}/api/v0/sip-numbers`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ number, password: SIP_PASSWORD(number), domain_id: domains.data[0]!.id }),
      });
      if (!res.ok) throw new Error(`number ${number}: ${res.status} ${await res.text()}`);
    }
    const port = await freeUdpPort();
    const kamailio = await startKamailio({ port, databaseUrl, atriumUrls: instances.join(',') });
    stops.push(kamailio.stop);
    const calleeErrors = path.join(dir, 'callee-errors.log');
    // The phone ignores an INVITE Kamailio sent again (its 180 was relayed late on a loaded machine)
    // while it waits for the ACK, as a phone does; SIPp by default aborts the call on it and sends BYE.
    const callee = await startAnsweringPhone(port, '8002', SIP_PASSWORD('8002'), undefined, [
      ...['-default_behaviors', 'all,-abortunexp'],
      ...['-trace_err', '-error_file', calleeErrors],
    ]);
    stops.push(callee.stop);
    const log = path.join(dir, 'calls.log');
    const errorLog = path.join(dir, 'errors.log');
    const counts = (): SipCounts => {
      const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
      const n = (what: string) => lines.filter((l) => l.startsWith(`${what} `)).length;
      const [placed, answered, ended] = [n('placed'), n('answered'), n('ended')];
      const ids = (what: string) => new Set(lines.filter((l) => l.startsWith(`${what} `)).map((l) => l.slice(what.length + 1).trim()));
      const endedIds = ids('ended');
      const droppedIds = [...ids('answered')].filter((id) => !endedIds.has(id));
      const why: string[] = [];
      if (droppedIds.length) {
        // SIPp's error log: one entry per event, each starting with its date.
        const entries = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split(/\n(?=\d{4}-\d\d-\d\d\t)/) : []);
        const about = (list: string[]) => list.filter((e) => droppedIds.some((id) => e.includes(id))).slice(0, 4);
        const errors = [...about(entries(errorLog)), ...about(entries(calleeErrors)).map((e) => `callee: ${e}`)];
        why.push(`dropped: ${droppedIds.slice(0, 5).join(', ')}`, ...errors.map((e) => e.slice(0, 700)));
        const k = kamailio.output().split('\n');
        for (const id of droppedIds.slice(0, 3)) why.push(...k.filter((l) => l.includes(id)).slice(0, 8));
        why.push(...k.filter((l) => /WARN|ERR/.test(l)).slice(-12));
      }
      return { placed, answered, failed: placed - answered, dropped: answered - ended, why };
    };
    return {
      async start() {
        const [p, mp] = [await freeUdpPort(), await freeUdpPort()];
        // No limit on calls: it calls until stopped (SIGUSR1: no new calls, those up end normally).
        caller = spawn(
          '/usr/bin/sipp',
          [
            `127.0.0.1:${port}`,
            ...['-sf', path.join(ROOT, 'bench/sipp/uac-call-talk.xml'), '-i', '127.0.0.1', '-p', String(p), '-mp', String(mp)],
            ...['-s', '8002', '-key', 'caller', '8001', '-au', '8001', '-ap', SIP_PASSWORD('8001')],
            ...['-r', String(SIP_RATE), '-d', String(SIP_TALK_MS), '-l', String(SIP_RATE * 60), '-recv_timeout', '20000'],
            ...['-nostdin', '-trace_logs', '-log_file', log, '-trace_err', '-error_file', errorLog],
            // A 180 that Kamailio relayed before the 200 can reach the caller after it (two workers
            // each send one; over UDP nothing orders them), and a phone ignores it. SIPp by default
            // aborts the call on it, which counted a call that went on normally as dropped. A call
            // really dropped still is: its BYE's 200 never comes, and the call times out (-recv_timeout).
            ...['-default_behaviors', 'all,-abortunexp'],
          ],
          { cwd: dir, stdio: 'ignore' },
        );
      },
      async stop() {
        const c = caller;
        if (c && c.exitCode === null) {
          const exited = new Promise((r) => c.once('exit', r));
          c.kill('SIGUSR1');
          await Promise.race([exited, new Promise((r) => setTimeout(r, SIP_TALK_MS + 30_000))]);
          await stopChild(c);
        }
        return counts();
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
// ──────────────────────────────────────────────────────────────────────────────────────────────────

export async function run(): Promise<void> {
  if (!rabbitmqAvailable()) throw new Error('rabbitmq-server (Debian package rabbitmq-server) is needed');
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  let cluster: RabbitCluster | null = null;
  let fleet: ProcessFleet | null = null;
  let db: pg.Client | null = null;
  let cleaned: Promise<void> | null = null;
  let sipLoad: SipLoad | null = null;
  // Once, whether the run ends, fails or is interrupted (Ctrl-C): nothing it started outlives it.
  const cleanup = () =>
    (cleaned ??= (async () => {
      await sipLoad?.close();
      if (fleet) await Promise.race([fleet.stop(), new Promise((r) => setTimeout(r, 8000))]);
      await db?.end().catch(() => undefined);
      // The instances and HAProxy first (they hold connections to the nodes), then the nodes, the database.
      for (const c of children) {
        if (c.exitCode !== null || c.signalCode !== null) continue;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
        if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      }
      await cluster?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      execFileSync('psql', [PG_ADMIN, '-qc', `DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`]);
    })());
  const interrupted = () => {
    console.error('interrupted: stopping what the bench started…');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const url = await freshDatabase(DB_NAME);
    const [httpPort, mqttPort, amqpPort] = [await freePort(), await freePort(), await freePort()];
    const base = `http://127.0.0.1:${httpPort}`;
    console.log(
      `machine: ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );

    let t = performance.now();
    // RabbitMQ asks Atrium through the proxy, as in a deployment: any live instance answers.
    cluster = await startRabbitCluster(3, { authUrl: `${base}/api/v0/broker-auth/rabbitmq` });
    console.log(`3 RabbitMQ nodes clustered in ${secs(cluster.startMs)}`);
    const nodes = cluster.nodes;

    const runtime = tempDir();
    dirs.push(runtime);
    const socket = path.join(runtime, 'haproxy.sock');
    writeFileSync(path.join(runtime, 'runtime.cfg'), `global\n    stats socket ${socket} mode 600 level admin\n`);
    const [portA, portB] = [await freePort(), await freePort()];
    const haproxy = spawn(
      HAPROXY,
      [
        '-db',
        '-f',
        path.join(ROOT, 'deploy/haproxy/haproxy.cfg'),
        '-f',
        path.join(ROOT, 'deploy/haproxy/brokers.cfg'),
        '-f',
        path.join(runtime, 'runtime.cfg'),
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ATRIUM_PROXY_BIND: `127.0.0.1:${httpPort}`,
          ATRIUM_1: `127.0.0.1:${portA}`,
          ATRIUM_2: `127.0.0.1:${portB}`,
          ATRIUM_MQTT_BIND: `127.0.0.1:${mqttPort}`,
          ATRIUM_AMQP_BIND: `127.0.0.1:${amqpPort}`,
          ...Object.fromEntries(
            nodes.flatMap((n, i) => [
              [`RABBIT_${i + 1}_MQTT`, `127.0.0.1:${n.mqttPort}`],
              [`RABBIT_${i + 1}_AMQP`, `127.0.0.1:${n.amqpPort}`],
            ]),
          ),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    children.push(haproxy);
    // Its notices (servers going down and up) only when it fails.
    let haproxyOutput = '';
    haproxy.stderr?.on('data', (d) => (haproxyOutput += String(d)));
    haproxy.once('exit', (code) => code && console.error(`haproxy exited (${code}):\n${haproxyOutput}`));

    // Atrium reads over AMQP through the proxy (a lost node: it connects again, to a live one).
    const amqpUser = new URL(nodes[0]!.amqpUrl);
    // One DATA_DIR for both, as deploy/ has it (uploaded files are seen by every instance).
    const dataDir = tempDir();
    dirs.push(dataDir);
    const start = (name: string, port: number): Instance => {
      const child = startProcess(path.join(ROOT, 'apps/server/src/main.ts'), {
        DATABASE_URL: url,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        INSTANCE_NAME: name,
        AMQP_URL: `amqp://${amqpUser.username}:${amqpUser.password}@127.0.0.1:${amqpPort}?heartbeat=10`,
        MQTT_URL: `mqtt://127.0.0.1:${mqttPort}`,
        MQTT_DYNSEC: undefined,
        TRUST_PROXY: '127.0.0.1',
        JWT_SECRET: SECRET,
        SIP_ENABLED: 'false',
        SIP_EDGE: 'kamailio',
        SIP_EDGE_FROM: 'loopback',
        ADMIN_LOGIN: 'admin',
        ADMIN_PASSWORD: JSON.parse(LOGIN_BODY).password,
        LOG_LEVEL: 'error',
      });
      children.push(child);
      return { name, port, child };
    };
    t = performance.now();
    const a = start('atrium1', portA);
    const b = start('atrium2', portB);
    for (const i of [a, b])
      if (!(await until(() => serverUp(socket, 'atrium', i.name).catch(() => false), 240_000, 500)))
        throw new Error(`${i.name} did not start`);
    console.log(`2 Atrium instances up behind HAProxy in ${secs(performance.now() - t)}`);

    db = new pg.Client({ connectionString: url });
    await db.connect();
    const client = db;
    await seedDevices(client, DEVICES);
    const consumers = async () =>
      (await nodes[0]!.ctl('list_consumers', '-q', 'queue_name')).split('\n').filter((l) => l.trim() === 'atrium.devices').length;
    if (!(await until(async () => (await consumers()) === 2, 60_000, 500))) throw new Error('two consumers of atrium.devices');

    // 1. One instance against two, the same load through the proxy, nothing else running.
    const signIn = await fetch(`${base}/api/v0/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: LOGIN_BODY,
    });
    const token = ((await signIn.json()) as { data: { sessions: { token: string }[] } }).data.sessions[0]!.token;
    const listLoad = () =>
      load('GET /devices through HAProxy', {
        url: `${base}/api/v0/devices`,
        headers: { authorization: `Bearer ${token}` },
        connections: 16,
        duration: 6,
      });
    // One and two in turn, three times: on a machine others load, a single pair measured minutes apart
    // compares the neighbours' load more than the instances.
    const rounds: { one: Figures; two: Figures }[] = [];
    for (let r = 0; r < 3; r++) {
      await haproxyCommand(socket, 'disable server atrium/atrium2');
      const one = await listLoad();
      await haproxyCommand(socket, 'enable server atrium/atrium2');
      if (!(await until(() => serverUp(socket, 'atrium', 'atrium2'), 10_000))) throw new Error('atrium2 back in HAProxy');
      rounds.push({ one, two: await listLoad() });
    }

    // 2. The fleet and the console clients, then the losses.
    fleet = ProcessFleet.spawn(Math.max(1, Math.min(2, Math.floor(os.cpus().length / 2))));
    // Bounded: a device whose connection stalls after CONNACK (its subscription unanswered on a
    // machine loaded far beyond its cores) would hold the fleet's start for ever.
    const started = await Promise.race([
      fleet.start({
        url: `mqtt://127.0.0.1:${mqttPort}`,
        serials: Array.from({ length: DEVICES }, (_, i) => serialOf(i + 1)),
        password: PASSWORD,
        concurrency: 50,
        attempts: 5,
      }),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the devices did not all come online within 3 minutes')), 180_000),
      ),
    ]);
    console.log(`${started.connected} of ${DEVICES} devices connected through HAProxy's MQTT port (${started.refused.length} refused)`);
    sipLoad = await startSipLoad(
      url,
      [a, b].map((i) => `http://127.0.0.1:${i.port}`),
      base,
      token,
    );
    await sipLoad.start();
    console.log(`SIP calls through Kamailio: ${SIP_RATE}/s, each up ${secs(SIP_TALK_MS)}`);

    const calls: Calls = { ok: 0, failed: [] };
    let consolesStop = false;
    const consoles = Array.from({ length: CONSOLES }, () => consoleClient(base, calls, () => consolesStop));
    // The table's event count every 250 ms: how fast the flow came back after each loss.
    const stored: { at: number; n: number }[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        // The connection closed under it (an interrupted run's clean-up): sampling is over.
        const n = await client.query('SELECT count(*)::int AS n FROM device_events').then(
          (r) => r.rows[0].n as number,
          () => null,
        );
        if (n === null) return;
        stored.push({ at: performance.now(), n });
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const total = RATE * SECONDS;
    console.log(`offering ${total} events at ${RATE}/s for ${SECONDS} s; ${CONSOLES} console clients reading through HAProxy…`);
    const t0 = performance.now();
    const flow = fleet.events(total, RATE, WINDOW, true);
    await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 3));
    const instanceKilledAt = performance.now();
    a.child.kill('SIGKILL');
    console.log(`  ${secs(instanceKilledAt - t0)}: killed ${a.name} (-9)`);
    await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 3));
    const leader = (await nodes[1]!.ctl('list_queues', '-q', 'name', 'leader'))
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .find(([q]) => q === 'atrium.devices')?.[1];
    const victim = nodes.find((n) => n.name === leader) ?? nodes[0]!;
    const nodeKilledAt = performance.now();
    await victim.kill();
    console.log(
      `  ${secs(nodeKilledAt - t0)}: killed RabbitMQ node ${victim.name}${victim.name === leader ? " (the devices' queue leader)" : ''}`,
    );
    const { sent, acked: acknowledged } = await flow;
    // A device whose connection stalls (no PUBACK, no close) would hold its events' count for ever:
    // after two minutes the devices are closed, which fails what they still wait for.
    let stalled = false;
    const acked = await Promise.race([acknowledged, new Promise<null>((r) => setTimeout(() => r(null), 120_000))]).then(async (a) => {
      if (a) return a;
      stalled = true;
      console.log('  acknowledgements still outstanding 2 minutes after the last event: closing the devices');
      await fleet?.stop();
      return acknowledged;
    });
    consolesStop = true;
    await Promise.all(consoles);
    const sip = await sipLoad.stop();

    // Every acknowledged event must be in the table: wait for the stragglers (redelivered ones).
    const ackedIds = new Set(acked.ids);
    const missing = async () => {
      const { rows } = await client.query<{ event_id: string }>('SELECT DISTINCT event_id FROM device_events');
      const have = new Set(rows.map((r) => r.event_id));
      return [...ackedIds].filter((id) => !have.has(id)).length;
    };
    await until(async () => (await missing()) === 0, 60_000, 1000);
    await new Promise((r) => setTimeout(r, 2000));
    sampling = false;
    await sampler;
    const lost = await missing();
    const { rows: dup } = await client.query<{ rows: number; distinct: number }>(
      'SELECT count(*)::int AS rows, count(DISTINCT (device_id, event_id))::int AS distinct FROM device_events',
    );
    const twice = dup[0]!.rows - dup[0]!.distinct;

    // Recovery: the API, until the last failed call after a loss; the events, until the table grew at
    // half the offered rate again over a second.
    const lastFailure = (from: number, to: number) => {
      const f = calls.failed.filter((c) => c.at >= from && c.at < to).at(-1);
      return f ? f.at - from : 0;
    };
    const flowBack = (from: number) => {
      // The first second-long window begun after the loss in which half the offered rate was stored:
      // when it began (0 when the flow never fell below that).
      for (const [i, w] of stored.entries()) {
        if (w.at < from) continue;
        const after = stored.slice(i).find((p) => p.at >= w.at + 1000);
        if (after && after.n - w.n >= ((after.at - w.at) / 1000) * (RATE / 2)) return w.at - from;
      }
      return Number.NaN;
    };
    const end = performance.now();
    const pad = (s: string | number, n: number) => String(s).padEnd(n);
    const failedDuring = (from: number, to: number) => calls.failed.filter((c) => c.at >= from && c.at < to).length;
    const kinds = [...new Set(calls.failed.map((f) => f.what))].slice(0, 5);

    console.log(
      `\nthroughput, GET /devices through HAProxy (16 connections, 6 s each, in turn; machine load ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cores):`,
    );
    for (const [i, { one, two }] of rounds.entries())
      console.log(
        `  round ${i + 1}: one instance ${pad(`${one.rps} req/s`, 12)} (p99 ${one.p99} ms, errors ${one.errors}), two ${pad(`${two.rps} req/s`, 12)} (p99 ${two.p99} ms, errors ${two.errors}), two / one ${(two.rps / one.rps).toFixed(2)}`,
      );
    const sum = (k: 'one' | 'two') => rounds.reduce((n, r) => n + r[k].rps, 0);
    console.log(`  all rounds: two / one ${(sum('two') / sum('one')).toFixed(2)}`);
    console.log(`\nunder load (${secs(end - t0)}): ${DEVICES} devices at ${RATE} events/s, ${CONSOLES} console clients`);
    console.log(`${pad('figure', 48)}${pad('value', 14)}target`);
    const row = (name: string, value: string | number, target: string) => console.log(`${pad(name, 48)}${pad(value, 14)}${target}`);
    row('console calls', calls.ok + calls.failed.length, '');
    row('  failed', calls.failed.length, 'as few as a loss costs');
    row(`  failed after the instance's kill`, failedDuring(instanceKilledAt, nodeKilledAt), '');
    row(`  failed after the node's kill`, failedDuring(nodeKilledAt, end), '');
    row('events offered / sent', `${total} / ${sent.sent}`, `(${sent.kept} kept on devices, window full)`);
    row(
      'events acknowledged to devices',
      acked.acked,
      `(${acked.failed} not: connection lost first${acked.failures ? `, "${acked.failures}"` : ''})`,
    );
    if (stalled) row('devices stalled (closed to settle their count)', 'yes', 'no');
    row('acknowledged and not stored', lost, `0: ${lost === 0 ? 'met' : 'NOT met'}`);
    row('stored twice', twice, `0: ${twice === 0 ? 'met' : 'NOT met'}`);
    row('API back after the instance kill', secs(lastFailure(instanceKilledAt, nodeKilledAt)), 'last failed call');
    row('API back after the node kill', secs(lastFailure(nodeKilledAt, end)), 'last failed call');
    row('events back after the instance kill', secs(flowBack(instanceKilledAt)), `first second storing ≥ ${RATE / 2}/s began`);
    row('events back after the node kill', secs(flowBack(nodeKilledAt)), `first second storing ≥ ${RATE / 2}/s began`);
    row('SIP calls placed / answered', `${sip.placed} / ${sip.answered}`, `through Kamailio, ${secs(SIP_TALK_MS)} each`);
    row('  failed before an answer', sip.failed, 'as few as a loss costs');
    row('  dropped while up', sip.dropped, `0: ${sip.dropped === 0 ? 'met' : 'NOT met'}`);
    for (const line of sip.why) console.log(`    ${line}`);
    if (kinds.length) console.log(`failed calls were: ${kinds.join('; ')}`);
    if (lost > 0 || twice > 0 || sip.dropped > 0) process.exitCode = 1;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cleanup();
  }
}
