// Push delivery (issue 14): a real push server started here receives the notifications of users
// with mobile apps, with the bearer token and the texts in the user's language; a failure is
// retried, a refused token is removed, a delivery pending at a stop is sent by the next server,
// nothing is sent while push is off, and the worker is one of System info's workers.
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PushMessage } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, freshDatabase, login, type TestApp } from '../../../test/helpers.js';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { queryRows } from '../../core/db/client.js';
import { LogLifeWorker } from '../system/log-life.js';
import { LogLifeRepository } from '../system/log-life.repository.js';

// The push server here listens on loopback: allowed as an operator allows one inside the site.
const FAST = { PUSH_RETRY_BASE_MS: '200', PUSH_POLL_MS: '50', PUSH_TIMEOUT_MS: '2000', PUSH_ALLOW_PRIVATE: 'true' };
const TOKEN = 'push-server-token-42';

interface Received {
  headers: IncomingHttpHeaders;
  json: PushMessage;
}

/** The project's push server: answers the next planned reply (200 when none), keeps what it got. */
class PushServer {
  readonly got: Received[] = [];
  readonly plan: { status: number; body?: unknown }[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        this.got.push({ headers: req.headers, json: JSON.parse(body) });
        const reply = this.plan.shift() ?? { status: 200, body: { ok: true } };
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body ?? {}));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/push`;
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let push: PushServer;
let n = 0;

beforeAll(async () => {
  t = await buildTestApp({ env: FAST });
  admin = await adminClient(t);
  push = new PushServer();
  await push.start();
});
afterAll(async () => {
  await push?.close();
  await t?.close();
});
afterEach(() => {
  push.got.length = 0;
  push.plan.length = 0;
});

const pushOn = (api: typeof admin, url = push.url) => api.patch('/settings/push', { is_enabled: true, url, token: TOKEN });

/** A resident with an app on each of `platforms`, signed in; `locale` is their language. */
async function resident(app: TestApp, platforms: ('ios' | 'android')[], locale = 'en') {
  const u = await makeUser(app.database.db, { projectId: app.project.projectId, groupIds: [app.project.rootGroupId], login: `r-${++n}` });
  await app.database.db.execute(sql`UPDATE users SET locale = ${locale} WHERE id = ${u.id}`);
  const api = client(app.app, await login(app.app, u.login, u.password));
  const tokens: string[] = [];
  for (const platform of platforms) {
    const token = `${platform}-token-${++n}`;
    tokens.push(token);
    const res = await api.put('/mobile-clients', { mobile_client_id: `install-${n}`, platform, push_token: token });
    expect(res.statusCode).toBe(200);
  }
  return { id: u.id, api, tokens };
}

interface Delivery {
  status: string;
  attempts: number;
  response_status: number | null;
  error: string | null;
}
const deliveries = async (userId: number) => ({
  rows: await queryRows<Delivery>(
    t.database.db,
    sql`SELECT status, attempts, response_status, error FROM push_deliveries WHERE user_id = ${userId} ORDER BY id`,
  ),
});

describe('push delivery', { timeout: 60_000 }, () => {
  it('sends a conversation started for a resident to the push server, once per platform, with the bearer token', async () => {
    expect((await pushOn(admin)).statusCode).toBe(200);
    const r = await resident(t, ['ios', 'android']);
    const started = await admin.put('/conversations', { subject: 'Water leak', interlocutor: { id: r.id }, message: 'Floor 3' });
    expect(started.statusCode).toBe(200);
    await expect.poll(() => push.got.length).toBe(2);
    // Nothing more comes: each was sent exactly once.
    await new Promise((res) => setTimeout(res, 300));
    expect(push.got).toHaveLength(2);
    for (const g of push.got) {
      expect(g.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(g.headers['content-type']).toBe('application/json');
    }
    const byPlatform = Object.fromEntries(push.got.map((g) => [g.json.platform, g.json]));
    const [notification] = (await r.api.get('/notifications')).json().data;
    expect(byPlatform.ios).toEqual({
      tokens: [r.tokens[0]],
      platform: 'ios',
      title: 'New conversation',
      body: 'New conversation from Admin: Water leak',
      data: { type: 'conversation_received', id: notification.id },
      locale: 'en',
    });
    expect(byPlatform.android?.tokens).toEqual([r.tokens[1]]);
    expect((await deliveries(r.id)).rows.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('speaks the user’s language, and covers notifications made by any area (a message in a conversation, a system notice)', async () => {
    await pushOn(admin);
    const r = await resident(t, ['android'], 'ru');
    const c = (await admin.put('/conversations', { subject: 'Лифт', interlocutor: { id: r.id }, message: 'Не работает' })).json().data;
    await expect.poll(() => push.got.length).toBe(1);
    expect(push.got[0]!.json).toMatchObject({ title: 'Новое обращение', body: 'Новое обращение от Admin: Лифт', locale: 'ru' });
    await admin.put(`/conversations/${c.id}/messages`, { message: 'Мастер придёт завтра' });
    await expect.poll(() => push.got.length).toBe(2);
    expect(push.got[1]!.json).toMatchObject({ title: 'Новое сообщение', data: { type: 'conversation_message_received' } });
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { event: 'password_changed' } });
    await expect.poll(() => push.got.length).toBe(3);
    expect(push.got[2]!.json).toMatchObject({ body: 'Ваш пароль изменён', data: { type: 'system' } });
  });

  it('retries after a 500 and succeeds', async () => {
    await pushOn(admin);
    const r = await resident(t, ['ios']);
    push.plan.push({ status: 500 }, { status: 503 });
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'device_offline', data: { device: 'Gate 1' } });
    await expect.poll(() => push.got.length, { timeout: 10_000 }).toBe(3);
    expect(new Set(push.got.map((g) => JSON.stringify(g.json))).size).toBe(1);
    await expect
      .poll(async () => (await deliveries(r.id)).rows[0])
      .toMatchObject({ status: 'succeeded', attempts: 3, response_status: 200 });
  });

  it('removes the tokens the push server refuses (410), and does not retry', async () => {
    await pushOn(admin);
    const r = await resident(t, ['ios', 'ios']);
    push.plan.push({ status: 410, body: { invalid_tokens: [r.tokens[0]] } });
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { name: 'Hello' } });
    await expect.poll(async () => (await deliveries(r.id)).rows[0]?.status).toBe('failed');
    expect(push.got).toHaveLength(1);
    expect(push.got[0]!.json.tokens).toEqual(r.tokens);
    const apps = (await r.api.get('/mobile-clients')).json().data as { has_push_token: boolean }[];
    expect(apps.map((a) => a.has_push_token)).toEqual([false, true]);
    // The next push goes to the token left only.
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { name: 'Again' } });
    await expect.poll(() => push.got.length).toBe(2);
    expect(push.got[1]!.json.tokens).toEqual([r.tokens[1]]);
    // A 2xx listing refused tokens: delivered, and those tokens are removed too.
    push.plan.push({ status: 200, body: { invalid_tokens: [r.tokens[1]] } });
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { name: 'Last' } });
    await expect
      .poll(async () => ((await r.api.get('/mobile-clients')).json().data as { has_push_token: boolean }[])[1]?.has_push_token)
      .toBe(false);
  });

  it('sends nothing while push is off, nor to users without apps', async () => {
    await admin.patch('/settings/push', { is_enabled: false });
    const r = await resident(t, ['ios']);
    await admin.put('/conversations', { subject: 'Quiet', interlocutor: { id: r.id }, message: 'No push' });
    const nobody = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    await pushOn(admin);
    await t.app.services.notifications.notify(t.project.projectId, nobody.id, { type: 'system', data: { name: 'No apps' } });
    await new Promise((res) => setTimeout(res, 400));
    expect(push.got).toEqual([]);
    expect((await deliveries(r.id)).rows).toEqual([]);
    expect((await deliveries(nobody.id)).rows).toEqual([]);
    // Turned off after it was written: dropped when its turn comes, not sent.
    await t.app.services.push.stop();
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { name: 'Late' } });
    await admin.patch('/settings/push', { is_enabled: false });
    t.app.services.push.start();
    await expect.poll(async () => (await deliveries(r.id)).rows[0]).toMatchObject({ status: 'failed', error: 'push is disabled' });
    expect(push.got).toEqual([]);
  });

  it('keeps sent and given-up pushes as long as the project keeps its logs, and pending ones until they are done', async () => {
    await pushOn(admin);
    const r = await resident(t, ['ios']);
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { name: 'Old' } });
    await expect.poll(async () => (await deliveries(r.id)).rows[0]?.status).toBe('succeeded');
    await t.app.services.push.stop();
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { name: 'Waiting' } });
    await t.database.db.execute(sql`UPDATE push_deliveries SET created_at = now() - interval '400 days' WHERE user_id = ${r.id}`);
    try {
      const gone = await new LogLifeWorker(new LogLifeRepository(t.database.db), {}).pruneOnce();
      expect(gone.push_deliveries).toBe(1);
      expect((await deliveries(r.id)).rows.map((d) => d.status)).toEqual(['pending']);
    } finally {
      t.app.services.push.start();
    }
    await expect.poll(async () => (await deliveries(r.id)).rows[0]?.status).toBe('succeeded');
  });

  it('is a worker of System info that an administrator stops and starts', async () => {
    const info = (await admin.get('/system/info')).json().data;
    expect(info.workers).toContainEqual({ name: 'push', is_running: true, controllable: true });
    expect((await admin.post('/system/workers/push/stop')).json().data).toMatchObject({ name: 'push', is_running: false });
    await pushOn(admin);
    const r = await resident(t, ['ios']);
    await t.app.services.notifications.notify(t.project.projectId, r.id, { type: 'system', data: { name: 'Held' } });
    await new Promise((res) => setTimeout(res, 300));
    expect(push.got).toEqual([]);
    expect((await admin.post('/system/workers/push/start')).json().data).toMatchObject({ name: 'push', is_running: true });
    await expect.poll(() => push.got.length).toBe(1);
  });
});

describe('a test push from the push settings', { timeout: 60_000 }, () => {
  it('reaches the push server with the saved settings, to the administrator’s own apps', async () => {
    await pushOn(admin);
    const none = await admin.post('/settings/push/test');
    expect(none.json().data).toEqual({ status: 200, tokens: 0 });
    expect(push.got[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(push.got[0]!.json).toMatchObject({ tokens: [], data: { type: 'test', id: 0 }, body: 'Test push: the push server works' });
    await admin.put('/mobile-clients', { mobile_client_id: 'admin-phone', platform: 'ios', push_token: 'admin-apns' });
    expect((await admin.post('/settings/push/test')).json().data).toEqual({ status: 200, tokens: 1 });
    expect(push.got[1]!.json).toMatchObject({ tokens: ['admin-apns'], platform: 'ios' });
    // Nothing was written for the worker.
    expect((await deliveries(t.project.adminId)).rows).toEqual([]);
  });

  it('says when the push server refuses, when push is off, and needs the settings permission', async () => {
    await pushOn(admin);
    push.plan.push({ status: 401 });
    const refused = await admin.post('/settings/push/test');
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toMatchObject({ message: 'the test push could not be sent', details: [{ status: 401 }] });
    const member = await resident(t, []);
    const denied = await member.api.post('/settings/push/test');
    expect(denied.statusCode).toBe(403);
    await admin.patch('/settings/push', { is_enabled: false });
    const off = await admin.post('/settings/push/test');
    expect(off.statusCode).toBe(409);
    expect(off.json().message).toBe('push server not configured');
    expect(push.got).toHaveLength(1);
  });
});

// Starts servers of its own (a fresh database's first open is slow on a busy machine).
describe('push delivery across a restart', { timeout: 120_000 }, () => {
  it('sends what was pending when the server stopped, once', async () => {
    const db = await freshDatabase();
    const first = await buildTestApp({ database: db, env: { ...FAST, PUSH_RETRY_BASE_MS: '60000' } });
    const api = await adminClient(first);
    await pushOn(api);
    const r = await resident(first, ['android']);
    push.plan.push({ status: 503 });
    await first.app.services.notifications.notify(first.project.projectId, r.id, { type: 'system', data: { name: 'Survives' } });
    await expect.poll(() => push.got.length).toBe(1);
    await first.app.close();

    await db.db.execute(`UPDATE push_deliveries SET next_attempt_at = now() WHERE status = 'pending'`);
    const second = await buildApp({
      config: loadConfig({
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-test-')),
        LOG_LEVEL: 'silent',
        PORT: '0',
        JWT_SECRET: 'test-secret-test-secret-test-secret-42',
        ...FAST,
      }),
      database: db,
      serveWeb: false,
    });
    await second.ready();
    try {
      await expect.poll(() => push.got.length, { timeout: 10_000 }).toBe(2);
      expect(push.got[1]!.json).toEqual(push.got[0]!.json);
      await new Promise((res) => setTimeout(res, 300));
      expect(push.got).toHaveLength(2);
      const [d] = await queryRows<Delivery>(db.db, sql`SELECT status, attempts FROM push_deliveries`);
      expect(d).toMatchObject({ status: 'succeeded', attempts: 2 });
    } finally {
      await second.close();
      await db.close();
    }
  });
});
