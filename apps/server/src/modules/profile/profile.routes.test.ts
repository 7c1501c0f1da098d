import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';
import { users } from '../users/users.table.js';

let t: TestApp;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
function multipart(field: string, filename: string, data: Buffer) {
  const boundary = '----atrium-test';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Signs in and answers the whole first session: access token and refresh token. */
async function signIn(loginName: string, password: string): Promise<{ token: string; refresh: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: loginName, password } });
  return res.json().data.sessions[0];
}
const refresh = (token: string) => t.app.inject({ method: 'POST', url: '/api/v0/refresh', payload: { token } });

/** A signed-in user of the test project whose role holds exactly `permissions`. */
async function member(permissions: string[]) {
  const db = t.app.database.db;
  const roleId = await makeRole(db, t.project.projectId, permissions);
  const u = await makeUser(db, {
    projectId: t.project.projectId,
    roleId,
    groupIds: [t.project.rootGroupId],
    email: `m${Date.now()}${Math.random()}@example.com`,
  });
  return { ...u, api: client(t.app, await login(t.app, u.login, u.password)) };
}

describe('GET /profile', () => {
  it('answers the profile with role, domains, project, profile fields and licence info', async () => {
    const res = await admin.get('/profile');
    expect(res.statusCode).toBe(200);
    const p = res.json().data;
    expect(p).toMatchObject({
      id: t.project.adminId,
      login: 'admin',
      locale: 'en',
      role: { id: t.project.roleId, name: 'Administrator' },
      project: { id: t.project.projectId, name: 'Test project' },
      profile: { identifier_format: 'dec', is_app_popup_active: true, notification_settings: { acs: true } },
    });
    expect(p.role.permissions.length).toBeGreaterThan(150);
    expect(p.domains).toEqual([{ id: t.project.rootGroupId, name: 'Test project' }]);
    expect(p.license_info.sip).toHaveProperty('is_enabled');
    expect(p.license_state.features).toContain('sip');
  });

  it('needs sign-in', async () => {
    expect((await client(t.app).get('/profile')).statusCode).toBe(401);
  });
});

