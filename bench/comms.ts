// `npm run bench -- comms`: communications under load, the server on PostgreSQL.
//   1. BENCH_COMMS_SOCKETS (5,000) residents signed in, each with the console's realtime socket open
//      on their own topic; the management writes to every one of them (a new conversation each, at
//      BENCH_COMMS_RATE, 200/s): the delivery time from the request's start to the resident's socket
//      receiving the message (p50, p95, p99), against the same sockets' own ping round trip measured
//      right before (the baseline: what the socket layer alone costs on this machine now).
//   2. An announce to BENCH_COMMS_RECIPIENTS (100,000) residents, sent by e-mail: started through the
//      API, queued in the outbox and handed to a local SMTP peer (smtp-server in this process) with
//      ANNOUNCE_MAILS_PER_SECOND = BENCH_COMMS_MAIL_RATE (2,000): messages per second from the start
//      to the last message received, no loss and no duplicate (each recipient counted), against the
//      same peer receiving messages straight from nodemailer's pool in this process (the baseline).
//      The bench waits until every recipient's mail arrived, or nothing arrived for 60 s, or
//      BENCH_COMMS_MAIL_TIMEOUT seconds (1,800) passed.
// Env: BENCH_COMMS_SOCKETS, BENCH_COMMS_RATE, BENCH_COMMS_RECIPIENTS, BENCH_COMMS_MAIL_RATE,
//      BENCH_COMMS_MAIL_TIMEOUT, BENCH_PG.

import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import WebSocket from 'ws';
import { quantile, type Servers, secs, startServers, until } from './lib.js';
import { seedUsers } from './seed.js';

const SOCKETS = Number(process.env.BENCH_COMMS_SOCKETS ?? 5_000);
const RATE = Number(process.env.BENCH_COMMS_RATE ?? 200);
const RECIPIENTS = Number(process.env.BENCH_COMMS_RECIPIENTS ?? 100_000);
/** What Atrium may hand to the mail server per second in this run (ANNOUNCE_MAILS_PER_SECOND). */
const MAIL_RATE = Number(process.env.BENCH_COMMS_MAIL_RATE ?? 2_000);
/** The longest the announce run may take before the bench stops waiting for the last mails (seconds). */
const MAIL_TIMEOUT_S = Number(process.env.BENCH_COMMS_MAIL_TIMEOUT ?? 1_800);
const PASSWORD = 'bench-password'; // the administrator's (bench/lib.ts); the residents get its hash

export interface Row {
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
}

export function printRows(rows: Row[]): void {
  const w = [44, 22, 40, 10];
  console.log(`\n${'figure'.padEnd(w[0]!)}${'value'.padEnd(w[1]!)}${'baseline (same run)'.padEnd(w[2]!)}${'ratio'.padEnd(w[3]!)}target`);
  for (const r of rows) {
    console.log(`${r.figure.padEnd(w[0]!)}${r.value.padEnd(w[1]!)}${r.baseline.padEnd(w[2]!)}${r.ratio.padEnd(w[3]!)}${r.target}`);
  }
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Runs `job` over `items` with at most `n` at once. */
async function pool<T>(items: T[], n: number, job: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await job(items[i] as T, i);
      }
    }),
  );
}

interface Resident {
  id: number;
  login: string;
  token: string;
  socket: WebSocket;
  /** Resolvers waiting for a message on this socket, by what they wait for. */
  waiting: Map<string, (at: number) => void>;
}

