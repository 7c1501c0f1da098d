import { APP_CHANGES_TOPIC, PERMISSION_CODES } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, type TestApp } from '../../../test/helpers.js';
import { type ScopeTree, scopeTree } from '../users/scope.fixture.js';

let t: TestApp;
let tree: ScopeTree;
beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
});
afterAll(() => t.close());

const anon = () => client(t.app);

describe('GET /roles', () => {
  it('lists with meta, sort, filters and users_count', async () => {
    await tree.admin.put('/roles', { name: 'Concierge', permissions: ['can_view_users'] });
    const res = await tree.admin.get(
      `/roles?sort=-name&with=users_count&filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'name', operator: 'has', value: 'concier' }] }))}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().meta).toEqual({ total: 1, page: 1, size: 20 });
    expect(res.json().data[0]).toMatchObject({ name: 'Concierge', users_count: 0, created_by_user: { id: t.project.adminId } });
  });

  it.each([
    ['sort=password', 'sort'],
    [
      'filters=%7B%22rules%22%3A%5B%7B%22field%22%3A%22permissions%22%2C%22operator%22%3A%22equals%22%2C%22value%22%3A1%7D%5D%7D',
      'filters.rules.0.field',
    ],
    ['with=users', 'with'],
    ['size=5000', 'querystring.size'],
  ])('answers 400 with field details for %s', async (query, field) => {
    const res = await tree.admin.get(`/roles?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('needs sign-in and a view permission', async () => {
    expect((await anon().get('/roles')).statusCode).toBe(401);
    const actor = await tree.actor([], ['A']);
    expect((await actor.api.get('/roles')).statusCode).toBe(403);
  });

  it('never lists another project’s roles', async () => {
    const ids = (await tree.admin.get('/roles?size=1000')).json().data.map((r: { id: number }) => r.id);
    expect(ids).not.toContain(tree.other.roleId);
    expect((await tree.admin.get(`/roles/${tree.other.roleId}`)).statusCode).toBe(404);
  });
});

describe('GET /roles/:id', () => {
  it('answers the built-in role with every permission', async () => {
    const res = await tree.admin.get(`/roles/${t.project.roleId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ is_builtin: true, permissions: [...PERMISSION_CODES] });
  });
  it('answers 400 for a bad id, 401 without sign-in', async () => {
    expect((await tree.admin.get('/roles/abc')).statusCode).toBe(400);
    expect((await anon().get(`/roles/${t.project.roleId}`)).statusCode).toBe(401);
  });
});

describe('PUT /roles', () => {
  it('creates a role with available roles and answers it in data', async () => {
    const base = await makeRole(t.app.database.db, t.project.projectId, ['can_view_users'], 'Resident');
    const res = await tree.admin.put('/roles', {
      name: 'Operator',
      description: 'front desk',
      permissions: ['can_view_users', 'can_edit_users'],
      available_roles: [base],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Operator',
      permissions: ['can_view_users', 'can_edit_users'],
      available_roles: [{ id: base, name: 'Resident' }],
    });
  });

  it.each([
    [{ permissions: [] }, 'name'],
    [{ name: '', permissions: [] }, 'name'],
    [{ name: 'x', permissions: ['can_fly'] }, 'permissions.0'],
    [{ name: 'x', available_roles: ['a'] }, 'available_roles.0'],
    [{ name: 'x', extra: true }, ''],
  ])('answers 400 with field details for %j', async (body, field) => {
    const res = await tree.admin.put('/roles', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('needs can_create_roles', async () => {
    const actor = await tree.actor(['can_view_all_roles'], ['A']);
    const res = await actor.api.put('/roles', { name: 'x' });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('action prohibited');
  });

  it('cannot grant more than the holder has, unless they may grant more', async () => {
    const actor = await tree.actor(['can_create_roles', 'can_view_users'], ['A']);
    expect((await actor.api.put('/roles', { name: 'ok', permissions: ['can_view_users'] })).statusCode).toBe(200);
    const res = await actor.api.put('/roles', { name: 'too much', permissions: ['can_view_users', 'can_delete_all_users'] });
    expect(res.statusCode).toBe(403);
    expect(res.json().details[0]).toMatchObject({ field: 'permissions', codes: ['can_delete_all_users'] });
    const granter = await tree.actor(['can_create_roles', 'can_grant_more_permissions'], ['A']);
    expect((await granter.api.put('/roles', { name: 'more', permissions: ['can_delete_all_users'] })).statusCode).toBe(200);
  });

  it('refuses available roles of another project or beyond the holder’s own', async () => {
    const res = await tree.admin.put('/roles', { name: 'x', available_roles: [tree.other.roleId] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid related entity sent');
    const actor = await tree.actor(['can_create_roles'], ['A']);
    const foreign = await makeRole(t.app.database.db, t.project.projectId, []);
    expect((await actor.api.put('/roles', { name: 'y', available_roles: [foreign] })).statusCode).toBe(403);
    expect((await actor.api.put('/roles', { name: 'z', available_roles: [actor.roleId] })).statusCode).toBe(200);
  });
});

describe('PATCH /roles/:id', () => {
  it('updates and publishes role-changed on the app-changes topic', async () => {
    const id = (await tree.admin.put('/roles', { name: 'Guard', permissions: [] })).json().data.id;
    const spy = vi.spyOn(t.app.realtime, 'publish');
    const res = await tree.admin.patch(`/roles/${id}`, { name: 'Night guard', permissions: ['can_view_users'] });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Night guard', permissions: ['can_view_users'] });
    expect(spy).toHaveBeenCalledWith(t.project.projectId, APP_CHANGES_TOPIC, 'role-changed', { roleId: id });
    spy.mockRestore();
  });

  it('refuses to add permissions beyond the holder’s own, but keeps ones already there', async () => {
    const actor = await tree.actor(['can_view_all_roles', 'can_edit_all_roles', 'can_view_users'], ['A']);
    const id = await makeRole(t.app.database.db, t.project.projectId, ['can_delete_all_users']);
    expect((await actor.api.patch(`/roles/${id}`, { permissions: ['can_delete_all_users', 'can_view_users'] })).statusCode).toBe(200);
    const res = await actor.api.patch(`/roles/${id}`, { permissions: ['can_delete_all_users', 'can_edit_all_users'] });
    expect(res.statusCode).toBe(403);
  });

  it('keeps the built-in role’s permissions', async () => {
    const res = await tree.admin.patch(`/roles/${t.project.roleId}`, { permissions: ['can_view_users'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe("can't perform action");
    expect((await tree.admin.patch(`/roles/${t.project.roleId}`, { name: 'Administrators' })).statusCode).toBe(200);
  });

  it('answers 404 for another project, 400 for bad input, 401 without sign-in', async () => {
    expect((await tree.admin.patch(`/roles/${tree.other.roleId}`, { name: 'x' })).statusCode).toBe(404);
    const id = await makeRole(t.app.database.db, t.project.projectId, []);
    const bad = await tree.admin.patch(`/roles/${id}`, { name: 5 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('name');
    expect((await anon().patch(`/roles/${id}`, { name: 'x' })).statusCode).toBe(401);
  });
});

describe('DELETE /roles and POST /roles/delete', () => {
  it('gently refuses a role in use and lists who uses it; not gently, deletes it', async () => {
    const id = await makeRole(t.app.database.db, t.project.projectId, []);
    const holder = await makeUser(t.app.database.db, { projectId: t.project.projectId, roleId: id, groupIds: [tree.groups.A] });
    const res = await tree.admin.delete(`/roles/${id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ message: 'role is in use', details: [{ id, users_count: 1, users: [{ id: holder.id }] }] });
    expect((await tree.admin.delete(`/roles/${id}?gently=false`)).statusCode).toBe(200);
    expect((await tree.admin.get(`/users/${holder.id}`)).json().data.role).toBeNull();
  });

  it('bulk: answers deleted, not deleted and dependencies', async () => {
    const free = await makeRole(t.app.database.db, t.project.projectId, []);
    const used = await makeRole(t.app.database.db, t.project.projectId, []);
    await makeUser(t.app.database.db, { projectId: t.project.projectId, roleId: used, groupIds: [tree.groups.A] });
    const res = await tree.admin.post('/roles/delete?gently=true', { items: [free, used, t.project.roleId, tree.other.roleId] });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.deleted).toEqual([free]);
    expect(data.not_deleted.map((n: { id: number; code: string }) => [n.id, n.code])).toEqual([
      [used, 'role_in_use'],
      [t.project.roleId, 'cannot_perform_action'],
      [tree.other.roleId, 'not_found'],
    ]);
    expect(data.dependencies).toEqual([{ id: used, users_count: 1, users: [expect.objectContaining({ login: expect.any(String) })] }]);
    const hard = await tree.admin.post('/roles/delete?gently=false', { items: [used] });
    expect(hard.json().data.deleted).toEqual([used]);
  });

  it('answers 400 for bad input, 401 without sign-in, 403 without permission', async () => {
    expect((await tree.admin.post('/roles/delete', { items: [] })).statusCode).toBe(400);
    expect((await tree.admin.post('/roles/delete?gently=maybe', { items: [1] })).statusCode).toBe(400);
    expect((await anon().post('/roles/delete', { items: [1] })).statusCode).toBe(401);
    const actor = await tree.actor(['can_view_all_roles'], ['A']);
    const id = await makeRole(t.app.database.db, t.project.projectId, []);
    expect((await actor.api.delete(`/roles/${id}`)).statusCode).toBe(403);
    expect((await actor.api.post('/roles/delete', { items: [id] })).json().data.not_deleted[0].code).toBe('action_prohibited');
  });
});

describe('GET /roles/available', () => {
  it('answers every role for the built-in role, else the own role and its available roles', async () => {
    const all = (await tree.admin.get('/roles/available')).json().data.map((r: { id: number }) => r.id);
    expect(all).toContain(t.project.roleId);
    const actor = await tree.actor([], ['A']);
    const extra = await makeRole(t.app.database.db, t.project.projectId, []);
    const { roleAvailableRoles } = await import('./roles.table.js');
    await t.app.database.db.insert(roleAvailableRoles).values({ roleId: actor.roleId, availableRoleId: extra });
    const mine = (await actor.api.get('/roles/available')).json().data.map((r: { id: number }) => r.id);
    expect(mine.sort()).toEqual([actor.roleId, extra].sort());
    expect((await anon().get('/roles/available')).statusCode).toBe(401);
  });
});