describe('PATCH /profile', () => {
  it('saves name, locale and profile fields, and records an audit event', async () => {
    const res = await admin.patch('/profile', {
      name: 'Chief',
      locale: 'ru',
      profile: {
        address: 'Main st. 1',
        phone: '+74951234567',
        time_zone: 'Europe/Moscow',
        time_format: 'DD-MM-YYYY',
        identifier_format: 'hex',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Chief',
      locale: 'ru',
      profile: { address: 'Main st. 1', identifier_format: 'hex', time_format: 'DD-MM-YYYY' },
    });
    const events = await t.app.database.db.select().from(auditEvents).where(eq(auditEvents.entity, 'profile'));
    expect(events.at(-1)).toMatchObject({ action: 'update', userId: t.project.adminId, projectId: t.project.projectId });
    expect(events.at(-1)?.after).toMatchObject({ name: 'Chief' });
  });

  it.each([
    [{ locale: 'de' }, 'locale'],
    [{ name: '' }, 'name'],
    [{ profile: { phone: '12345' } }, 'profile.phone'],
    [{ profile: { time_format: 'YYYY/MM/DD' } }, 'profile.time_format'],
    [{ profile: { identifier_format: 'oct' } }, 'profile.identifier_format'],
    [{ email: 'not-an-email' }, 'email'],
  ])('refuses %j with a field detail', async (body, field) => {
    const res = await admin.patch('/profile', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses an e-mail another user of the project has', async () => {
    await makeUser(t.app.database.db, { projectId: t.project.projectId, email: 'taken@example.com' });
    const res = await admin.patch('/profile', { email: 'Taken@example.com', password: t.adminPassword });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('e-mail already used');
  });

  describe('without can_edit_own_profile', () => {
    it.each([
      [{ name: 'Someone else' }, 'name'],
      [{ profile: { phone: '+74950000000' } }, 'profile.phone'],
      [{ profile: { address: 'Elsewhere 2' } }, 'profile.address'],
    ])('refuses %j with "action prohibited"', async (body, field) => {
      const m = await member([]);
      const res = await m.api.patch('/profile', body);
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe('action prohibited');
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual([field]);
    });

    it('refuses a new e-mail, even with the right password', async () => {
      const m = await member([]);
      const res = await m.api.patch('/profile', { email: 'mine@example.com', password: m.password });
      expect(res.statusCode).toBe(403);
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(['email']);
    });

    it('still saves language, time zone and formats, and takes unchanged fields as they are', async () => {
      const m = await member([]);
      const before = (await m.api.get('/profile')).json().data;
      const res = await m.api.patch('/profile', {
        name: before.name,
        email: before.email,
        locale: 'ru',
        profile: { address: null, phone: null, time_zone: 'Europe/Moscow', time_format: 'YYYY-MM-DD', identifier_format: 'hex' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({
        locale: 'ru',
        profile: { time_zone: 'Europe/Moscow', time_format: 'YYYY-MM-DD', identifier_format: 'hex' },
      });
    });
  });

  it('with can_edit_own_profile saves name and contacts', async () => {
    const m = await member(['can_edit_own_profile']);
    const res = await m.api.patch('/profile', { name: 'Renamed', profile: { phone: '+74950000001', address: 'Here 3' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Renamed', profile: { phone: '+74950000001', address: 'Here 3' } });
  });

  describe('a new e-mail needs the current password', () => {
    it('answers 400 with a password field detail when it is missing', async () => {
      const res = await admin.patch('/profile', { email: 'boss@example.com' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
      expect(res.json().details).toEqual([expect.objectContaining({ field: 'password' })]);
    });

    it('says "wrong old password" when it is wrong', async () => {
      const res = await admin.patch('/profile', { email: 'boss@example.com', password: 'not-the-password' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('wrong old password');
      expect(res.json().details).toEqual([expect.objectContaining({ field: 'password' })]);
      expect((await admin.get('/profile')).json().data.email).not.toBe('boss@example.com');
    });

    it('saves it with the right one, and keeps the password out of the audit log', async () => {
      const res = await admin.patch('/profile', { email: 'boss@example.com', password: t.adminPassword });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.email).toBe('boss@example.com');
      expect(JSON.stringify(await t.app.database.db.select().from(auditEvents))).not.toContain(t.adminPassword);
    });

    it('is not asked for when the e-mail stays the same', async () => {
      const { email } = (await admin.get('/profile')).json().data;
      expect((await admin.patch('/profile', { email, name: 'Chief' })).statusCode).toBe(200);
    });
  });

  it('two saves at once of different fields both stay', async () => {
    const m = await member(['can_edit_own_profile']);
    const [popup, settings, fields] = await Promise.all([
      m.api.patch('/profile/mobile-client/popup/active', { is_app_popup_active: false }),
      m.api.post('/notifications/settings', { acs: false }),
      m.api.patch('/profile', { profile: { address: 'Concurrent 5', time_format: 'MM-DD-YYYY' } }),
    ]);
    expect([popup.statusCode, settings.statusCode, fields.statusCode]).toEqual([200, 200, 200]);
    expect((await m.api.get('/profile')).json().data.profile).toMatchObject({
      is_app_popup_active: false,
      notification_settings: { acs: false },
      address: 'Concurrent 5',
      time_format: 'MM-DD-YYYY',
    });
  });
});

describe('POST /profile/password', () => {
  it('says "wrong old password" on mismatch', async () => {
    const res = await admin.post('/profile/password', { old: 'wrong', new: 'new-password-1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('wrong old password');
  });

  it('refuses a too short new password', async () => {
    const res = await admin.post('/profile/password', { old: t.adminPassword, new: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('new');
  });

  it('changes the password, stored as an argon2id hash', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    expect((await api.post('/profile/password', { old: u.password, new: 'brand-new-pass' })).statusCode).toBe(200);
    await expect(login(t.app, u.login, u.password)).rejects.toThrow();
    await expect(login(t.app, u.login, 'brand-new-pass')).resolves.toBeTruthy();
    const [row] = await t.app.database.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, u.id));
    expect(row?.hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('ends every other session of the user and keeps the one that changed it', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const elsewhere = await signIn(u.login, u.password);
    const here = await signIn(u.login, u.password);
    const res = await client(t.app, here.token).post('/profile/password', { old: u.password, new: 'brand-new-pass' });
    expect(res.statusCode).toBe(200);
    expect((await refresh(elsewhere.refresh)).statusCode).toBe(401);
    const renewed = await refresh(here.refresh);
    expect(renewed.statusCode).toBe(200);
    expect((await client(t.app, renewed.json().data.session.token).get('/profile')).statusCode).toBe(200);
  });

  it('notifies the user that the password changed', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    expect((await api.get('/notifications/unread')).json().meta.total).toBe(0);
    await api.post('/profile/password', { old: u.password, new: 'brand-new-pass' });
    const unread = (await api.get('/notifications/unread')).json();
    expect(unread.meta.total).toBe(1);
    expect(unread.data[0]).toMatchObject({ type: 'system', data: { event: 'password_changed' }, read_at: null });
  });

  it('sends no notification when the old password is wrong', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    await api.post('/profile/password', { old: 'not-it', new: 'brand-new-pass' });
    expect((await api.get('/notifications/unread')).json().meta.total).toBe(0);
  });
});

describe('mobile popup, avatar, account', () => {
  it('sets the mobile popup flag, kept per user and returned in the profile', async () => {
    const m = await member([]);
    const adminFlag = (await admin.get('/profile')).json().data.profile.is_app_popup_active;
    expect((await m.api.get('/profile')).json().data.profile.is_app_popup_active).toBe(true);
    const res = await m.api.patch('/profile/mobile-client/popup/active', { is_app_popup_active: false });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.profile.is_app_popup_active).toBe(false);
    expect((await m.api.get('/profile')).json().data.profile.is_app_popup_active).toBe(false);
    // Another user's flag is their own.
    expect((await admin.get('/profile')).json().data.profile.is_app_popup_active).toBe(adminFlag);
    for (const body of [{ is_app_popup_active: 'no' }, {}, { is_app_popup_active: true, other: 1 }, { is_app_popup_active: null }]) {
      const bad = await m.api.patch('/profile/mobile-client/popup/active', body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().message).toBe('invalid data sent');
    }
    expect((await m.api.get('/profile')).json().data.profile.is_app_popup_active).toBe(false);
    expect(
      (await m.api.patch('/profile/mobile-client/popup/active', { is_app_popup_active: true })).json().data.profile.is_app_popup_active,
    ).toBe(true);
    expect((await m.api.get('/profile')).json().data.profile.is_app_popup_active).toBe(true);
  });

  it('uploads, serves and removes an avatar', async () => {
    const { body, contentType } = multipart('image', 'me.png', PNG);
    const res = await admin.raw('POST', '/profile/avatar', body, { 'content-type': contentType });
    expect(res.statusCode).toBe(200);
    const url: string = res.json().data.avatar_url;
    expect(url).toMatch(/^\/api\/v0\/files\/avatars\//);
    const file = await t.app.inject({ method: 'GET', url });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    const removed = await admin.delete('/profile/avatar');
    expect(removed.json().data.avatar_url).toBeNull();
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });

  it('refuses a file that is not an image', async () => {
    const { body, contentType } = multipart('image', 'me.png', Buffer.from('#!/bin/sh\necho hi'));
    const res = await admin.raw('POST', '/profile/avatar', body, { 'content-type': contentType });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid file');
  });

  it('refuses an upload without the image field', async () => {
    const { body, contentType } = multipart('photo', 'me.png', PNG);
    const res = await admin.raw('POST', '/profile/avatar', body, { 'content-type': contentType });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('wrong file body');
  });

  it('of two administrators deleting their accounts at once, one stays', async () => {
    const db = t.app.database.db;
    const p = await t.app.services.projects.createProject({
      name: 'Two admins',
      adminLogin: 'first-admin',
      adminName: 'A',
      adminPassword: 'first-admin-1',
    });
    const second = await makeUser(db, { projectId: p.projectId, roleId: p.roleId, groupIds: [p.rootGroupId], login: 'second-admin' });
    const apis = [
      client(t.app, await login(t.app, 'first-admin', 'first-admin-1')),
      client(t.app, await login(t.app, second.login, second.password)),
    ];
    const statuses = (await Promise.all(apis.map((api) => api.delete('/account')))).map((r) => r.statusCode);
    expect(statuses.sort()).toEqual([200, 400]);
    const left = await db.select({ id: users.id }).from(users).where(eq(users.projectId, p.projectId));
    expect(left).toHaveLength(1);
  });

  it('refuses to delete the last administrator', async () => {
    const res = await admin.delete('/account');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe("can't perform action");
  });
});

describe('guessing the current password with a signed-in token', () => {
  it('is limited like sign-in: after 10 wrong answers even the right one waits, across password change and e-mail change', async () => {
    const db = t.app.database.db;
    const roleId = await makeRole(db, t.project.projectId, ['can_edit_own_profile']);
    const u = await makeUser(db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    const api = client(t.app, await login(t.app, u.login, u.password));
    // A right answer does not use up an attempt.
    for (let i = 0; i < 3; i++) {
      const ok = await api.post('/profile/password', { old: u.password, new: `${u.password}-x` });
      expect(ok.statusCode).toBe(200);
      expect((await api.post('/profile/password', { old: `${u.password}-x`, new: u.password })).statusCode).toBe(200);
    }
    for (let i = 0; i < 10; i++) {
      const wrong = await api.post('/profile/password', { old: `guess-${i}`, new: 'whatever-password-1' });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().message).toBe('wrong old password');
    }
    const limited = await api.post('/profile/password', { old: u.password, new: 'whatever-password-1' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toBe('too many attempts');
    // The same count guards the e-mail change.
    const email = await api.patch('/profile', { email: 'moved@example.org', password: u.password });
    expect(email.statusCode).toBe(429);
  });
});
