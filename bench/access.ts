// `npm run bench -- access`: Atrium with its embedded MQTT broker (aedes) on PostgreSQL. Three figures,
// each with a baseline measured in the same run:
//   1. an identifier import of BENCH_IMPORT_ROWS (100,000) rows from an .xlsx (POST /identifiers/import),
//      against INSERT … SELECT generate_series of as many rows into a scratch copy of the identifiers table;
//   2. the access matrix (GET /access-matrix, 20 rows, each request another page) for BENCH_MATRIX_USERS
//      (10,000) users with one card each × BENCH_MATRIX_DEVICES (1,000) doors, p95 against a bare Fastify route;
//   3. one revoked identifier reaching BENCH_FANOUT_DEVICES (1,000) simulated devices online (tools/device-sim):
//      until every device holds it as revoked, against the time of the HTTP call alone.
// Env: BENCH_IMPORT_ROWS, BENCH_MATRIX_USERS, BENCH_MATRIX_DEVICES, BENCH_MATRIX_GROUPS, BENCH_MATRIX_REQUESTS,
// BENCH_FANOUT_DEVICES, BENCH_PG. A figure whose count is 0 is skipped.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { IDENTIFIER_COLUMNS } from '@atrium/contract';
import { Fleet } from '@atrium/device-sim';
import ExcelJS from 'exceljs';
import pg from 'pg';
import { hashPassword } from '../apps/server/src/core/auth/password.js';
import { type Figures, load, portOpen, print, type Servers, secs, startServers, tempDir, until } from './lib.js';

const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const MATRIX_USERS = Number(process.env.BENCH_MATRIX_USERS ?? 10_000);
const MATRIX_DEVICES = Number(process.env.BENCH_MATRIX_DEVICES ?? 1_000);
const MATRIX_GROUPS = Math.max(1, Number(process.env.BENCH_MATRIX_GROUPS ?? 5));
/** Requests of the matrix load run (each another page); fewer when one page is slow (see matrix()). */
const MATRIX_REQUESTS = Number(process.env.BENCH_MATRIX_REQUESTS ?? 400);
const FANOUT_DEVICES = Number(process.env.BENCH_FANOUT_DEVICES ?? 1_000);
const PASSWORD = 'bench-device-password';
const MODEL = 'AP-100'; // the catalogue's first panel: what the simulator announces by default

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** A card number as readers present it: upper-case hex, 10 digits, unique per i and per prefix. */
const cardHex = (prefix: number, i: number) => (prefix * 0x100000000 + i).toString(16).toUpperCase().padStart(10, '0');

interface Row {
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
}

function table(rows: Row[]): void {
  const w = [46, 14, 50, 10];
  console.log(`\n${'figure'.padEnd(w[0]!)}${'value'.padEnd(w[1]!)}${'baseline (same run)'.padEnd(w[2]!)}${'ratio'.padEnd(w[3]!)}target`);
  for (const r of rows) {
    console.log(`${r.figure.padEnd(w[0]!)}${r.value.padEnd(w[1]!)}${r.baseline.padEnd(w[2]!)}${r.ratio.padEnd(w[3]!)}${r.target}`);
  }
}

async function count(db: pg.Client, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query(sql, params);
  return Number(rows[0].n);
}

async function rootGroup(db: pg.Client): Promise<number> {
  const { rows } = await db.query(`SELECT min(id) AS id FROM groups WHERE project_id = 1`);
  return Number(rows[0].id);
}

/** Groups under the root (path = the root's path and its own id), named `${prefix} n`. */
async function seedGroups(db: pg.Client, root: number, prefix: string, n: number): Promise<number[]> {
  const { rows } = await db.query(
    `INSERT INTO groups (project_id, parent_id, path, name)
     SELECT 1, $1, (SELECT path FROM groups WHERE id = $1), $2 || ' ' || g FROM generate_series(1, $3) g RETURNING id`,
    [root, prefix, n],
  );
  const ids = rows.map((r) => Number(r.id));
  await db.query(`UPDATE groups SET path = path || id WHERE id = ANY($1::int[]) AND NOT (id = ANY(path))`, [ids]);
  return ids;
}

// --- 1. identifier import ----------------------------------------------------------------------------

/** The workbook the console's import takes: the export's header, then name, type and value (other cells empty). */
async function writeWorkbook(file: string, rows: number): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useStyles: false, useSharedStrings: false });
  const sheet = book.addWorksheet('identifiers');
  sheet.addRow([...IDENTIFIER_COLUMNS]).commit();
  for (let i = 1; i <= rows; i++) sheet.addRow([`Imported card ${i}`, 'card', cardHex(0xa1, i)]).commit();
  sheet.commit();
  await book.commit();
}