async function signIn(base: string, login: string): Promise<string> {
  const res = await fetch(`${base}/api/v0/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login, password: PASSWORD }),
  });
  if (!res.ok) throw new Error(`sign-in of ${login}: HTTP ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { data: { sessions: { token: string }[] } };
  const token = body.data.sessions[0]?.token;
  if (!token) throw new Error(`sign-in of ${login}: no session`);
  return token;
}

/** Opens a resident's realtime socket and subscribes their own topic; resolves once subscribed. */
async function openSocket(base: string, r: Omit<Resident, 'socket' | 'waiting'>): Promise<Resident> {
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v0/ws?access_token=${r.token}`);
  const waiting = new Map<string, (at: number) => void>();
  const topic = `private-user.${r.id}`;
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`socket of ${r.login}: HTTP ${res.statusCode}`)));
    socket.on('message', (raw) => {
      const at = performance.now();
      const m = JSON.parse(raw.toString()) as { topic: string; event: string; data: { message?: { message?: string } } | null };
      if (m.event === 'subscribed' && m.topic === topic) return resolve();
      const key = m.event === 'pong' ? 'pong' : m.event === 'conversation-message' ? `msg:${m.data?.message?.message ?? ''}` : '';
      const w = waiting.get(key);
      if (w) {
        waiting.delete(key);
        w(at);
      }
    });
    socket.once('open', () => socket.send(JSON.stringify({ command: 'subscribe', topic })));
  });
  return { ...r, socket, waiting };
}

const expect = (r: Resident, key: string, timeoutMs = 60_000) =>
  new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => {
      r.waiting.delete(key);
      reject(new Error(`no ${key} on ${r.login}'s socket`));
    }, timeoutMs);
    r.waiting.set(key, (at) => {
      clearTimeout(t);
      resolve(at);
    });
  });

