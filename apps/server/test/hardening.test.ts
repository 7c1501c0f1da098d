import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from './factories/user.factory.js';
import { adminClient, buildTestApp, client, type TestApp } from './helpers.js';

// Issue 9: ended sign-ins refuse their access tokens at once; odd text and odd bodies are a 400, never a 500.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const signIn = async (login: string, password: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login, password } });
  expect(res.statusCode).toBe(200);
  return res.json().data.sessions[0] as { token: string; refresh: string };
};
const profileStatus = async (token: string) => (await client(t.app, token).get('/profile')).statusCode;
const member = () => makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });

describe('access tokens of ended sign-ins', () => {
  it('are refused at once after sign-out, while the same user’s other sign-in goes on', async () => {
    const u = await member();
    const a = await signIn(u.login, u.password);
    const b = await signIn(u.login, u.password);
    expect(await profileStatus(a.token)).toBe(200);
    expect((await client(t.app, a.token).post('/logout', { token: a.refresh })).statusCode).toBe(200);
    expect(await profileStatus(a.token)).toBe(401);
    expect(await profileStatus(b.token)).toBe(200);
  });

  it('are refused after a password set by an administrator', async () => {
    const u = await member();
    const s = await signIn(u.login, u.password);
    const admin = await adminClient(t);
    expect((await admin.post(`/users/${u.id}/password`, { new_password: 'set-by-admin-123' })).statusCode).toBe(200);
    expect(await profileStatus(s.token)).toBe(401);
  });

  it('are refused after a rotated refresh token is used again', async () => {
    const u = await member();
    const s = await signIn(u.login, u.password);
    const rotated = (await t.app.inject({ method: 'POST', url: '/api/v0/refresh', payload: { token: s.refresh } })).json().data.session;
    expect(await profileStatus(rotated.token)).toBe(200);
    const replay = await t.app.inject({ method: 'POST', url: '/api/v0/refresh', payload: { token: s.refresh } });
    expect(replay.statusCode).toBe(401);
    expect(await profileStatus(rotated.token)).toBe(401);
    expect(await profileStatus(s.token)).toBe(401);
  });
});

describe('odd text and odd bodies', () => {
  it('POST /logout without a body signs out', async () => {
    const u = await member();
    for (const headers of [{}, { 'content-type': 'application/json' }]) {
      const s = await signIn(u.login, u.password);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v0/logout',
        headers: { authorization: `Bearer ${s.token}`, ...headers },
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(await profileStatus(s.token)).toBe(401);
    }
  });

  it('a NUL character in a sign-in, a body, a query or a path answers 400', async () => {
    const admin = await adminClient(t);
    const login = await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: 'ad\u0000min', password: 'x\u0000' } });
    expect(login.statusCode).toBe(400);
    expect(login.json().message).toBe('invalid data sent');
    expect((await admin.patch('/profile', { name: 'Nul\u0000Name' })).statusCode).toBe(400);
    expect((await admin.get('/users?search=a%00b')).statusCode).toBe(400);
    expect(
      (
        await admin.get(
          `/users?filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'name', operator: 'equals', value: 'a\u0000' }] }))}`,
        )
      ).statusCode,
    ).toBe(400);
    expect((await admin.get('/users/1%00')).statusCode).toBe(400);
  });

  it('an impossible date in a date filter answers 400; a leap day is a date', async () => {
    const admin = await adminClient(t);
    const on = (value: string) =>
      admin.get(
        `/users?filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'created_at', operator: 'above', value }] }))}`,
      );
    for (const bad of ['2020-02-30', '2021-02-29', '2020-13-01', '2020-04-31T10:00:00Z']) {
      const res = await on(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().details[0]).toMatchObject({ field: 'filters.rules.0.value', message: 'validation.date' });
    }
    expect((await on('2020-02-29')).statusCode).toBe(200);
  });

  it('JSON nested 10,000 deep, a __proto__ key and broken JSON answer 400', async () => {
    const admin = await adminClient(t);
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    for (const payload of [deep, '{"name":"x","__proto__":{"admin":true}}', '{"name":']) {
      const res = await admin.raw('PATCH', '/profile', payload, { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
    }
  });
});

describe('phone numbers and time zones of users', () => {
  it('stores a usually formatted phone as E.164 and refuses a time zone that does not exist', async () => {
    const admin = await adminClient(t);
    const u = await member();
    const ok = await admin.patch(`/users/${u.id}`, { profile: { phone: '+7 (912) 345-67-89', time_zone: 'europe/moscow' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.profile).toMatchObject({ phone: '+79123456789', time_zone: 'Europe/Moscow' });
    const zone = await admin.patch(`/users/${u.id}`, { profile: { time_zone: 'Europe/Moscw' } });
    expect(zone.statusCode).toBe(400);
    expect(zone.json().details[0]).toMatchObject({ field: 'profile.time_zone', message: 'validation.time_zone' });
    const phone = await admin.patch(`/users/${u.id}`, { profile: { phone: 'call the concierge' } });
    expect(phone.json().details[0]).toMatchObject({ field: 'profile.phone', message: 'validation.phone_international' });
    const own = await admin.patch('/profile', { profile: { time_zone: 'Mars/Olympus' } });
    expect(own.statusCode).toBe(400);
  });
});