async function importFigure(servers: Servers, auth: Record<string, string>, db: pg.Client, rows: Row[]): Promise<void> {
  const file = path.join(tempDir(), 'identifiers.xlsx');
  let t = performance.now();
  await writeWorkbook(file, IMPORT_ROWS);
  const bytes = await readFile(file);
  console.log(`\nwrote ${IMPORT_ROWS} rows to ${file} (${(bytes.length / 1024 / 1024).toFixed(1)} MiB) in ${secs(performance.now() - t)}`);

  // Baseline: as many rows by one INSERT … SELECT generate_series into a scratch copy of identifiers
  // (same columns, defaults and indexes, its own empty table).
  await db.query(`DROP TABLE IF EXISTS bench_identifiers_copy`);
  await db.query(`CREATE TABLE bench_identifiers_copy (LIKE identifiers INCLUDING DEFAULTS INCLUDING INDEXES)`);
  t = performance.now();
  await db.query(
    `INSERT INTO bench_identifiers_copy (project_id, name, type, value)
     SELECT 1, 'Imported card ' || i, 'card', upper(lpad(to_hex(161::bigint * 4294967296 + i), 10, '0')) FROM generate_series(1, $1) i`,
    [IMPORT_ROWS],
  );
  const baseMs = performance.now() - t;
  await db.query(`DROP TABLE bench_identifiers_copy`);
  console.log(`baseline: ${IMPORT_ROWS} rows by INSERT … SELECT generate_series in ${secs(baseMs)}`);

  console.log(`POST /identifiers/import (${IMPORT_ROWS} rows)…`);
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }), 'identifiers.xlsx');
  t = performance.now();
  const res = await fetch(`${servers.base}/api/v0/identifiers/import`, { method: 'POST', headers: auth, body: form });
  const text = await res.text();
  const ms = performance.now() - t;
  await rm(path.dirname(file), { recursive: true, force: true });
  let result: { status?: string; created?: number; rows?: number; errors_total?: number; duplicates_total?: number } = {};
  try {
    result = JSON.parse(text).data ?? {};
  } catch {
    // not JSON: reported below
  }
  const stored = await count(db, `SELECT count(*) AS n FROM identifiers WHERE name LIKE 'Imported card %'`);
  const ok = res.ok && result.status === 'imported' && result.created === IMPORT_ROWS;
  if (!res.ok && !process.env.BENCH_SERVER_LOG) console.log('(BENCH_SERVER_LOG=file keeps the server log, with the cause of a 500)');
  console.log(
    `answered ${res.status} after ${secs(ms)}: ${ok ? '' : `${text.slice(0, 300)} `}status ${result.status}, rows ${result.rows}, created ${result.created}, errors ${result.errors_total}, duplicates ${result.duplicates_total}; ${stored} in the table`,
  );
  rows.push({
    figure: `identifier import of ${IMPORT_ROWS} rows (.xlsx)`,
    value: secs(ms),
    baseline: `${secs(baseMs)} INSERT … SELECT generate_series`,
    ratio: `${(ms / baseMs).toFixed(1)}×`,
    target: `< 20 s: ${ok && ms < 20_000 ? 'met' : 'NOT met'} (created ${result.created ?? 0}/${IMPORT_ROWS})`,
  });
}

// --- 2. the access matrix ----------------------------------------------------------------------------

