import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { TokenService } from '../../core/auth/tokens.js';
import { registerContact } from '../../sip/testing.js';
import { type SipRuntime, startSip } from '../telephony/sip-runtime.js';
import { AddressSet, canonicalEntry } from './addresses.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t.close());

const signIn = (login: string, password: string, ip: string) =>
  t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login, password }, headers: { 'x-forwarded-for': ip } });

/** Sets one service's rule (and switches it on unless told). */
async function rule(name: string, patch: Record<string, unknown> = {}) {
  const res = await admin.post('/ip-blocking/status', { data: [{ name, is_enabled: true, ...patch }] });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Array<{ name: string; is_enabled: boolean; banned_count: number; max_failures: number }>;
}

async function bans(query = '') {
  const res = await admin.get(`/ip-blocking/banned${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    data: Array<{ service: string; ip: string; cause: string; info: Record<string, unknown> }>;
    meta: { total: number };
  };
}

async function withPermissions(permissions: string[]) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
  return client(t.app, await login(t.app, u.login, u.password));
}

describe('IP blocking: status', () => {
  it('lists the four services with their defaults, the loopback whitelisted', async () => {
    const res = await admin.get('/ip-blocking/status');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((s: { name: string }) => s.name)).toEqual(['console', 'api', 'sip', 'guest']);
    expect(res.json().data[0]).toMatchObject({
      name: 'console',
      is_enabled: true,
      max_failures: 60,
      window_seconds: 900,
      ban_seconds: 3600,
      whitelist_count: 2,
    });
    const wl = await admin.get('/ip-blocking/whitelist?service=sip');
    expect(
      wl
        .json()
        .data.map((e: { ip: string }) => e.ip)
        .sort(),
    ).toEqual(['127.0.0.1', '::1']);
  });

  it('refuses rules out of bounds, unknown services and a service named twice', async () => {
    for (const data of [
      [{ name: 'console', is_enabled: true, max_failures: 0 }],
      [{ name: 'console', is_enabled: true, ban_seconds: 5 }],
      [{ name: 'ssh', is_enabled: true }],
      [
        { name: 'api', is_enabled: true },
        { name: 'api', is_enabled: false },
      ],
      [],
    ]) {
      const res = await admin.post('/ip-blocking/status', { data });
      expect(res.statusCode, JSON.stringify(data)).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
    }
  });
});

describe('IP blocking: console sign-in', () => {
  it('bans an address after repeated failed sign-ins: 403 even with the right password, with cause and time', async () => {
    await rule('console', { max_failures: 3 });
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    for (let i = 0; i < 3; i++) expect((await signIn(u.login, 'wrong-password', '203.0.113.5')).statusCode).toBe(401);
    const refused = await signIn(u.login, u.password, '203.0.113.5');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ message: 'your ip address is banned', code: 'ip_banned', details: [{ service: 'console' }] });
    // Another address signs in; the banned one still reaches the rest of the API (another service).
    expect((await signIn(u.login, u.password, '203.0.113.6')).statusCode).toBe(200);
    const list = await bans('?service=console');
    expect(list.data).toEqual([
      expect.objectContaining({
        service: 'console',
        ip: '203.0.113.5',
        cause: 'failed_sign_ins',
        info: { failures: 3, window_seconds: 900, last_attempt: `login ${u.login}` },
      }),
    ]);
    const ban = list.data[0] as unknown as { banned_at: string; expires_at: string };
    expect(new Date(ban.expires_at).getTime() - new Date(ban.banned_at).getTime()).toBe(3600_000);
    expect((await admin.get('/ip-blocking/status')).json().data[0].banned_count).toBe(1);
    expect((await bans('?q=113.5')).meta.total).toBe(1);
    expect((await bans('?q=198.51')).meta.total).toBe(0);
  });

  it('counts failed two-factor steps and single sign-on tickets as failed sign-ins', async () => {
    await rule('console', { max_failures: 3 });
    const step = (url: string, payload: object, ip: string) =>
      t.app.inject({ method: 'POST', url: `/api/v0${url}`, payload, headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 3; i++) {
      const res = await step('/login/two-factor', { challenge: `forged.challenge.${i}`, code: '123456' }, '198.19.5.1');
      expect(res.statusCode).toBe(401);
    }
    const banned = await step('/login/two-factor', { challenge: 'forged.challenge.x', code: '123456' }, '198.19.5.1');
    expect(banned.statusCode).toBe(403);
    // Banned from signing in at all, with the right password too.
    expect((await signIn(t.adminLogin, t.adminPassword, '198.19.5.1')).statusCode).toBe(403);

    for (let i = 0; i < 3; i++) expect((await step('/sso/exchange', { ticket: `guessed-ticket-${i}` }, '198.19.5.2')).statusCode).toBe(401);
    expect((await step('/sso/exchange', { ticket: 'guessed-ticket-x' }, '198.19.5.2')).statusCode).toBe(403);
    const listed = (await bans('?service=console')).data;
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ip: '198.19.5.1', cause: 'failed_sign_ins' }),
        expect.objectContaining({ ip: '198.19.5.2', cause: 'failed_sign_ins' }),
      ]),
    );
    expect((await admin.post('/ip-blocking/unban-all', { service: 'console' })).statusCode).toBe(200);
  });

  it('a ban ends when it expires', async () => {
    await rule('console', { max_failures: 2 });
    for (let i = 0; i < 2; i++) await signIn('nobody', 'bad', '203.0.113.20');
    expect((await signIn('nobody', 'bad', '203.0.113.20')).statusCode).toBe(403);
    const until = t.app.services.ipBlocking.bannedUntil('console', '203.0.113.20');
    expect(until).not.toBeNull();
    // In memory, it holds no longer than its end…
    expect(t.app.services.ipBlocking.bannedUntil('console', '203.0.113.20', (until as Date).getTime() + 1)).toBeNull();
    // …and once its time has passed (moved into the past here), it is gone from the list and the address signs in again.
    await t.database.db.execute(sql`UPDATE ip_bans SET expires_at = now() - interval '1 second' WHERE ip = '203.0.113.20'`);
    await t.app.services.ipBlocking.reload();
    expect((await signIn('nobody', 'bad', '203.0.113.20')).statusCode).toBe(401);
    expect((await bans()).data.some((b) => b.ip === '203.0.113.20')).toBe(false);
  });

  it('never bans a whitelisted address or range, and whitelisting lifts its ban', async () => {
    await rule('console', { max_failures: 2 });
    expect((await admin.post('/ip-blocking/console/whitelist', { ips: ['198.51.100.0/24'] })).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await signIn('nobody', 'bad', '198.51.100.77')).statusCode).toBe(401);
    expect((await bans()).data.some((b) => b.ip === '198.51.100.77')).toBe(false);

    for (let i = 0; i < 2; i++) await signIn('nobody', 'bad', '192.0.2.44');
    expect((await signIn('nobody', 'bad', '192.0.2.44')).statusCode).toBe(403);
    const added = await admin.post('/ip-blocking/console/whitelist', { ips: ['192.0.2.44'] });
    expect(added.json().data).toEqual([expect.objectContaining({ service: 'console', ip: '192.0.2.44' })]);
    expect((await signIn('nobody', 'bad', '192.0.2.44')).statusCode).toBe(401);
    // Removed, it counts again.
    const removed = await admin.post('/ip-blocking/console/whitelist/delete', { ips: ['192.0.2.44', '192.0.2.45'] });
    expect(removed.json().data).toEqual({ count: 1 });
    for (let i = 0; i < 2; i++) await signIn('nobody', 'bad', '192.0.2.44');
    expect((await signIn('nobody', 'bad', '192.0.2.44')).statusCode).toBe(403);
  });

  it('unbans one address, then every address', async () => {
    await rule('console', { max_failures: 1 });
    for (const ip of ['203.0.113.31', '203.0.113.32', '203.0.113.33']) await signIn('nobody', 'bad', ip);
    for (const ip of ['203.0.113.31', '203.0.113.32', '203.0.113.33']) expect((await signIn('nobody', 'bad', ip)).statusCode).toBe(403);
    const one = await admin.post('/ip-blocking/console/unban', { ips: ['203.0.113.31', '203.0.113.99'] });
    expect(one.json().data).toEqual({ count: 1 });
    expect((await signIn('nobody', 'bad', '203.0.113.31')).statusCode).toBe(401);
    expect((await signIn('nobody', 'bad', '203.0.113.32')).statusCode).toBe(403);
    const all = await admin.post('/ip-blocking/unban-all', {});
    expect(all.json().data.count).toBeGreaterThanOrEqual(2);
    expect((await bans()).meta.total).toBe(0);
    expect((await signIn('nobody', 'bad', '203.0.113.32')).statusCode).toBe(401);
  });

  it('a service switched off neither bans nor keeps its bans', async () => {
    await rule('console', { max_failures: 1 });
    await signIn('nobody', 'bad', '203.0.113.40');
    expect((await signIn('nobody', 'bad', '203.0.113.40')).statusCode).toBe(403);
    const status = await rule('console', { is_enabled: false });
    expect(status[0]).toMatchObject({ is_enabled: false, banned_count: 0 });
    for (let i = 0; i < 5; i++) expect((await signIn('nobody', 'bad', '203.0.113.41')).statusCode).toBe(401);
    expect((await signIn('nobody', 'bad', '203.0.113.40')).statusCode).toBe(401);
    expect((await bans()).meta.total).toBe(0);
    await rule('console', { max_failures: 60 });
  });
});

describe('IP blocking: API and guest pages', () => {
  it('bans after tokens Atrium never signed, not after expired ones', async () => {
    await rule('api', { max_failures: 3 });
    const expired = await new TokenService('test-secret-test-secret-test-secret-42').signAccess(
      { userId: t.project.adminId, projectId: t.project.projectId },
      -60,
    );
    const call = (token: string, ip: string) =>
      t.app.inject({ method: 'GET', url: '/api/v0/profile', headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': ip } });
    for (let i = 0; i < 5; i++) expect((await call(expired, '198.18.0.1')).statusCode).toBe(401);
    for (let i = 0; i < 3; i++) expect((await call('not.a.token', '198.18.0.2')).statusCode).toBe(401);
    const refused = await call('not.a.token', '198.18.0.2');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().details).toEqual([expect.objectContaining({ service: 'api' })]);
    expect((await call(expired, '198.18.0.1')).statusCode).toBe(401);
    expect((await bans('?service=api')).data).toEqual([expect.objectContaining({ ip: '198.18.0.2', cause: 'invalid_tokens' })]);
  });

  it('bans after guessed API keys in X-Api-Key or the bearer header', async () => {
    await rule('api', { max_failures: 3 });
    const guess = (headers: Record<string, string>, ip: string) =>
      t.app.inject({ method: 'GET', url: '/api/v0/devices', headers: { ...headers, 'x-forwarded-for': ip } });
    for (let i = 0; i < 3; i++) expect((await guess({ 'x-api-key': `atr_guess${i}${'x'.repeat(30)}` }, '198.18.2.1')).statusCode).toBe(401);
    const refused = await guess({ 'x-api-key': `atr_guess9${'x'.repeat(30)}` }, '198.18.2.1');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('your ip address is banned');
    for (let i = 0; i < 3; i++)
      expect((await guess({ authorization: `Bearer atr_bearer${i}${'y'.repeat(30)}` }, '198.18.2.2')).statusCode).toBe(401);
    expect((await guess({ authorization: `Bearer atr_bearer9${'y'.repeat(30)}` }, '198.18.2.2')).statusCode).toBe(403);
    // Another address is not touched.
    expect((await guess({ 'x-api-key': `atr_other${'z'.repeat(30)}` }, '198.18.2.3')).statusCode).toBe(401);
    expect((await bans('?service=api')).data.map((b) => b.ip)).toEqual(expect.arrayContaining(['198.18.2.1', '198.18.2.2']));
  });

  it('bans after unknown guest keys', async () => {
    await rule('guest', { max_failures: 3 });
    const key = (ip: string) =>
      t.app.inject({ method: 'GET', url: `/api/v0/guest-access/key/${'a'.repeat(32)}`, headers: { 'x-forwarded-for': ip } });
    const first = await key('198.18.1.1');
    expect([400, 404]).toContain(first.statusCode);
    if (first.statusCode === 400) return expect.fail(`the guest key route refused the key's shape: ${first.body}`);
    for (let i = 0; i < 2; i++) expect((await key('198.18.1.1')).statusCode).toBe(404);
    expect((await key('198.18.1.1')).statusCode).toBe(403);
    expect((await key('198.18.1.2')).statusCode).toBe(404);
    expect((await bans('?service=guest')).data).toEqual([expect.objectContaining({ ip: '198.18.1.1', cause: 'invalid_guest_keys' })]);
  });
});

