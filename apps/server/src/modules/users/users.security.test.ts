import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';

let t: TestApp;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t.close());

const db = () => t.app.database.db;

/** A user of the first project with these permissions, signed in: its API and refresh token. */
async function member(permissions: string[], email?: string) {
  const roleId = await makeRole(db(), t.project.projectId, permissions);
  const u = await makeUser(db(), {
    projectId: t.project.projectId,
    roleId,
    groupIds: [t.project.rootGroupId],
    ...(email ? { email } : {}),
  });
  const res = await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: u.login, password: u.password } });
  const session = res.json().data.sessions[0] as { token: string; refresh: string };
  return { ...u, api: client(t.app, session.token), refresh: session.refresh };
}

const refresh = (token: string) => t.app.inject({ method: 'POST', url: '/api/v0/refresh', payload: { token } });

describe('POST /users/:id/password', () => {
  it('ends every sign-in of the user', async () => {
    const u = await member([]);
    const other = await refresh((await member([])).refresh);
    expect((await admin.post(`/users/${u.id}/password`, { new_password: 'set-by-admin-1' })).statusCode).toBe(200);
    expect((await refresh(u.refresh)).statusCode).toBe(401);
    // Only that user's: someone else's sign-in goes on.
    expect(other.statusCode).toBe(200);
    expect((await refresh(other.json().data.session.refresh)).statusCode).toBe(200);
    await expect(login(t.app, u.login, 'set-by-admin-1')).resolves.toBeTruthy();
  });
});

describe('PATCH /users/{own id}: the e-mail', () => {
  it('needs the current password to change one’s own', async () => {
    const m = await member(['can_edit_own_profile'], 'mine-1@example.com');
    const res = await m.api.patch(`/users/${m.id}`, { email: 'thief-1@example.com' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([expect.objectContaining({ field: 'password' })]);
    expect((await m.api.get(`/users/${m.id}`)).json().data.email).toBe('mine-1@example.com');
  });

  it('needs it to remove one’s own e-mail as well', async () => {
    const m = await member(['can_edit_own_profile'], 'mine-2@example.com');
    const res = await m.api.patch(`/users/${m.id}`, { email: null });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([expect.objectContaining({ field: 'password' })]);
  });

  it('answers "wrong old password" for a wrong one', async () => {
    const m = await member(['can_edit_own_profile'], 'mine-3@example.com');
    const res = await m.api.patch(`/users/${m.id}`, { email: 'thief-3@example.com', password: 'not-the-password' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('wrong old password');
    expect(res.json().details).toEqual([expect.objectContaining({ field: 'password' })]);
    expect((await m.api.get(`/users/${m.id}`)).json().data.email).toBe('mine-3@example.com');
  });

  it('saves it with the right one, and keeps the password out of the audit log', async () => {
    const m = await member(['can_edit_own_profile'], 'mine-4@example.com');
    const res = await m.api.patch(`/users/${m.id}`, { email: 'new-4@example.com', password: m.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.email).toBe('new-4@example.com');
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.entityId, String(m.id)));
    expect(JSON.stringify(rows)).not.toContain(m.password);
  });

  it('asks an administrator for it too when the e-mail is their own', async () => {
    const res = await admin.patch(`/users/${t.project.adminId}`, { email: 'chief@example.com' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([expect.objectContaining({ field: 'password' })]);
    const ok = await admin.patch(`/users/${t.project.adminId}`, { email: 'chief@example.com', password: t.adminPassword });
    expect(ok.statusCode).toBe(200);
  });

  it('is not asked for when the e-mail stays the same or is not sent', async () => {
    const m = await member(['can_edit_own_profile'], 'mine-5@example.com');
    expect((await m.api.patch(`/users/${m.id}`, { email: 'mine-5@example.com', name: 'Same mail' })).statusCode).toBe(200);
    expect((await m.api.patch(`/users/${m.id}`, { name: 'No mail', profile: { address: 'Flat 1' } })).statusCode).toBe(200);
  });

  it('is not asked of an administrator changing someone else’s', async () => {
    const m = await member([], 'theirs@example.com');
    const res = await admin.patch(`/users/${m.id}`, { email: 'moved@example.com' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.email).toBe('moved@example.com');
  });
});