/** MATRIX_USERS users in MATRIX_GROUPS groups with a card each, MATRIX_DEVICES doors, one rule per group to every door (lock 1). */
async function seedMatrix(db: pg.Client, root: number): Promise<void> {
  await db.query('BEGIN');
  const groups = await seedGroups(db, root, 'Matrix group', MATRIX_GROUPS);
  await db.query(
    `INSERT INTO users (project_id, login, name, email)
     SELECT 1, 'mx' || i, (ARRAY['Anna','Boris','Vera','Gleb','Daria','Egor','Zoya','Ivan','Olga','Pavel','Irina','Sergei','Elena','Maxim','Nina','Oleg','Maria','Artem','Sofia','Denis'])[1 + i % 20]
       || ' ' || (ARRAY['Ivanov','Petrova','Smirnov','Kuznetsova','Popov','Sokolova','Lebedev','Kozlova','Novikov','Morozova'])[1 + (i / 20) % 10] || ' ' || i,
       'mx' || i || '@example.org'
     FROM generate_series(1, $1) i`,
    [MATRIX_USERS],
  );
  await db.query(
    `INSERT INTO user_groups (user_id, group_id)
     SELECT u.id, ($1::int[])[1 + u.id % cardinality($1::int[])] FROM users u WHERE u.project_id = 1 AND u.login LIKE 'mx%'`,
    [groups],
  );
  await db.query(
    `INSERT INTO identifiers (project_id, name, type, value, owner_id)
     SELECT 1, 'Card of ' || u.login, 'card', upper(lpad(to_hex(178::bigint * 4294967296 + u.id), 10, '0')), u.id
     FROM users u WHERE u.project_id = 1 AND u.login LIKE 'mx%'`,
  );
  await db.query(
    `INSERT INTO devices (project_id, group_id, name, type, model, serial_number, protocol, initialized_at)
     SELECT 1, $1, 'Door ' || lpad(i::text, 5, '0'), 'panel', $2, 'MX-' || lpad(i::text, 6, '0'), 'none', now()
     FROM generate_series(1, $3) i`,
    [root, MODEL, MATRIX_DEVICES],
  );
  const { rows: rules } = await db.query(
    `INSERT INTO access_rules (project_id, name) SELECT 1, 'Matrix rule ' || g FROM generate_series(1, $1) g RETURNING id`,
    [groups.length],
  );
  const ruleIds = rules.map((r) => Number(r.id));
  await db.query(`INSERT INTO access_rule_groups (rule_id, group_id) SELECT * FROM unnest($1::int[], $2::int[])`, [ruleIds, groups]);
  await db.query(
    `INSERT INTO access_rule_devices (rule_id, device_id, lock_number)
     SELECT r, d.id, 1 FROM unnest($1::int[]) r, devices d WHERE d.serial_number LIKE 'MX-%'`,
    [ruleIds],
  );
  await db.query('COMMIT');
  await db.query('VACUUM ANALYZE');
}

async function matrix(servers: Servers, auth: Record<string, string>, db: pg.Client, rows: Row[]): Promise<void> {
  const root = await rootGroup(db);
  console.log(
    `\nseeding the matrix: ${MATRIX_USERS} users in ${MATRIX_GROUPS} groups with a card each, ${MATRIX_DEVICES} doors, ${MATRIX_GROUPS} rules (group → every door)…`,
  );
  let t = performance.now();
  await seedMatrix(db, root);
  console.log(`seeded in ${secs(performance.now() - t)}: ${MATRIX_USERS * MATRIX_DEVICES} (card, door) lines`);

  const lines = MATRIX_USERS * MATRIX_DEVICES;
  const pages = Math.max(1, Math.min(100_000, Math.floor(lines / 20)));
  const pageUrl = (page: number) => `${servers.base}/api/v0/access-matrix?page=${page}&size=20`;
  // One click each at the first, a middle and the last reachable page: what one operator waits.
  const probes: string[] = [];
  let slowest = 0;
  let failures = 0;
  for (const page of [1, Math.ceil(pages / 2), pages]) {
    t = performance.now();
    const res = await fetch(pageUrl(page), { headers: auth });
    const body = res.ok ? await res.json() : await res.text();
    const ms = performance.now() - t;
    slowest = Math.max(slowest, ms);
    if (!res.ok) failures++;
    probes.push(
      res.ok
        ? `page ${page}: ${ms.toFixed(0)} ms (${body.data.length} rows of ${body.meta.total}${body.meta.estimated ? ' estimated' : ''})`
        : `page ${page}: ${res.status} after ${ms.toFixed(0)} ms (${String(body).slice(0, 160)})`,
    );
  }
  console.log(`single requests:\n  ${probes.join('\n  ')}`);
  rows.push({
    figure: `matrix ${MATRIX_USERS}×${MATRIX_DEVICES}: slowest single page`,
    value: `${slowest.toFixed(0)} ms`,
    baseline: '',
    ratio: '',
    target: `< 1 s: ${slowest < 1000 && !failures ? 'met' : 'NOT met'} (pages 1, ${Math.ceil(pages / 2)}, ${pages}${failures ? `; ${failures} of 3 failed` : ''})`,
  });

  // Each request another page, spread over the reachable ones (no page asked twice in a row, so no read cache helps).
  let asked = 0;
  const eachPage = (req: { path?: string }) => ({
    ...req,
    path: `/api/v0/access-matrix?page=${1 + ((asked++ * 7919) % pages)}&size=20`,
  });
  // A slow page would leave a timed run with nothing finished: a number of requests instead, fewer when slow.
  const connections = 4;
  const amount = Math.max(connections * 2, Math.min(MATRIX_REQUESTS, Math.round((15_000 / Math.max(1, slowest)) * connections)));
  const baseline = await load('bare Fastify route (baseline)', { url: servers.bareUrl });
  const out: Figures[] = [];
  out.push(
    await load(`GET /access-matrix each page (${amount})`, {
      url: pageUrl(1),
      headers: auth,
      connections,
      amount,
      timeout: 120,
      requests: [{ setupRequest: eachPage }],
    }),
  );
  out.push(
    await load(`GET /access-matrix … 1 conn (${Math.max(2, Math.ceil(amount / 4))})`, {
      url: pageUrl(1),
      headers: auth,
      connections: 1,
      amount: Math.max(2, Math.ceil(amount / 4)),
      timeout: 120,
      requests: [{ setupRequest: eachPage }],
    }),
  );
  print(out, baseline);
  for (const f of out) {
    rows.push({
      figure: `matrix p95 ${MATRIX_USERS}×${MATRIX_DEVICES}: ${f.name.replace('GET /access-matrix ', '')}`,
      value: `${f.p95} ms`,
      baseline: `bare p95 ${baseline.p95} ms, ${baseline.rps} req/s`,
      // autocannon counts whole milliseconds: a bare p95 under 1 ms is taken as 1 ms.
      ratio: `${(f.p95 / Math.max(1, baseline.p95)).toFixed(0)}×`,
      target: `< 1 s: ${f.p95 < 1000 && f.errors === 0 ? 'met' : 'NOT met'} (${f.rps} req/s, ${f.errors} errors)`,
    });
  }
}

