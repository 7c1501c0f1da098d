import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { roleAvailableRoles } from '../roles/roles.table.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t.close());

const withKey = (
  key: string,
  url: string,
  how: 'bearer' | 'header' = 'bearer',
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' = 'GET',
  payload?: object,
) =>
  t.app.inject({
    method,
    url: `/api/v0${url}`,
    headers: how === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key },
    ...(payload ? { payload } : {}),
  });

describe('API keys', () => {
  it('are shown once, stored hashed, authenticate by either header, and stop at once when revoked', async () => {
    const role = await makeRole(t.database.db, t.project.projectId, ['can_view_all_users']);
    const res = await admin.put('/api-keys', { name: 'Billing', role });
    expect(res.statusCode).toBe(200);
    const created = res.json().data;
    expect(created.key).toMatch(/^atr_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'Billing', role, status: 'active', prefix: created.key.slice(0, 12), last_used_at: null });
    // Never again: neither the list nor the item carries the key, and the database holds only its hash.
    const listed = (await admin.get('/api-keys')).json().data;
    expect(listed.find((k: { id: number }) => k.id === created.id)).not.toHaveProperty('key');
    expect(JSON.stringify((await admin.get(`/api-keys/${created.id}`)).json())).not.toContain(created.key);
    const stored = await t.database.db.execute(`SELECT key_hash FROM api_keys WHERE id = ${created.id}`);
    expect(JSON.stringify(stored)).not.toContain(created.key);

    const byBearer = await withKey(created.key, '/users');
    expect(byBearer.statusCode).toBe(200);
    expect(byBearer.json().data.length).toBeGreaterThan(0);
    expect((await withKey(created.key, '/users', 'header')).statusCode).toBe(200);
    // Only what the role allows.
    expect((await withKey(created.key, '/roles')).statusCode).toBe(403);
    // The key's last use is noted off the request path.
    await expect.poll(async () => (await admin.get(`/api-keys/${created.id}`)).json().data.last_used_at).not.toBeNull();

    const revoked = await admin.post(`/api-keys/${created.id}/revoke`);
    expect(revoked.json().data.status).toBe('revoked');
    expect((await withKey(created.key, '/users')).statusCode).toBe(401);
    expect((await withKey(created.key, '/users', 'header')).statusCode).toBe(401);
    expect((await admin.delete(`/api-keys/${created.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/api-keys/${created.id}`)).statusCode).toBe(404);
  });

  it('refuse a wrong, forged or expired key', async () => {
    const role = await makeRole(t.database.db, t.project.projectId, ['can_view_all_users']);
    const key = (await admin.put('/api-keys', { name: 'Short', role, expires_at: new Date(Date.now() + 1500).toISOString() })).json().data;
    expect((await withKey(key.key, '/users')).statusCode).toBe(200);
    expect((await withKey(`${key.key.slice(0, -1)}${key.key.endsWith('A') ? 'B' : 'A'}`, '/users')).statusCode).toBe(401);
    expect((await withKey('atr_short', '/users', 'header')).statusCode).toBe(401);
    await new Promise((r) => setTimeout(r, 1600));
    expect((await withKey(key.key, '/users')).statusCode).toBe(401);
    expect((await admin.get(`/api-keys/${key.id}`)).json().data.status).toBe('expired');
    const past = await admin.put('/api-keys', { name: 'Past', role, expires_at: '2020-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(400);
    expect(past.json().details[0].field).toBe('expires_at');
    const bad = await admin.put('/api-keys', { name: '', role: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['name', 'role']);
  });

  it('cannot manage keys, reach the profile, or exceed the role and groups of its creator', async () => {
    const db = t.database.db;
    const pid = t.project.projectId;
    const branch = await makeGroup(db, pid, t.project.rootGroupId);
    const other = await makeGroup(db, pid, t.project.rootGroupId);
    const keyRole = await makeRole(db, pid, ['can_view_users']);
    const richer = await makeRole(db, pid, ['can_view_users', 'can_view_roles']);
    const managerRole = await makeRole(db, pid, ['can_change_project_settings', 'can_view_users']);
    await db.insert(roleAvailableRoles).values([
      { roleId: managerRole, availableRoleId: keyRole },
      { roleId: managerRole, availableRoleId: richer },
    ]);
    const manager = await makeUser(db, { projectId: pid, roleId: managerRole, groupIds: [branch] });
    const inBranch = await makeUser(db, { projectId: pid, groupIds: [branch] });
    const elsewhere = await makeUser(db, { projectId: pid, groupIds: [other] });
    const mgr = client(t.app, await login(t.app, manager.login, manager.password));

    // A role granting more than the creator has is refused, as when giving it to a user.
    expect((await mgr.put('/api-keys', { name: 'Too much', role: richer })).statusCode).toBe(403);
    // A role the creator may not assign at all, and a group outside the creator's.
    const admins = (await admin.get('/roles')).json().data.find((r: { id: number }) => r.id === t.project.roleId);
    expect((await mgr.put('/api-keys', { name: 'Admin', role: admins.id })).statusCode).toBe(400);
    const outside = await mgr.put('/api-keys', { name: 'Other group', role: keyRole, domains: [other] });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().details[0]).toMatchObject({ field: 'domains', ids: [other] });

    const key = (await mgr.put('/api-keys', { name: 'Branch reader', role: keyRole })).json().data;
    expect(key.domains).toEqual([branch]);
    const seen = (await withKey(key.key, '/users?size=100')).json().data.map((u: { id: number }) => u.id);
    expect(seen).toContain(inBranch.id);
    expect(seen).not.toContain(elsewhere.id);
    expect((await withKey(key.key, `/users/${elsewhere.id}`)).statusCode).toBe(404);

    // A key acts through the API only: never on keys, nor on the person behind it.
    expect((await withKey(key.key, '/api-keys')).statusCode).toBe(403);
    expect((await withKey(key.key, '/api-keys', 'header', 'PUT', { name: 'Mint', role: keyRole })).statusCode).toBe(403);
    expect((await withKey(key.key, '/profile')).statusCode).toBe(403);
    expect((await withKey(key.key, '/profile/password', 'bearer', 'POST', { old_password: 'x', password: 'y' })).statusCode).toBe(403);
    // Nor sign in: a key is not a password.
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: manager.login, password: key.key } })).statusCode,
    ).toBe(401);

    // The creator loses a permission: so does the key, however its own role reads.
    // Written straight to the database, not through the API: an instance sees it once the change feed
    // brings it (milliseconds on PostgreSQL, but after this UPDATE has returned).
    await t.database.db.execute(`UPDATE roles SET permissions = '{can_change_project_settings}' WHERE id = ${managerRole}`);
    await expect.poll(async () => (await withKey(key.key, '/users')).statusCode, { timeout: 5000, interval: 50 }).toBe(403);
    // And without the management permission, keys are not listed either.
    const plain = await makeUser(db, { projectId: pid, roleId: keyRole, groupIds: [branch] });
    expect((await client(t.app, await login(t.app, plain.login, plain.password)).get('/api-keys')).statusCode).toBe(403);
  });

  it('name the key as the author of the changes made with it', async () => {
    const role = await makeRole(t.database.db, t.project.projectId, ['can_create_markers', 'can_view_all_markers', 'can_view_audit']);
    const key = (await admin.put('/api-keys', { name: 'Integrator', role })).json().data;
    const made = await withKey(key.key, '/markers', 'bearer', 'PUT', {
      name: 'From key',
      color: '#00ff00',
      domain_id: t.project.rootGroupId,
    });
    expect(made.statusCode).toBe(200);
    const filters = JSON.stringify({ match: 'match_all', rules: [{ field: 'api_key_id', operator: 'equals', value: key.id }] });
    const events = (await admin.get(`/audit/items?filters=${encodeURIComponent(filters)}`)).json().data;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      entity: 'marker',
      action: 'create',
      user_id: t.project.adminId,
      api_key: { id: key.id, name: 'Integrator', prefix: key.prefix },
    });
  });
});
