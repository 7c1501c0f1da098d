import { LOGIN_MAX_FAILURES, RECOVERY_CODE_COUNT, TOTP_PERIOD_SECONDS } from '@atrium/contract';
import { and, eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';
import { scopeTree } from '../users/scope.fixture.js';
import { userTwoFactor } from './two-factor.table.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

let ipSeq = 0;
const post = (url: string, payload: unknown, ip = `10.20.${ipSeq >> 8}.${++ipSeq & 255}`) =>
  t.app.inject({ method: 'POST', url: `/api/v0${url}`, payload: payload as object, headers: { 'x-forwarded-for': ip } });

/** A code of the authenticator app, `steps` time steps from now. */
const code = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * TOTP_PERIOD_SECONDS * 1000 });

/** A fresh user with two-factor sign-in on: its secret, recovery codes and a client. */
async function enrolled() {
  const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
  const api = client(t.app, await login(t.app, u.login, u.password));
  const { secret } = (await api.post('/profile/two-factor/enrol', { password: u.password })).json().data;
  const res = await api.post('/profile/two-factor/confirm', { code: code(secret) });
  expect(res.statusCode).toBe(200);
  return { ...u, api, secret, recovery: res.json().data.recovery_codes as string[] };
}

describe('enrolment from the profile', () => {
  it('answers a secret, its otpauth URL and a QR code after the password, and turns on only with a right code', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    const api = client(t.app, await login(t.app, u.login, u.password));
    expect((await api.get('/profile/two-factor')).json().data).toEqual({
      enabled: false,
      pending: false,
      recovery_codes_left: 0,
      enabled_at: null,
    });
    const wrong = await api.post('/profile/two-factor/enrol', { password: 'not-mine' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe('wrong old password');

    const started = await api.post('/profile/two-factor/enrol', { password: u.password });
    expect(started.statusCode).toBe(200);
    const { secret, otpauth_url, qr } = started.json().data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url).toContain(`secret=${secret}`);
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Atrium:/);
    expect(qr).toMatch(/^data:image\/svg\+xml;base64,/);
    expect((await api.get('/profile/two-factor')).json().data).toMatchObject({ enabled: false, pending: true });
    // Kept encrypted: the stored value is not the key.
    const [row] = await t.app.database.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, u.id));
    expect(row?.secret).not.toContain(secret);

    const bad = await api.post('/profile/two-factor/confirm', { code: '000000' === code(secret) ? '111111' : '000000' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ message: 'invalid two-factor code', details: [{ field: 'code' }] });
    const ok = await api.post('/profile/two-factor/confirm', { code: code(secret) });
    expect(ok.statusCode).toBe(200);
    const codes: string[] = ok.json().data.recovery_codes;
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    // Recovery codes are stored hashed, never as given.
    const [after] = await t.app.database.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, u.id));
    expect(after?.recoveryCodes.some((h) => codes.includes(h))).toBe(false);

    const status = (await api.get('/profile/two-factor')).json().data;
    expect(status).toMatchObject({ enabled: true, pending: false, recovery_codes_left: RECOVERY_CODE_COUNT });
    expect(JSON.stringify(status)).not.toContain(secret);
    // Once on, the secret is never given again: a new enrolment is refused.
    expect((await api.post('/profile/two-factor/enrol', { password: u.password })).statusCode).toBe(409);
    expect((await api.post('/profile/two-factor/confirm', { code: code(secret) })).statusCode).toBe(409);
  });

  it('confirming without a started enrolment is refused', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    const res = await api.post('/profile/two-factor/confirm', { code: '123456' });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('two-factor enrolment was not started');
  });

  it.each([
    ['/profile/two-factor/enrol', {}, 'password'],
    ['/profile/two-factor/confirm', { code: '1' }, 'code'],
    ['/profile/two-factor/disable', { password: 'x' }, 'code'],
    ['/profile/two-factor/enrol', { password: 'x', extra: 1 }, ''],
  ])('%s answers 400 with field details for %j', async (url, body, field) => {
    const api = client(t.app, await login(t.app, t.adminLogin, t.adminPassword));
    const res = await api.post(url, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('needs a signed-in user', async () => {
    expect((await client(t.app).get('/profile/two-factor')).statusCode).toBe(401);
    expect((await client(t.app).post('/profile/two-factor/enrol', { password: 'x' })).statusCode).toBe(401);
  });
});

describe('signing in with a second step', () => {
  it('a right password answers a challenge, not a session; the code then answers the session', async () => {
    const u = await enrolled();
    const res = await post('/login', { login: u.login, password: u.password });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.sessions).toEqual([]);
    expect(data.two_factor).toHaveLength(1);
    const { challenge, project } = data.two_factor[0];
    expect(project.id).toBe(t.project.projectId);
    // The challenge opens nothing by itself.
    expect((await client(t.app, challenge).get('/profile')).statusCode).toBe(401);
    expect((await post('/refresh', { token: challenge })).statusCode).toBe(401);

    const next = code(u.secret, 1);
    const signed = await post('/login/two-factor', { challenge, code: next });
    expect(signed.statusCode).toBe(200);
    const [session] = signed.json().data.sessions;
    expect(session.project.id).toBe(t.project.projectId);
    expect((await client(t.app, session.token).get('/profile')).json().data.id).toBe(u.id);

    // The same code again, within its window, is refused (with a new challenge: a used one is refused first).
    const fresh = (await post('/login', { login: u.login, password: u.password })).json().data.two_factor[0].challenge;
    const replay = await post('/login/two-factor', { challenge: fresh, code: next });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().message).toBe('invalid two-factor code');
  });

  it('a challenge signs in once: replayed within its life with another good code it is refused, and burns no code', async () => {
    const u = await enrolled();
    const challenge = (await post('/login', { login: u.login, password: u.password })).json().data.two_factor[0].challenge;
    // A typo does not use the challenge up.
    expect((await post('/login/two-factor', { challenge, code: 'aaaaa-aaaaa' })).statusCode).toBe(400);
    expect((await post('/login/two-factor', { challenge, code: u.recovery[0] as string })).statusCode).toBe(200);
    const replay = await post('/login/two-factor', { challenge, code: u.recovery[1] as string });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toBe('invalid token');
    expect((await u.api.get('/profile/two-factor')).json().data.recovery_codes_left).toBe(RECOVERY_CODE_COUNT - 1);
    // Two requests racing with one fresh challenge: one session at most.
    const raced = (await post('/login', { login: u.login, password: u.password })).json().data.two_factor[0].challenge;
    const both = await Promise.all([
      post('/login/two-factor', { challenge: raced, code: u.recovery[2] as string }),
      post('/login/two-factor', { challenge: raced, code: u.recovery[3] as string }),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 401]);
  });

  it('a recovery code works once', async () => {
    const u = await enrolled();
    const challenge = (await post('/login', { login: u.login, password: u.password })).json().data.two_factor[0].challenge;
    const recovery = u.recovery[3] as string;
    const first = await post('/login/two-factor', { challenge, code: recovery.toUpperCase() });
    expect(first.statusCode).toBe(200);
    const again = (await post('/login', { login: u.login, password: u.password })).json().data.two_factor[0].challenge;
    expect((await post('/login/two-factor', { challenge: again, code: recovery })).statusCode).toBe(400);
    expect((await u.api.get('/profile/two-factor')).json().data.recovery_codes_left).toBe(RECOVERY_CODE_COUNT - 1);
    const audit = await t.app.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'two_factor'), eq(auditEvents.action, 'recovery_code_used')));
    expect(audit.map((r) => r.userId)).toContain(u.id);
  });

  it('refuses a forged, foreign or access-token challenge', async () => {
    const u = await enrolled();
    const access = await login(t.app, t.adminLogin, t.adminPassword);
    for (const challenge of ['x'.repeat(40), access, `${access.slice(0, -4)}AAAA`]) {
      const res = await post('/login/two-factor', { challenge, code: code(u.secret) });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('invalid token');
    }
  });

  it('wrong codes count towards the sign-in lockout, and a new password sign-in does not buy more guesses', async () => {
    const u = await enrolled();
    const ip = '10.30.0.1';
    const challengeOf = async (from: string) =>
      (await post('/login', { login: u.login, password: u.password }, from)).json().data.two_factor[0].challenge;
    let challenge = await challengeOf(ip);
    const wrong = code(u.secret) === '000000' ? '111111' : '000000';
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
      if (i === 5) challenge = await challengeOf(`10.31.0.${i}`);
      expect((await post('/login/two-factor', { challenge, code: wrong }, `10.30.1.${i}`)).statusCode).toBe(400);
    }
    const locked = await post('/login/two-factor', { challenge, code: code(u.secret, 1) }, '10.30.2.1');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().message).toBe('too many attempts');
    const audit = await t.app.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'session'), eq(auditEvents.action, 'login_two_factor_failed')));
    expect(audit.filter((r) => r.userId === u.id)).toHaveLength(LOGIN_MAX_FAILURES);
  });

  it('users without two-factor sign-in get their session at once', async () => {
    const res = await post('/login', { login: t.adminLogin, password: t.adminPassword });
    expect(res.json().data.sessions).toHaveLength(1);
    expect(res.json().data.two_factor).toBeUndefined();
  });
});

