// `npm run bench -- api`: the server on PostgreSQL with 200,000 users across 2,000 groups; login,
// GET /profile and a filtered, sorted users list of 20 rows with total, against a bare Fastify route;
// the list with a new query each time against the same statements run by pgbench; the cached list
// while another client writes 20 times a second; the statements an idle server sends.
import path from 'node:path';
import pg from 'pg';
import {
  benchDatabaseName,
  cpuTimes,
  dropDatabase,
  type Figures,
  LOGIN_BODY,
  load,
  loadAverage,
  pgbenchStatement,
  print,
  type Servers,
  startServers,
  takingTurns,
  tempDir,
} from './lib.js';
import { seedUsers } from './seed.js';

const USERS = Number(process.env.BENCH_USERS ?? 200_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2_000);

// The seed's first names (bench/seed.ts): each begins 3,334 names, 167 pages of 20.
const FIRST_NAMES =
  'Anna Boris Vera Gleb Daria Egor Zoya Ivan Olga Pavel Irina Sergei Elena Maxim Nina Oleg Maria Artem Sofia Denis Alla Roman Tatiana Kirill Yulia Anton Polina Ilya Ksenia Timur Liza Fedor Alice Bruno Clara David Emma Felix Greta Hugo Ines Jonas Karin Lukas Mila Noah Omar Paula Quentin Rosa Simon Tina Ugo Valentina Walter Xenia Yann Zara Lev Mark'.split(
    ' ',
  );
let asked = 0;

/** Rewrites each request's path to a query not asked before in this run (60 names × 160 pages). */
function varyingList() {
  return (req: { path?: string }) => {
    const i = asked++;
    const value = FIRST_NAMES[Math.floor(i / 160) % FIRST_NAMES.length];
    const filters = encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'name', operator: 'begins_with', value }] }));
    return { ...req, path: `/api/v0/users?page=${1 + (i % 160)}&size=20&sort=name&filters=${filters}` };
  };
}

