import { eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, login, type TestApp } from '../../../test/helpers.js';
import { type ScopeTree, scopeTree } from '../users/scope.fixture.js';
import { users } from '../users/users.table.js';

let t: TestApp;
let tree: ScopeTree;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
  token = await login(t.app, t.adminLogin, t.adminPassword);
});
afterAll(() => t.close());

const HEADER = [
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
];

async function xlsx(rows: unknown[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('structure');
  ws.addRow(HEADER);
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

function upload(groupId: number, file: Buffer | null, fields: Record<string, string> = {}, query = '', auth: string | null = token) {
  const boundary = '----structure';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      file,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return t.app.inject({
    method: 'POST',
    url: `/api/v0/domains/${groupId}/import/structure${query}`,
    payload: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
  });
}

describe('POST /domains/:id/import/structure', () => {
  it('creates and attaches users and reports every bad row with the spec message', async () => {
    const role = await makeRole(t.app.database.db, t.project.projectId, ['can_view_users']);
    const existing = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.B], login: 'known' });
    const { A, A1, A1a, B } = tree.groups;
    const file = await xlsx([
      [A1, 'A / A1', null, null, null, 'imp.one', 'Imp One', 'one@example.com', '+79990000001', 2, '2026-01-01', '2026-12-31 23:59'],
      [A1a, null, null, null, null, 'IMP.ONE'],
      [A1a, null, null, null, existing.id],
      [A, null, null, null, null, 'known'],
      ['abc', null, null, null, null, 'bad.id'],
      [B, null, null, null, null, 'outside'],
      [A1, null, null, null, tree.other.userId],
      [A1, null, null, null, null, 'bad.mail', null, 'not-mail'],
      [A1, null, null, null, null, 'bad.count', null, null, null, 'many'],
      [A1, null, null, null, null, 'bad.period', null, null, null, 1, '2026-02-30', '2026-03-01'],
      [A1, null, null, null, null, null, 'No login'],
      [A1, null, null, null, null, 'dup.mail', null, 'ONE@example.com'],
    ]);
    // The project speaks Russian (general settings): so do the accounts an import makes.
    await t.app.database.db.execute(
      sql`UPDATE projects SET settings = settings || '{"locale":"ru"}'::jsonb WHERE id = ${t.project.projectId}`,
    );
    const res = await upload(A, file, { role_id: String(role) }, '?tz_offset=180');
    await t.app.database.db.execute(sql`UPDATE projects SET settings = settings - 'locale' WHERE id = ${t.project.projectId}`);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ users_created: 1, users_attached: 3 });
    const [made] = await t.app.database.db.select().from(users).where(eq(users.login, 'imp.one'));
    expect(made?.locale).toBe('ru');
    expect(data.errors.map((e: { row: number; message: string }) => [e.row, e.message])).toEqual([
      [6, 'cannot parse id'],
      [7, 'object not allowed'],
      [8, 'user not allowed'],
      [9, 'cannot parse e-mail'],
      [10, 'cannot parse license count'],
      [11, 'cannot parse license period'],
      [12, 'the username field is required'],
      [13, 'e-mail already used'],
    ]);
    const found = await tree.admin.get('/users?search=imp.one');
    const created = found.json().data[0];
    expect(created).toMatchObject({ login: 'imp.one', role, domains: [A1, A1a], email: 'one@example.com' });
    // 2026-01-01 00:00 at UTC+3 is 2025-12-31 21:00 UTC.
    // The licence columns are a mobile-app licence for that many apps within that period.
    expect(created.license_info.mobile_app).toMatchObject({
      is_enabled: true,
      license_count: 2,
      period: { from: Date.UTC(2025, 11, 31, 21) / 1000, to: Date.UTC(2026, 11, 31, 20, 59) / 1000 },
    });
    expect((await tree.admin.get(`/users/${existing.id}`)).json().data.domains).toEqual([A, B, A1a].sort((x, y) => x - y));
  });

  it('gives a created user without licence columns the basic licence of the general settings, within the project’s count', async () => {
    const admin = await tree.admin.patch('/settings/general', { license_settings: { basic_license: { period: 30, qty: 3 } } });
    expect(admin.statusCode, admin.body).toBe(200);
    try {
      const res = await upload(tree.groups.A, await xlsx([[tree.groups.A1, null, null, null, null, 'basic.imp']]));
      expect(res.json().data).toMatchObject({ users_created: 1 });
      const [made] = await t.app.database.db.select().from(users).where(eq(users.login, 'basic.imp'));
      const mobile = (
        made?.licenseInfo as { mobile_app?: { is_enabled: boolean; license_count: number; period: { from: number; to: number } } }
      )?.mobile_app;
      expect(mobile).toMatchObject({ is_enabled: true, license_count: 3 });
      expect((mobile?.period.to ?? 0) - (mobile?.period.from ?? 0)).toBe(30 * 86_400);
    } finally {
      await tree.admin.patch('/settings/general', { license_settings: { basic_license: { period: null, qty: null } } });
    }
  });

  it('accounts for every row of a 10,000-row file', { timeout: 120_000 }, async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => [i % 7 === 6 ? 'x' : tree.groups.A1a, null, null, null, null, `bulk-${i}`]);
    const file = await xlsx(rows);
    const started = Date.now();
    const res = await upload(tree.groups.A, file);
    const data = res.json().data;
    expect(res.statusCode).toBe(200);
    expect(data.users_created + data.users_attached + data.errors_total).toBe(10_000);
    expect(data.errors_total).toBe(Math.floor(10_000 / 7));
    // The answer stays short: the first 100 errors, in row order, and the count.
    expect(data.errors).toHaveLength(100);
    expect(data.errors[0].row).toBe(8);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('refuses roles the caller may not assign, files that are not xlsx, and missing files', async () => {
    const actor = await tree.actor(['can_create_users', 'can_view_descendant_users', 'can_edit_descendant_users'], ['A']);
    const foreign = await makeRole(t.app.database.db, t.project.projectId, []);
    const file = await xlsx([[tree.groups.A1, null, null, null, null, 'r.one']]);
    expect((await upload(tree.groups.A, file, { role_id: String(foreign) }, '', actor.token)).statusCode).toBe(400);
    expect((await upload(tree.groups.A, file, { role_id: String(tree.other.roleId) })).json().message).toBe('invalid related entity sent');
    expect((await upload(tree.groups.A, Buffer.from('not a zip'))).json().message).toBe('invalid file');
    expect((await upload(tree.groups.A, null)).json().message).toBe('wrong file body');
    expect((await upload(tree.groups.A, file, { role_id: 'abc' })).statusCode).toBe(400);
    expect((await upload(tree.groups.A, file, {}, '?tz_offset=5000')).statusCode).toBe(400);
  });

  it('answers 401, 403 and 404', async () => {
    const file = await xlsx([]);
    expect((await upload(tree.groups.A, file, {}, '', null)).statusCode).toBe(401);
    expect((await upload(tree.other.groupId, file)).statusCode).toBe(404);
    const none = await tree.actor(['can_view_all_users'], ['A']);
    expect((await upload(tree.groups.A, file, {}, '', none.token)).statusCode).toBe(403);
  });
});

