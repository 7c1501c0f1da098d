import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../test/factories/user.factory.js';
import { buildTestApp, login, type TestApp } from '../../test/helpers.js';
import { auditEvents } from '../modules/audit/audit.table.js';

/** Every mutating call writes one audit row: who, project, entity, id, action, before/after, ip. */

let t: TestApp;
let adminToken: string;
let seq = 0;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = await login(t.app, t.adminLogin, t.adminPassword);
});
afterAll(() => t?.close());

type Method = 'PUT' | 'PATCH' | 'POST' | 'DELETE';

/** Calls the API from its own address, so the row's ip can be told apart. */
async function call(method: Method, url: string, payload?: object, token = adminToken) {
  const ip = `10.77.${Math.floor(++seq / 250)}.${seq % 250}`;
  const res = await t.app.inject({
    method,
    url: `/api/v0${url}`,
    ...(payload ? { payload } : {}),
    headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': ip },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { data: res.json().data, ip };
}

/** The newest audit row of an entity, checked against who did what from where. */
async function expectAudit(
  entity: string,
  entityId: number,
  action: string,
  ip: string,
  change: { before?: object; after?: object },
  userId = t.project.adminId,
) {
  const [row] = await t.app.database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.entity, entity), eq(auditEvents.entityId, String(entityId))))
    .orderBy(desc(auditEvents.id))
    .limit(1);
  expect(row).toMatchObject({ userId, projectId: t.project.projectId, action, ip, requestId: expect.any(String) });
  expect(row?.before ?? undefined).toEqual(change.before && expect.objectContaining(change.before));
  expect(row?.after ?? undefined).toEqual(change.after && expect.objectContaining(change.after));
  return row;
}

describe('audit rows', () => {
  it('users: create, update, password and delete', async () => {
    const created = await call('PUT', '/users', {
      login: 'audited',
      name: 'Audited',
      domains: [t.project.rootGroupId],
      password: 'secret-pass-1',
      send_registration_link: false,
    });
    const id = created.data.id as number;
    const row = await expectAudit('user', id, 'create', created.ip, { after: { login: 'audited' } });
    expect(JSON.stringify(row)).not.toContain('secret-pass-1');
    const updated = await call('PATCH', `/users/${id}`, { name: 'Renamed' });
    await expectAudit('user', id, 'update', updated.ip, { before: { name: 'Audited' }, after: { name: 'Renamed' } });
    const password = await call('POST', `/users/${id}/password`, { new_password: 'other-pass-1' });
    expect(JSON.stringify(await expectAudit('user', id, 'password', password.ip, {}))).not.toContain('other-pass-1');
    const deleted = await call('DELETE', `/users/${id}`);
    await expectAudit('user', id, 'delete', deleted.ip, { before: { name: 'Renamed' } });
  });

  it('roles: create, update and delete', async () => {
    const created = await call('PUT', '/roles', { name: 'Audited role', permissions: ['can_view_users'] });
    const id = created.data.id as number;
    await expectAudit('role', id, 'create', created.ip, { after: { name: 'Audited role', permissions: ['can_view_users'] } });
    const updated = await call('PATCH', `/roles/${id}`, { name: 'Renamed role' });
    await expectAudit('role', id, 'update', updated.ip, { before: { name: 'Audited role' }, after: { name: 'Renamed role' } });
    const deleted = await call('DELETE', `/roles/${id}`);
    await expectAudit('role', id, 'delete', deleted.ip, { before: { name: 'Renamed role' } });
  });

  it('groups: create, update and delete', async () => {
    const created = await call('PUT', '/domains', { name: 'Audited group', parent_id: t.project.rootGroupId });
    const id = created.data.id as number;
    await expectAudit('group', id, 'create', created.ip, { after: { name: 'Audited group' } });
    const updated = await call('PATCH', `/domains/${id}`, { name: 'Renamed group' });
    await expectAudit('group', id, 'update', updated.ip, { before: { name: 'Audited group' }, after: { name: 'Renamed group' } });
    const deleted = await call('DELETE', `/domains/${id}`);
    await expectAudit('group', id, 'delete', deleted.ip, { before: { name: 'Renamed group' } });
  });

  it('domain types: create, update and delete', async () => {
    const created = await call('PUT', '/domain-types', { type: 77, name: 'Audited type' });
    const id = created.data.id as number;
    await expectAudit('domain_type', id, 'create', created.ip, { after: { name: 'Audited type' } });
    const updated = await call('PATCH', `/domain-types/${id}`, { name: 'Renamed type' });
    await expectAudit('domain_type', id, 'update', updated.ip, { before: { name: 'Audited type' }, after: { name: 'Renamed type' } });
    const deleted = await call('DELETE', `/domain-types/${id}`);
    await expectAudit('domain_type', id, 'delete', deleted.ip, { before: { name: 'Renamed type' } });
  });

  describe('a user on their own account', () => {
    async function member() {
      const roleId = await makeRole(t.app.database.db, t.project.projectId, []);
      const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
      return { ...u, token: await login(t.app, u.login, u.password) };
    }

    it('password change, without the passwords', async () => {
      const m = await member();
      const res = await call('POST', '/profile/password', { old: m.password, new: 'changed-pass-1' }, m.token);
      const row = await expectAudit('profile', m.id, 'password', res.ip, {}, m.id);
      expect(JSON.stringify(row)).not.toMatch(/changed-pass-1|user-password-1/);
    });

    it('notification settings', async () => {
      const m = await member();
      const res = await call('POST', '/notifications/settings', { acs: false }, m.token);
      await expectAudit('notification_settings', m.id, 'update', res.ip, { after: { acs: false } }, m.id);
    });

    it('account deletion, with what was deleted', async () => {
      const m = await member();
      const res = await call('DELETE', '/account', undefined, m.token);
      await expectAudit('user', m.id, 'delete', res.ip, { before: { name: m.login } }, m.id);
    });
  });
});