describe('turning it off', () => {
  it('needs the password and a current code, and counts wrong codes', async () => {
    const u = await enrolled();
    expect((await u.api.post('/profile/two-factor/disable', { password: 'wrong', code: code(u.secret, 1) })).statusCode).toBe(400);
    const badCode = await u.api.post('/profile/two-factor/disable', { password: u.password, code: 'aaaaa-bbbbb' });
    expect(badCode.statusCode).toBe(400);
    expect(badCode.json().message).toBe('invalid two-factor code');
    expect((await u.api.post('/profile/two-factor/disable', { password: u.password, code: code(u.secret, 1) })).statusCode).toBe(200);
    expect((await u.api.get('/profile/two-factor')).json().data.enabled).toBe(false);
    expect((await post('/login', { login: u.login, password: u.password })).json().data.sessions).toHaveLength(1);
    expect((await u.api.post('/profile/two-factor/disable', { password: u.password, code: '123456' })).statusCode).toBe(409);
  });

  it('new recovery codes replace the old ones', async () => {
    const u = await enrolled();
    const res = await u.api.post('/profile/two-factor/recovery-codes', { password: u.password, code: u.recovery[0] });
    expect(res.statusCode).toBe(200);
    const fresh: string[] = res.json().data.recovery_codes;
    expect(fresh).toHaveLength(RECOVERY_CODE_COUNT);
    const challenge = (await post('/login', { login: u.login, password: u.password })).json().data.two_factor[0].challenge;
    expect((await post('/login/two-factor', { challenge, code: u.recovery[1] })).statusCode).toBe(400);
    expect((await post('/login/two-factor', { challenge, code: fresh[0] })).statusCode).toBe(200);
  });
});

