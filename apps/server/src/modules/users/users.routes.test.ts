import { listResponse, UserSchema } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { type ScopeTree, scopeTree } from './scope.fixture.js';

let t: TestApp;
let tree: ScopeTree;
beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
});
afterAll(() => t.close());

const anon = () => client(t.app);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

function multipart(fields: Record<string, string>, file?: { field: string; name: string; data: Buffer }) {
  const boundary = '----atrium-test';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function adminToken() {
  return login(t.app, t.adminLogin, t.adminPassword);
}

describe('GET /users', () => {
  it('lists with search, branch, filters, sort and relations', async () => {
    const res = await tree.admin.get(`/users?branch=${tree.groups.A}&sort=-login&with=role,domains`);
    expect(res.statusCode).toBe(200);
    const logins = res.json().data.map((u: { login: string }) => u.login);
    expect(logins).toEqual(['u-a1a', 'u-a1', 'u-a']);
    expect(res.json().data[0]).toMatchObject({ role_info: null, domains_info: [{ id: tree.groups.A1a, name: 'A1a' }], activated: false });
    const search = await tree.admin.get('/users?search=U-B');
    expect(
      search
        .json()
        .data.map((u: { login: string }) => u.login)
        .sort(),
    ).toEqual(['u-b', 'u-b1']);
    const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'domains', operator: 'equals', value: tree.groups.B1 }] }));
    expect((await tree.admin.get(`/users?filters=${filters}`)).json().data.map((u: { login: string }) => u.login)).toEqual(['u-b1']);
    const paged = await tree.admin.get('/users?size=2&page=2&sort=id');
    expect(paged.json().meta).toMatchObject({ page: 2, size: 2 });
    expect(paged.json().meta.total).toBeGreaterThanOrEqual(7);
  });

  it('answers byte for byte what the contract’s schema makes of it, with every relation, on each path of the page', async () => {
    const db = t.app.database.db;
    await db.execute(
      sql`INSERT INTO mobile_clients (project_id, user_id, mobile_client_id, platform, info) VALUES (${t.project.projectId}, ${tree.users.A1}, 'list-phone', 'android', 'Pixel')`,
    );
    await db.execute(sql`UPDATE users SET profile = profile || '{"phone":"+100","address":"Main 1"}'::jsonb WHERE id = ${tree.users.A1}`);
    const filters = encodeURIComponent(
      JSON.stringify({ match: 'match_any', rules: [{ field: 'login', operator: 'begins_with', value: 'U-A' }] }),
    );
    const queries = [
      `/users?with=role,domains,markers,mobile_clients&sort=-name,id&filters=${filters}`,
      `/users?branch=${tree.groups.A}&with=mobile_clients`,
      '/users?size=2&page=2&sort=login&search=u-',
      // Past the end: no rows, the total still counted.
      '/users?size=20&page=50',
    ];
    for (const q of queries) {
      const res = await tree.admin.get(q);
      expect(res.statusCode, res.body).toBe(200);
      // Its keys, in its order, and nothing else.
      expect(res.body).toBe(JSON.stringify(listResponse(UserSchema.strict()).strict().parse(res.json())));
    }
    const a1 = (await tree.admin.get(`/users?branch=${tree.groups.A1}&with=mobile_clients&sort=login`)).json().data[0];
    expect(a1.mobile_clients).toMatchObject([{ mobile_client_id: 'list-phone', platform: 'android', info: 'Pixel' }]);
    expect(a1.profile).toMatchObject({ phone: '+100', address: 'Main 1' });
    const beyond = (await tree.admin.get('/users?size=20&page=50')).json();
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.total).toBeGreaterThanOrEqual(7);
  });

  it('keeps one page’s values out of the next page’s statement (a statement compiled once runs with each call’s values)', async () => {
    const rule = (value: string) => encodeURIComponent(JSON.stringify({ rules: [{ field: 'login', operator: 'begins_with', value }] }));
    const logins = async (q: string) => (await tree.admin.get(q)).json().data.map((u: { login: string }) => u.login);
    expect(await logins(`/users?sort=login&filters=${rule('u-a')}`)).toEqual(['u-a', 'u-a1', 'u-a1a']);
    expect(await logins(`/users?sort=login&filters=${rule('u-b')}`)).toEqual(['u-b', 'u-b1']);
    expect(await logins(`/users?sort=login&size=1&page=2&filters=${rule('u-b')}`)).toEqual(['u-b1']);
    expect(await logins(`/users?sort=login&branch=${tree.groups.B}`)).toEqual(['u-b', 'u-b1']);
    expect(await logins(`/users?sort=login&branch=${tree.groups.A1}`)).toEqual(['u-a1', 'u-a1a']);
    expect(await logins('/users?sort=login&search=b1')).toEqual(['u-b1']);
    expect(await logins('/users?sort=login&search=a1a')).toEqual(['u-a1a']);
  });

  it.each([['sort=password_hash'], ['with=identifiers'], ['branch=x'], ['filters=nope']])('answers 400 for %s', async (q) => {
    const res = await tree.admin.get(`/users?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.length).toBeGreaterThan(0);
  });

  it('answers 401 without sign-in', async () => {
    expect((await anon().get('/users')).statusCode).toBe(401);
  });
});

describe('PUT /users', () => {
  it('creates a user in a group, sending the registration link by default', async () => {
    const spy = vi
      .spyOn(t.app.services.registration, 'sendInvite')
      .mockResolvedValue({ email: 'invite@example.com', mail_status: 'queued', expires_at: '' });
    const res = await tree.admin.put('/users', {
      login: 'new.resident',
      name: 'New Resident',
      email: 'resident@example.com',
      domains: [tree.groups.A1a],
      is_group_admin: true,
      profile: { phone: '+79991234567', time_format: 'YYYY-MM-DD' },
    });
    expect(res.statusCode).toBe(200);
    const user = res.json().data;
    expect(user).toMatchObject({
      login: 'new.resident',
      domains: [tree.groups.A1a],
      is_group_admin: true,
      is_invited: true,
      activated: false,
      profile: { phone: '+79991234567', time_format: 'YYYY-MM-DD', identifier_format: 'dec' },
    });
    expect(spy).toHaveBeenCalledWith(expect.anything(), user.id);
    spy.mockRestore();
  });

  it('needs an e-mail to send the registration link, not otherwise', async () => {
    const res = await tree.admin.put('/users', { login: 'no.mail', domains: [tree.groups.A] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('user must provide an e-mail for registration');
    const ok = await tree.admin.put('/users', {
      login: 'no.mail',
      domains: [tree.groups.A],
      send_registration_link: false,
      password: 'secret-pass-1',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.is_invited).toBe(false);
    await login(t.app, 'no.mail', 'secret-pass-1');
  });

  it('keeps logins unique per project (any case) and e-mails unique', async () => {
    const dup = await tree.admin.put('/users', { login: 'U-A', domains: [tree.groups.A], send_registration_link: false });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ message: 'value not unique', details: [{ field: 'login' }] });
    // The same login in another project is fine.
    const other = await tree.other.admin.put('/users', { login: 'u-a', domains: [tree.other.groupId], send_registration_link: false });
    expect(other.statusCode).toBe(200);
    await tree.admin.put('/users', {
      login: 'mail.one',
      email: 'same@example.com',
      domains: [tree.groups.A],
      send_registration_link: false,
    });
    const mail = await tree.admin.put('/users', {
      login: 'mail.two',
      email: 'SAME@example.com',
      domains: [tree.groups.A],
      send_registration_link: false,
    });
    expect(mail.statusCode).toBe(409);
    expect(mail.json().message).toBe('e-mail already used');
  });

  it.each([
    [{ domains: [1] }, 'login'],
    [{ login: '', domains: [1] }, 'login'],
    [{ login: 'x' }, 'domains'],
    [{ login: 'x', domains: [] }, 'domains'],
    [{ login: 'x', domains: [1], email: 'not-an-email' }, 'email'],
    [{ login: 'x', domains: [1], password: 'short' }, 'password'],
    [{ login: 'x y', domains: [1] }, 'login'],
    [{ login: 'x', domains: [1], profile: { phone: '12345' } }, 'profile.phone'],
    [{ login: 'x', domains: [1], profile: { identifier_format: 'oct' } }, 'profile.identifier_format'],
  ])('answers 400 with field details for %j', async (body, field) => {
    const res = await tree.admin.put('/users', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('needs can_create_users, places users only within the actor’s scope and never in another project', async () => {
    const noCreate = await tree.actor(['can_edit_descendant_users'], ['A']);
    expect((await noCreate.api.put('/users', { login: 'x1', domains: [tree.groups.A1], send_registration_link: false })).statusCode).toBe(
      403,
    );
    const actor = await tree.actor(['can_create_users', 'can_view_descendant_users', 'can_edit_descendant_users'], ['A']);
    expect((await actor.api.put('/users', { login: 'x2', domains: [tree.groups.A1], send_registration_link: false })).statusCode).toBe(200);
    const out = await actor.api.put('/users', { login: 'x3', domains: [tree.groups.B], send_registration_link: false });
    expect(out.statusCode).toBe(400);
    expect(out.json()).toMatchObject({ message: 'invalid related entity sent', details: [{ field: 'domains', ids: [tree.groups.B] }] });
    const foreign = await tree.admin.put('/users', { login: 'x4', domains: [tree.other.groupId], send_registration_link: false });
    expect(foreign.statusCode).toBe(400);
    expect((await anon().put('/users', { login: 'x5', domains: [tree.groups.A] })).statusCode).toBe(401);
  });

  it('assigns only roles the actor may assign (available roles, no more than their own permissions)', async () => {
    const actor = await tree.actor(['can_create_users', 'can_view_all_users', 'can_edit_all_users'], ['A']);
    const other = await makeRole(t.app.database.db, t.project.projectId, []);
    const res = await actor.api.put('/users', { login: 'r1', domains: [tree.groups.A], role: other, send_registration_link: false });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'invalid related entity sent', details: [{ field: 'role' }] });
    const { roleAvailableRoles } = await import('../roles/roles.table.js');
    const strong = await makeRole(t.app.database.db, t.project.projectId, ['can_delete_all_users']);
    await t.app.database.db.insert(roleAvailableRoles).values([
      { roleId: actor.roleId, availableRoleId: other },
      { roleId: actor.roleId, availableRoleId: strong },
    ]);
    expect(
      (await actor.api.put('/users', { login: 'r2', domains: [tree.groups.A], role: other, send_registration_link: false })).statusCode,
    ).toBe(200);
    const beyond = await actor.api.put('/users', { login: 'r3', domains: [tree.groups.A], role: strong, send_registration_link: false });
    expect(beyond.statusCode).toBe(403);
    expect(
      (await tree.admin.put('/users', { login: 'r4', domains: [tree.groups.A], role: tree.other.roleId, send_registration_link: false }))
        .statusCode,
    ).toBe(400);
  });

  it('license info needs the per-user licence permission', async () => {
    const actor = await tree.actor(['can_create_users', 'can_view_all_users', 'can_edit_all_users'], ['A']);
    const res = await actor.api.put('/users', {
      login: 'lic',
      domains: [tree.groups.A],
      send_registration_link: false,
      license_info: { ukey2: { is_enabled: true, license_count: 2 } },
    });
    expect(res.statusCode).toBe(403);
    const ok = await tree.admin.put('/users', {
      login: 'lic',
      domains: [tree.groups.A],
      send_registration_link: false,
      license_info: { ukey2: { is_enabled: true, license_count: 2 } },
    });
    expect(ok.json().data.license_info).toEqual({ ukey2: { is_enabled: true, license_count: 2 } });
  });
});

describe('GET /users/:id', () => {
  it('answers 404 for another project, 400 for a bad id, 401 without sign-in', async () => {
    expect((await tree.admin.get(`/users/${tree.users.A}?with=role`)).statusCode).toBe(200);
    expect((await tree.admin.get(`/users/${tree.other.userId}`)).statusCode).toBe(404);
    expect((await tree.admin.get('/users/0')).statusCode).toBe(400);
    expect((await anon().get(`/users/${tree.users.A}`)).statusCode).toBe(401);
  });
});

describe('PATCH /users/:id', () => {
  it('updates fields, role and groups', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.A] });
    const role = await makeRole(t.app.database.db, t.project.projectId, []);
    const res = await tree.admin.patch(`/users/${u.id}`, {
      name: 'Renamed',
      role,
      domains: [tree.groups.B, tree.groups.B1],
      elevator_access_disabled: true,
      profile: { address: 'Flat 5' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Renamed',
      role,
      domains: [tree.groups.B, tree.groups.B1],
      elevator_access_disabled: true,
      profile: { address: 'Flat 5' },
    });
  });

  it('refuses a login or e-mail taken by another user', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.A], email: 'taken@example.com' });
    const v = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.A] });
    expect((await tree.admin.patch(`/users/${v.id}`, { login: u.login.toUpperCase() })).statusCode).toBe(409);
    expect((await tree.admin.patch(`/users/${v.id}`, { email: 'taken@example.com' })).json().message).toBe('e-mail already used');
    expect((await tree.admin.patch(`/users/${u.id}`, { email: 'taken@example.com' })).statusCode).toBe(200);
  });

  it('keeps at least one group', async () => {
    const res = await tree.admin.patch(`/users/${tree.users.A}`, { domains: [] });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({ field: 'domains', message: 'at least one group must be selected' });
  });

  it('cannot remove the current user from their only or top-level group', async () => {
    const only = await tree.actor(['can_view_all_users', 'can_edit_all_users'], ['A']);
    let res = await only.api.patch(`/users/${only.id}`, { domains: [tree.groups.B] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('cannot remove the current user from their only group or top-level group');
    const two = await tree.actor(['can_view_all_users', 'can_edit_all_users'], ['A', 'A1a']);
    res = await two.api.patch(`/users/${two.id}`, { domains: [tree.groups.A1a] });
    expect(res.statusCode).toBe(400);
    // Leaving a group below another of their groups is fine.
    res = await two.api.patch(`/users/${two.id}`, { domains: [tree.groups.A] });
    expect(res.statusCode).toBe(200);
  });

  it('answers 400 for bad input, 401 without sign-in, 404 for another project', async () => {
    expect((await tree.admin.patch(`/users/${tree.users.A}`, { email: 'x' })).json().details[0].field).toBe('email');
    expect((await tree.admin.patch(`/users/${tree.users.A}`, { unknown: 1 })).statusCode).toBe(400);
    expect((await anon().patch(`/users/${tree.users.A}`, { name: 'x' })).statusCode).toBe(401);
    expect((await tree.admin.patch(`/users/${tree.other.userId}`, { name: 'x' })).statusCode).toBe(404);
  });
});

describe('DELETE /users and POST /users/delete', () => {
  it('deletes, refuses the current user, and reports bulk results', async () => {
    const a = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.B] });
    const b = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.B] });
    expect((await tree.admin.delete(`/users/${a.id}`)).statusCode).toBe(200);
    expect((await tree.admin.get(`/users/${a.id}`)).statusCode).toBe(404);
    expect((await tree.admin.delete(`/users/${t.project.adminId}`)).statusCode).toBe(400);
    const res = await tree.admin.post('/users/delete', { items: [b.id, a.id, tree.other.userId, t.project.adminId] });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.deleted).toEqual([b.id]);
    expect(res.json().data.not_deleted.map((n: { code: string }) => n.code)).toEqual(['not_found', 'not_found', 'cannot_perform_action']);
  });

  it('answers 400 for bad input, 401 without sign-in, 403 without permission', async () => {
    expect((await tree.admin.post('/users/delete', { items: ['a'] })).statusCode).toBe(400);
    expect((await anon().delete(`/users/${tree.users.B}`)).statusCode).toBe(401);
    const actor = await tree.actor(['can_view_all_users'], ['A']);
    expect((await actor.api.delete(`/users/${tree.users.B}`)).statusCode).toBe(403);
  });
});

describe('POST /users/:id/password', () => {
  it('sets a new password the user can sign in with', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.A] });
    expect((await tree.admin.post(`/users/${u.id}/password`, { new_password: 'brand-new-pass-1' })).statusCode).toBe(200);
    await login(t.app, u.login, 'brand-new-pass-1');
  });

  it('answers 400 for a short password, 403 without edit permission, 404 elsewhere, 401 without sign-in', async () => {
    const res = await tree.admin.post(`/users/${tree.users.A}/password`, { new_password: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('new_password');
    const actor = await tree.actor(['can_view_all_users'], ['A']);
    expect((await actor.api.post(`/users/${tree.users.A}/password`, { new_password: 'long-enough-1' })).statusCode).toBe(403);
    expect((await tree.admin.post(`/users/${tree.other.userId}/password`, { new_password: 'long-enough-1' })).statusCode).toBe(404);
    expect((await anon().post(`/users/${tree.users.A}/password`, { new_password: 'long-enough-1' })).statusCode).toBe(401);
  });

  it('is not a way around the old password for one’s own account', async () => {
    const self = await tree.actor(['can_edit_own_profile'], ['A']);
    expect((await self.api.post(`/users/${self.id}/password`, { new_password: 'long-enough-1' })).statusCode).toBe(403);
  });
});

describe('POST /users/:id/registration-link', () => {
  it('sends the invite through the registration service', async () => {
    const spy = vi
      .spyOn(t.app.services.registration, 'sendInvite')
      .mockResolvedValue({ email: 'invite@example.com', mail_status: 'queued', expires_at: '' });
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.A], email: 'invite@example.com' });
    const res = await tree.admin.post(`/users/${u.id}/registration-link`);
    expect(res.statusCode).toBe(200);
    expect(spy).toHaveBeenCalledWith(expect.anything(), u.id);
    expect((await tree.admin.get(`/users/${u.id}`)).json().data.is_invited).toBe(true);
    spy.mockRestore();
  });

  it('needs an e-mail and an unregistered user', async () => {
    const noMail = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.A] });
    expect((await tree.admin.post(`/users/${noMail.id}/registration-link`)).json().message).toBe(
      'user must provide an e-mail for registration',
    );
    const registered = await makeUser(t.app.database.db, {
      projectId: t.project.projectId,
      groupIds: [tree.groups.A],
      email: 'reg@example.com',
    });
    await login(t.app, registered.login, registered.password);
    const res = await tree.admin.post(`/users/${registered.id}/registration-link`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('user already registered');
  });

  it('answers 403, 404 and 401 as every route does', async () => {
    const actor = await tree.actor(['can_view_all_users'], ['A']);
    expect((await actor.api.post(`/users/${tree.users.A}/registration-link`)).statusCode).toBe(403);
    expect((await tree.admin.post(`/users/${tree.other.userId}/registration-link`)).statusCode).toBe(404);
    expect((await anon().post(`/users/${tree.users.A}/registration-link`)).statusCode).toBe(401);
    expect((await tree.admin.post('/users/x/registration-link')).statusCode).toBe(400);
  });
});

describe('POST and DELETE /users/:id/avatar', () => {
  it('stores the cropped image and removes it', async () => {
    const token = await adminToken();
    const { payload, headers } = multipart({ x: '10', y: '5', size: '64' }, { field: 'image', name: 'a.png', data: PNG });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v0/users/${tree.users.A}/avatar`,
      payload,
      headers: { ...headers, authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    const url = res.json().data.avatar_url as string;
    expect(url).toMatch(/^\/api\/v0\/files\/avatars\//);
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    const del = await tree.admin.delete(`/users/${tree.users.A}/avatar`);
    expect(del.json().data.avatar_url).toBeNull();
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });

  it.each([
    ['not an image', { x: '0' }, { field: 'image', name: 'a.txt', data: Buffer.from('hello') }, 400, 'invalid file'],
    ['no image', { x: '0' }, undefined, 400, 'wrong file body'],
    ['bad crop', { x: 'left' }, { field: 'image', name: 'a.png', data: PNG }, 400, 'invalid data sent'],
  ])('answers %s', async (_n, fields, file, status, message) => {
    const token = await adminToken();
    const { payload, headers } = multipart(fields, file);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v0/users/${tree.users.A}/avatar`,
      payload,
      headers: { ...headers, authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(status);
    expect(res.json().message).toBe(message);
  });

  it('answers 401, 403 and 404', async () => {
    const { payload, headers } = multipart({}, { field: 'image', name: 'a.png', data: PNG });
    expect((await t.app.inject({ method: 'POST', url: `/api/v0/users/${tree.users.A}/avatar`, payload, headers })).statusCode).toBe(401);
    const actor = await tree.actor(['can_view_all_users'], ['A']);
    expect((await actor.api.delete(`/users/${tree.users.B}/avatar`)).statusCode).toBe(403);
    expect((await tree.admin.delete(`/users/${tree.other.userId}/avatar`)).statusCode).toBe(404);
  });
});