describe('IP blocking: SIP registration', () => {
  let sip: SipRuntime;
  beforeAll(async () => {
    sip = await startSip(t.app, {
      ...t.app.config,
      sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null },
    });
  });
  afterAll(() => sip.close());

  it('bans an address after failed REGISTERs: 403 Forbidden without a challenge, until unbanned', async () => {
    const put = await admin.put('/sip-numbers', { domain_id: t.project.rootGroupId, number: '4100', password: 'Phone4100pw' });
    expect(put.statusCode, put.body).toBe(200);
    // The loopback is whitelisted by default: this test's phone is on it.
    expect((await admin.post('/ip-blocking/sip/whitelist/delete', { ips: ['127.0.0.1'] })).json().data).toEqual({ count: 1 });
    await rule('sip', { max_failures: 3 });
    const port = sip.server.ports.udp;
    for (let i = 0; i < 3; i++) expect(await registerContact(port, '4100', 'Wrong4100pw', 40000)).toBe(403);
    // Banned: even the right password is refused at once.
    expect(await registerContact(port, '4100', 'Phone4100pw', 40000)).toBe(403);
    expect((await bans('?service=sip')).data).toEqual([
      expect.objectContaining({
        ip: '127.0.0.1',
        cause: 'failed_sip_registrations',
        info: expect.objectContaining({ failures: 3, last_attempt: 'number 4100' }),
      }),
    ]);
    expect((await admin.post('/ip-blocking/sip/unban', { ips: ['127.0.0.1'] })).json().data).toEqual({ count: 1 });
    expect(await registerContact(port, '4100', 'Phone4100pw', 40000)).toBe(200);
    // The HTTP services are not concerned by a SIP ban.
    expect((await admin.get('/ip-blocking/status')).statusCode).toBe(200);
  });

  it('counts unknown numbers too', async () => {
    await admin.post('/ip-blocking/unban-all', { service: 'sip' });
    await rule('sip', { max_failures: 2 });
    const port = sip.server.ports.udp;
    // Challenged like a known number, and refused after the digest as a wrong password is.
    for (let i = 0; i < 2; i++) expect(await registerContact(port, '9999', 'Whatever1', 40001)).toBe(403);
    expect((await bans('?service=sip')).data).toEqual([
      expect.objectContaining({ ip: '127.0.0.1', info: expect.objectContaining({ failures: 2, last_attempt: 'number 9999' }) }),
    ]);
    await admin.post('/ip-blocking/unban-all', {});
  });
});