describe('GET /domains/:id/export/structure', () => {
  it('streams the structure with users as xlsx, readable by the import', async () => {
    const u = await makeUser(t.app.database.db, {
      projectId: t.project.projectId,
      groupIds: [tree.groups.B1],
      login: 'exported',
      email: 'exp@example.com',
    });
    const res = await tree.admin.get(`/domains/${tree.groups.B}/export/structure?tz_offset=60`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const rows = wb.worksheets[0]!.getSheetValues().filter(Boolean) as unknown[][];
    expect(rows[0]!.slice(1)).toEqual(HEADER);
    const exported = rows.find((r) => r[6] === 'exported');
    expect(exported?.slice(1, 9)).toEqual([
      tree.groups.B1,
      'Test project / B / B1',
      undefined,
      undefined,
      u.id,
      'exported',
      'exported',
      'exp@example.com',
    ]);
    expect(rows.some((r) => r[1] === tree.groups.A)).toBe(false);
  });

  it('filters by domain type and answers 400, 401, 403 and 404', async () => {
    const types = (await tree.admin.get('/domain-types')).json().data as { id: number; type: number }[];
    const floor = types.find((x) => x.type === 4)!.id;
    const res = await tree.admin.get(`/domains/${tree.groups.B}/export/structure?domain_type=${floor}`);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    expect(wb.worksheets[0]!.rowCount).toBe(1);
    expect((await tree.admin.get(`/domains/${tree.groups.B}/export/structure?domain_type=x`)).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: `/api/v0/domains/${tree.groups.B}/export/structure` })).statusCode).toBe(401);
    expect((await tree.admin.get(`/domains/${tree.other.groupId}/export/structure`)).statusCode).toBe(404);
    const member = await tree.actor([], ['B']);
    expect((await member.api.get(`/domains/${tree.groups.B}/export/structure`)).statusCode).toBe(403);
  });
});