describe("an administrator's reset", () => {
  it('turns another user off and ends their sign-ins; follows the rules of acting on another user', async () => {
    const tree = await scopeTree(t);
    const db = t.app.database.db;
    const inA1 = await makeUser(db, { projectId: t.project.projectId, groupIds: [tree.groups.A1] });
    const enrol = async (u: { login: string; password: string }) => {
      const api = client(t.app, await login(t.app, u.login, u.password));
      const { secret } = (await api.post('/profile/two-factor/enrol', { password: u.password })).json().data;
      expect((await api.post('/profile/two-factor/confirm', { code: code(secret) })).statusCode).toBe(200);
      return api;
    };
    const inA1Api = await enrol(inA1);
    const viewer = await tree.actor(['can_view_descendant_users'], ['A']);
    expect((await viewer.api.post(`/users/${inA1.id}/two-factor/reset`)).statusCode).toBe(403);
    const groupAdmin = await tree.actor(['can_view_descendant_users', 'can_edit_descendant_users'], ['A']);
    const administrator = await makeUser(db, { projectId: t.project.projectId, roleId: t.project.roleId, groupIds: [tree.groups.A1] });
    await enrol(administrator);
    // Never someone more privileged…
    expect((await groupAdmin.api.post(`/users/${administrator.id}/two-factor/reset`)).statusCode).toBe(403);
    // …nor outside the scope, nor in another project.
    const inB1 = await makeUser(db, { projectId: t.project.projectId, groupIds: [tree.groups.B1] });
    expect((await groupAdmin.api.post(`/users/${inB1.id}/two-factor/reset`)).statusCode).toBe(404);
    expect((await tree.other.admin.post(`/users/${inA1.id}/two-factor/reset`)).statusCode).toBe(404);

    const res = await groupAdmin.api.post(`/users/${inA1.id}/two-factor/reset`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ id: inA1.id });
    expect((await inA1Api.get('/profile')).statusCode).toBe(401);
    expect((await post('/login', { login: inA1.login, password: inA1.password })).json().data.sessions).toHaveLength(1);
    expect((await groupAdmin.api.post(`/users/${inA1.id}/two-factor/reset`)).statusCode).toBe(409);
    // The administrator still has theirs.
    const [kept] = await db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, administrator.id));
    expect(kept?.enabledAt).not.toBeNull();
  });
});

