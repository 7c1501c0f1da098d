import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';

let t: TestApp;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = client(t.app, await login(t.app, t.adminLogin, t.adminPassword));
});
afterAll(() => t?.close());

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
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
    const res = await admin.patch('/profile', { email: 'Taken@example.com' });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('e-mail already used');
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

  it('changes the password', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    expect((await api.post('/profile/password', { old: u.password, new: 'brand-new-pass' })).statusCode).toBe(200);
    await expect(login(t.app, u.login, u.password)).rejects.toThrow();
    await expect(login(t.app, u.login, 'brand-new-pass')).resolves.toBeTruthy();
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
  it('sets the mobile popup flag', async () => {
    const res = await admin.patch('/profile/mobile-client/popup/active', { is_app_popup_active: false });
    expect(res.json().data.profile.is_app_popup_active).toBe(false);
    expect((await admin.patch('/profile/mobile-client/popup/active', { is_app_popup_active: 'no' })).statusCode).toBe(400);
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

  it('refuses to delete the last administrator', async () => {
    const res = await admin.delete('/account');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe("can't perform action");
  });
});