describe('issue 9: bombs, bounded answers and the export round trip', () => {
  it('answers a spreadsheet bomb, a truncated archive and XML entities with 400, never 500', async () => {
    const huge = new ExcelJS.Workbook();
    huge.addWorksheet('structure').addRow(['x'.repeat(17 * 1024 * 1024)]);
    const bomb = Buffer.from(await huge.xlsx.writeBuffer());
    const ok = await xlsx([[tree.groups.A1, null, null, null, null, 'cut.one']]);
    for (const file of [bomb, ok.subarray(0, ok.length - 40)]) {
      const res = await upload(tree.groups.A, file);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('invalid file');
    }
  });

  it('answers a file of 100,000 bad rows with the first 100 errors and the count', { timeout: 180_000 }, async () => {
    const stream = new (await import('node:stream')).PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false, useStyles: false });
    const ws = wb.addWorksheet('structure');
    ws.addRow(HEADER).commit();
    for (let i = 0; i < 100_000; i++) ws.addRow(['not-an-id', null, null, null, null, `bad-${i}`]).commit();
    ws.commit();
    await wb.commit();
    const res = await upload(tree.groups.A, Buffer.concat(chunks));
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.errors_total).toBe(100_000);
    expect(data.errors).toHaveLength(100);
    expect(res.body.length).toBeLessThan(20_000);
  });

  it('imports its own export back with no error and no change, also re-saved by another writer', async () => {
    const building = await makeGroup(t.app.database.db, t.project.projectId, tree.groups.B, 'Round building');
    const floor = await makeGroup(t.app.database.db, t.project.projectId, building, 'Round floor');
    await makeUser(t.app.database.db, {
      projectId: t.project.projectId,
      groupIds: [floor],
      login: 'round.trip',
      email: 'round@trip.example',
    });
    const before = (await tree.admin.get('/users?size=1000')).json().meta.total;
    const exported = await tree.admin.get(`/domains/${building}/export/structure`);
    expect(exported.statusCode).toBe(200);
    // The same rows written again by another writer: shared strings, styles, numbers as numbers.
    const read = new ExcelJS.Workbook();
    await read.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const resaved = new ExcelJS.Workbook();
    const out = resaved.addWorksheet('Sheet1');
    read.worksheets[0]?.eachRow({ includeEmpty: false }, (row) => {
      const values = (row.values as unknown[]).slice(1).map((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v));
      out.addRow(values).font = { name: 'Arial' };
    });
    out.addRow([]);
    const again = Buffer.from(await resaved.xlsx.writeBuffer());
    for (const file of [exported.rawPayload, again]) {
      const res = await upload(building, file);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ errors: [], errors_total: 0, users_created: 0 });
    }
    expect((await tree.admin.get('/users?size=1000')).json().meta.total).toBe(before);
  });
});

describe('issue 9: the import acts on users under the same rules', () => {
  it('does not place an Administrator for a group administrator with fewer permissions', async () => {
    const actor = await tree.actor(['can_create_users', 'can_view_descendant_users', 'can_edit_descendant_users'], ['A']);
    const administrator = await makeUser(t.app.database.db, {
      projectId: t.project.projectId,
      roleId: t.project.roleId,
      groupIds: [tree.groups.A1],
      login: 'import.admin',
    });
    const file = await xlsx([[tree.groups.A1a, null, null, null, administrator.id]]);
    const res = await upload(tree.groups.A, file, {}, '', actor.token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ users_attached: 0, errors_total: 1 });
    expect(res.json().data.errors[0]).toMatchObject({ code: 'import_user_not_allowed', field: 'user_id' });
  });
});
