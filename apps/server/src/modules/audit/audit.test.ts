import { AUDIT_EXPORT_COLUMNS } from '@atrium/contract';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { recordAudit } from '../../core/audit.js';
import { AuditRepository } from './audit.repository.js';
import { auditEvents } from './audit.table.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t.close());

const q = (rules: { field: string; operator: string; value: unknown }[], extra = '') =>
  `filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules }))}${extra}`;

describe('audit events', () => {
  it('show a renamed group with who, before and after, found by entity, id and request id', async () => {
    const groupId = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'Lobby');
    const renamed = await admin.patch(`/domains/${groupId}`, { name: 'Main lobby' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const requestId = String(renamed.headers['x-request-id']);

    const list = await admin.get(
      `/audit/items?${q([
        { field: 'entity', operator: 'equals', value: 'group' },
        { field: 'entity_id', operator: 'equals', value: String(groupId) },
      ])}`,
    );
    expect(list.statusCode, list.body).toBe(200);
    const [row] = list.json().data;
    expect(row).toMatchObject({
      entity: 'group',
      entity_id: String(groupId),
      action: 'update',
      request_id: requestId,
      user: { id: t.project.adminId, login: t.adminLogin, name: 'Admin' },
      user_id: t.project.adminId,
      after: { name: 'Main lobby' },
    });
    expect(row.before).toMatchObject({ name: 'Lobby' });

    const byRequest = (await admin.get(`/audit/items?${q([{ field: 'request_id', operator: 'equals', value: requestId }])}`)).json();
    expect(byRequest.data.map((e: { id: number }) => e.id)).toEqual([row.id]);
    const one = await admin.get(`/audit/items/${row.id}`);
    expect(one.json().data).toEqual(row);
  });

  it('filter by who and when, sort by time or id, and page', async () => {
    const other = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    // A minute apart (rows written in one instant tie on time, then read in id order).
    const start = Date.now() - 10 * 60_000;
    await t.database.db.insert(auditEvents).values(
      [1, 2, 3].map((n) => ({
        projectId: t.project.projectId,
        userId: other.id,
        entity: 'marker',
        entityId: String(n),
        action: 'create',
        requestId: `req-who-${n}`,
        createdAt: new Date(start + n * 60_000),
      })),
    );
    const mine = (await admin.get(`/audit/items?${q([{ field: 'user_id', operator: 'equals', value: other.id }])}`)).json();
    expect(mine.meta.total).toBe(3);
    // Newest first by default.
    expect(mine.data.map((e: { request_id: string }) => e.request_id)).toEqual(['req-who-3', 'req-who-2', 'req-who-1']);
    expect(mine.data[0].user).toMatchObject({ id: other.id, login: other.login });
    const oldest = (
      await admin.get(`/audit/items?${q([{ field: 'user_id', operator: 'equals', value: other.id }], '&sort=id&size=2&page=1')}`)
    ).json();
    expect(oldest.data.map((e: { request_id: string }) => e.request_id)).toEqual(['req-who-1', 'req-who-2']);
    expect(oldest.meta).toMatchObject({ total: 3, page: 1, size: 2 });

    const future = new Date(Date.now() + 60_000).toISOString();
    const none = (await admin.get(`/audit/items?${q([{ field: 'created_at', operator: 'above', value: future }])}`)).json();
    expect(none.data).toEqual([]);
    const before = (
      await admin.get(
        `/audit/items?${q([
          { field: 'created_at', operator: 'below', value: future },
          { field: 'user_id', operator: 'equals', value: other.id },
        ])}`,
      )
    ).json();
    expect(before.meta.total).toBe(3);
  });

  it('refuse a sort or filter outside the list, and unknown relations', async () => {
    expect((await admin.get('/audit/items?sort=entity')).statusCode).toBe(400);
    expect((await admin.get(`/audit/items?${q([{ field: 'before', operator: 'equals', value: 'x' }])}`)).statusCode).toBe(400);
    expect((await admin.get('/audit/items?with=user')).statusCode).toBe(400);
    expect((await admin.get('/audit/items/download?sort=ip')).statusCode).toBe(400);
  });

  it('need "view audit log": refused without it, the whole project with it', async () => {
    const branch = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const plain = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, ['can_view_all_users', 'can_view_all_domains']),
      groupIds: [branch],
    });
    const api = client(t.app, await login(t.app, plain.login, plain.password));
    const [anyRow] = (await admin.get('/audit/items?size=1')).json().data;
    for (const url of ['/audit/items', `/audit/items/${anyRow.id}`, '/audit/items/download']) {
      const res = await api.get(url);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code).toBe('action_prohibited');
    }

    // An auditor of a small branch still sees the administrator's changes everywhere.
    const auditor = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, ['can_view_audit']),
      groupIds: [branch],
    });
    const aud = client(t.app, await login(t.app, auditor.login, auditor.password));
    const seen = (await aud.get('/audit/items?size=1000')).json();
    expect(seen.meta.total).toBe((await admin.get('/audit/items?size=1')).json().meta.total);
    expect(seen.data.some((e: { user_id: number | null }) => e.user_id === t.project.adminId)).toBe(true);
  });

  it('never show another project’s rows, by list, id or download', async () => {
    const p2 = await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'other-admin',
      adminName: 'Other admin',
      adminPassword: 'other-password-1',
    });
    const other = client(t.app, await login(t.app, 'other-admin', 'other-password-1'));
    const g = await other.put('/domains', { name: 'Foreign', parent_id: p2.rootGroupId });
    expect(g.statusCode, g.body).toBe(200);
    const foreign = (await other.get('/audit/items?size=1')).json().data[0];
    expect(foreign.entity).toBe('group');

    expect((await admin.get(`/audit/items/${foreign.id}`)).statusCode).toBe(404);
    const ids = (await admin.get('/audit/items?size=1000')).json().data.map((e: { id: number }) => e.id);
    expect(ids).not.toContain(foreign.id);
    const csv = (await admin.get(`/audit/items/download?${q([{ field: 'id', operator: 'equals', value: foreign.id }])}`)).body;
    expect(csv.trim().split('\n')).toHaveLength(1);
    // And theirs hold none of ours.
    const theirs = (await other.get('/audit/items?size=1000')).json().data;
    expect(theirs.every((e: { user_id: number | null }) => e.user_id === null || e.user_id === p2.adminId)).toBe(true);
  });

  it('download as csv (before and after as JSON text, secrets masked) and xlsx', async () => {
    const m = await admin.put('/markers', { name: 'Download "me"', color: '#123456', domain_id: t.project.rootGroupId });
    expect(m.statusCode, m.body).toBe(200);
    const id = m.json().data.id;
    const filter = q([
      { field: 'entity', operator: 'equals', value: 'marker' },
      { field: 'request_id', operator: 'equals', value: String(m.headers['x-request-id']) },
    ]);
    const res = await admin.get(`/audit/items/download?${filter}&export_format=csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="audit-events-\d{4}-\d{2}-\d{2}\.csv"/);
    const [header, line, ...rest] = res.body.trim().split('\n');
    expect(header).toBe(AUDIT_EXPORT_COLUMNS.join(','));
    expect(rest).toEqual([]);
    expect(line).toContain(`,${t.adminLogin},Admin,marker,${id},create,`);
    expect(line).toContain('"{""name"":""Download \\""me\\"""",');

    await recordAudit(
      t.database.db,
      { actor: { userId: t.project.adminId, projectId: t.project.projectId }, ip: '127.0.0.1', requestId: 'req-secret' },
      { entity: 'user', entityId: 1, action: 'password', after: { password: 'hunter2', name: 'x' } },
    );
    const secret = (await admin.get(`/audit/items/download?${q([{ field: 'request_id', operator: 'equals', value: 'req-secret' }])}`)).body;
    expect(secret).not.toContain('hunter2');
    expect(secret).toContain('***');

    const xlsx = await admin.raw('GET', `/audit/items/download?${filter}&export_format=xlsx`);
    expect(xlsx.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect(sheet.rowCount).toBe(2);
    expect(sheet.getRow(2).getCell(AUDIT_EXPORT_COLUMNS.indexOf('after') + 1).value).toContain('"name":"Download \\"me\\""');
  });

  it('download pages after one another in any allowed order, each row once', async () => {
    const repo = new AuditRepository(t.database.db);
    const actor = { userId: t.project.adminId, projectId: t.project.projectId };
    for (let n = 0; n < 7; n++)
      await recordAudit(t.database.db, { actor, ip: '127.0.0.1', requestId: `req-page-${n}` }, { entity: 'paging', action: 'x' });
    const filters = { match: 'match_all' as const, rules: [{ field: 'entity', operator: 'equals' as const, value: 'paging' }] };
    for (const sort of [undefined, 'created_at', '-id', 'id', 'created_at,-id']) {
      const paged: number[] = [];
      for await (const page of repo.pages(t.project.projectId, { filters, sort }, 3)) paged.push(...page.map((r) => Number(r.id)));
      const whole = (await admin.get(`/audit/items?${q(filters.rules)}${sort ? `&sort=${sort}` : ''}`))
        .json()
        .data.map((e: { id: number }) => e.id);
      expect(paged, String(sort)).toEqual(whole);
      expect(new Set(paged).size).toBe(7);
    }
  });
});