export async function run(): Promise<void> {
  const dbName = benchDatabaseName('atrium_bench_api');
  // BENCH_SERVER_SESSION=shared: the server in the bench's own session (see ServerOptions.ownSession).
  const ownSession = process.env.BENCH_SERVER_SESSION !== 'shared';
  const servers = await startServers(dbName, { recordSqlTo: path.join(tempDir(), 'statements.json'), ownSession });
  console.log(
    `database ${dbName}; server in ${ownSession ? 'a session of its own' : "the bench's session"} (BENCH_SERVER_SESSION); load average ${loadAverage()}`,
  );
  const { url, base } = servers;
  try {
    console.log(`seeding ${USERS} users across ${GROUPS} groups…`);
    const t0 = Date.now();
    const seeded = await seedUsers(url, { projectId: 1, rootGroupId: 1, roleId: 1, groupCount: GROUPS, userCount: USERS });
    console.log(`seeded ${seeded.groups} groups in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const auth = await servers.auth();
    const filters = encodeURIComponent(
      JSON.stringify({ match: 'match_all', rules: [{ field: 'name', operator: 'begins_with', value: 'Vera' }] }),
    );
    const listUrl = `${base}/api/v0/users?page=3&size=20&sort=name&filters=${filters}`;
    const probe = await fetch(listUrl, { headers: auth });
    const listBody = probe.ok ? await probe.json() : undefined;
    let freshCpuMs: number | undefined;

    const baseline = await load('bare Fastify route (baseline)', { url: servers.bareUrl });
    const rows: Figures[] = [];
    rows.push(
      await load('POST /login (argon2id)', {
        url: `${base}/api/v0/login`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: LOGIN_BODY,
        connections: 2,
      }),
    );
    rows.push(await load('GET /profile', { url: `${base}/api/v0/profile`, headers: auth }));
    if (listBody) {
      console.log(
        `users list: ${listBody.data.length} rows of ${listBody.meta.total}${listBody.meta.estimated ? ' (estimated)' : ''} matching`,
      );
      // The same call over and over, as consoles reloading a list do: after the first, answered from
      // the read cache (nothing changes meanwhile).
      rows.push(await load('GET /users (filtered, sorted, 20)', { url: listUrl, headers: auth }));
      // The same call without queueing behind other connections: the latency of one operator's click.
      rows.push(await load('GET /users … at 1 connection', { url: listUrl, headers: auth, connections: 1 }));
      // A different query every time (60 name prefixes × 160 pages, none repeated within the run):
      // what the database path itself costs, with no help from the cache.
      const cpu0 = cpuTimes(servers.pid);
      const fresh = await load('GET /users … each query new', { url: listUrl, headers: auth, requests: [{ setupRequest: varyingList() }] });
      const cpu1 = cpuTimes(servers.pid);
      rows.push(fresh);
      // What the server itself spends per call (all its threads, user and kernel): unlike the
      // throughput, this does not move with how much of a shared machine's CPU the process gets.
      freshCpuMs = ((cpu1.user + cpu1.kernel - cpu0.user - cpu0.kernel) * 1000) / Math.max(1, fresh.rps * 8);
      rows.push(
        await load('GET /users … each new, 1 conn', {
          url: listUrl,
          headers: auth,
          connections: 1,
          requests: [{ setupRequest: varyingList() }],
        }),
      );
    } else {
      console.log(`users list not measured: GET /users answered ${probe.status}`);
    }
    print(rows, baseline);
    if (freshCpuMs !== undefined) console.log(`users list, each query new: the server's CPU ${freshCpuMs.toFixed(2)} ms per call`);
    const profile = rows.find((r) => r.name === 'GET /profile');
    if (profile) {
      const ratio = profile.rps / baseline.rps;
      console.log(`\ntarget: GET /profile ≥ 0.2 of bare throughput → ${ratio.toFixed(3)} (${ratio >= 0.2 ? 'met' : 'NOT met'})`);
    }
    const list = rows.find((r) => r.name.startsWith('GET /users ('));
    if (list) {
      console.log(`target: users list p95 < 25 ms → ${list.p95} ms at 8 connections (${list.p95 < 25 ? 'met' : 'NOT met'});`);
      console.log(
        `        ≥ 1/10 of bare throughput → ${(list.rps / baseline.rps).toFixed(3)} (${list.rps / baseline.rps >= 0.1 ? 'met' : 'NOT met'})`,
      );
    }
    if (listBody) {
      await againstPgbench(servers, auth, rows);
      if (list) await underWrites(servers, auth, listUrl, list);
    }
    await idleStatements(servers);
  } finally {
    await servers.stop();
    console.log(`load average ${loadAverage()}`);
    // Its own database, named after this run: nothing to keep (BENCH_DB names one that stays).
    if (!process.env.BENCH_DB) await dropDatabase(dbName).catch(() => undefined);
  }
}

/** A users-list query no load of this run asks (the last first name, page 7: offset 120, a value no other parameter has). */
const RECORDED_OFFSET = 120;
const recordedListPath = () => {
  const filters = encodeURIComponent(
    JSON.stringify({ match: 'match_all', rules: [{ field: 'name', operator: 'begins_with', value: 'Mark' }] }),
  );
  return `/api/v0/users?page=${1 + RECORDED_OFFSET / 20}&size=20&sort=name&filters=${filters}`;
};

/** Statements of background workers, left out of what one list call sent. */
const WORKER_TABLES =
  /(FROM|UPDATE|INTO|JOIN)\s+"?(announce|webhook_|push_deliveries|device_tasks|licen|mail_outbox|amenity|instance)|^\s*SELECT (s\.device_id, )?d\.serial_number AS serial\b|^(begin|commit)$/i;

/** Alternating rounds of the uncached list and of pgbench on its statements, each this long (s). */
const ROUNDS = Number(process.env.BENCH_PGBENCH_ROUNDS ?? 3);
const ROUND_SECONDS = 4;

/**
 * The statements one uncached list call sends (recorded in the server), run by pgbench with 8
 * clients and a page offset drawn per transaction: what the database needs for the call, against
 * what the API answers with a new query each time, the two taking turns (`takingTurns`: one load and
 * the other a minute later gave 0.62 to 0.91 over runs of the same code).
 */
async function againstPgbench(servers: Servers, auth: Record<string, string>, rows: Figures[]): Promise<void> {
  const fresh = rows.find((r) => r.name.endsWith('each query new'));
  if (!fresh) return;
  // The caller is read once and kept; a list call itself sends only its own statements.
  await fetch(`${servers.base}/api/v0/profile`, { headers: auth });
  const recorded = await servers.recordSql(() => fetch(`${servers.base}${recordedListPath()}`, { headers: auth }).then((r) => r.text()));
  const statements = recorded.filter((s) => !WORKER_TABLES.test(s.text));
  if (statements.some((s) => /\$\d/.test(s.text) && !s.values.length)) {
    console.log('\npgbench not run: a statement was recorded without its values');
    return;
  }
  const script =
    `\\set offset 20 * random(0, 159)\n` +
    statements
      .map((s) => pgbenchStatement({ sql: s.text, params: s.values.map((v) => (v === RECORDED_OFFSET ? { name: 'offset' } : v)) }))
      .join('');
  console.log(`\none uncached list call sends ${statements.length} statement(s):`);
  for (const s of statements) console.log(`  ${s.text.replace(/\s+/g, ' ').slice(0, 160)}…`);
  try {
    const hits0 = await cacheHits(servers, auth);
    const turns = await takingTurns(
      'GET /users … each query new (round)',
      { url: `${servers.base}/api/v0/users`, headers: auth, requests: [{ setupRequest: varyingList() }] },
      servers.url,
      script,
      ROUNDS,
      ROUND_SECONDS,
    );
    // A query asked twice would be answered from the read cache and flatter the API: said if it happened.
    const hits = (await cacheHits(servers, auth)) - hits0;
    const ratio = turns.rps / turns.tps;
    console.log(
      `the same statements by pgbench -M extended, 8 clients, taking turns with the API in ${ROUNDS} rounds of ${ROUND_SECONDS} s (API req/s / pgbench tps): ${turns.pairs.join(', ')}${hits ? `; ${hits} answers came from the read cache` : ''}`,
    );
    console.log(
      `target: users list with a new query each time ≥ 0.7 of pgbench → ${turns.rps.toFixed(0)} / ${turns.tps.toFixed(0)} = ${ratio.toFixed(2)} (${ratio >= 0.7 && !hits ? 'met' : 'NOT met'}); the load above alone: ${fresh.rps} req/s`,
    );
  } catch (e) {
    console.log(`pgbench not run: ${(e as Error).message}`);
  }
}

/** Answers so far that the read cache gave, or another request's read of the same (`/metrics`). */
async function cacheHits(servers: Servers, auth: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${servers.base}/metrics`, { headers: auth })).text();
  const counted = (result: string) =>
    Number(new RegExp(`^atrium_read_cache_answers_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return counted('hit') + counted('shared');
}

/** Starts `write` 20 times a second (not waiting for the one before: at most 20 under way) until the returned stop is called. */
function writing(write: (i: number) => Promise<Response | undefined>): () => Promise<{ made: number; failed: number }> {
  let made = 0;
  let failed = 0;
  let i = 0;
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (pending.size >= 20) return;
    const p: Promise<void> = write(i++)
      .then(async (res) => {
        await res?.arrayBuffer();
        if (!res || res.ok) made++;
        else failed++;
      })
      .catch(() => {
        failed++;
      })
      .finally(() => pending.delete(p));
    pending.add(p);
  }, 50);
  return async () => {
    clearInterval(timer);
    await Promise.all([...pending]);
    return { made, failed };
  };
}

