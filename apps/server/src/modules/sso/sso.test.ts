import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { userGroups, users } from '../users/users.table.js';
import { startOidcProvider, type TestOidcProvider } from './oidc-provider.fixture.js';
import { ssoProviders } from './sso.table.js';

let t: TestApp;
let idp: TestOidcProvider;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  // The test provider listens on this machine: allowed, as for an identity provider inside the site.
  t = await buildTestApp({ env: { SSO_ALLOW_PRIVATE: 'true' } });
  idp = await startOidcProvider();
  admin = await adminClient(t);
});
afterAll(async () => {
  await idp?.close();
  await t?.close();
});

const providerBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Test IdP',
  issuer: idp.issuer,
  client_id: idp.clientId,
  client_secret: idp.clientSecret,
  ...extra,
});

/** The browser's trip: Atrium → provider → Atrium's callback → the console's login page with a ticket (or an error). */
async function signOn(providerId: number): Promise<URLSearchParams> {
  const start = await t.app.inject({ method: 'GET', url: `/api/v0/sso/${providerId}/start?redirect=/users` });
  expect(start.statusCode).toBe(302);
  const authorize = new URL(String(start.headers.location));
  expect(authorize.origin).toBe(idp.issuer);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('state')).toBeTruthy();
  expect(authorize.searchParams.get('nonce')).toBeTruthy();
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  const back = new URL(String(atProvider.headers.get('location')));
  expect(back.pathname).toBe('/api/v0/sso/callback');
  const callback = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(callback.statusCode).toBe(302);
  const to = String(callback.headers.location);
  expect(to.startsWith('/login#')).toBe(true);
  return new URLSearchParams(to.slice('/login#'.length));
}

const exchange = (ticket: string) => t.app.inject({ method: 'POST', url: '/api/v0/sso/exchange', payload: { ticket } });

