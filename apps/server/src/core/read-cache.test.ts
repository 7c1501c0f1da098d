import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../test/helpers.js';
import { roles } from '../modules/roles/roles.table.js';
import { users } from '../modules/users/users.table.js';
import type { Actor } from './context.js';
import { queryRows } from './db/client.js';
import { ReadCache } from './read-cache.js';

const actor = (userId: number): Actor => ({
  userId,
  projectId: 1,
  login: `u${userId}`,
  roleId: null,
  permissions: new Set(),
  groupIds: [],
});

describe('ReadCache', () => {
  it('answers what it kept until anything changes', () => {
    const cache = new ReadCache(() => true);
    const g = cache.stamp();
    cache.keepAnswer(g, 'k', { payload: '{"data":1}', contentType: 'application/json' });
    expect(cache.answer('k')?.payload).toBe('{"data":1}');
    cache.invalidate();
    expect(cache.answer('k')).toBeUndefined();
  });

  it('never keeps a read that started before a change', () => {
    const cache = new ReadCache(() => true);
    const g = cache.stamp(['users']);
    cache.changed('users');
    cache.keepAnswer(g, 'k', { payload: 'old', contentType: 'application/json' });
    cache.keepActor(g, 't', actor(1), Date.now() + 60_000);
    expect(cache.answer('k')).toBeUndefined();
    expect(cache.actor('t')).toBeUndefined();
  });

  it('forgets a signed-in caller when the token expires', () => {
    const cache = new ReadCache(() => true);
    const now = Date.now();
    cache.keepActor(cache.stamp(), 't', actor(1), now + 1000);
    expect(cache.actor('t', now)?.userId).toBe(1);
    expect(cache.actor('t', now + 1000)).toBeUndefined();
  });

  it('keeps and answers nothing while changes cannot be heard', () => {
    let live = true;
    const cache = new ReadCache(() => live);
    const before = cache.stamp();
    cache.keepAnswer(before, 'k', { payload: 'x', contentType: 'application/json' });
    live = false;
    expect(cache.stamp()).toBeUndefined();
    expect(cache.answer('k')).toBeUndefined();
    cache.keepAnswer(before, 'k2', { payload: 'y', contentType: 'application/json' });
    live = true;
    expect(cache.answer('k2')).toBeUndefined();
  });

  it('keeps an answer read from some tables while others change, and drops it when one of them does', () => {
    const cache = new ReadCache(() => true);
    const answer = { payload: 'list', contentType: 'application/json' };
    cache.keepAnswer(cache.stamp(['users', 'user_groups']), 'users', answer);
    cache.keepAnswer(cache.stamp(), 'everything', answer);
    cache.changed('devices');
    expect(cache.answer('users')).toBeDefined();
    expect(cache.answer('everything')).toBeUndefined();
    cache.changed('user_groups');
    expect(cache.answer('users')).toBeUndefined();
  });

  it('drops everything when changes may have gone unheard', () => {
    const cache = new ReadCache(() => true);
    cache.keepAnswer(cache.stamp(['users']), 'users', { payload: 'x', contentType: 'application/json' });
    cache.invalidate();
    expect(cache.answer('users')).toBeUndefined();
  });

  it('keeps an answer no longer than its age limit', () => {
    const cache = new ReadCache(() => true);
    cache.keepAnswer(cache.stamp(['users']), 'profile', { payload: 'x', contentType: 'application/json' }, 1000);
    expect(cache.answer('profile', Date.now() + 500)).toBeDefined();
    expect(cache.answer('profile', Date.now() + 1000)).toBeUndefined();
  });

  it('after a write, forgets everything when its own changes do not come back through the feed', async () => {
    let heard = true;
    const cache = new ReadCache(
      () => true,
      {},
      async () => heard,
    );
    cache.keepAnswer(cache.stamp(['users']), 'users', { payload: 'x', contentType: 'application/json' });
    await cache.settle();
    expect(cache.answer('users')).toBeDefined();
    heard = false;
    await cache.settle();
    expect(cache.answer('users')).toBeUndefined();
  });

  it('lets those asking the same meanwhile share one read, unless what it is read from changed since it started', async () => {
    const cache = new ReadCache(() => true);
    const settle = cache.startAnswer('k', cache.stamp(['users'])!);
    const waiting = cache.answerBeingRead('k');
    settle({ payload: 'x', contentType: 'application/json' });
    expect((await waiting)?.payload).toBe('x');
    const stale = cache.startAnswer('k', cache.stamp(['users'])!);
    cache.changed('users');
    expect(await cache.answerBeingRead('k')).toBeUndefined();
    stale(undefined);
    let reads = 0;
    const read = async () => {
      const n = ++reads;
      await new Promise((r) => setTimeout(r, 10));
      return n;
    };
    const [a, b] = await Promise.all([cache.shared('c', cache.stamp(['users']), read), cache.shared('c', cache.stamp(['users']), read)]);
    expect([reads, a, b]).toEqual([1, 1, 1]);
    const before = cache.shared('c', cache.stamp(['users']), read);
    cache.changed('users');
    const after = cache.shared('c', cache.stamp(['users']), read);
    expect([await before, await after]).toEqual([2, 3]);
  });

  it('stays within its byte budget', () => {
    const cache = new ReadCache(() => true, { maxBytes: 10_000 });
    const g = cache.stamp();
    for (let i = 0; i < 100; i++) cache.keepAnswer(g, `k${i}`, { payload: 'x'.repeat(1000), contentType: 'application/json' });
    expect(cache.answer('k0')).toBeUndefined();
    expect(cache.answer('k99')).toBeDefined();
  });
});

