// The SIP tab saved on one instance applies on the others: two Atrium instances on one database
// (PostgreSQL with TEST_DATABASE_URL; on PGlite both share the one embedded database, as two
// processes cannot), each running its SIP server — A on 127.0.0.1, B on 127.0.0.2, so both can hold
// the same ports — and, where rtpengine is installed, its own rtpengine. What is saved through A
// reaches B through the change feed; A's own echo of the save applies nothing a second time.
import dgram from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { type AppInstance, buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { type Database, openDatabase, queryRows } from '../../core/db/client.js';
import { udpPortFree } from '../../core/ports.js';
import { RTPENGINE_BIN, rtpengineInstalled } from '../../sip/media-relay.testing.js';
import { parseMessage, SipHeaders, serializeMessage } from '../../sip/message.js';
import { type SipRuntime, startSip } from './sip-runtime.js';

const withRelay = rtpengineInstalled();
if (!withRelay)
  console.warn('SIP tab across instances: the RTP range part is skipped; it needs /usr/bin/rtpengine (Debian rtpengine-daemon)');

const A_HOST = '127.0.0.1';
const B_HOST = '127.0.0.2';

let a: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let b: AppInstance;
let bDatabase: Database | null = null;
let sipA: SipRuntime;
let sipB: SipRuntime;

const sipConfig = (app: AppInstance, host: string) => ({
  ...app.config,
  sip: {
    enabled: true,
    host,
    publicHost: host,
    port: 0,
    wsPort: 0,
    tls: null,
    ...(withRelay ? { rtpengineBin: RTPENGINE_BIN } : {}),
  },
});

beforeAll(async () => {
  a = await buildTestApp();
  admin = await adminClient(a);
  if (process.env.TEST_DATABASE_URL) {
    // B has its own connections to the same database, as another process would.
    const [own] = await queryRows<{ db: string }>(a.database.db, sql`SELECT current_database() AS db`);
    const url = new URL(process.env.TEST_DATABASE_URL);
    url.pathname = `/${own?.db}`;
    bDatabase = await openDatabase({ databaseUrl: url.toString(), poolSize: 3 });
  }
  b = await buildApp({
    config: loadConfig({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-sip-b-')),
      LOG_LEVEL: 'silent',
      PORT: '0',
      JWT_SECRET: 'test-secret-test-secret-test-secret-42',
    }),
    database: bDatabase ?? a.database,
    serveWeb: false,
  });
  await b.ready();
  sipA = await startSip(a.app, sipConfig(a.app, A_HOST));
  sipB = await startSip(b, sipConfig(b, B_HOST));
});

afterAll(async () => {
  await sipB?.close();
  await b?.close();
  await bDatabase?.close();
  await sipA?.close();
  await a?.close();
});

/** A UDP and TCP port free on both instances' addresses. */
async function portFreeOnBoth(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    let free = true;
    for (const host of [A_HOST, B_HOST]) {
      if (!(await udpPortFree(port, host))) free = false;
      const tcp = await new Promise<boolean>((resolve) => {
        const s = net.createServer();
        s.once('error', () => resolve(false));
        s.listen(port, host, () => s.close(() => resolve(true)));
      });
      if (!tcp) free = false;
    }
    if (free) return port;
  }
}

/**
 * The status of an OPTIONS sent over UDP to host:port, or null when nothing answers within `waitMs`.
 * Sent again at 0.5, 1.5, 3.5 s as a SIP client does over UDP (RFC 3261 timer E): on a loaded machine
 * the SIP worker of an instance that has just moved may answer its first datagram late.
 */
async function options(host: string, port: number, waitMs = 4000): Promise<number | null> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, A_HOST, () => resolve()));
  const headers = new SipHeaders();
  headers.add('Via', `SIP/2.0/UDP ${A_HOST}:${socket.address().port};branch=z9hG4bK-${Math.random().toString(36).slice(2)};rport`);
  headers.add('From', '<sip:probe@atrium.test>;tag=probe');
  headers.add('To', `<sip:${host}>`);
  headers.add('Call-ID', `probe-${Math.random().toString(36).slice(2)}`);
  headers.add('CSeq', '1 OPTIONS');
  headers.add('Max-Forwards', '70');
  const request = serializeMessage({ kind: 'request', method: 'OPTIONS', uri: `sip:${host}:${port}`, headers, body: Buffer.alloc(0) });
  const timers: NodeJS.Timeout[] = [];
  try {
    return await new Promise<number | null>((resolve) => {
      timers.push(setTimeout(() => resolve(null), waitMs));
      socket.on('message', (data) => {
        const msg = parseMessage(data);
        if (msg?.kind === 'response') resolve(msg.status);
      });
      // An ICMP "port unreachable" for a datagram shows as an error on the socket: nothing answers there yet.
      socket.on('error', () => undefined);
      for (let at = 0, gap = 500; at < waitMs; at += gap, gap *= 2) {
        timers.push(setTimeout(() => socket.send(request, port, host), at));
      }
    });
  } finally {
    for (const t of timers) clearTimeout(t);
    socket.close();
  }
}

const settled = () => new Promise((r) => setTimeout(r, 1000));

