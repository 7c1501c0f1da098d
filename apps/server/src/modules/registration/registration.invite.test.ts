import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, login } from '../../../test/helpers.js';
import { freshIp, linkSecret, PUBLIC_URL, type RegistrationTestbed, registrationTestbed } from '../../../test/registration-setup.js';
import { AppError } from '../../core/errors.js';
import { auditEvents } from '../audit/audit.table.js';
import { users } from '../users/users.table.js';
import { userTokens } from './registration.table.js';

let bed: RegistrationTestbed;
let n = 0;
beforeAll(async () => {
  bed = await registrationTestbed();
});
afterAll(() => bed?.close());
beforeEach(async () => {
  await bed.switches({});
});

const db = () => bed.t.app.database.db;
const invitee = async (over: { email?: string | null; locale?: string } = {}) => {
  const email = over.email === undefined ? `invitee${++n}@example.test` : over.email;
  const u = await makeUser(db(), { projectId: bed.t.project.projectId, name: 'Pat Invitee', ...(email ? { email } : {}) });
  if (over.locale) await db().update(users).set({ locale: over.locale }).where(eq(users.id, u.id));
  return { ...u, email };
};
const invite = (userId: number) => bed.t.app.services.registration.sendInvite(bed.adminContext(), userId);
const errorCode = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return 'no error';
};

