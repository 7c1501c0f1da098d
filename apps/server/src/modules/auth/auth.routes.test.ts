import { LOGIN_ACCOUNT_MAX_FAILURES, LOGIN_ADDRESS_MAX_FAILURES, LOGIN_MAX_FAILURES } from '@atrium/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

const post = (url: string, payload: unknown, ip = '10.0.0.1') =>
  t.app.inject({ method: 'POST', url: `/api/v0${url}`, payload: payload as object, headers: { 'x-forwarded-for': ip } });

describe('POST /login', () => {
  it('answers one session with token, refresh and project', async () => {
    const res = await post('/login', { login: t.adminLogin, password: t.adminPassword });
    expect(res.statusCode).toBe(200);
    const { sessions } = res.json().data;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ project: { id: t.project.projectId, name: 'Test project' }, expires_in: 900 });
    expect(sessions[0].token.split('.')).toHaveLength(3);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('is case-insensitive on the login', async () => {
    const res = await post('/login', { login: t.adminLogin.toUpperCase(), password: t.adminPassword });
    expect(res.statusCode).toBe(200);
  });

  it('answers a session per project where the login and password match', async () => {
    const other = await t.app.services.projects.createProject({
      name: 'Second',
      adminLogin: 'shared',
      adminName: 'S',
      adminPassword: 'shared-pass-1',
    });
    await makeUser(t.app.database.db, { projectId: t.project.projectId, login: 'shared', password: 'shared-pass-1' });
    const res = await post('/login', { login: 'shared', password: 'shared-pass-1' });
    expect(res.statusCode).toBe(200);
    const projects = res
      .json()
      .data.sessions.map((s: { project: { id: number } }) => s.project.id)
      .sort();
    expect(projects).toEqual([t.project.projectId, other.projectId].sort());
  });

  it('refuses a wrong password with "invalid credentials"', async () => {
    const res = await post('/login', { login: t.adminLogin, password: 'nope' }, '10.0.0.2');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ message: 'invalid credentials', code: 'invalid_credentials' });
  });

  it('refuses an unknown login the same way', async () => {
    const res = await post('/login', { login: 'ghost', password: 'nope' }, '10.0.0.3');
    expect(res.json().message).toBe('invalid credentials');
  });

  it.each([
    [{}, 'login'],
    [{ login: '', password: 'x' }, 'login'],
    [{ login: 'a' }, 'password'],
    [{ login: 'a', password: 'b', extra: 1 }, ''],
  ])('answers 400 with field details for %j', async (body, field) => {
    const res = await post('/login', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 400, not 500, for a body that is not JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v0/login',
      payload: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
  });

  it('rate-limits failed sign-ins per login and address: the owner elsewhere still gets in', async () => {
    await makeUser(t.app.database.db, { projectId: t.project.projectId, login: 'victim', password: 'victim-pass-1' });
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) await post('/login', { login: 'victim', password: 'bad' }, '10.1.0.1');
    const res = await post('/login', { login: 'victim', password: 'victim-pass-1' }, '10.1.0.1');
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toBe('too many attempts');
    expect((await post('/login', { login: 'victim', password: 'victim-pass-1' }, '10.1.1.1')).statusCode).toBe(200);
  });

  it('rate-limits failed sign-ins per login from many addresses at a wider limit', async () => {
    await makeUser(t.app.database.db, { projectId: t.project.projectId, login: 'spread', password: 'spread-pass-1' });
    for (let i = 0; i < LOGIN_ACCOUNT_MAX_FAILURES; i++)
      await post('/login', { login: 'spread', password: 'bad' }, `10.3.${i >> 8}.${i & 255}`);
    expect((await post('/login', { login: 'spread', password: 'spread-pass-1' }, '10.3.200.1')).statusCode).toBe(429);
  });

  it('rate-limits failed sign-ins per address over many logins', async () => {
    for (let i = 0; i < LOGIN_ADDRESS_MAX_FAILURES; i++) await post('/login', { login: `nobody-${i}`, password: 'bad' }, '10.9.9.9');
    const res = await post('/login', { login: t.adminLogin, password: t.adminPassword }, '10.9.9.9');
    expect(res.statusCode).toBe(429);
  });

  it('lets no more than the limit of parallel wrong sign-ins reach the password check', async () => {
    await makeUser(t.app.database.db, { projectId: t.project.projectId, login: 'raced', password: 'raced-pass-1' });
    const attempts = Array.from({ length: 3 * LOGIN_MAX_FAILURES }, () => post('/login', { login: 'raced', password: 'bad' }, '10.4.0.1'));
    const statuses = (await Promise.all(attempts)).map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(LOGIN_MAX_FAILURES);
    expect(statuses.filter((s) => s !== 401).every((s) => s === 429)).toBe(true);
    expect((await post('/login', { login: 'raced', password: 'raced-pass-1' }, '10.4.0.1')).statusCode).toBe(429);
  });

  it('a successful sign-in does not use up the attempts of its address', async () => {
    for (let i = 0; i < LOGIN_MAX_FAILURES + 2; i++) {
      expect((await post('/login', { login: t.adminLogin, password: t.adminPassword }, '10.6.0.1')).statusCode).toBe(200);
    }
  });
});

