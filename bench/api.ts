// `npm run bench -- api`: the server on PostgreSQL with 200,000 users across 2,000 groups; login,
// GET /profile and a filtered, sorted users list of 20 rows with total, against a bare Fastify route.
import { type Figures, LOGIN_BODY, load, print, startServers } from './lib.js';
import { seedUsers } from './seed.js';

const USERS = Number(process.env.BENCH_USERS ?? 200_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2_000);

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
      rows.push(await load('GET /users (filtered, sorted, 20)', { url: listUrl, headers: auth }));
      // The same call without queueing behind other connections: the latency of one operator's click.
      rows.push(await load('GET /users … at 1 connection', { url: listUrl, headers: auth, connections: 1 }));
    } else {
      console.log(`users list not measured: GET /users answered ${probe.status}`);
    }
    print(rows, baseline);
    const list = rows.find((r) => r.name.startsWith('GET /users ('));
    const single = rows.find((r) => r.name.includes('1 connection'));
    if (list) {
      console.log(`\ntarget: users list p95 < 25 ms → ${list.p95} ms at 8 connections (${list.p95 < 25 ? 'met' : 'NOT met'});`);
      console.log(
        `        ≥ 1/10 of bare throughput → ${(list.rps / baseline.rps).toFixed(3)} (${list.rps / baseline.rps >= 0.1 ? 'met' : 'NOT met'})`,
      );
    }
  } finally {
    servers.stop();
  }
}