/** The body of PUT /users for a user with a password, in one group, with no invitation mail. */
const newUser = (login: string, name: string, group: number) => ({
  login,
  name,
  password: 'secret-pass-1',
  domains: [group],
  send_registration_link: false,
});

/** Waits until `check` passes: for changes heard through the database's notifications. */
async function eventually(check: () => Promise<void>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

describe('cached reads through the API', () => {
  let t: TestApp;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await buildTestApp();
    admin = await adminClient(t);
  });
  afterAll(() => t.close());

  const names = async (api: ReturnType<typeof client>, query = '?sort=name&size=100') =>
    ((await api.get(`/users${query}`)).json().data as { name: string }[]).map((u) => u.name);

  it('answers a repeated list from memory, byte for byte', async () => {
    const first = await admin.get('/users?sort=name');
    const hits = t.app.readCache.stats.answerHits;
    const second = await admin.get('/users?sort=name');
    expect(t.app.readCache.stats.answerHits).toBe(hits + 1);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it('shows the caller their own write at once', async () => {
    const created = await admin.put('/users', newUser('cache-rw', 'Cache Before', t.project.rootGroupId));
    expect(created.statusCode).toBe(200);
    expect(await names(admin)).toContain('Cache Before');
    const id = created.json().data.id as number;
    expect((await admin.patch(`/users/${id}`, { name: 'Cache After' })).statusCode).toBe(200);
    const now = await names(admin);
    expect(now).toContain('Cache After');
    expect(now).not.toContain('Cache Before');
  });

  it('hears a write made outside this instance (straight to the database)', async () => {
    await names(admin);
    await t.database.db.update(users).set({ name: 'Renamed Elsewhere' }).where(eq(users.login, 'cache-rw'));
    await eventually(async () => expect(await names(admin)).toContain('Renamed Elsewhere'));
  });

  it('takes a permission away from a signed-in user at the next request', async () => {
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_all_users']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    expect((await api.get('/users')).statusCode).toBe(200);
    expect((await api.get('/users')).statusCode).toBe(200);
    // Through the API: visible at once.
    expect((await admin.patch(`/roles/${roleId}`, { permissions: [] })).statusCode).toBe(200);
    expect((await api.get('/users')).statusCode).toBe(403);
    // Straight to the database: visible once the change is heard.
    await t.database.db
      .update(roles)
      .set({ permissions: ['can_view_all_users'] })
      .where(eq(roles.id, roleId));
    await eventually(async () => expect((await api.get('/users')).statusCode).toBe(200));
  });

  it('keeps the users list through writes it does not depend on (a device, its rename and task, a notification read, an access event), and reads it again after one it does', async () => {
    const hits = () => t.app.readCache.stats.answerHits;
    // Changes of the tests before may still be on their way through the feed: first a kept answer.
    await eventually(async () => {
      const was = hits();
      await names(admin);
      expect(hits()).toBe(was + 1);
    });
    const before = hits();
    const device = await admin.put('/devices', {
      name: 'Cache Door',
      model: 'AP-100',
      serial_number: 'CACHE-1',
      domain_id: t.project.rootGroupId,
    });
    expect(device.statusCode, device.body).toBe(200);
    const deviceId = device.json().data.id as number;
    const forgotten = { ...t.app.readCache.stats.forgotten };
    expect((await admin.post(`/devices/${deviceId}/init/apply`, {})).statusCode).toBe(200);
    expect((await admin.patch(`/devices/${deviceId}`, { name: 'Cache Door Renamed' })).statusCode).toBe(200);
    expect((await admin.post('/notifications/read', {})).statusCode).toBe(200);
    // An access event, as the device plane stores it.
    await t.database.db.execute(
      sql`INSERT INTO access_events (project_id, device_id, lock_number, granted, value, occurred_at) VALUES (${t.project.projectId}, ${deviceId}, 1, true, '0A0B', now())`,
    );
    const kept = await admin.get('/users?sort=name&size=100');
    expect(hits()).toBe(before + 1);
    expect(t.app.readCache.stats.forgotten).toEqual(forgotten);
    // A change the list is read from is seen at the next call.
    const someone = (kept.json().data as { id: number }[]).find((u) => u.id !== t.project.adminId)!;
    expect((await admin.patch(`/users/${someone.id}`, { description: 'changed under the cache' })).statusCode).toBe(200);
    const fresh = await admin.get('/users?sort=name&size=100');
    expect(hits()).toBe(before + 1);
    expect((fresh.json().data as { id: number; description: string | null }[]).find((u) => u.id === someone.id)?.description).toBe(
      'changed under the cache',
    );
  });

  it('shows a change to anything the profile is read from at the next call', async () => {
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_users']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    const api = client(t.app, await login(t.app, u.login, u.password));
    const profile = async () => (await api.get('/profile')).json().data;
    await profile();
    const hits = t.app.readCache.stats.answerHits;
    await profile();
    expect(t.app.readCache.stats.answerHits).toBe(hits + 1);
    const renamed = await admin.patch(`/roles/${roleId}`, { name: 'Renamed Role', permissions: ['can_view_users', 'can_view_devices'] });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await profile()).role).toMatchObject({ name: 'Renamed Role', permissions: ['can_view_users', 'can_view_devices'] });
    expect((await admin.patch(`/domains/${t.project.rootGroupId}`, { name: 'Renamed Root' })).statusCode).toBe(200);
    expect((await profile()).domains).toEqual([{ id: t.project.rootGroupId, name: 'Renamed Root' }]);
    expect((await api.patch('/profile', { locale: 'ru' })).statusCode).toBe(200);
    expect((await profile()).locale).toBe('ru');
    // Straight to the database: seen once the change is heard.
    await t.database.db.update(users).set({ name: 'Named Elsewhere' }).where(eq(users.id, u.id));
    await eventually(async () => expect((await profile()).name).toBe('Named Elsewhere'));
  });

  it('reads a changed answer once for the requests asking it together', async () => {
    await names(admin);
    const someone = ((await admin.get('/users?sort=name&size=100')).json().data as { id: number }[]).find(
      (u) => u.id !== t.project.adminId,
    )!;
    expect((await admin.patch(`/users/${someone.id}`, { description: 'asked together' })).statusCode).toBe(200);
    const stats = t.app.readCache.stats;
    const [misses, shared, callers] = [stats.answerMisses, stats.answersShared, stats.actorMisses];
    const bodies = await Promise.all(Array.from({ length: 6 }, () => admin.get('/users?sort=name&size=100')));
    expect(new Set(bodies.map((b) => b.body)).size).toBe(1);
    expect(bodies[0]!.body).toContain('asked together');
    expect(stats.answerMisses - misses).toBe(6);
    expect(stats.answersShared - shared).toBe(5);
    expect(stats.actorMisses - callers).toBe(6);
  });

  it('tells on /metrics its hits and misses, what it forgot at once and why, and the changes it heard per table', async () => {
    await names(admin);
    await names(admin);
    const token = await login(t.app, t.adminLogin, t.adminPassword);
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(res.body)?.[1]);
    expect(value('atrium_read_cache_answers_total{result="hit"}')).toBe(t.app.readCache.stats.answerHits);
    expect(value('atrium_read_cache_answers_total{result="miss"}')).toBeGreaterThan(0);
    expect(value('atrium_read_cache_forgotten_total{reason="write_unheard"}')).toBe(t.app.readCache.stats.forgotten.write_unheard);
    expect(value('atrium_read_cache_changes_total{table="users"}')).toBeGreaterThan(0);
  });

  it('keeps one user’s answers from another', async () => {
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_users']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    const mine = await names(api);
    expect(mine.length).toBeLessThan((await names(admin)).length);
    expect(await names(api)).toEqual(mine);
  });

  it('is told of writes to every table but the log-like ones (a new table cannot be forgotten)', async () => {
    const rows = await queryRows<{ table: string; watched: boolean }>(
      t.database.db,
      sql`SELECT c.relname AS table, EXISTS (SELECT 1 FROM pg_trigger tg WHERE tg.tgrelid = c.oid AND tg.tgname = 'atrium_data_changed') AS watched
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
    );
    const unwatched = rows.filter((r) => !r.watched).map((r) => r.table);
    expect(unwatched).toEqual([
      'access_events',
      // amenities (issue 13): reservations move by time (a sweep every few seconds); never cached
      'amenity_reservation_logs',
      'amenity_reservations',
      // announces (issue 13): one row per recipient, written as mail is handed out and answers come in
      'announce_deliveries',
      // API keys (issue 14): the last use of a key, noted as keys are used
      'api_key_usage',
      'audit_events',
      'call_history',
      'call_records',
      // conversations (issue 13): messages and unread counts change with every message; never cached
      'conversation_messages',
      'conversation_participants',
      'conversations',
      // device alarms (issue 13): written from device events
      'device_alarm_logs',
      'device_alarms',
      // broker settings sent to devices: the sending's progress, concluded by the task sweep; never cached
      'device_broker_sends',
      'device_events',
      'device_status',
      'device_tasks',
      // the instances on the database: each refreshes its row every 10 s, and their commands; never cached
      'instance_commands',
      'instances',
      // licences (issue 14): usage per day and expiry notices, written by the licence worker
      'license_notices',
      'license_usage',
      'login_failures',
      'mail_outbox',
      // notifications (issue 13): written with every message, recipient and device event; never cached
      'notifications',
      // push delivery (issue 14): one row per pushed notification, written with it and by the push worker
      'push_deliveries',
      'refresh_tokens',
      // single sign-on (issue 14): started sign-ins and one-time tickets, each used once
      'sso_logins',
      'sso_tickets',
      'user_tokens',
      // two-factor sign-in (issue 14): the last accepted code's step moves on every sign-in; never cached
      'user_two_factor',
      // webhooks (issue 14): deliveries and their attempts, written by the delivery worker
      'webhook_attempts',
      'webhook_deliveries',
    ]);
    expect(rows.length).toBeGreaterThan(unwatched.length);
  });
});

describe('a write through the API without the change feed', () => {
  it('is still seen by the caller’s next read: when its own changes do not come back, the instance forgets everything before it answers', async () => {
    const { freshDatabase } = await import('../../test/helpers.js');
    const database = await freshDatabase();
    // The feed stays silent, as when its notifications are lost on the way.
    const t = await buildTestApp({ database: { ...database, onDataChange: async () => undefined, changesHeard: async () => false } });
    try {
      const admin = await adminClient(t);
      const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_all_users']);
      const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId });
      const api = client(t.app, await login(t.app, u.login, u.password));
      expect((await api.get('/users')).statusCode).toBe(200);
      expect((await admin.patch(`/roles/${roleId}`, { permissions: [] })).statusCode).toBe(200);
      expect((await api.get('/users')).statusCode).toBe(403);
    } finally {
      await t.close();
      await database.close();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('two instances on one PostgreSQL database', () => {
  it('a write through one instance reaches the cached reads of the other', async () => {
    const a = await buildTestApp();
    const { openDatabase } = await import('./db/client.js');
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    const own = await queryRows<{ db: string }>(a.database.db, sql`SELECT current_database() AS db`);
    url.pathname = `/${own[0]!.db}`;
    const second = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
    const { buildApp } = await import('../app.js');
    const { loadConfig } = await import('../config.js');
    const b = await buildApp({
      config: loadConfig({ DATA_DIR: '/tmp', LOG_LEVEL: 'silent', PORT: '0', JWT_SECRET: 'test-secret-test-secret-test-secret-42' }),
      database: second,
      serveWeb: false,
    });
    try {
      const token = await login(a.app, a.adminLogin, a.adminPassword);
      const viaA = client(a.app, token);
      const viaB = client(b, token);
      const list = async () => ((await viaB.get('/users?sort=name')).json().data as { name: string }[]).map((u) => u.name);
      await list();
      await list();
      expect(b.readCache.stats.answerHits).toBeGreaterThan(0);
      // Writes the list is not read from, through the other instance: heard there, and the answer stays.
      const heardDevices = () => b.readCache.stats.changes.get('devices') ?? 0;
      const devicesBefore = heardDevices();
      const device = await viaA.put('/devices', {
        name: 'Door On A',
        model: 'AP-100',
        serial_number: 'TWO-1',
        domain_id: a.project.rootGroupId,
      });
      expect(device.statusCode, device.body).toBe(200);
      expect((await viaA.patch(`/devices/${device.json().data.id}`, { name: 'Door On A Renamed' })).statusCode).toBe(200);
      expect((await viaA.post('/notifications/read', {})).statusCode).toBe(200);
      await eventually(async () => expect(heardDevices()).toBeGreaterThanOrEqual(devicesBefore + 2));
      const hits = b.readCache.stats.answerHits;
      await list();
      expect(b.readCache.stats.answerHits).toBe(hits + 1);
      const created = await viaA.put('/users', newUser('from-a', 'Made On A', a.project.rootGroupId));
      expect(created.statusCode).toBe(200);
      await eventually(async () => expect(await list()).toContain('Made On A'));
    } finally {
      await b.close();
      await second.close();
      await a.close();
    }
  });
});
