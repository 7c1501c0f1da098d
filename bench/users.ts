// `npm run bench -- users`: 200,000 users in 20,000 groups; the users list of one branch with
// descendants, sorted by name, 20 rows with total, against a bare Fastify route.
import path from 'node:path';
import pg from 'pg';
import { type Figures, freePort, freshDatabase, load, print, ROOT, startProcess, tempDir, waitFor } from './lib.js';
import { seedUsers } from './seed.js';

export async function run(): Promise<void> {
  const url = await freshDatabase('atrium_bench_users');
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
    await seedUsers(url, { projectId: 1, rootGroupId: 1, roleId: 1, groupCount: 20_000, userCount: 200_000 });
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query(`SELECT id FROM groups WHERE parent_id = 1 ORDER BY id LIMIT 1 OFFSET 7`);
    await c.end();
    const branch = rows[0].id as number;
    const login = await (
      await fetch(`${base}/api/v0/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'admin', password: 'bench-password' }),
      })
    ).json();
    const auth = { authorization: `Bearer ${login.data.sessions[0].token}` };
    const filters = encodeURIComponent(
      JSON.stringify({ match: 'match_all', rules: [{ field: 'branch', operator: 'equals', value: branch }] }),
    );
    const listUrl = `${base}/api/v0/users?size=20&sort=name&filters=${filters}`;
    const probe = await fetch(listUrl, { headers: auth });
    const baseline = await load('bare Fastify route (baseline)', { url: `http://127.0.0.1:${barePort}/bare` });
    const out: Figures[] = [];
    if (probe.ok) {
      const body = await probe.json();
      console.log(`branch ${branch}: ${body.meta.total} users`);
      out.push(await load('GET /users (branch, name, 20)', { url: listUrl, headers: auth }));
    } else {
      console.log(`users list not measured: GET /users answered ${probe.status} ${await probe.text()}`);
    }
    print(out, baseline);
  } finally {
    server.kill('SIGTERM');
    bare.kill('SIGTERM');
  }
}
