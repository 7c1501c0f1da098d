// `npm run bench -- devices-outage`: the database away for BENCH_OUTAGE_SECONDS (300) while a fleet
// of BENCH_OUTAGE_DEVICES (2,000) simulated devices offers BENCH_EVENT_RATE (20,000) events a second
// to Atrium's embedded broker. The server reaches PostgreSQL through a TCP proxy of this bench, which
// drops every connection and refuses new ones for the outage. Each device holds at most
// BENCH_OUTAGE_WINDOW (100) events unacknowledged, as a panel does (the rest stays on the device).
// Printed: the server's peak RSS (target: under 600 MiB, against its RSS before the events), and
// every acknowledged event stored once the database is back (0 lost, by the devices' own count of
// PUBACKs against the rows; 0 stored twice, by event id).
import net from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { PASSWORD, rssKb, seedDevices, serialOf } from './devices.js';
import { ProcessFleet } from './devices-fleet.js';
import { benchDatabaseName, dropDatabase, freePort, PG_ADMIN, portOpen, secs, startServers, until } from './lib.js';

const DEVICES = Number(process.env.BENCH_OUTAGE_DEVICES ?? 2000);
const RATE = Number(process.env.BENCH_EVENT_RATE ?? 20_000);
const OUTAGE_SECONDS = Number(process.env.BENCH_OUTAGE_SECONDS ?? 300);
const WINDOW = Number(process.env.BENCH_OUTAGE_WINDOW ?? 100);
/** Events flow this long before the outage and after it. */
const AROUND_SECONDS = 15;
const LIMIT_MIB = 600;
const FLEET_PROCESSES = Math.max(1, Number(process.env.BENCH_FLEET_PROCESSES ?? Math.floor(os.cpus().length / 2)));

const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;

/** A TCP proxy to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
async function cuttableProxy(target: {
  host: string;
  port: number;
}): Promise<{ port: number; cut(): void; restore(): void; close(): void }> {
  let away = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (away) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    port,
    cut: () => {
      away = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore: () => {
      away = false;
    },
    close: () => {
      for (const s of open) s.destroy();
      server.close();
    },
  };
}

export async function run(): Promise<void> {
  // A database of the run's own, dropped at its end (BENCH_DB names one that stays).
  const dbName = benchDatabaseName('atrium_bench_devices_outage');
  const pgAt = new URL(PG_ADMIN);
  const proxy = await cuttableProxy({ host: pgAt.hostname, port: Number(pgAt.port || 5432) });
  const servers = await startServers(dbName, {
    embeddedMqtt: true,
    serverDatabaseUrl: (url) => {
      const u = new URL(url);
      u.port = String(proxy.port);
      return u.toString();
    },
  });
  const db = new pg.Client({ connectionString: servers.url });
  await db.connect();
  let fleet: ProcessFleet | null = null;
  try {
    console.log(`seeding ${DEVICES} devices…`);
    await seedDevices(db, DEVICES);
    const port = Number(new URL(servers.mqttUrl as string).port);
    if (!(await until(() => portOpen(port), 30_000))) throw new Error('the embedded broker did not listen');
    fleet = ProcessFleet.spawn(FLEET_PROCESSES);
    const started = await fleet.start({
      url: servers.mqttUrl as string,
      serials: Array.from({ length: DEVICES }, (_, i) => serialOf(i + 1)),
      password: PASSWORD,
      concurrency: 200,
      attempts: 5,
    });
    console.log(`${started.connected} devices connected (${started.refused.length} refused)`);
    await new Promise((r) => setTimeout(r, 3000));
    const idleRss = rssKb(servers.pid);
    let peak = idleRss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKb(servers.pid) || 0);
    }, 250);
    const total = RATE * (OUTAGE_SECONDS + 2 * AROUND_SECONDS);
    console.log(
      `offering ${total} events at ${RATE}/s (window ${WINDOW} per device); the database goes away after ${AROUND_SECONDS} s for ${OUTAGE_SECONDS} s…`,
    );
    const t0 = performance.now();
    const flow = fleet.events(total, RATE, WINDOW);
    await new Promise((r) => setTimeout(r, AROUND_SECONDS * 1000));
    proxy.cut();
    const cutAt = performance.now();
    const progress = setInterval(() => {
      console.log(
        `  ${((performance.now() - cutAt) / 1000).toFixed(0)} s into the outage: server RSS ${mib(rssKb(servers.pid))}, peak ${mib(peak)}`,
      );
    }, 30_000);
    await new Promise((r) => setTimeout(r, OUTAGE_SECONDS * 1000));
    clearInterval(progress);
    proxy.restore();
    console.log(`database back after ${secs(performance.now() - cutAt)}`);
    const { sent, acked } = await flow;
    const a = await acked;
    clearInterval(sampler);
    peak = Math.max(peak, rssKb(servers.pid) || 0);
    // Every acknowledged event must be stored: the fleet's PUBACKs against the rows.
    const stored = async () => Number((await db.query('SELECT count(*) AS n FROM device_events')).rows[0].n);
    await until(async () => (await stored()) >= a.acked, 120_000, 500);
    const rows = await stored();
    const distinct = Number(
      (await db.query('SELECT count(*) AS n FROM (SELECT DISTINCT device_id, event_id FROM device_events) e')).rows[0].n,
    );
    const lost = Math.max(0, a.acked - rows);
    console.log(
      `offered ${total} in ${secs(performance.now() - t0)}: sent ${sent.sent}, kept on the devices (window full) ${sent.kept}; acknowledged ${a.acked}, failed ${a.failed}${a.failures ? ` (${a.failures})` : ''}; stored ${rows} (${rows - distinct} twice)`,
    );
    console.log(`\nfigure                                  value        baseline (same run)       target`);
    console.log(
      `server peak RSS, ${OUTAGE_SECONDS} s outage at ${RATE}/s   ${mib(peak).padEnd(12)} ${`${mib(idleRss)} before the events`.padEnd(25)} < ${LIMIT_MIB} MiB: ${peak / 1024 < LIMIT_MIB ? 'met' : 'NOT met'}`,
    );
    console.log(
      `acknowledged events lost                ${String(lost).padEnd(12)} ${`${a.acked} acknowledged`.padEnd(25)} 0: ${lost === 0 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `events stored twice                     ${String(rows - distinct).padEnd(12)} ${`${rows} stored`.padEnd(25)} 0: ${rows === distinct ? 'met' : 'NOT met'}`,
    );
    if (lost > 0 || rows !== distinct || peak / 1024 >= LIMIT_MIB) process.exitCode = 1;
  } finally {
    const stopped = servers.stop();
    proxy.close();
    await db.end().catch(() => undefined);
    if (fleet) await Promise.race([fleet.stop(), new Promise((r) => setTimeout(r, 8000))]);
    await stopped;
    if (!process.env.BENCH_DB) await dropDatabase(dbName).catch(() => undefined);
  }
}