describe('the SIP tab saved on one instance', () => {
  it('moves the other instance to the new ports, and its rtpengine to the new RTP range, with one restart', async () => {
    const port = await portFreeOnBoth();
    let wsPort = await portFreeOnBoth();
    while (wsPort === port) wsPort = await portFreeOnBoth();
    const min = 42000 + 200 * Math.floor(Math.random() * 40);
    const before = { a: { ...sipA.stats }, b: { ...sipB.stats } };
    const oldB = sipB.server.ports.udp;

    const res = await admin.patch('/settings/sip', { port, ws_port: wsPort, ...(withRelay ? { rtp: { min, max: min + 99 } } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    // A applied it before answering.
    expect(sipA.server.ports).toMatchObject({ udp: port, tcp: port, ws: wsPort });
    expect(await options(A_HOST, port)).toBe(200);

    await expect.poll(() => sipB.server.ports.udp, { timeout: 5000 }).toBe(port);
    expect(sipB.server.ports).toMatchObject({ udp: port, tcp: port, ws: wsPort });
    expect(await options(B_HOST, port)).toBe(200);
    expect(await options(B_HOST, oldB, 1500)).toBeNull();
    expect(b.sipWs).toMatchObject({ udp: port, port: wsPort });
    if (withRelay) {
      expect(sipA.mediaRelay?.ports).toEqual({ min, max: min + 99 });
      await expect.poll(() => sipB.mediaRelay?.ports, { timeout: 5000 }).toEqual({ min, max: min + 99 });
    }

    // A's echo of its own save (the change feed reaches it too) finds nothing left to do.
    await settled();
    expect(sipB.stats.restarts - before.b.restarts).toBe(1);
    expect(sipB.stats.relayStarts - before.b.relayStarts).toBe(withRelay ? 1 : 0);
    // A: the ports before the save (to refuse a taken one), the relay after it.
    expect(sipA.stats.restarts - before.a.restarts).toBe(withRelay ? 2 : 1);
    expect(sipA.stats.relayStarts - before.a.relayStarts).toBe(withRelay ? 1 : 0);
  });

  it('applies addresses and early media on the other instance without a restart, and ignores what the SIP server does not use', async () => {
    const before = { a: { ...sipA.stats }, b: { ...sipB.stats } };
    // The codecs and the phonebook reach devices, not the SIP server: nothing to apply.
    expect(
      (await admin.patch('/settings/sip', { codecs: ['PCMA'], resident_phonebook_settings: { is_enabled: true, show_all_groups: false } }))
        .statusCode,
    ).toBe(200);
    expect((await admin.patch('/settings/sip', { local_networks: ['10.20.0.0/16'], is_early_media_enabled: true })).statusCode).toBe(200);
    expect(sipA.server.network).toMatchObject({ localNetworks: ['10.20.0.0/16'], earlyMedia: true });
    await expect.poll(() => sipB.server.network, { timeout: 5000 }).toMatchObject({ localNetworks: ['10.20.0.0/16'], earlyMedia: true });
    await settled();
    for (const [now, then] of [
      [sipA.stats, before.a],
      [sipB.stats, before.b],
    ] as const) {
      expect(now.applied - then.applied).toBe(1);
      expect(now.restarts).toBe(then.restarts);
      expect(now.relayStarts).toBe(then.relayStarts);
    }
  });

  it('keeps the other instance serving on its ports when it cannot bind the new one', async () => {
    const port = await portFreeOnBoth();
    // Something else holds the port on B's address only.
    const squatter = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => squatter.bind(port, B_HOST, () => resolve()));
    try {
      const current = sipB.server.ports.udp;
      const restarts = sipB.stats.restarts;
      expect((await admin.patch('/settings/sip', { port })).statusCode).toBe(200);
      expect(sipA.server.ports.udp).toBe(port);
      await settled();
      expect(sipB.server.ports.udp).toBe(current);
      expect(sipB.stats.restarts).toBe(restarts);
      expect(await options(B_HOST, current)).toBe(200);
    } finally {
      squatter.close();
    }
  });

  it.runIf(withRelay)('converges on the last saved RTP range when two instances save at once', async () => {
    const first = 44000 + 200 * Math.floor(Math.random() * 20);
    const adminB = await adminClientOf(b);
    const [viaA, viaB] = await Promise.all([
      admin.patch('/settings/sip', { rtp: { min: first, max: first + 99 } }),
      adminB.patch('/settings/sip', { rtp: { min: first + 1000, max: first + 1099 } }),
    ]);
    expect(viaA.statusCode, viaA.body).toBe(200);
    expect(viaB.statusCode, viaB.body).toBe(200);
    const stored = (await admin.get('/settings/sip')).json().data.rtp as { min: number; max: number };
    expect([first, first + 1000]).toContain(stored.min);
    await expect.poll(() => sipA.mediaRelay?.ports, { timeout: 8000 }).toEqual(stored);
    await expect.poll(() => sipB.mediaRelay?.ports, { timeout: 8000 }).toEqual(stored);
    // Both still relay calls' SIP: each answers on its ports (a single UDP OPTIONS may go unanswered
    // while a relay restart of the other save is still finishing, so it is asked again).
    await expect.poll(() => options(A_HOST, sipA.server.ports.udp), { timeout: 8000 }).toBe(200);
    await expect.poll(() => options(B_HOST, sipB.server.ports.udp), { timeout: 8000 }).toBe(200);
  });
});

/** The test project's administrator signed in through instance B. */
async function adminClientOf(app: AppInstance) {
  return adminClient({ ...a, app });
}