/** The read cache's counters on /metrics (core/read-cache.ts): hits, misses, forgotten-at-once by reason, changes heard by table. */
async function cacheCounters(servers: Servers, auth: Record<string, string>): Promise<Map<string, number>> {
  const text = await (await fetch(`${servers.base}/metrics`, { headers: auth })).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^atrium_read_cache_(\w+)_total\{(\w+)="([^"]+)"\} (\d+)/.exec(line);
    if (m) out.set(`${m[1]}:${m[3]}`, Number(m[4]));
  }
  return out;
}

/**
 * The repeated list (the cache's case) while another client of the same project makes 20 changes a
 * second: to things the list is not read from (a device renamed, a device's task, a notification
 * read, an access event), each kind alone and all together, then to users themselves (which must
 * empty it). Each line says what the cache saw meanwhile (/metrics): its hits and misses, whether it
 * forgot everything at once (a write's own changes not heard back in time, or the feed lost), and the
 * changes heard per table.
 */
async function underWrites(servers: Servers, auth: Record<string, string>, listUrl: string, quiet: Figures): Promise<void> {
  const json = { ...auth, 'content-type': 'application/json' };
  const made = await fetch(`${servers.base}/api/v0/devices`, {
    method: 'PUT',
    headers: json,
    body: JSON.stringify({ name: 'Bench door', model: 'AP-100', serial_number: 'BENCH-API-1', domain_id: 1 }),
  });
  if (!made.ok) {
    console.log(`\nlist under writes not measured: PUT /devices answered ${made.status}`);
    return;
  }
  const deviceId = (await made.json()).data.id as number;
  const db = new pg.Pool({ connectionString: servers.url, max: 4 });
  const kinds: Record<string, (i: number) => Promise<Response | undefined>> = {
    'device renamed': (i) =>
      fetch(`${servers.base}/api/v0/devices/${deviceId}`, {
        method: 'PATCH',
        headers: json,
        body: JSON.stringify({ name: `Bench door ${i}` }),
      }),
    "device's task": () => fetch(`${servers.base}/api/v0/devices/${deviceId}/init/apply`, { method: 'POST', headers: json, body: '{}' }),
    'notification read': () => fetch(`${servers.base}/api/v0/notifications/read`, { method: 'POST', headers: auth }),
    // As the device plane stores one (not through HTTP).
    'access event': async () => {
      await db.query(
        `INSERT INTO access_events (project_id, device_id, lock_number, granted, value, occurred_at) VALUES (1, $1, 1, true, '0A0B', now())`,
        [deviceId],
      );
      return undefined;
    },
  };
  const unrelated = Object.values(kinds);
  const pairs: { name: string; quiet: Figures; busy: Figures; note: string }[] = [];
  const measure = async (name: string, write: (i: number) => Promise<Response | undefined>) => {
    // The same list without writes right before: the machine's load moves from minute to minute.
    const c0 = cpuTimes(servers.pid);
    const quietNow = await load(`${name} (quiet before)`, { url: listUrl, headers: auth });
    const c1 = cpuTimes(servers.pid);
    const before = await cacheCounters(servers, auth);
    const stop = writing(write);
    const f = await load(name, { url: listUrl, headers: auth });
    const w = await stop();
    const c2 = cpuTimes(servers.pid);
    const after = await cacheCounters(servers, auth);
    const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
    const tables = [...after.keys()]
      .filter((k) => k.startsWith('changes:') && delta(k) > 0)
      .map((k) => `${k.slice(8)} ${delta(k)}`)
      .join(', ');
    // The server's CPU per list answer when quiet; what it spent beyond that many answers under writes is the writes'.
    const cpu = (a: { user: number; kernel: number }, b: { user: number; kernel: number }) => b.user + b.kernel - a.user - a.kernel;
    const perRead = cpu(c0, c1) / Math.max(1, quietNow.rps * 8);
    const perWrite = (cpu(c1, c2) - perRead * f.rps * 8) / Math.max(1, w.made);
    pairs.push({
      name,
      quiet: quietNow,
      busy: f,
      note:
        `${w.made} writes (${(w.made / 8).toFixed(1)}/s, ${w.failed} failed); cache ${delta('answers:hit')} hits, ${delta('answers:miss')} misses of which ${delta('answers:shared')} shared a read (callers ${delta('callers:hit')} / ${delta('callers:miss')}); ` +
        `forgot all ${delta('forgotten:write_unheard')} × (write unheard), ${delta('forgotten:feed_lost')} × (feed lost); changes: ${tables || 'none'}; ` +
        `server CPU ${(cpu(c0, c1) / 8).toFixed(2)} s/s quiet, ${(cpu(c1, c2) / 8).toFixed(2)} s/s under writes, ≈ ${(perWrite * 1000).toFixed(1)} ms per write`,
    });
  };
  console.log(`\nload average ${loadAverage()}`);
  try {
    await measure('… 20 unrelated writes/s (mixed)', (i) =>
      (unrelated[i % unrelated.length] as (i: number) => Promise<Response | undefined>)(i),
    );
    for (const [kind, write] of Object.entries(kinds)) await measure(`… 20 × ${kind}/s`, write);
    await measure('… 20 user edits/s (same project)', (i) =>
      fetch(`${servers.base}/api/v0/users/${1 + (i % 100) + 1000}`, {
        method: 'PATCH',
        headers: json,
        body: JSON.stringify({ description: `edit ${i}` }),
      }),
    );
  } finally {
    await db.end();
  }
  const pad = (v: string | number, n: number) => String(v).padStart(n);
  console.log(
    `\n${'the cached users list'.padEnd(38)}${pad('quiet', 8)}${pad('writes', 8)}${pad('ratio', 7)}${pad('p95 q', 7)}${pad('p95 w', 7)}`,
  );
  for (const p of pairs)
    console.log(
      `${p.name.padEnd(38)}${pad(p.quiet.rps, 8)}${pad(p.busy.rps, 8)}${pad((p.busy.rps / p.quiet.rps).toFixed(2), 7)}${pad(p.quiet.p95, 7)}${pad(p.busy.p95, 7)}`,
    );
  console.log(`(req/s of the same cached list 8 s without writes right before, then 8 s with them; first run's quiet figure ${quiet.rps})`);
  for (const p of pairs) console.log(`  ${p.name}: ${p.note}`);
  console.log(`load average ${loadAverage()}`);
}

/** Statements the server sends in 30 s with nothing asked of it. */
async function idleStatements(servers: Servers): Promise<void> {
  // Past what the writes above left to do (webhook deliveries, mails).
  await new Promise((r) => setTimeout(r, 10_000));
  // As long as the longest sleep of an idle worker (the announce worker's 30 s safety net), so that a
  // round it makes once in that time counts for what it costs a second, not for a whole 5 s window or none.
  const seconds = 30;
  const sent = await servers.recordSql(() => new Promise((r) => setTimeout(r, seconds * 1000)));
  const rate = sent.length / seconds;
  console.log(
    `\nidle: ${sent.length} statements in ${seconds} s (${rate.toFixed(1)}/s); target: a few a second → ${rate <= 3 ? 'met' : 'NOT met'}`,
  );
  const byText = new Map<string, number>();
  for (const s of sent) {
    const key = s.text.replace(/\s+/g, ' ').slice(0, 90);
    byText.set(key, (byText.get(key) ?? 0) + 1);
  }
  for (const [text, n] of [...byText].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${String(n).padStart(4)} × ${text}`);
}