describe('IP blocking: whitelist input', () => {
  it('refuses what is not an address or a range, with the field', async () => {
    for (const ip of ['not-an-ip', '10.0.0.0/33', '999.1.1.1', '2001:db8::/129', '10.0.0.1 ', '']) {
      const res = await admin.post('/ip-blocking/api/whitelist', { ips: [ip] });
      expect(res.statusCode, ip).toBe(400);
      expect(res.json().details[0].field).toBe('ips.0');
    }
    expect((await admin.post('/ip-blocking/api/whitelist', { ips: [] })).statusCode).toBe(400);
    expect((await admin.post('/ip-blocking/nothing/whitelist', { ips: ['10.0.0.1'] })).statusCode).toBe(400);
    expect((await admin.post('/ip-blocking/api/unban', { ips: ['10.0.0.0/8'] })).statusCode).toBe(400);
    expect((await admin.get('/ip-blocking/banned?service=ssh')).statusCode).toBe(400);
  });

  it('answers "IP already in whitelist" for an address or range already there, in any spelling, and adds none', async () => {
    expect((await admin.post('/ip-blocking/api/whitelist', { ips: ['10.20.0.0/16', '2001:db8::1'] })).statusCode).toBe(200);
    for (const ips of [['10.20.5.5/16'], ['2001:0db8:0:0::1'], ['172.16.0.1', '172.16.0.1'], ['172.16.0.2', '10.20.0.0/16']]) {
      const res = await admin.post('/ip-blocking/api/whitelist', { ips });
      expect(res.statusCode, ips.join()).toBe(409);
      expect(res.json().message).toBe('ip already in whitelist');
    }
    const list = (await admin.get('/ip-blocking/whitelist?service=api')).json().data.map((e: { ip: string }) => e.ip);
    expect(list).not.toContain('172.16.0.1');
    expect(list).not.toContain('172.16.0.2');
    expect(list).toEqual(expect.arrayContaining(['10.20.0.0/16', '2001:db8::1']));
  });

  it('matches addresses and ranges in canonical form', () => {
    expect(canonicalEntry('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(canonicalEntry('::ffff:192.0.2.1')).toBe('192.0.2.1');
    const set = new AddressSet(['10.0.0.0/8', '2001:db8::/32', '::1']);
    expect(set.has('10.9.9.9')).toBe(true);
    expect(set.has('::ffff:10.9.9.9')).toBe(true);
    expect(set.has('11.0.0.1')).toBe(false);
    expect(set.has('2001:db8:ffff::1')).toBe(true);
    expect(set.has('0:0:0:0:0:0:0:1')).toBe(true);
  });
});

describe('IP blocking: permissions', () => {
  it('needs system info to see, and project settings as well to change', async () => {
    const nobody = await withPermissions([]);
    const viewer = await withPermissions(['can_view_system_info']);
    const editor = await withPermissions(['can_view_system_info', 'can_change_project_settings']);
    const settingsOnly = await withPermissions(['can_change_project_settings']);
    const reads = ['/ip-blocking/status', '/ip-blocking/banned', '/ip-blocking/whitelist'];
    const writes: Array<[string, unknown]> = [
      ['/ip-blocking/status', { data: [{ name: 'guest', is_enabled: true }] }],
      ['/ip-blocking/unban-all', {}],
      ['/ip-blocking/guest/unban', { ips: ['10.0.0.1'] }],
      ['/ip-blocking/guest/whitelist', { ips: ['10.0.0.1'] }],
      ['/ip-blocking/guest/whitelist/delete', { ips: ['10.0.0.1'] }],
    ];
    for (const url of reads) {
      expect((await nobody.get(url)).statusCode, url).toBe(403);
      expect((await settingsOnly.get(url)).statusCode, url).toBe(403);
      expect((await viewer.get(url)).statusCode, url).toBe(200);
    }
    for (const [url, body] of writes) {
      expect((await nobody.post(url, body)).statusCode, url).toBe(403);
      expect((await viewer.post(url, body)).statusCode, url).toBe(403);
      expect((await settingsOnly.post(url, body)).statusCode, url).toBe(403);
      expect((await editor.post(url, body)).statusCode, url).toBe(200);
    }
  });
});

describe('IP blocking across instances', () => {
  it('a ban made by one instance is enforced by another sharing the database', async () => {
    const other = await buildTestApp({ database: t.database });
    try {
      await rule('console', { max_failures: 1 });
      await signIn('nobody', 'bad', '203.0.113.77');
      const deadline = Date.now() + 5000;
      while (!other.app.services.ipBlocking.bannedUntil('console', '203.0.113.77') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const res = await other.app.inject({
        method: 'POST',
        url: '/api/v0/login',
        payload: { login: 'nobody', password: 'bad' },
        headers: { 'x-forwarded-for': '203.0.113.77' },
      });
      expect(res.statusCode).toBe(403);
    } finally {
      await other.close();
      await admin.post('/ip-blocking/unban-all', {});
      await rule('console', { max_failures: 60 });
    }
  });
});
