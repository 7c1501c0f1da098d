import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, client, login } from '../../../test/helpers.js';
import {
  codeIn,
  freshIp,
  linkSecret,
  PUBLIC_URL,
  type RegistrationTestbed,
  registrationTestbed,
} from '../../../test/registration-setup.js';
import { auditEvents } from '../audit/audit.table.js';
import { groups } from '../groups/groups.table.js';
import { roles } from '../roles/roles.table.js';
import { userGroups, users } from '../users/users.table.js';
import { mailOutbox, userTokens } from './registration.table.js';

let bed: RegistrationTestbed;
let n = 0;
beforeAll(async () => {
  bed = await registrationTestbed();
});
afterAll(() => bed?.close());
beforeEach(async () => {
  await bed.switches({ self: true });
});

const db = () => bed.t.app.database.db;
const body = (over: Record<string, unknown> = {}) => ({
  user_name: 'Olga Petrova',
  user_country: 'lv',
  user_email: `olga${++n}@example.test`,
  user_type: 'private',
  user_phone: '+37120000000',
  object_name: 'Riverside 12',
  user_password: 'olga-password-1',
  ...over,
});

/** Registers and answers the pending registration and the mail with its code. */
async function register(over: Record<string, unknown> = {}, opts: { lang?: string } = {}) {
  const b = body(over);
  const res = await bed.call('POST', '/registration/self', b, opts);
  expect(res.statusCode, res.body).toBe(200);
  const mail = await bed.peer.next(b.user_email as string);
  return { b, pending: res.json().data, mail, code: codeIn(mail.text) };
}

