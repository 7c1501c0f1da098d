// `npm run bench -- lists`: the lists a building lives in, at a building's size, on PostgreSQL:
// identifiers (BENCH_IDENTIFIERS, 1,000,000), access events (BENCH_EVENTS, 10,000,000) and devices
// (BENCH_DEVICES, 10,000, all online), seeded by INSERT … SELECT generate_series (access events with
// their indexes dropped meanwhile and built again after: the seeding's time is printed).
// Each list is asked its first page, a filtered page, another sort, a deep page (page 500) and a
// filter matching more rows than the exact count's cap; each call is measured through the API
// (8 connections, BENCH_LIST_SECONDS each; these lists are not cached, so the same call again is a
// new read) against the statements that call sent, recorded in the server and run by
// `pgbench -M extended` with 8 clients in the same run.
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  benchDatabaseName,
  cpuTimes,
  dropDatabase,
  type Figures,
  load,
  loadAverage,
  pgbench,
  pgbenchStatement,
  type Servers,
  startServers,
  tempDir,
} from './lib.js';

const IDENTIFIERS = Number(process.env.BENCH_IDENTIFIERS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000);
const SECONDS = Number(process.env.BENCH_LIST_SECONDS ?? 5);

/** Statements of background workers, left out of what one list call sent. */
const WORKER_TABLES =
  /(FROM|UPDATE|INTO|JOIN)\s+"?(announce|webhook_|push_deliveries|device_tasks|device_broker|licen|mail_outbox|amenity|instance)|^SELECT (s\.device_id, )?d\.serial_number AS serial\b|^(begin|commit)$/i;

const rules = (...r: { field: string; operator: string; value: unknown }[]) =>
  `&filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules: r }))}`;

/** The calls measured, per list: what the console asks of a list this size. */
const CALLS: { list: string; name: string; path: string }[] = [
  { list: 'identifiers', name: 'first page (name)', path: '/identifiers?page=1&size=20' },
  {
    list: 'identifiers',
    name: 'filtered (name begins)',
    path: `/identifiers?page=1&size=20${rules({ field: 'name', operator: 'begins_with', value: 'Card 00042' })}`,
  },
  { list: 'identifiers', name: 'sorted (-created_at)', path: '/identifiers?page=1&size=20&sort=-created_at' },
  { list: 'identifiers', name: 'deep page (500)', path: '/identifiers?page=500&size=20' },
  {
    list: 'identifiers',
    name: 'many match (type card)',
    path: `/identifiers?page=2&size=20${rules({ field: 'type', operator: 'equals', value: 'card' })}`,
  },
  { list: 'access events', name: 'first page (-occurred_at)', path: '/access-control/logs?page=1&size=20' },
  {
    list: 'access events',
    name: 'filtered (one device)',
    path: `/access-control/logs?page=1&size=20${rules({ field: 'device_id', operator: 'equals', value: 42 })}`,
  },
  {
    list: 'access events',
    name: 'filtered (refused)',
    path: `/access-control/logs?page=1&size=20${rules({ field: 'granted', operator: 'equals', value: false })}`,
  },
  { list: 'access events', name: 'sorted (occurred_at)', path: '/access-control/logs?page=1&size=20&sort=occurred_at' },
  { list: 'access events', name: 'deep page (500)', path: '/access-control/logs?page=500&size=20' },
  { list: 'devices', name: 'first page (name)', path: '/devices?page=1&size=20' },
  {
    list: 'devices',
    name: 'filtered (name begins)',
    path: `/devices?page=1&size=20${rules({ field: 'name', operator: 'begins_with', value: 'Device 0042' })}`,
  },
  { list: 'devices', name: 'sorted (-created_at)', path: '/devices?page=1&size=20&sort=-created_at' },
  { list: 'devices', name: 'deep page (400)', path: '/devices?page=400&size=20' },
  {
    list: 'devices',
    name: 'many match (type panel)',
    path: `/devices?page=2&size=20${rules({ field: 'type', operator: 'equals', value: 'panel' })}`,
  },
];

