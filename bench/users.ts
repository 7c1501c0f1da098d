// `npm run bench -- users`: 200,000 users in 20,000 groups; the users list of one branch with
// descendants, sorted by name, 20 rows with total, against a bare Fastify route.
import ExcelJS from 'exceljs';
import pg from 'pg';
import { type Figures, load, print, startServers } from './lib.js';
import { seedUsers } from './seed.js';

export async function run(): Promise<void> {
  const servers = await startServers('atrium_bench_users');
  const { url, base } = servers;
  try {
    await seedUsers(url, { projectId: 1, rootGroupId: 1, roleId: 1, groupCount: 20_000, userCount: 200_000 });
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query(`SELECT id FROM groups WHERE parent_id = 1 ORDER BY id`);
    await c.end();
    const buildings = rows.map((r) => r.id as number);
    const branch = buildings[7] as number;
    const auth = await servers.auth();
    const listUrl = `${base}/api/v0/users?size=20&sort=name&branch=${branch}`;
    const probe = await fetch(listUrl, { headers: auth });
    const baseline = await load('bare Fastify route (baseline)', { url: servers.bareUrl });
    const out: Figures[] = [];
    if (probe.ok) {
      const body = await probe.json();
      console.log(`branch ${branch}: ${body.meta.total} users`);
      out.push(await load('GET /users (branch, name, 20)', { url: listUrl, headers: auth }));
      out.push(await load('GET /users … at 1 connection', { url: listUrl, headers: auth, connections: 1 }));
      // The calls above repeat one query, answered from the read cache after the first; these ask a
      // new one each time (every building × 55 pages), so they measure the database path itself.
      const fresh = freshBranchPages(buildings);
      out.push(await load('GET /users … each query new', { url: listUrl, headers: auth, requests: [{ setupRequest: fresh }] }));
      out.push(
        await load('GET /users … each new, 1 conn', { url: listUrl, headers: auth, connections: 1, requests: [{ setupRequest: fresh }] }),
      );
    } else {
      console.log(`users list not measured: GET /users answered ${probe.status} ${await probe.text()}`);
    }
    print(out, baseline);
    const [list, single, fresh, freshSingle] = out;
    const verdict = (f: Figures | undefined, what: string) =>
      f && console.log(`  ${what.padEnd(40)} p95 ${f.p95} ms (${f.p95 < 25 ? 'met' : 'NOT met'})`);
    console.log('target: branch list p95 < 25 ms');
    verdict(list, 'repeated, 8 connections');
    verdict(single, 'repeated, 1 connection');
    verdict(fresh, 'new query each time, 8 connections');
    verdict(freshSingle, 'new query each time, 1 connection');
    await importStructure(base, auth, url);
  } finally {
    servers.stop();
  }
}

/** Rewrites each request to a branch page not asked before in this run. */
function freshBranchPages(buildings: readonly number[]) {
  let asked = 0;
  return (req: { path?: string }) => {
    const i = asked++;
    const building = buildings[Math.floor(i / 55) % buildings.length];
    return { ...req, path: `/api/v0/users?page=${1 + (i % 55)}&size=20&sort=name&branch=${building}` };
  };
}

const IMPORT_ROWS = 10_000;

/** Structure import of 10,000 rows: every row must end up created, attached or reported as an error. */
async function importStructure(base: string, auth: Record<string, string>, url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const floors = (await c.query(`SELECT id FROM groups WHERE cardinality(path) = 4 ORDER BY id LIMIT 500`)).rows.map((r) => r.id as number);
  const root = (await c.query(`SELECT id FROM groups WHERE parent_id IS NULL ORDER BY id LIMIT 1`)).rows[0].id as number;
  await c.end();
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('structure');
  ws.addRow([
    'Object ID',
    'Object',
    'Object type',
    'Logical address',
    'User ID',
    'Login',
    'Name',
    'E-mail',
    'Phone',
    'Licence count',
    'Licence from',
    'Licence to',
  ]);
  for (let i = 0; i < IMPORT_ROWS; i++) {
    // Every 100th row has a broken e-mail (an error row); every 50th names an existing user (attached).
    const existing = i % 50 === 0;
    const email = i % 100 === 1 ? 'not-an-email' : `imported${i}@example.org`;
    ws.addRow([
      floors[i % floors.length],
      null,
      null,
      null,
      null,
      existing ? `user${i + 1}` : `imported${i}`,
      `Imported ${i}`,
      existing ? null : email,
      null,
      null,
      null,
      null,
    ]);
  }
  const file = Buffer.from(await wb.xlsx.writeBuffer());
  const form = new FormData();
  form.append('role_id', '1');
  form.append('file', new Blob([file]), 'structure.xlsx');
  const t0 = Date.now();
  const res = await fetch(`${base}/api/v0/domains/${root}/import/structure?tz_offset=0`, { method: 'POST', headers: auth, body: form });
  const seconds = (Date.now() - t0) / 1000;
  if (!res.ok) {
    console.log(`structure import failed: ${res.status} ${await res.text()}`);
    return;
  }
  const body = (await res.json()).data as { users_created: number; users_attached: number; errors: { row: number }[] };
  const errorRows = new Set(body.errors.map((e) => e.row)).size;
  const accounted = body.users_created + body.users_attached + errorRows;
  console.log(
    `\nstructure import of ${IMPORT_ROWS} rows: ${seconds.toFixed(1)} s — created ${body.users_created}, attached ${body.users_attached}, errors on ${errorRows} rows; ` +
      `accounted ${accounted}/${IMPORT_ROWS} (${accounted === IMPORT_ROWS ? 'every row' : 'ROWS MISSING'}); target < 20 s: ${seconds < 20 ? 'met' : 'NOT met'}`,
  );
}
