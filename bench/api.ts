// `npm run bench -- api`: the server on PostgreSQL with 200,000 users across 2,000 groups; login,
// GET /profile and a filtered, sorted users list of 20 rows with total, against a bare Fastify route.
import path from 'node:path';
import { type Figures, freePort, freshDatabase, load, print, ROOT, startProcess, tempDir, waitFor } from './lib.js';
import { seedUsers } from './seed.js';

const USERS = Number(process.env.BENCH_USERS ?? 200_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2_000);

export async function run(): Promise<void> {
  const url = await freshDatabase('atrium_bench_api');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startProcess(path.join(ROOT, 'apps/server/src/main.ts'), {
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: tempDir(),
    MQTT_URL: 'mqtt://127.0.0.1:1883',
    ADMIN_LOGIN: 'admin',
    ADMIN_PASSWORD: 'bench-password',
    LOG_LEVEL: 'error',
  });
  const barePort = await freePort();
  const bare = startProcess(path.join(ROOT, 'bench/bare-server.ts'), { PORT: String(barePort) });
  try {
    await waitFor(`${base}/api/v0/info`);
    await waitFor(`http://127.0.0.1:${barePort}/bare`);
    console.log(`seeding ${USERS} users across ${GROUPS} groups…`);
    const t0 = Date.now();
    const seeded = await seedUsers(url, { projectId: 1, rootGroupId: 1, roleId: 1, groupCount: GROUPS, userCount: USERS });
    console.log(`seeded ${seeded.groups} groups in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const loginBody = JSON.stringify({ login: 'admin', password: 'bench-password' });
    const session = await (
      await fetch(`${base}/api/v0/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody })
    ).json();
    const token: string = session.data.sessions[0].token;
    const auth = { authorization: `Bearer ${token}` };
    const filters = encodeURIComponent(
      JSON.stringify({ match: 'match_all', rules: [{ field: 'name', operator: 'begins_with', value: 'Vera' }] }),
    );
    const listUrl = `${base}/api/v0/users?page=3&size=20&sort=name&filters=${filters}`;
    const probe = await fetch(listUrl, { headers: auth });
    const listBody = probe.ok ? await probe.json() : undefined;

    const baseline = await load('bare Fastify route (baseline)', { url: `http://127.0.0.1:${barePort}/bare` });
    const rows: Figures[] = [];
    rows.push(
      await load('POST /login (argon2id)', {
        url: `${base}/api/v0/login`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: loginBody,
        connections: 2,
      }),
    );
    rows.push(await load('GET /profile', { url: `${base}/api/v0/profile`, headers: auth }));
    if (listBody) {
      console.log(`users list: ${listBody.data.length} rows of ${listBody.meta.total} matching`);
      rows.push(await load('GET /users (filtered, sorted, 20)', { url: listUrl, headers: auth }));
    } else {
      console.log(`users list not measured: GET /users answered ${probe.status}`);
    }
    print(rows, baseline);
    const list = rows.find((r) => r.name.startsWith('GET /users'));
    if (list) {
      console.log(`\ntarget: users list p95 < 25 ms → ${list.p95} ms (${list.p95 < 25 ? 'met' : 'NOT met'});`);
      console.log(
        `        ≥ 1/10 of bare throughput → ${(list.rps / baseline.rps).toFixed(3)} (${list.rps / baseline.rps >= 0.1 ? 'met' : 'NOT met'})`,
      );
    }
  } finally {
    server.kill('SIGTERM');
    bare.kill('SIGTERM');
  }
}
