// The identifiers spreadsheet: export, the two-step import with its duplicates (skip, replace,
// cancel), row errors, and who may continue an import.
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t.close());

function multipart(data: Buffer) {
  const boundary = '----atrium-identifiers-test';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="ids.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function workbook(rows: unknown[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('identifiers');
  for (const r of rows) sheet.addRow(r);
  return Buffer.from(await book.xlsx.writeBuffer());
}

const HEADER = [
  'name',
  'type',
  'value',
  'owner_login',
  'is_active',
  'period_restrict_from',
  'period_restrict_to',
  'passes_restrict_max_count',
  'description',
];

async function upload(api: typeof admin, rows: unknown[][]) {
  const { payload, headers } = multipart(await workbook(rows));
  return api.raw('POST', '/identifiers/import', payload, headers);
}

describe('identifiers import and export', () => {
  it('imports at once without duplicates, reporting bad rows, which are not written', async () => {
    const owner = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [t.project.rootGroupId],
    });
    const res = await upload(admin, [
      HEADER,
      ['Card 1', 'card', '0a:0b:0c', owner.login, 'yes', '', '', '', 'first'],
      ['Code', 'access_code', '123456', '', '0', '2026-01-01T00:00:00Z', '2026-12-31T00:00:00Z', '5', ''],
      ['Bad type', 'badge', 'AA', '', '', '', '', '', ''],
      ['Bad value', 'card', 'XYZ', '', '', '', '', '', ''],
      ['Twice', 'card', '0A0B0C', '', '', '', '', '', ''],
      ['Nobody', 'card', 'FF01', 'no-such-login', '', '', '', '', ''],
      ['Backwards', 'qr', 'QR-1', '', '', '2026-02-01T00:00:00Z', '2026-01-01T00:00:00Z', '', ''],
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json().data;
    expect(r).toMatchObject({ status: 'imported', rows: 7, created: 2, duplicates_total: 0, errors_total: 5 });
    expect(r.errors.map((e: { row: number; field: string }) => [e.row, e.field])).toEqual([
      [4, 'type'],
      [5, 'value'],
      [6, 'value'],
      [8, 'period_restrict_to'],
      [7, 'owner_login'],
    ]);
    const card = (await admin.get('/identifiers?search=0A0B0C')).json().data[0];
    expect(card).toMatchObject({ name: 'Card 1', type: 'card', value: '0A0B0C', owner_id: owner.id, is_active: true });
    const code = (await admin.get('/identifiers?search=123456')).json().data[0];
    expect(code).toMatchObject({
      is_active: false,
      passes_restrict_active: true,
      passes_restrict_max_count: 5,
      period_restrict_active: true,
    });
    expect((await admin.get('/identifiers?search=FF01')).json().data).toEqual([]);
  });

  it('stops at duplicates until told to skip, replace or cancel; an export imports back unchanged', async () => {
    await admin.put('/identifiers', { name: 'Old name', value: 'D00D01' });
    const rows = [HEADER, ['New name', 'card', 'D00D01', '', '', '', '', '', ''], ['Fresh', 'card', 'D00D02', '', '', '', '', '', '']];
    const attempt = (await upload(admin, rows)).json().data;
    expect(attempt).toMatchObject({ status: 'duplicates', rows: 2, duplicates_total: 1, created: 0 });
    expect(attempt.duplicates[0]).toMatchObject({ row: 2, type: 'card', value: 'D00D01' });
    expect((await admin.get('/identifiers?search=D00D02')).json().data).toEqual([]);
    // Someone else cannot continue it, nor reach a file by a path.
    const role = await makeRole(t.database.db, t.project.projectId, ['can_import_identifiers', 'can_create_identifiers']);
    const other = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [t.project.rootGroupId] });
    const them = client(t.app, await login(t.app, other.login, other.password));
    expect((await them.post('/identifiers/import/continue', { action: 'replace', filepath: attempt.filepath })).statusCode).toBe(404);
    expect((await admin.post('/identifiers/import/continue', { action: 'skip', filepath: '../../etc/passwd' })).statusCode).toBe(400);
    // Skip: the fresh one is added, the duplicate left as it was.
    const skipped = (await admin.post('/identifiers/import/continue', { action: 'skip', filepath: attempt.filepath })).json().data;
    expect(skipped).toMatchObject({ status: 'imported', created: 1, skipped: 1, updated: 0 });
    expect((await admin.get('/identifiers?search=D00D01')).json().data[0].name).toBe('Old name');
    // The pending file is gone once used.
    expect((await admin.post('/identifiers/import/continue', { action: 'skip', filepath: attempt.filepath })).statusCode).toBe(404);
    // Replace.
    const again = (await upload(admin, rows)).json().data;
    expect(again.duplicates_total).toBe(2);
    const replaced = (await admin.post('/identifiers/import/continue', { action: 'replace', filepath: again.filepath })).json().data;
    expect(replaced).toMatchObject({ created: 0, updated: 2 });
    expect((await admin.get('/identifiers?search=D00D01')).json().data[0].name).toBe('New name');
    // Cancel writes nothing.
    const third = (await upload(admin, [HEADER, ['Changed', 'card', 'D00D01', '', '', '', '', '', '']])).json().data;
    expect((await admin.post('/identifiers/import/continue', { action: 'cancel', filepath: third.filepath })).json().data.status).toBe(
      'cancelled',
    );
    expect((await admin.get('/identifiers?search=D00D01')).json().data[0].name).toBe('New name');

    // Export, then import the export: every row is a duplicate; replacing changes nothing.
    const before = (await admin.get('/identifiers?size=100&sort=id')).json().data;
    const xlsx = await admin.raw('GET', '/identifiers/export?export_format=xlsx');
    expect(xlsx.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    expect((book.worksheets[0]!.getRow(1).values as unknown[]).slice(1)).toEqual(HEADER);
    const { payload, headers } = multipart(xlsx.rawPayload);
    const round = (await admin.raw('POST', '/identifiers/import', payload, headers)).json().data;
    expect(round).toMatchObject({ status: 'duplicates', errors_total: 0, duplicates_total: before.length });
    expect((await admin.post('/identifiers/import/continue', { action: 'replace', filepath: round.filepath })).json().data.updated).toBe(
      before.length,
    );
    const after = (await admin.get('/identifiers?size=100&sort=id')).json().data;
    const strip = (list: Record<string, unknown>[]) => list.map(({ updated_at: _u, ...rest }) => rest);
    expect(strip(after)).toEqual(strip(before));
    const csv = await admin.raw('GET', '/identifiers/export?export_format=csv');
    expect(csv.body.split('\n')[0]).toBe(HEADER.join(','));
  });

  it('imports its own CSV export back, and a semicolon CSV with quoted fields as a spreadsheet saves it', async () => {
    const owner = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [t.project.rootGroupId],
    });
    await admin.put('/identifiers', { name: '=Lobby, "west"', value: 'C5C5C5', owner_id: owner.id, description: 'line one\nline two' });
    await admin.put('/identifiers', {
      name: 'Limited',
      value: 'C5C5C6',
      passes_restrict_active: true,
      passes_restrict_max_count: 3,
      is_active: false,
    });
    const before = (await admin.get('/identifiers?size=1000&sort=id')).json().data;
    const csv = await admin.raw('GET', '/identifiers/export?export_format=csv');
    expect(csv.statusCode).toBe(200);
    const { payload, headers } = multipart(Buffer.from(csv.body));
    const round = await admin.raw('POST', '/identifiers/import', payload, headers);
    expect(round.statusCode, round.body).toBe(200);
    expect(round.json().data).toMatchObject({ status: 'duplicates', errors_total: 0, duplicates_total: before.length });
    const filepath = round.json().data.filepath;
    expect((await admin.post('/identifiers/import/continue', { action: 'replace', filepath })).json().data.updated).toBe(before.length);
    const strip = (list: Record<string, unknown>[]) => list.map(({ updated_at: _u, ...rest }) => rest);
    expect(strip((await admin.get('/identifiers?size=1000&sort=id')).json().data)).toEqual(strip(before));

    // As a spreadsheet in a comma-decimal locale saves it: a BOM, semicolons, CRLF, quotes, an empty line.
    const saved = '\uFEFFname;value;type;description\r\n"Side; door";C5C5D1;card;"say ""hi"""\r\n;;;\r\nGate;C5C5D2;;\r\n';
    const second = multipart(Buffer.from(saved));
    const res = await admin.raw('POST', '/identifiers/import', second.payload, second.headers);
    expect(res.json().data).toMatchObject({ status: 'imported', created: 2, errors_total: 0 });
    const side = (await admin.get('/identifiers?search=C5C5D1')).json().data[0];
    expect([side.name, side.description]).toEqual(['Side; door', 'say "hi"']);
  });

  it('refuses what is not a spreadsheet, and callers without the permissions', async () => {
    const { payload, headers } = multipart(Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01, 0xff, 0xfe]));
    const bad = await admin.raw('POST', '/identifiers/import', payload, headers);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toMatchObject({ field: 'file', message: 'file must be an xlsx or csv spreadsheet' });
    const noValue = await upload(admin, [['name'], ['x']]);
    expect(noValue.statusCode).toBe(400);
    expect(noValue.json().details[0]).toMatchObject({ field: 'file', params: { column: 'value' } });
    const role = await makeRole(t.database.db, t.project.projectId, ['can_create_identifiers']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [t.project.rootGroupId] });
    const them = client(t.app, await login(t.app, u.login, u.password));
    expect((await upload(them, [HEADER, ['x', 'card', 'AB', '', '', '', '', '', '']])).statusCode).toBe(403);
    expect((await them.raw('GET', '/identifiers/export')).statusCode).toBe(403);
  });
});