describe('registration by invitation', () => {
  it('mails a registration link; the invitee reads who it is for and sets a password', async () => {
    const u = await invitee();
    const sent = await invite(u.id);
    expect(sent).toMatchObject({ email: u.email, mail_status: 'queued' });
    const mail = await bed.peer.next(u.email!);
    expect(mail.subject).toBe('Your invitation to Test project');
    expect(mail.text).toContain(`login "${u.login}"`);
    const token = linkSecret(mail.text, '/registration');
    expect(mail.text).toContain(`${PUBLIC_URL}/registration/${token}`);

    const info = await bed.call('GET', `/registration/token/${token}`);
    expect(info.statusCode, info.body).toBe(200);
    expect(info.json().data).toEqual({ login: u.login, name: 'Pat Invitee', email: u.email });

    const done = await bed.call('POST', '/registration/token', { token, password: 'brand-new-pass-1' });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data).toEqual({ id: u.id, login: u.login });
    await login(bed.t.app, u.login, 'brand-new-pass-1');
    const [row] = await db().select().from(users).where(eq(users.id, u.id));
    expect(row!.activatedAt).toBeInstanceOf(Date);
    expect(row!.isInvited).toBe(true);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.entityId, String(u.id)));
    // The entity is named as everywhere else in the audit log (users.service, profile.service): `user`.
    expect(audit.map((a) => [a.entity, a.action])).toEqual(
      expect.arrayContaining([
        ['user', 'send_invite'],
        ['user', 'accept_invite'],
      ]),
    );
  });

  it('uses a link once', async () => {
    const u = await invitee();
    await invite(u.id);
    const token = linkSecret((await bed.peer.next(u.email!)).text, '/registration');
    expect((await bed.call('POST', '/registration/token', { token, password: 'brand-new-pass-1' })).statusCode).toBe(200);
    for (const res of [
      await bed.call('POST', '/registration/token', { token, password: 'brand-new-pass-2' }),
      await bed.call('GET', `/registration/token/${token}`),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'invite_invalid',
        message: "can't find the user. contact the administrator for a new invitation.",
      });
    }
  });

  it('keeps only the newest link working', async () => {
    const u = await invitee();
    await invite(u.id);
    const first = linkSecret((await bed.peer.next(u.email!)).text, '/registration');
    await invite(u.id);
    const second = linkSecret((await bed.peer.next(u.email!)).text, '/registration');
    expect((await bed.call('GET', `/registration/token/${first}`)).json().code).toBe('invite_invalid');
    expect((await bed.call('GET', `/registration/token/${second}`)).statusCode).toBe(200);
  });

  it('says an expired link is outdated', async () => {
    const u = await invitee();
    await invite(u.id);
    const token = linkSecret((await bed.peer.next(u.email!)).text, '/registration');
    await db().update(userTokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(userTokens.userId, u.id));
    const res = await bed.call('POST', '/registration/token', { token, password: 'brand-new-pass-1' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'verification_link_outdated', message: 'verification link is outdated or incorrect' });
  });

  it('says the user is registered when they signed in meanwhile', async () => {
    const u = await invitee();
    await invite(u.id);
    const token = linkSecret((await bed.peer.next(u.email!)).text, '/registration');
    await login(bed.t.app, u.login, u.password);
    const res = await bed.call('GET', `/registration/token/${token}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'user_already_registered', message: 'user already registered' });
  });

  it('refuses an unknown link', async () => {
    const res = await bed.call('GET', `/registration/token/${'a'.repeat(43)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invite_invalid');
  });

  it('writes the invitation in the invitee language', async () => {
    const u = await invitee({ locale: 'ru' });
    await invite(u.id);
    const mail = await bed.peer.next(u.email!);
    expect(mail.subject).toBe('Приглашение в Test project');
    expect(mail.text).toContain('Здравствуйте, Pat Invitee.');
  });

  it("writes an account made in the console in the project's language (general settings' locale)", async () => {
    const admin = await adminClient(bed.t);
    const create = (login: string) =>
      admin.put('/users', {
        login,
        name: 'Pat Invitee',
        email: `${login}@example.test`,
        domains: [bed.t.project.rootGroupId],
        send_registration_link: true,
      });
    try {
      expect((await admin.patch('/settings/general', { locale: 'ru' })).statusCode).toBe(200);
      const ru = await create(`project-ru-${++n}`);
      expect(ru.statusCode, ru.body).toBe(200);
      const mail = await bed.peer.next(`project-ru-${n}@example.test`);
      expect(mail.subject).toBe('Приглашение в Test project');
      const [row] = await db().select().from(users).where(eq(users.id, ru.json().data.id));
      expect(row!.locale).toBe('ru');
      expect((await admin.patch('/settings/general', { locale: 'en' })).statusCode).toBe(200);
      const en = await create(`project-en-${++n}`);
      expect((await bed.peer.next(`project-en-${n}@example.test`)).subject).toBe('Your invitation to Test project');
      expect((await db().select().from(users).where(eq(users.id, en.json().data.id)))[0]!.locale).toBe('en');
    } finally {
      await admin.patch('/settings/general', { locale: 'en' });
    }
  });

  it('needs an e-mail', async () => {
    const u = await invitee({ email: null });
    expect(await errorCode(invite(u.id))).toBe('email_required_for_registration');
  });

  it('refuses a user who is already registered', async () => {
    const u = await invitee();
    await login(bed.t.app, u.login, u.password);
    expect(await errorCode(invite(u.id))).toBe('user_already_registered');
  });

  it('does not reach users of another project', async () => {
    const other = await bed.t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'o',
      adminName: 'O',
      adminPassword: 'other-pass-1',
    });
    const stranger = await makeUser(db(), { projectId: other.projectId, email: 'stranger@example.test' });
    expect(await errorCode(invite(stranger.id))).toBe('not_found');
  });

  it('is refused while registration by link is switched off', async () => {
    const u = await invitee();
    await invite(u.id);
    const token = linkSecret((await bed.peer.next(u.email!)).text, '/registration');
    await bed.switches({ by_token: false });
    expect(await errorCode(invite(u.id))).toBe('registration_disabled');
    expect((await bed.call('GET', `/registration/token/${token}`)).statusCode).toBe(403);
    expect((await bed.call('POST', '/registration/token', { token, password: 'brand-new-pass-1' })).statusCode).toBe(403);
  });

  it.each([
    [{ password: 'brand-new-pass-1' }, 'token'],
    [{ token: 'a'.repeat(43) }, 'password'],
    [{ token: 'a'.repeat(43), password: 'short' }, 'password'],
    [{ token: 'a'.repeat(43), password: 'brand-new-pass-1', extra: true }, 'body'],
  ])('answers 400 with field details for %j', async (payload, field) => {
    const res = await bed.call('POST', '/registration/token', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('password recovery', () => {
  const recover = (email: string, ip?: string) => bed.call('POST', '/password/recovery', { email }, ip ? { ip } : {});

  it('mails a reset link; the new password works, the old one and every session end', async () => {
    const u = await invitee();
    const session = await bed.call('POST', '/login', { login: u.login, password: u.password });
    const refresh = session.json().data.sessions[0].refresh;
    const res = await recover(u.email!.toUpperCase());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: true });
    const mail = await bed.peer.next(u.email!);
    expect(mail.subject).toBe('Password recovery');
    const code = linkSecret(mail.text, '/password/reset');
    const reset = await bed.call('POST', '/password/reset', { code, password: 'recovered-pass-1' });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().data).toEqual({ id: u.id, login: u.login });
    await login(bed.t.app, u.login, 'recovered-pass-1');
    expect((await bed.call('POST', '/login', { login: u.login, password: u.password })).statusCode).toBe(401);
    expect((await bed.call('POST', '/refresh', { token: refresh })).statusCode).toBe(401);
    const audit = await db()
      .select({ entity: auditEvents.entity })
      .from(auditEvents)
      .where(and(eq(auditEvents.entityId, String(u.id)), eq(auditEvents.action, 'reset_password')));
    expect(audit).toEqual([{ entity: 'user' }]);
  });

  it('answers the same for an unknown address and sends nothing', async () => {
    const known = await invitee();
    const a = await recover(known.email!);
    const b = await recover('nobody@example.test');
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.json()).toEqual(a.json());
    await bed.t.app.services.mailer.idle();
    expect(bed.peer.received.some((m) => m.to.includes('nobody@example.test'))).toBe(false);
  });

  it('uses a link once, and only the newest one', async () => {
    const u = await invitee();
    await recover(u.email!);
    const first = linkSecret((await bed.peer.next(u.email!)).text, '/password/reset');
    await recover(u.email!);
    const second = linkSecret((await bed.peer.next(u.email!)).text, '/password/reset');
    const old = await bed.call('POST', '/password/reset', { code: first, password: 'recovered-pass-1' });
    expect(old.statusCode).toBe(400);
    expect(old.json().code).toBe('verification_link_outdated');
    expect((await bed.call('POST', '/password/reset', { code: second, password: 'recovered-pass-1' })).statusCode).toBe(200);
    expect((await bed.call('POST', '/password/reset', { code: second, password: 'recovered-pass-2' })).json().code).toBe(
      'verification_link_outdated',
    );
  });

  it('says an expired link is outdated', async () => {
    const u = await invitee();
    await recover(u.email!);
    const code = linkSecret((await bed.peer.next(u.email!)).text, '/password/reset');
    await db().update(userTokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(userTokens.userId, u.id));
    expect((await bed.call('POST', '/password/reset', { code, password: 'recovered-pass-1' })).json().code).toBe(
      'verification_link_outdated',
    );
  });

  it('writes in the account language', async () => {
    const u = await invitee({ locale: 'ru' });
    await recover(u.email!);
    expect((await bed.peer.next(u.email!)).subject).toBe('Восстановление пароля');
  });

  it('limits requests per address', async () => {
    const email = 'often@example.test';
    for (let i = 0; i < 3; i++) expect((await recover(email)).statusCode).toBe(200);
    const res = await recover(email);
    expect(res.statusCode).toBe(429);
    expect(res.json().code).toBe('too_many_attempts');
  });

  it('limits requests per IP', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await recover(`ip${i}@example.test`, ip)).statusCode).toBe(200);
    expect((await recover('ip-last@example.test', ip)).statusCode).toBe(429);
  });

  it('is refused while recovery is switched off', async () => {
    await bed.switches({ recovery: false });
    const res = await recover('any@example.test');
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('registration_disabled');
    expect((await bed.call('POST', '/password/reset', { code: 'a'.repeat(43), password: 'recovered-pass-1' })).statusCode).toBe(403);
  });

  it.each([
    ['/password/recovery', {}, 'email'],
    ['/password/recovery', { email: 'not-an-email' }, 'email'],
    ['/password/reset', { password: 'recovered-pass-1' }, 'code'],
    ['/password/reset', { code: 'a'.repeat(43), password: 'short' }, 'password'],
    ['/password/reset', { code: 'a'.repeat(43) }, 'password'],
  ])('%s answers 400 with field details for %j', async (url, payload, field) => {
    const res = await bed.call('POST', url, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses an unknown link', async () => {
    const res = await bed.call('POST', '/password/reset', { code: 'b'.repeat(43), password: 'recovered-pass-1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('verification_link_outdated');
  });
});