describe('self-registration with an e-mailed code', () => {
  it('mails a code and a link, and answers the pending registration', async () => {
    const { b, pending, mail, code } = await register();
    expect(pending).toMatchObject({ email: b.user_email, user_name: 'Olga Petrova', object_name: 'Riverside 12', resends_left: 5 });
    expect(pending.token).toMatch(/^[\w-]{43}$/);
    expect(Date.parse(pending.expires_at)).toBeGreaterThan(Date.parse(pending.code_expires_at));
    expect(mail.subject).toBe('Your registration confirmation code');
    expect(mail.text).toContain('Riverside 12');
    expect(linkSecret(mail.text, '/registration/confirm')).toBe(code.replace('-', ''));
    // Nothing secret is stored in clear: only hashes of the token and the code.
    const rows = await db().select().from(userTokens);
    expect(JSON.stringify(rows)).not.toContain(code.replace('-', ''));
    expect(JSON.stringify(rows)).not.toContain(pending.token);
    expect(JSON.stringify(rows)).not.toContain(b.user_password);
  });

  it('makes the account on POST /email/confirm: login is the e-mail, new group under the root, private-client role', async () => {
    const { b, code } = await register();
    const res = await bed.call('POST', '/email/confirm', { code: ` ${code.toLowerCase()} ` });
    expect(res.statusCode, res.body).toBe(200);
    const account = res.json().data;
    expect(account.login).toBe(b.user_email);
    const [u] = await db().select().from(users).where(eq(users.id, account.id));
    expect(u).toMatchObject({ email: b.user_email, name: 'Olga Petrova', locale: 'en' });
    expect(u!.activatedAt).toBeInstanceOf(Date);
    expect(u!.profile).toMatchObject({ phone: '+37120000000', country: 'LV', user_type: 'private' });
    const [membership] = await db().select().from(userGroups).where(eq(userGroups.userId, account.id));
    const [g] = await db().select().from(groups).where(eq(groups.id, membership!.groupId));
    expect(g).toMatchObject({ name: 'Riverside 12', parentId: bed.t.project.rootGroupId, path: [bed.t.project.rootGroupId, g!.id] });
    const [role] = await db().select().from(roles).where(eq(roles.id, u!.roleId!));
    expect(role).toMatchObject({ name: 'Private client', isBuiltin: false });
    expect(role!.permissions).toContain('can_edit_own_profile');
    const token = await login(bed.t.app, b.user_email, b.user_password);
    const profile = await client(bed.t.app, token).get('/profile');
    expect(profile.json().data).toMatchObject({ login: b.user_email, role: { name: 'Private client' } });
  });

  it('audits the new group and account under the entity names the rest of the log uses', async () => {
    const { code } = await register();
    const account = (await bed.call('POST', '/email/confirm', { code })).json().data;
    const [membership] = await db().select().from(userGroups).where(eq(userGroups.userId, account.id));
    const rows = await db()
      .select({ entity: auditEvents.entity, entityId: auditEvents.entityId, action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.userId, account.id));
    expect(rows).toEqual(
      expect.arrayContaining([
        { entity: 'group', entityId: String(membership!.groupId), action: 'create' },
        { entity: 'user', entityId: String(account.id), action: 'register' },
      ]),
    );
    expect(rows.filter((r) => r.entity === 'users' || r.entity === 'groups')).toEqual([]);
  });

  it('confirms through the mailed link (POST /registration/confirm) too', async () => {
    const { b, mail } = await register();
    const token = linkSecret(mail.text, '/registration/confirm');
    const res = await bed.call('POST', '/registration/confirm', { token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.login).toBe(b.user_email);
    const again = await bed.call('POST', '/registration/confirm', { token });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'verification_link_outdated', message: 'verification link is outdated or incorrect' });
  });

  it('uses a code once', async () => {
    const { code } = await register();
    expect((await bed.call('POST', '/email/confirm', { code })).statusCode).toBe(200);
    const again = await bed.call('POST', '/email/confirm', { code });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'invalid_confirmation_code', message: 'invalid confirmation code' });
  });

  it('refuses a wrong code', async () => {
    const res = await bed.call('POST', '/email/confirm', { code: 'AAAA-BBBB' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_confirmation_code');
  });

  it('keeps one private-client role and makes a group per registration', async () => {
    const a = await register({ object_name: 'Same name' });
    const b = await register({ object_name: 'Same name' });
    await bed.call('POST', '/email/confirm', { code: a.code });
    await bed.call('POST', '/email/confirm', { code: b.code });
    const clientRoles = await db()
      .select()
      .from(roles)
      .where(and(eq(roles.projectId, bed.t.project.projectId), eq(roles.name, 'Private client')));
    expect(clientRoles).toHaveLength(1);
    const named = await db().select().from(groups).where(eq(groups.name, 'Same name'));
    expect(named).toHaveLength(2);
  });

  it('gives each client type the role the general settings name for it (self-registration clients)', async () => {
    const admin = await adminClient(bed.t);
    const company = await makeRole(db(), bed.t.project.projectId, ['can_edit_own_profile', 'can_view_users']);
    const tenant = await makeRole(db(), bed.t.project.projectId, ['can_edit_own_profile']);
    const clients = (privateRole: number | null) => ({
      user_self_register_settings: {
        clients: [
          { type: 'company', role_id: company, license_settings: { period: null, features: [] } },
          { type: 'private', role_id: privateRole, license_settings: { period: null, features: [] } },
        ],
      },
    });
    const roleOf = async (account: { id: number }) => (await db().select().from(users).where(eq(users.id, account.id)))[0]!.roleId;
    try {
      expect((await admin.patch('/settings/general', clients(null))).statusCode).toBe(200);
      const c = await register({ user_type: 'company', object_name: 'Harbour offices' });
      const cAccount = (await bed.call('POST', '/email/confirm', { code: c.code })).json().data;
      expect(await roleOf(cAccount)).toBe(company);
      // A type with no role named keeps the private-client role.
      const p = await register({ user_type: 'private' });
      const pAccount = (await bed.call('POST', '/email/confirm', { code: p.code })).json().data;
      const [privateClient] = await db()
        .select()
        .from(roles)
        .where(eq(roles.id, (await roleOf(pAccount))!));
      expect(privateClient!.name).toBe('Private client');
      // Named for private clients: the next one (and a simple registration) gets that role.
      expect((await admin.patch('/settings/general', clients(tenant))).statusCode).toBe(200);
      const q = await register({ user_type: 'private' });
      expect(await roleOf((await bed.call('POST', '/email/confirm', { code: q.code })).json().data)).toBe(tenant);
      const simple = await bed.call('POST', '/registration/simple', { name: 'Tom', login: 'tom-tenant', password: 'tom-password-1' });
      expect(simple.statusCode, simple.body).toBe(200);
      expect(await roleOf(simple.json().data)).toBe(tenant);
    } finally {
      await admin.patch('/settings/general', { user_self_register_settings: { clients: [] } });
    }
  });

  it('answers the pending registration by its token, until it is confirmed', async () => {
    const { pending, code } = await register();
    const res = await bed.call('GET', `/registration/self/code/${pending.token}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(pending);
    await bed.call('POST', '/email/confirm', { code });
    const after = await bed.call('GET', `/registration/self/code/${pending.token}`);
    expect(after.statusCode).toBe(400);
    expect(after.json().code).toBe('invalid_confirmation_code');
  });

  it('refuses an unknown registration token', async () => {
    const res = await bed.call('GET', `/registration/self/code/${'x'.repeat(43)}`);
    expect(res.json().code).toBe('invalid_confirmation_code');
    const resend = await bed.call('POST', `/registration/self/resend/${'x'.repeat(43)}`);
    expect(resend.json().code).toBe('invalid_confirmation_code');
  });

  it('re-sends a new code after the cool-down; the old code stops working', async () => {
    const { b, pending, code } = await register();
    const early = await bed.call('POST', `/registration/self/resend/${pending.token}`);
    expect(early.statusCode).toBe(429);
    expect(early.json().code).toBe('too_many_attempts');
    await db()
      .update(userTokens)
      .set({ payload: sql`jsonb_set(${userTokens.payload}, '{last_sent_at}', '"2000-01-01T00:00:00.000Z"')` })
      .where(eq(userTokens.kind, 'self_registration'));
    const res = await bed.call('POST', `/registration/self/resend/${pending.token}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.resends_left).toBe(4);
    const second = await bed.peer.next(b.user_email);
    const newCode = codeIn(second.text);
    expect(newCode).not.toBe(code);
    expect((await bed.call('POST', '/email/confirm', { code })).json().code).toBe('invalid_confirmation_code');
    expect((await bed.call('POST', '/email/confirm', { code: newCode })).statusCode).toBe(200);
  });

  it('stops re-sending after the last allowed time', async () => {
    const { pending } = await register();
    await db()
      .update(userTokens)
      .set({ payload: sql`${userTokens.payload} || '{"resends": 5, "last_sent_at": "2000-01-01T00:00:00.000Z"}'::jsonb` })
      .where(eq(userTokens.kind, 'self_registration'));
    const res = await bed.call('POST', `/registration/self/resend/${pending.token}`);
    expect(res.statusCode).toBe(429);
  });

  it('says an expired code is outdated, and a new one can be sent', async () => {
    const { b, pending, code } = await register();
    await db().update(userTokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(userTokens.kind, 'email_confirm'));
    const res = await bed.call('POST', '/email/confirm', { code });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'verification_link_outdated' });
    await db()
      .update(userTokens)
      .set({ payload: sql`jsonb_set(${userTokens.payload}, '{last_sent_at}', '"2000-01-01T00:00:00.000Z"')` })
      .where(eq(userTokens.kind, 'self_registration'));
    expect((await bed.call('POST', `/registration/self/resend/${pending.token}`)).statusCode).toBe(200);
    const fresh = codeIn((await bed.peer.next(b.user_email)).text);
    expect((await bed.call('POST', '/email/confirm', { code: fresh })).statusCode).toBe(200);
  });

  it('says an expired registration is outdated', async () => {
    const { pending } = await register();
    await db().update(userTokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(userTokens.kind, 'self_registration'));
    const res = await bed.call('GET', `/registration/self/code/${pending.token}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('verification_link_outdated');
  });

  it('refuses an e-mail that an account already uses', async () => {
    await makeUser(db(), { projectId: bed.t.project.projectId, email: 'taken@example.test' });
    const res = await bed.call('POST', '/registration/self', body({ user_email: 'Taken@Example.test' }));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'email_already_used', message: 'e-mail already used' });
  });

  it('lets only the first of two pending registrations of one e-mail through', async () => {
    const first = await register({ user_email: 'twice@example.test' });
    const second = await register({ user_email: 'twice@example.test' });
    expect((await bed.call('POST', '/email/confirm', { code: second.code })).statusCode).toBe(200);
    const res = await bed.call('POST', '/email/confirm', { code: first.code });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('email_already_used');
  });

  it('writes the mail in Russian for a Russian browser, and keeps that language', async () => {
    const { mail, code } = await register({}, { lang: 'ru-RU,ru;q=0.9,en;q=0.8' });
    expect(mail.subject).toBe('Код подтверждения регистрации');
    expect(mail.text).toContain('Здравствуйте, Olga Petrova.');
    const res = await bed.call('POST', '/email/confirm', { code });
    const [u] = await db().select().from(users).where(eq(users.id, res.json().data.id));
    expect(u!.locale).toBe('ru');
  });

  it('prefers the locale the form sends', async () => {
    const { mail } = await register({ locale: 'ru' }, { lang: 'en' });
    expect(mail.subject).toBe('Код подтверждения регистрации');
  });

  it('keeps the mail in the outbox when no SMTP server is set', async () => {
    await bed.useSmtp(false);
    try {
      const b = body();
      const res = await bed.call('POST', '/registration/self', b);
      expect(res.statusCode).toBe(200);
      const [row] = await db().select().from(mailOutbox).where(eq(mailOutbox.to, b.user_email));
      expect(row).toMatchObject({ status: 'stored', subject: 'Your registration confirmation code' });
    } finally {
      await bed.useSmtp(true);
    }
  });

  it('is refused while self-registration is switched off', async () => {
    const { pending, code } = await register();
    await bed.switches({ self: false });
    for (const [method, url, payload] of [
      ['POST', '/registration/self', body()],
      ['GET', `/registration/self/code/${pending.token}`, undefined],
      ['POST', `/registration/self/resend/${pending.token}`, undefined],
      ['POST', '/email/confirm', { code }],
      ['POST', '/registration/confirm', { token: code.replace('-', '') }],
    ] as const) {
      const res = await bed.call(method, url, payload);
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject({ code: 'registration_disabled', message: 'action prohibited' });
    }
  });

  it('limits wrong codes per address', async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) {
      expect((await bed.call('POST', '/email/confirm', { code: `WRONG${i}` }, { ip })).statusCode).toBe(400);
    }
    const { code } = await register();
    const res = await bed.call('POST', '/email/confirm', { code }, { ip });
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toBe('too many attempts');
    expect((await bed.call('POST', '/email/confirm', { code })).statusCode).toBe(200);
  });

  it('lets no more than the limit of parallel wrong codes from one address be checked', async () => {
    const ip = freshIp();
    // PGlite runs one query at a time; a slower check lets the attempts overlap as on a pooled PostgreSQL.
    const database = db();
    const transaction = database.transaction.bind(database);
    const slow = vi.spyOn(database, 'transaction').mockImplementation(async (run, config) => {
      await new Promise((r) => setTimeout(r, 50));
      return transaction(run, config);
    });
    let statuses: number[];
    try {
      const attempts = Array.from({ length: 60 }, (_, i) => bed.call('POST', '/email/confirm', { code: `RACE${i}` }, { ip }));
      statuses = (await Promise.all(attempts)).map((r) => r.statusCode);
    } finally {
      slow.mockRestore();
    }
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(20);
    expect(statuses.filter((s) => s !== 400).every((s) => s === 429)).toBe(true);
    const { code } = await register();
    expect((await bed.call('POST', '/email/confirm', { code }, { ip })).statusCode).toBe(429);
  });

  it('a right secret does not use up the attempts of its address', async () => {
    const ip = freshIp();
    const { pending } = await register();
    for (let i = 0; i < 25; i++) {
      expect((await bed.call('GET', `/registration/self/code/${pending.token}`, undefined, { ip })).statusCode).toBe(200);
    }
  });

  it('limits registrations per e-mail', async () => {
    const email = 'spam@example.test';
    for (let i = 0; i < 3; i++) expect((await bed.call('POST', '/registration/self', body({ user_email: email }))).statusCode).toBe(200);
    expect((await bed.call('POST', '/registration/self', body({ user_email: email }))).statusCode).toBe(429);
  });

  it.each([
    [{ user_name: '' }, 'user_name'],
    [{ user_name: 'x'.repeat(256) }, 'user_name'],
    [{ user_country: 'Latvia' }, 'user_country'],
    [{ user_country: 'ZZ' }, 'user_country'],
    [{ user_email: 'not-an-email' }, 'user_email'],
    [{ user_type: 'alien' }, 'user_type'],
    [{ user_phone: '20000000' }, 'user_phone'],
    [{ object_name: '  ' }, 'object_name'],
    [{ user_password: 'short' }, 'user_password'],
    [{ locale: 'de' }, 'locale'],
    [{ extra: 1 }, 'body'],
  ])('answers 400 with field details for %j', async (over, field) => {
    const res = await bed.call('POST', '/registration/self', body(over));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 400 for a missing field', async () => {
    const { user_phone: _, ...rest } = body();
    const res = await bed.call('POST', '/registration/self', rest);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('user_phone');
  });

  it.each([[{}], [{ code: '' }], [{ code: 5 }], [{ code: 'x'.repeat(65) }]])('refuses a bad confirm body %j', async (payload) => {
    const res = await bed.call('POST', '/email/confirm', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('code');
  });

  it('refuses a bad link body', async () => {
    const res = await bed.call('POST', '/registration/confirm', { token: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('token');
  });

  it('links to the console address', async () => {
    const { mail } = await register();
    expect(mail.text).toContain(`${PUBLIC_URL}/registration/confirm/`);
  });
});

describe('simple registration', () => {
  it('makes an active account at once, in the root group with the private-client role', async () => {
    const res = await bed.call('POST', '/registration/simple', { name: 'Ivan', login: 'ivan', password: 'ivan-password-1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ login: 'ivan' });
    const token = await login(bed.t.app, 'ivan', 'ivan-password-1');
    const profile = (await client(bed.t.app, token).get('/profile')).json().data;
    expect(profile).toMatchObject({
      name: 'Ivan',
      email: null,
      role: { name: 'Private client' },
      domains: [{ id: bed.t.project.rootGroupId }],
    });
    const audit = await db()
      .select({ entity: auditEvents.entity })
      .from(auditEvents)
      .where(and(eq(auditEvents.entityId, String(res.json().data.id)), eq(auditEvents.action, 'register')));
    expect(audit).toEqual([{ entity: 'user' }]);
  });

  it('keeps a login that is an e-mail as the e-mail', async () => {
    const res = await bed.call('POST', '/registration/simple', { name: 'Eve', login: 'Eve@Example.test', password: 'eve-password-1' });
    const [u] = await db().select().from(users).where(eq(users.id, res.json().data.id));
    expect(u!.email).toBe('eve@example.test');
    const dup = await bed.call('POST', '/registration/simple', { name: 'Eve 2', login: 'eve2', password: 'eve-password-1' });
    expect(dup.statusCode).toBe(200);
  });

  it('refuses a login that exists', async () => {
    const res = await bed.call('POST', '/registration/simple', { name: 'A', login: 'ADMIN', password: 'admin-password-2' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'user_already_registered', message: 'user already registered' });
  });

  it('refuses an e-mail login that an account already uses', async () => {
    await makeUser(db(), { projectId: bed.t.project.projectId, email: 'used@example.test' });
    const res = await bed.call('POST', '/registration/simple', { name: 'A', login: 'used@example.test', password: 'password-123' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('email_already_used');
  });

  it('is refused while self-registration is switched off', async () => {
    await bed.switches({ self: false });
    const res = await bed.call('POST', '/registration/simple', { name: 'A', login: 'nope', password: 'password-123' });
    expect(res.statusCode).toBe(403);
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ login: '' }, 'login'],
    [{ login: 'has space' }, 'login'],
    [{ password: '1234567' }, 'password'],
    [{ password: 'x'.repeat(129) }, 'password'],
  ])('answers 400 with field details for %j', async (over, field) => {
    const res = await bed.call('POST', '/registration/simple', { name: 'A', login: 'valid', password: 'password-123', ...over });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