async function conversations(servers: Servers, db: pg.Client, rows: Row[]): Promise<void> {
  console.log(`seeding ${SOCKETS} residents…`);
  await seedUsers(servers.url, { projectId: 1, rootGroupId: 1, roleId: 1, groupCount: 111, userCount: SOCKETS });
  // One argon2id hash for all: every resident signs in with the administrator's password.
  await db.query(`UPDATE users SET password_hash = (SELECT password_hash FROM users WHERE login = 'admin') WHERE login LIKE 'user%'`);
  const { rows: seeded } = await db.query<{ id: number; login: string }>(
    `SELECT id, login FROM users WHERE login LIKE 'user%' ORDER BY id LIMIT $1`,
    [SOCKETS],
  );

  const t0 = performance.now();
  const signedIn: Omit<Resident, 'socket' | 'waiting'>[] = new Array(seeded.length);
  await pool(seeded, 8, async (u, i) => {
    signedIn[i] = { id: Number(u.id), login: u.login, token: await signIn(servers.base, u.login) };
  });
  console.log(`${seeded.length} residents signed in in ${secs(performance.now() - t0)}`);

  const t1 = performance.now();
  const residents: Resident[] = new Array(signedIn.length);
  await pool(signedIn, 50, async (r, i) => {
    residents[i] = await openSocket(servers.base, r);
  });
  console.log(`${residents.length} sockets open and subscribed in ${secs(performance.now() - t1)}`);

  // Baseline: each socket's ping round trip, paced like the messages below.
  const pings: number[] = [];
  await paced(residents, RATE, async (r) => {
    const sent = performance.now();
    const got = expect(r, 'pong', 30_000);
    r.socket.send(JSON.stringify({ command: 'ping' }));
    pings.push((await got) - sent);
  });
  pings.sort((a, b) => a - b);

  const admin = await servers.auth();
  const deliveries: number[] = [];
  const requests: number[] = [];
  let failed = 0;
  let firstError = '';
  const statuses = new Map<string, number>();
  const t2 = performance.now();
  await paced(residents, RATE, async (r, i) => {
    const text = `Water will be off on floor ${i % 10} tomorrow from 10:00 (notice ${i})`;
    const got = expect(r, `msg:${text}`);
    const sent = performance.now();
    try {
      const res = await fetch(`${servers.base}/api/v0/conversations`, {
        method: 'PUT',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'Water supply', interlocutor: { id: r.id }, message: text }),
      });
      requests.push(performance.now() - sent);
      if (!res.ok) {
        statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1);
        throw new Error(`HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      }
      deliveries.push((await got) - sent);
    } catch (e) {
      failed++;
      firstError ||= (e as Error).message;
      got.catch(() => undefined);
    }
  });
  const took = performance.now() - t2;
  deliveries.sort((a, b) => a - b);
  requests.sort((a, b) => a - b);
  for (const r of residents) r.socket.close();
  console.log(
    `${deliveries.length} messages delivered of ${residents.length} written in ${secs(took)} (${Math.round(residents.length / (took / 1000))}/s)${failed ? `, ${failed} failed (${firstError})` : ''}`,
  );
  rows.push({
    figure: `conversation sockets open at once`,
    value: `${residents.length}`,
    baseline: '',
    ratio: '',
    target: `${SOCKETS}: ${residents.length === SOCKETS ? 'met' : 'NOT met'}`,
  });
  for (const [q, name] of [
    [0.5, 'p50'],
    [0.95, 'p95'],
    [0.99, 'p99'],
  ] as const) {
    rows.push({
      figure: `message delivery to the socket, ${name}`,
      value: ms(quantile(deliveries, q)),
      baseline: `socket ping ${name} ${ms(quantile(pings, q))}`,
      ratio: `${(quantile(deliveries, q) / quantile(pings, q)).toFixed(1)}×`,
      target: name === 'p95' ? `request alone ${ms(quantile(requests, q))}` : '',
    });
  }
  rows.push({
    figure: 'conversation starts answered with an error',
    value: `${failed}`,
    baseline: [...statuses].map(([st, n]) => `${n}× HTTP ${st}`).join(', '),
    ratio: (failed / residents.length).toFixed(4),
    target: `none: ${failed === 0 ? 'met' : 'NOT met'}`,
  });
  rows.push({
    figure: 'messages delivered / written',
    value: `${deliveries.length} / ${residents.length}`,
    baseline: '',
    ratio: (deliveries.length / residents.length).toFixed(4),
    target: `no loss: ${deliveries.length === residents.length ? 'met' : 'NOT met'}`,
  });
}

interface Peer {
  port: number;
  /** Messages received per recipient address. */
  received: Map<string, number>;
  total: () => number;
  lastAt: () => number;
  close(): Promise<void>;
}

/** The receiving mail server: accepts every message, counts it per recipient. */
async function smtpPeer(): Promise<Peer> {
  const received = new Map<string, number>();
  let total = 0;
  let lastAt = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    maxClients: 100,
    onData(stream, session, done) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        for (const r of session.envelope.rcptTo) received.set(r.address, (received.get(r.address) ?? 0) + 1);
        total++;
        lastAt = performance.now();
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    total: () => total,
    lastAt: () => lastAt,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The baseline: `n` messages straight from nodemailer's pool (5 connections) to the peer. */
async function directRate(port: number, n: number): Promise<number> {
  const transport = nodemailer.createTransport({ pool: true, maxConnections: 5, maxMessages: 100, host: '127.0.0.1', port, secure: false });
  const t0 = performance.now();
  await pool(
    Array.from({ length: n }, (_, i) => i),
    5,
    async (i) => {
      await transport.sendMail({
        from: 'bench@example.org',
        to: `baseline${i}@example.org`,
        subject: 'Baseline',
        text: 'Water will be off tomorrow.',
      });
    },
  );
  transport.close();
  return n / ((performance.now() - t0) / 1000);
}

async function announces(servers: Servers, peer: Peer, db: pg.Client, rows: Row[]): Promise<void> {
  console.log(`\nseeding ${RECIPIENTS} residents with e-mail addresses…`);
  // Their own group under the root, so the announce reaches exactly them.
  const { rows: g } = await db.query<{ id: number }>(
    `INSERT INTO groups (project_id, parent_id, path, name) VALUES (1, 1, ARRAY[1], 'Announce bench') RETURNING id`,
  );
  const group = Number(g[0]?.id);
  await db.query(`UPDATE groups SET path = path || id WHERE id = $1`, [group]);
  await db.query(
    `WITH u AS (INSERT INTO users (project_id, login, name, email, role_id, password_hash, created_at)
       SELECT 1, 'resident' || i, 'Resident ' || i, 'resident' || i || '@example.org', 1, NULL, now() FROM generate_series(1, $1) i RETURNING id)
     INSERT INTO user_groups (user_id, group_id) SELECT id, $2 FROM u`,
    [RECIPIENTS, group],
  );
  await db.query('VACUUM ANALYZE');

  const baselineN = Math.min(RECIPIENTS, 5_000);
  const direct = await directRate(peer.port, baselineN);
  console.log(`baseline: ${baselineN} messages straight to the peer at ${Math.round(direct)}/s`);
  const before = peer.total();

  const admin = { ...(await servers.auth()), 'content-type': 'application/json' };
  const created = await fetch(`${servers.base}/api/v0/announcements`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify({
      name: 'Water supply',
      subject: 'Water will be off tomorrow',
      body: '<p>From 10:00 to 14:00.</p>',
      domains: [group],
    }),
  });
  if (!created.ok) throw new Error(`announce: HTTP ${created.status} ${await created.text()}`);
  const id = ((await created.json()) as { data: { id: number } }).data.id;
  const t0 = performance.now();
  const started = await fetch(`${servers.base}/api/v0/announcements/${id}/start`, { method: 'POST', headers: admin });
  if (!started.ok) throw new Error(`start: HTTP ${started.status} ${await started.text()}`);
  console.log(`announce ${id} started: ${RECIPIENTS} recipients at up to ${MAIL_RATE}/s…`);
  let last = -1;
  let still = Date.now();
  const capAt = Date.now() + MAIL_TIMEOUT_S * 1000;
  let lastReport = Date.now();
  await until(
    () => {
      const n = peer.total() - before;
      if (n !== last) {
        last = n;
        still = Date.now();
      }
      if (Date.now() - lastReport >= 30_000) {
        lastReport = Date.now();
        console.log(`  ${n} received after ${secs(performance.now() - t0)}…`);
      }
      return n >= RECIPIENTS || Date.now() - still > 60_000 || Date.now() > capAt;
    },
    MAIL_TIMEOUT_S * 1000 + 5_000,
    500,
  ).catch(() => undefined);
  if (peer.total() - before < RECIPIENTS)
    console.log(Date.now() > capAt ? `time cap of ${MAIL_TIMEOUT_S} s reached` : 'nothing received for 60 s: the rest is taken as lost');
  const took = peer.lastAt() - t0;
  const residents = [...peer.received].filter(([to]) => to.startsWith('resident'));
  const reached = residents.length;
  const duplicates = residents.reduce((n, [, c]) => n + Math.max(0, c - 1), 0);
  const rate = (peer.total() - before) / (took / 1000);
  console.log(
    `${peer.total() - before} messages received in ${secs(took)} (${Math.round(rate)}/s); ${reached} recipients reached, ${duplicates} duplicates`,
  );
  rows.push({
    figure: `announce mails received / recipients`,
    value: `${reached} / ${RECIPIENTS}`,
    baseline: '',
    ratio: (reached / RECIPIENTS).toFixed(4),
    target: `no loss: ${reached === RECIPIENTS ? 'met' : 'NOT met'}; no duplicate: ${duplicates === 0 ? 'met' : `NOT met (${duplicates})`}`,
  });
  rows.push({
    figure: `announce mails per second (start → last)`,
    value: `${Math.round(rate)}/s`,
    baseline: `${Math.round(direct)}/s nodemailer pool → peer`,
    ratio: (rate / direct).toFixed(3),
    target: `limit ANNOUNCE_MAILS_PER_SECOND=${MAIL_RATE}`,
  });
}

/** Starts `job` for each item at `rate` per second, and waits for all of them. */
async function paced<T>(items: T[], rate: number, job: (item: T, i: number) => Promise<void>): Promise<void> {
  const running: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < items.length; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    running.push(job(items[i] as T, i));
  }
  await Promise.all(running);
}

export async function run(): Promise<void> {
  const peer = await smtpPeer();
  process.env.SMTP_URL = `smtp://127.0.0.1:${peer.port}`;
  process.env.SMTP_FROM = 'Atrium <atrium@example.org>';
  process.env.ANNOUNCE_MAILS_PER_SECOND = String(MAIL_RATE);
  const servers = await startServers('atrium_bench_comms');
  const db = new pg.Client({ connectionString: servers.url });
  await db.connect();
  const rows: Row[] = [];
  try {
    if (SOCKETS > 0) await conversations(servers, db, rows);
    if (RECIPIENTS > 0) await announces(servers, peer, db, rows);
    printRows(rows);
  } finally {
    await db.end();
    servers.stop();
    await peer.close();
    await until(() => true, 0);
  }
}
