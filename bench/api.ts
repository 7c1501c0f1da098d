// `npm run bench -- api`: the server on PostgreSQL with 200,000 users across 2,000 groups; login,
// GET /profile and a filtered, sorted users list of 20 rows with total, against a bare Fastify route.
import { type Figures, LOGIN_BODY, load, print, startServers } from './lib.js';
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
  const servers = await startServers('atrium_bench_api');
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
      rows.push(await load('GET /users … each query new', { url: listUrl, headers: auth, requests: [{ setupRequest: varyingList() }] }));
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
    const list = rows.find((r) => r.name.startsWith('GET /users ('));
    if (list) {
      console.log(`\ntarget: users list p95 < 25 ms → ${list.p95} ms at 8 connections (${list.p95 < 25 ? 'met' : 'NOT met'});`);
      console.log(
        `        ≥ 1/10 of bare throughput → ${(list.rps / baseline.rps).toFixed(3)} (${list.rps / baseline.rps >= 0.1 ? 'met' : 'NOT met'})`,
      );
      const fresh = rows.find((r) => r.name.endsWith('each query new'));
      if (fresh) {
        console.log(
          `        a new query each time (database path, no cache): p95 ${fresh.p95} ms, ${(fresh.rps / baseline.rps).toFixed(3)} of bare throughput`,
        );
      }
    }
  } finally {
    servers.stop();
  }
}