// --- 3. sync fan-out ---------------------------------------------------------------------------------

async function fanout(servers: Servers, auth: Record<string, string>, db: pg.Client, rows: Row[]): Promise<Fleet | null> {
  const root = await rootGroup(db);
  const serial = (i: number) => `FAN-${String(i).padStart(6, '0')}`;
  const value = cardHex(0xfa, 1);
  console.log(`\nseeding ${FANOUT_DEVICES} panels (mqtt, initialised), a group with one user and card ${value}, a rule to every panel…`);
  const hash = await hashPassword(PASSWORD);
  await db.query('BEGIN');
  const [group] = await seedGroups(db, root, 'Fan-out group', 1);
  const { rows: users } = await db.query(`INSERT INTO users (project_id, login, name) VALUES (1, 'fanout', 'Fan Out') RETURNING id`);
  const userId = Number(users[0].id);
  await db.query(`INSERT INTO user_groups (user_id, group_id) VALUES ($1, $2)`, [userId, group]);
  const { rows: idRows } = await db.query(
    `INSERT INTO identifiers (project_id, name, type, value, owner_id) VALUES (1, 'Fan-out card', 'card', $1, $2) RETURNING id`,
    [value, userId],
  );
  const identifierId = Number(idRows[0].id);
  await db.query(
    `INSERT INTO devices (project_id, group_id, name, type, model, serial_number, password_hash, protocol, management, initialized_at)
     SELECT 1, $1, 'Fan-out panel ' || lpad(i::text, 6, '0'), 'panel', $2, 'FAN-' || lpad(i::text, 6, '0'), $3, 'mqtt',
       '{"heartbeat": 30, "realtime_logging": false}'::jsonb, now()
     FROM generate_series(1, $4) i`,
    [root, MODEL, hash, FANOUT_DEVICES],
  );
  const { rows: rule } = await db.query(`INSERT INTO access_rules (project_id, name) VALUES (1, 'Fan-out rule') RETURNING id`);
  const ruleId = Number(rule[0].id);
  await db.query(`INSERT INTO access_rule_groups (rule_id, group_id) VALUES ($1, $2)`, [ruleId, group]);
  await db.query(
    `INSERT INTO access_rule_devices (rule_id, device_id, lock_number) SELECT $1, id, 1 FROM devices WHERE serial_number LIKE 'FAN-%'`,
    [ruleId],
  );
  await db.query('COMMIT');
  await db.query('ANALYZE');

  const url = servers.mqttUrl as string;
  if (!(await until(() => portOpen(Number(new URL(url).port)), 30_000))) throw new Error(`the embedded broker did not listen on ${url}`);
  const fleet = new Fleet({
    url,
    devices: Array.from({ length: FANOUT_DEVICES }, (_, i) => ({ serial: serial(i + 1), password: PASSWORD, type: 'panel' as const })),
    concurrency: 100,
  });
  let t = performance.now();
  const refused = await fleet.start();
  const onlineSql = `SELECT count(*) AS n FROM device_status s JOIN devices d ON d.id = s.device_id WHERE s.online AND d.serial_number LIKE 'FAN-%'`;
  const allOnline = await until(async () => (await count(db, onlineSql)) >= FANOUT_DEVICES - refused.length, 120_000, 250);
  console.log(
    `${FANOUT_DEVICES - refused.length} devices connected, ${await count(db, onlineSql)} online after ${secs(performance.now() - t)}${allOnline ? '' : ' (gave up waiting)'}${refused.length ? `; refused ${refused.length}: ${refused[0]?.error}` : ''}`,
  );
  await sleep(1000); // let the online announcements settle

  const tasksBefore = await count(db, `SELECT coalesce(max(id), 0) AS n FROM device_tasks`);
  const holding = () => fleet.devices.filter((d) => d.synced.find(value)?.revoked === true).length;
  // When each device came to hold the change (its sync task done, before its acknowledgement reaches the server).
  const heldAt: number[] = [];
  for (const d of fleet.devices) {
    const seen = () => {
      if (d.synced.find(value)?.revoked !== true) return;
      heldAt.push(performance.now() - t);
      d.off('synced', seen);
    };
    d.on('synced', seen);
  }
  console.log(`POST /identifiers/${identifierId}/revoke…`);
  t = performance.now();
  const res = await fetch(`${servers.base}/api/v0/identifiers/${identifierId}/revoke`, { method: 'POST', headers: auth });
  const text = await res.text();
  const httpMs = performance.now() - t;
  if (!res.ok) console.log(`revoke answered ${res.status} ${text.slice(0, 300)}`);
  const reached = await until(() => holding() >= FANOUT_DEVICES, 120_000, 10);
  const held = holding();
  heldAt.sort((a, b) => a - b);
  const doneMs = reached ? (heldAt[heldAt.length - 1] ?? performance.now() - t) : performance.now() - t;
  const at = (q: number) => secs(heldAt[Math.min(heldAt.length - 1, Math.floor(q * heldAt.length))] ?? Number.NaN);
  console.log(`devices holding it: first after ${at(0)}, half after ${at(0.5)}, all after ${secs(doneMs)}`);
  const states = await db.query(
    `SELECT state, count(*)::int AS n FROM device_tasks WHERE id > $1 AND type = 'sync' GROUP BY state ORDER BY state`,
    [tasksBefore],
  );
  // The server's view: until every sync task of the change is completed (its acknowledgement stored).
  await until(
    async () =>
      (await count(db, `SELECT count(*) AS n FROM device_tasks WHERE id > $1 AND type = 'sync' AND state = 'completed'`, [tasksBefore])) >=
      held,
    30_000,
    50,
  );
  const ackedMs = performance.now() - t;
  const completed = await count(db, `SELECT count(*) AS n FROM device_tasks WHERE id > $1 AND type = 'sync' AND state = 'completed'`, [
    tasksBefore,
  ]);
  console.log(
    `HTTP answered ${res.status} after ${secs(httpMs)}; ${held}/${FANOUT_DEVICES} devices hold the card as revoked after ${secs(doneMs)}${reached ? '' : ' (gave up waiting)'}; sync tasks when they did: ${states.rows.map((r) => `${r.state} ${r.n}`).join(', ') || 'none'}; ${completed} completed in the database after ${secs(ackedMs)}`,
  );
  rows.push({
    figure: `revoke reaching ${FANOUT_DEVICES} devices (held)`,
    value: secs(doneMs),
    baseline: `${secs(httpMs)} for the HTTP call alone`,
    ratio: `${(doneMs / httpMs).toFixed(1)}×`,
    target: `< 5 s: ${reached && doneMs < 5000 ? 'met' : 'NOT met'} (${held}/${FANOUT_DEVICES})`,
  });
  rows.push({
    figure: `… all its sync tasks completed (server)`,
    value: secs(ackedMs),
    baseline: `${secs(httpMs)} for the HTTP call alone`,
    ratio: `${(ackedMs / httpMs).toFixed(1)}×`,
    target: `${completed} completed`,
  });
  return fleet;
}

export async function run(): Promise<void> {
  const servers = await startServers('atrium_bench_access', { embeddedMqtt: true });
  const db = new pg.Client({ connectionString: servers.url });
  await db.connect();
  let fleet: Fleet | null = null;
  const rows: Row[] = [];
  try {
    const auth = await servers.auth();
    if (IMPORT_ROWS > 0) await importFigure(servers, auth, db, rows);
    if (MATRIX_USERS > 0 && MATRIX_DEVICES > 0) await matrix(servers, auth, db, rows);
    if (FANOUT_DEVICES > 0) fleet = await fanout(servers, auth, db, rows);
    table(rows);
  } finally {
    servers.stop();
    await db.end().catch(() => undefined);
    if (fleet) await Promise.race([fleet.stop({ graceful: false }), sleep(5000)]);
  }
}