describe('the client address', () => {
  it('by default comes from the connection: a forged X-Forwarded-For neither escapes the limit nor reaches the audit log', async () => {
    const own = await buildTestApp({ env: { TRUST_PROXY: '' } });
    try {
      const attempt = (login: string, password: string, forged: string) =>
        own.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login, password }, headers: { 'x-forwarded-for': forged } });
      for (let i = 0; i < LOGIN_MAX_FAILURES; i++) expect((await attempt('nobody', 'bad', `10.8.0.${i}`)).statusCode).toBe(401);
      expect((await attempt('nobody', 'bad', '10.8.1.1')).statusCode).toBe(429);
      const rows = await own.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'login_failed'));
      expect(rows.map((r) => r.ip)).toEqual(Array(LOGIN_MAX_FAILURES).fill('127.0.0.1'));
    } finally {
      await own.close();
    }
    // An app of its own (every migration) and fifty argon2id sign-ins: longer than the default on a busy machine.
  }, 120_000);
});

describe('POST /refresh and /logout', () => {
  const signIn = async () => (await post('/login', { login: t.adminLogin, password: t.adminPassword }, '10.2.0.1')).json().data.sessions[0];

  it('rotates the refresh token and issues a working access token', async () => {
    const s = await signIn();
    const res = await post('/refresh', { token: s.refresh });
    expect(res.statusCode).toBe(200);
    const next = res.json().data.session;
    expect(next.refresh).not.toBe(s.refresh);
    expect((await client(t.app, next.token).get('/profile')).statusCode).toBe(200);
  });

  it('revokes the whole family when a rotated refresh token is reused', async () => {
    const s = await signIn();
    const first = (await post('/refresh', { token: s.refresh })).json().data.session;
    const replay = await post('/refresh', { token: s.refresh });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toBe('invalid token');
    // The legitimate holder's newer token is revoked too.
    expect((await post('/refresh', { token: first.refresh })).statusCode).toBe(401);
  });

  it('keeps ordinary refreshes out of the audit log, and records a reused refresh token as a security event', async () => {
    const s = await signIn();
    await post('/refresh', { token: s.refresh }, '10.5.0.1');
    await post('/refresh', { token: s.refresh }, '10.5.0.2');
    const rows = await t.app.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'session'), eq(auditEvents.userId, t.project.adminId)));
    // A console refreshes its token every few minutes: that is no change a person made.
    expect(rows.filter((r) => r.action === 'refresh')).toEqual([]);
    const reuse = rows.find((r) => r.ip === '10.5.0.2');
    const who = { userId: t.project.adminId, projectId: t.project.projectId, entityId: String(t.project.adminId) };
    expect(reuse).toMatchObject({ ...who, action: 'refresh_reuse' });
    // The replay names the session family, so it can be traced to the sign-in it came from.
    expect(reuse?.after).toMatchObject({ session_family: expect.any(String) });
  });

  it('refuses an unknown refresh token', async () => {
    const res = await post('/refresh', { token: 'x'.repeat(43) });
    expect(res.statusCode).toBe(401);
  });

  it('logout revokes the session family', async () => {
    const s = await signIn();
    const res = await client(t.app, s.token).post('/logout', { token: s.refresh });
    expect(res.statusCode).toBe(200);
    expect((await post('/refresh', { token: s.refresh })).statusCode).toBe(401);
  });

  it('records sign-ins, failed sign-ins and sign-outs in the audit log', async () => {
    const rows = await t.app.database.db.select().from(auditEvents).where(eq(auditEvents.entity, 'session'));
    const actions = new Set(rows.map((r) => r.action));
    expect(actions).toEqual(new Set(['login', 'login_failed', 'logout', 'refresh_reuse']));
    const failed = rows.find((r) => r.action === 'login_failed');
    // The attempted login is kept, never the password that was tried.
    expect(Object.keys(failed?.after as object)).toEqual(['login']);
    expect(rows.find((r) => r.action === 'login')).toMatchObject({
      userId: expect.any(Number),
      ip: expect.any(String),
      requestId: expect.any(String),
    });
  });

  it('logout needs a signed-in user', async () => {
    const res = await client(t.app).post('/logout', {});
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('unauthenticated');
  });
});

describe('access tokens', () => {
  it.each([['garbage'], ['a.b.c'], ['']])('refuses token %j with 401 unauthenticated', async (token) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v0/profile', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ message: 'unauthenticated', code: 'unauthenticated' });
  });

  it('refuses an expired token', async () => {
    const tokens = new (await import('../../core/auth/tokens.js')).TokenService('test-secret-test-secret-test-secret-42');
    const token = await tokens.signAccess({ userId: t.project.adminId, projectId: t.project.projectId }, -10);
    const res = await client(t.app, token).get('/profile');
    expect(res.statusCode).toBe(401);
  });

  it('refuses a token signed with another secret', async () => {
    const tokens = new (await import('../../core/auth/tokens.js')).TokenService('another-secret-another-secret-another');
    const token = await tokens.signAccess({ userId: t.project.adminId, projectId: t.project.projectId });
    expect((await client(t.app, token).get('/profile')).statusCode).toBe(401);
  });

  it('refuses a token whose user was deleted', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, login: 'leaver' });
    const token = (await post('/login', { login: 'leaver', password: u.password }, '10.3.0.1')).json().data.sessions[0].token;
    expect((await client(t.app, token).delete('/account')).statusCode).toBe(200);
    expect((await client(t.app, token).get('/profile')).statusCode).toBe(401);
  });
});