describe('a role that requires two-factor sign-in', () => {
  it('is set in the role form; its holders enrol at their next sign-in before any session, and cannot turn it off', async () => {
    const admin = client(t.app, await login(t.app, t.adminLogin, t.adminPassword));
    const created = await admin.put('/roles', { name: `Guards ${Date.now()}`, permissions: ['can_edit_own_profile'] });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().data.two_factor_required).toBe(false);
    const roleId = created.json().data.id as number;
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    // Before the flag: the password alone signs in.
    expect((await post('/login', { login: u.login, password: u.password })).json().data.sessions).toHaveLength(1);

    const flagged = await admin.patch(`/roles/${roleId}`, { two_factor_required: true });
    expect(flagged.statusCode, flagged.body).toBe(200);
    expect(flagged.json().data.two_factor_required).toBe(true);
    expect((await admin.get(`/roles/${roleId}`)).json().data.two_factor_required).toBe(true);

    const res = await post('/login', { login: u.login, password: u.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.sessions).toEqual([]);
    const [step] = res.json().data.two_factor;
    expect(step).toMatchObject({ enrolment_required: true, project: { id: t.project.projectId } });
    // No code can be given before enrolling, and the challenge opens nothing else.
    expect((await post('/login/two-factor', { challenge: step.challenge, code: '123456' })).statusCode).toBe(400);
    expect((await client(t.app, step.challenge).get('/profile')).statusCode).toBe(401);
    // Enrolment needs an enrolment challenge: not a forged one.
    expect((await post('/login/two-factor/enrol', { challenge: 'forged.challenge.value' })).statusCode).toBe(401);
    const enrolment = await post('/login/two-factor/enrol', { challenge: step.challenge });
    expect(enrolment.statusCode, enrolment.body).toBe(200);
    const { secret, qr } = enrolment.json().data;
    expect(qr).toMatch(/^data:image\/svg\+xml;base64,/);
    const wrong = await post('/login/two-factor', { challenge: step.challenge, code: code(secret) === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(400);
    const signed = await post('/login/two-factor', { challenge: step.challenge, code: code(secret) });
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json().data.recovery_codes).toHaveLength(RECOVERY_CODE_COUNT);
    const api = client(t.app, signed.json().data.sessions[0].token);
    expect((await api.get('/profile/two-factor')).json().data).toMatchObject({ enabled: true, recovery_codes_left: RECOVERY_CODE_COUNT });

    // From now on a code is asked (no enrolment), and the user cannot turn it off while the role requires it.
    const next = (await post('/login', { login: u.login, password: u.password })).json().data.two_factor[0];
    expect(next.enrolment_required).toBeUndefined();
    expect((await post('/login/two-factor/enrol', { challenge: next.challenge })).statusCode).toBe(401);
    const off = await api.post('/profile/two-factor/disable', { password: u.password, code: code(secret, 1) });
    expect(off.statusCode).toBe(409);
    expect(off.json().message).toBe('two-factor sign-in is required by your role');

    // The flag off again: the password alone is back for users without two-factor sign-in.
    const plain = await makeUser(t.app.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    expect((await admin.patch(`/roles/${roleId}`, { two_factor_required: false })).statusCode).toBe(200);
    expect((await post('/login', { login: plain.login, password: plain.password })).json().data.sessions).toHaveLength(1);
  });
});