async function seed(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const t0 = Date.now();
  const { rows } = await c.query(`SELECT min(id) AS id FROM groups WHERE project_id = 1`);
  const root = rows[0].id as number;
  await c.query(
    `INSERT INTO devices (project_id, group_id, name, type, model, serial_number, protocol, management, initialized_at, created_at)
     SELECT 1, $1, 'Device ' || lpad(((i::bigint * 7919) % $2)::text, 6, '0') || ' ' || i, 'panel', 'AP-100', 'LIST-' || lpad(i::text, 6, '0'), 'mqtt',
       '{"heartbeat": 30, "realtime_logging": false}'::jsonb, now(), now() - (i || ' minutes')::interval
     FROM generate_series(1, $2) i`,
    [root, DEVICES],
  );
  // Names spread over the alphabet of the sort (7919 is prime), values unique per type.
  await c.query(
    `INSERT INTO identifiers (project_id, name, type, value, created_at)
     SELECT 1, 'Card ' || lpad(((i::bigint * 7919) % $1)::text, 7, '0'), CASE WHEN i % 10 = 0 THEN 'access_code' ELSE 'card' END,
       upper(lpad(to_hex(i), 10, '0')), now() - (i || ' seconds')::interval
     FROM generate_series(1, $1) i`,
    [IDENTIFIERS],
  );
  // Every device online, as a building's are.
  await c.query(
    `INSERT INTO device_status (device_id, online, firmware, last_seen_at) SELECT id, true, '1.0', now() FROM devices WHERE project_id = 1`,
  );
  const { rows: d } = await c.query(`SELECT min(id) AS lo FROM devices WHERE project_id = 1`);
  const { rows: idf } = await c.query(`SELECT min(id) AS lo FROM identifiers WHERE project_id = 1`);
  // One event every 3 s back in time, over every device; one in ten refused. The table's indexes are
  // built once after (as the migrations define them) rather than kept up row by row.
  const t1 = Date.now();
  const { rows: indexes } = await c.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'access_events' AND indexname NOT LIKE '%_pkey'`,
  );
  for (const i of indexes) await c.query(`DROP INDEX "${i.indexname}"`);
  const batch = 1_000_000;
  for (let from = 1; from <= EVENTS; from += batch) {
    await c.query(
      `INSERT INTO access_events (project_id, device_id, lock_number, granted, reason, value, identifier_id, occurred_at, received_at)
       SELECT 1, $1 + i % $3, 1, i % 10 <> 0, CASE WHEN i % 10 = 0 THEN 'unknown identifier' END, upper(lpad(to_hex(i % $4 + 1), 10, '0')),
         $2 + i % $4, now() - (i * 3 || ' seconds')::interval, now()
       FROM generate_series($5::int, $6::int) i`,
      [d[0].lo, idf[0].lo, DEVICES, IDENTIFIERS, from, Math.min(EVENTS, from + batch - 1)],
    );
  }
  for (const i of indexes) await c.query(i.indexdef);
  const eventsSeconds = (Date.now() - t1) / 1000;
  await c.query('VACUUM ANALYZE devices, device_status, identifiers, access_events');
  await c.end();
  console.log(
    `seeded ${DEVICES} devices, ${IDENTIFIERS} identifiers, ${EVENTS} access events in ${((Date.now() - t0) / 1000).toFixed(0)} s ` +
      `(the events ${eventsSeconds.toFixed(0)} s with their indexes)`,
  );
}

/** The statements one call sent, as a pgbench script (literal values). */
async function recorded(
  servers: Servers,
  auth: Record<string, string>,
  url: string,
  table: string,
): Promise<{ script: string; texts: string[] }> {
  // Past the answers of the load's last requests, still on their way when it stopped.
  await new Promise((r) => setTimeout(r, 5000));
  const sent = await servers.recordSql(() => fetch(url, { headers: auth }).then((r) => r.text()));
  // A list's statements name its table as the query builder quotes it; background work (a sweep of
  // devices taken over from a kept database's earlier run) may send any number of others meanwhile.
  const statements = sent.filter((s) => !WORKER_TABLES.test(s.text.trim()) && s.text.includes(`"${table}"`));
  return {
    script: statements.map((s) => pgbenchStatement({ sql: s.text, params: s.values })).join(''),
    texts: statements.map((s) => s.text.replace(/\s+/g, ' ').slice(0, 140)),
  };
}

export async function run(): Promise<void> {
  // BENCH_LISTS_KEEP=1 with BENCH_DB: the database of a run named so as it is (seeding takes minutes), migrated to the code's schema.
  const keep = process.env.BENCH_LISTS_KEEP === '1' && !!process.env.BENCH_DB;
  const dbName = benchDatabaseName('atrium_bench_lists');
  const ownSession = process.env.BENCH_SERVER_SESSION !== 'shared';
  const servers = await startServers(dbName, { recordSqlTo: path.join(tempDir(), 'statements.json'), keepDatabase: keep, ownSession });
  console.log(
    `database ${dbName}; server in ${ownSession ? 'a session of its own' : "the bench's session"} (BENCH_SERVER_SESSION); load average ${loadAverage()}`,
  );
  try {
    const c = new pg.Client({ connectionString: servers.url });
    await c.connect();
    const { rows } = await c.query(`SELECT count(*)::int AS n FROM identifiers`);
    await c.end();
    if (keep && rows[0].n > 0) console.log(`the last run's database kept: ${rows[0].n} identifiers`);
    else await seed(servers.url);
    const auth = await servers.auth();
    const pad = (s: string | number, n: number) => String(s).padStart(n);
    const out: string[] = [];
    const ratios = new Map<string, number>();
    for (const call of CALLS) {
      const url = `${servers.base}/api/v0${call.path}`;
      const probe = await fetch(url, { headers: auth });
      const body = probe.ok ? ((await probe.json()) as { data: unknown[]; meta: { total: number; estimated?: boolean } }) : undefined;
      const title = `${call.list}: ${call.name}`;
      if (!body) {
        console.log(`${title}: GET answered ${probe.status} ${await probe.text()}`);
        continue;
      }
      const cpu0 = cpuTimes(servers.pid);
      const api: Figures = await load(title, { url, headers: auth, duration: SECONDS });
      const cpu1 = cpuTimes(servers.pid);
      // The server's own CPU per call (all its threads): unlike the throughput, it does not move with its share of a loaded machine.
      const cpuMs = ((cpu1.user + cpu1.kernel - cpu0.user - cpu0.kernel) * 1000) / Math.max(1, api.rps * SECONDS);
      const table = { identifiers: 'identifiers', 'access events': 'access_events', devices: 'devices' }[call.list] ?? call.list;
      const { script, texts } = await recorded(servers, auth, url, table);
      let db: { tps: number } | undefined;
      try {
        db = await pgbench(servers.url, script, { clients: 8, seconds: SECONDS });
      } catch (e) {
        console.log(`${title}: pgbench not run: ${(e as Error).message}`);
      }
      const line =
        `${title.padEnd(44)}${pad(api.rps, 7)}${pad(api.p95, 8)}${pad(db ? db.tps.toFixed(0) : '–', 9)}${pad(db ? (api.rps / db.tps).toFixed(2) : '–', 7)}` +
        `${pad(texts.length, 5)}${pad(cpuMs.toFixed(2), 7)}${pad(os.loadavg()[0]!.toFixed(1), 6)}   ${body.data.length} rows of ${body.meta.total}${body.meta.estimated ? ' (estimated)' : ''}`;
      if (db) ratios.set(title, api.rps / db.tps);
      console.log(line);
      for (const t of texts) console.log(`      ${t}…`);
      out.push(line);
    }
    console.log(
      `\n${'call'.padEnd(44)}${pad('req/s', 7)}${pad('p95 ms', 8)}${pad('pgbench', 9)}${pad('ratio', 7)}${pad('stmts', 5)}${pad('cpu ms', 7)}${pad('load', 6)}   answer`,
    );
    for (const l of out) console.log(l);
    console.log(
      '(ratio: the API against pgbench -M extended running the statements that call sent, 8 clients each, same run; load: the 1-minute load average after)',
    );
    const devices = ratios.get('devices: first page (name)');
    if (devices !== undefined)
      console.log(
        `target: a 20-row page of 10,000 online devices ≥ 0.5 of pgbench → ${devices.toFixed(2)} (${devices >= 0.5 ? 'met' : 'NOT met'})`,
      );
    console.log(`load average ${loadAverage()}`);
  } finally {
    await servers.stop();
    if (!process.env.BENCH_DB) await dropDatabase(dbName).catch(() => undefined);
  }
}