describe('providers', () => {
  it('are kept per project with the client secret never sent back', async () => {
    const res = await admin.put('/sso-providers', providerBody());
    expect(res.statusCode).toBe(200);
    const p = res.json().data;
    expect(p).toMatchObject({
      name: 'Test IdP',
      issuer: idp.issuer,
      client_secret: null,
      has_client_secret: true,
      scopes: 'openid email profile',
      claim: 'email',
      match_field: 'email',
      auto_create: false,
      is_enabled: true,
    });
    expect(JSON.stringify((await admin.get(`/sso-providers/${p.id}`)).json())).not.toContain(idp.clientSecret);
    const [row] = await t.app.database.db.select().from(ssoProviders).where(eq(ssoProviders.id, p.id));
    expect(row?.clientSecret).not.toContain(idp.clientSecret);
    // The placeholder keeps the secret.
    const kept = await admin.patch(`/sso-providers/${p.id}`, { name: 'Renamed', client_secret: '********' });
    expect(kept.json().data).toMatchObject({ name: 'Renamed', has_client_secret: true });
    expect((await admin.get('/sso-providers')).json().data.map((x: { id: number }) => x.id)).toContain(p.id);
    expect((await admin.delete(`/sso-providers/${p.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/sso-providers/${p.id}`)).statusCode).toBe(404);
  });

  it.each([
    [{ issuer: 'http://idp.example.com' }, 'issuer'],
    [{ issuer: 'ftp://idp.example.com' }, 'issuer'],
    [{ scopes: 'email profile' }, 'scopes'],
    [{ auto_create: true }, 'default_group_id'],
    [{ match_field: 'phone' }, 'match_field'],
    [{ name: '' }, 'name'],
  ])('refuses %j with 400 on %s', async (extra, field) => {
    const res = await admin.put('/sso-providers', providerBody(extra));
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('a role or group of another project is refused', async () => {
    const other = await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'o-admin',
      adminName: 'O',
      adminPassword: 'o-password-1',
    });
    const res = await admin.put('/sso-providers', providerBody({ auto_create: true, default_group_id: other.rootGroupId }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid related entity sent');
    const otherAdmin = client(t.app, await login(t.app, 'o-admin', 'o-password-1'));
    const mine = (await admin.put('/sso-providers', providerBody({ name: 'Mine' }))).json().data;
    expect((await otherAdmin.get(`/sso-providers/${mine.id}`)).statusCode).toBe(404);
    expect((await otherAdmin.patch(`/sso-providers/${mine.id}`, { name: 'x' })).statusCode).toBe(404);
    expect((await otherAdmin.delete(`/sso-providers/${mine.id}`)).statusCode).toBe(404);
    await admin.delete(`/sso-providers/${mine.id}`);
  });

  it('need the project settings permissions: view to read, change to write', async () => {
    const db = t.app.database.db;
    const as = async (permissions: string[]) => {
      const u = await makeUser(db, { projectId: t.project.projectId, roleId: await makeRole(db, t.project.projectId, permissions) });
      return client(t.app, await login(t.app, u.login, u.password));
    };
    const nobody = await as([]);
    expect((await nobody.get('/sso-providers')).statusCode).toBe(403);
    const viewer = await as(['can_view_project_settings']);
    expect((await viewer.get('/sso-providers')).statusCode).toBe(200);
    expect((await viewer.put('/sso-providers', providerBody())).statusCode).toBe(403);
    const changer = await as(['can_change_project_settings']);
    const created = await changer.put('/sso-providers', providerBody({ name: 'By changer' }));
    expect(created.statusCode).toBe(200);
    expect((await viewer.delete(`/sso-providers/${created.json().data.id}`)).statusCode).toBe(403);
    expect((await changer.delete(`/sso-providers/${created.json().data.id}`)).statusCode).toBe(200);
  });
});

describe('signing on', () => {
  let providerId: number;
  beforeAll(async () => {
    providerId = (await admin.put('/sso-providers', providerBody({ name: 'Company login' }))).json().data.id;
  });

  it('the login page lists the enabled providers, signed out', async () => {
    const res = await client(t.app).get('/sso/login-options');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toContainEqual({ id: providerId, name: 'Company login' });
  });

  it('the full code flow signs in the user whose e-mail the ID token names; the ticket and the state work once', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    await t.app.database.db.update(users).set({ email: 'Pat@Example.com' }).where(eq(users.id, u.id));
    idp.nextUser = { sub: 'pat-1', email: 'pat@example.com', email_verified: true };
    const issuedBefore = idp.issued;
    const outcome = await signOn(providerId);
    expect(idp.issued).toBe(issuedBefore + 1);
    expect(outcome.get('sso_error')).toBeNull();
    expect(outcome.get('redirect')).toBe('/users');
    const ticket = outcome.get('sso_ticket') as string;
    const res = await exchange(ticket);
    expect(res.statusCode).toBe(200);
    const [session] = res.json().data.sessions;
    expect(session.project.id).toBe(t.project.projectId);
    expect((await client(t.app, session.token).get('/profile')).json().data.id).toBe(u.id);
    expect((await exchange(ticket)).statusCode).toBe(401);
  });

  it('a replayed callback (the same state) is refused', async () => {
    idp.nextUser = { sub: 'admin', email: 'nobody@example.com' };
    const start = await t.app.inject({ method: 'GET', url: `/api/v0/sso/${providerId}/start` });
    const back = new URL(String((await fetch(String(start.headers.location), { redirect: 'manual' })).headers.get('location')));
    await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    const again = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(String(again.headers.location)).toContain('sso_error=');
    const forged = await t.app.inject({ method: 'GET', url: '/api/v0/sso/callback?state=made-up&code=x' });
    expect(String(forged.headers.location)).toBe('/login#sso_error=single+sign-on+failed');
  });

  it('refuses someone no user matches, unless the provider creates users', async () => {
    idp.nextUser = { sub: 'newcomer', email: 'newcomer@example.com', email_verified: true, name: 'New Comer' };
    expect((await signOn(providerId)).get('sso_error')).toBe('no user matches the single sign-on account');
    const roleId = await makeRole(t.app.database.db, t.project.projectId, ['can_edit_own_profile']);
    const creating = (
      await admin.put(
        '/sso-providers',
        providerBody({ name: 'Creating', auto_create: true, default_role_id: roleId, default_group_id: t.project.rootGroupId }),
      )
    ).json().data.id;
    // The project speaks Russian (general settings): so does the account made for the newcomer.
    expect((await admin.patch('/settings/general', { locale: 'ru' })).statusCode).toBe(200);
    const outcome = await signOn(creating);
    await admin.patch('/settings/general', { locale: 'en' });
    const session = (await exchange(outcome.get('sso_ticket') as string)).json().data.sessions[0];
    const profile = (await client(t.app, session.token).get('/profile')).json().data;
    expect(profile).toMatchObject({ name: 'New Comer', email: 'newcomer@example.com', role: { id: roleId }, locale: 'ru' });
    const [member] = await t.app.database.db.select().from(userGroups).where(eq(userGroups.userId, profile.id));
    expect(member?.groupId).toBe(t.project.rootGroupId);
    // No password: the account signs in only through the provider.
    const [row] = await t.app.database.db.select().from(users).where(eq(users.id, profile.id));
    expect(row?.passwordHash).toBeNull();
  });

  it('refuses an unverified e-mail, and matches by login when configured', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    await t.app.database.db.update(users).set({ email: 'unverified@example.com' }).where(eq(users.id, u.id));
    idp.nextUser = { sub: 'x', email: 'unverified@example.com', email_verified: false };
    expect((await signOn(providerId)).get('sso_error')).toBe('single sign-on failed');
    const byLogin = (
      await admin.put('/sso-providers', providerBody({ name: 'By login', claim: 'preferred_username', match_field: 'login' }))
    ).json().data.id;
    idp.nextUser = { sub: 'y', preferred_username: u.login.toUpperCase() };
    const session = (await exchange((await signOn(byLogin)).get('sso_ticket') as string)).json().data.sessions[0];
    expect((await client(t.app, session.token).get('/profile')).json().data.id).toBe(u.id);
  });

  it.each(['nonce', 'audience', 'signature'] as const)('refuses an ID token with a wrong %s', async (tamper) => {
    idp.nextUser = { sub: 'admin', email: 'admin@example.com', email_verified: true };
    idp.tamper = tamper;
    try {
      expect((await signOn(providerId)).get('sso_error')).toBe('single sign-on failed');
    } finally {
      idp.tamper = null;
    }
  });

  it('a disabled provider is neither listed nor started', async () => {
    const off = (await admin.put('/sso-providers', providerBody({ name: 'Off', is_enabled: false }))).json().data.id;
    expect((await client(t.app).get('/sso/login-options')).json().data.map((p: { id: number }) => p.id)).not.toContain(off);
    expect((await t.app.inject({ method: 'GET', url: `/api/v0/sso/${off}/start` })).statusCode).toBe(404);
  });

  it('an unreachable provider answers 503, not 500', async () => {
    const gone = (await admin.put('/sso-providers', providerBody({ name: 'Gone', issuer: 'http://127.0.0.1:9' }))).json().data.id;
    const res = await t.app.inject({ method: 'GET', url: `/api/v0/sso/${gone}/start` });
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toBe('the sign-on provider is not available');
  });
});

describe('a provider inside the site, not allowed', () => {
  it('is refused when saved, and never fetched on an anonymous start', async () => {
    const strict = await buildTestApp();
    try {
      const api = await adminClient(strict);
      for (const issuer of [
        idp.issuer,
        'http://[::1]:9/',
        'https://10.0.0.7/realms/x',
        'https://198.18.0.9/',
        'https://169.254.169.254/',
      ]) {
        const res = await api.put('/sso-providers', providerBody({ name: 'Inside', issuer }));
        expect(res.statusCode, issuer).toBe(400);
        expect(res.json().details, issuer).toContainEqual(expect.objectContaining({ field: 'issuer' }));
      }
      expect((await api.put('/sso-providers', providerBody({ name: 'Inside' }))).json().details).toContainEqual(
        expect.objectContaining({ field: 'issuer', message: 'private addresses are not allowed' }),
      );
      // Saved while the policy allowed it (or straight into the table): starting it fetches nothing.
      const [row] = await strict.app.database.db
        .insert(ssoProviders)
        .values({
          projectId: strict.project.projectId,
          name: 'Old',
          issuer: idp.issuer,
          clientId: idp.clientId,
          scopes: 'openid email',
          claim: 'email',
          matchField: 'email',
        })
        .returning({ id: ssoProviders.id });
      const before = idp.requests;
      const res = await strict.app.inject({ method: 'GET', url: `/api/v0/sso/${row!.id}/start` });
      expect(res.statusCode).toBe(503);
      expect(idp.requests).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
