// The push server is an address the operator types in, and the server posts to it: one inside the
// site (loopback, private, link-local, the cloud's metadata address, special-purpose ranges) is
// refused when saved and again at each delivery, where the name is resolved once and that very
// address connected to (DNS rebinding). PUSH_ALLOW_PRIVATE lets a push server inside the site in.
// A real HTTP server on loopback stands for the address that must not be reached.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { PushService } from './push.service.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let server: Server;
let port = 0;
const got: IncomingHttpHeaders[] = [];
let n = 0;

beforeAll(async () => {
  t = await buildTestApp({ env: { PUSH_RETRY_BASE_MS: '60000', PUSH_POLL_MS: '50', PUSH_TIMEOUT_MS: '2000' } });
  admin = await adminClient(t);
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server?.close(() => r()));
  await t?.close();
});
afterEach(() => {
  got.length = 0;
});

/** The push settings as stored, bypassing the check on save (saved while allowed, or before it existed). */
const storePush = (url: string) =>
  t.database.db.execute(
    sql`UPDATE projects SET settings = jsonb_set(settings, '{push_server}', ${JSON.stringify({ is_enabled: true, url, token: 'tk' })}::jsonb)
      WHERE id = ${t.project.projectId}`,
  );

async function residentWithApp() {
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId], login: `po-${++n}` });
  const api = client(t.app, await login(t.app, u.login, u.password));
  expect(
    (await api.put('/mobile-clients', { mobile_client_id: `po-install-${n}`, platform: 'android', push_token: `tok-${n}` })).statusCode,
  ).toBe(200);
  return u;
}

const deliveries = (userId: number) =>
  queryRows<{ status: string; attempts: number; error: string | null }>(
    t.database.db,
    sql`SELECT status, attempts, error FROM push_deliveries WHERE user_id = ${userId} ORDER BY id`,
  );

describe('push server address policy', { timeout: 60_000 }, () => {
  it('refuses an address inside the site when saved, naming the field', async () => {
    for (const url of [
      `http://127.0.0.1:${port}/push`,
      `http://localhost:${port}/push`,
      `http://[::1]:${port}/push`,
      `http://[::ffff:127.0.0.1]:${port}/push`,
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/push',
      'http://198.18.0.1/push',
    ]) {
      const res = await admin.patch('/settings/push', { is_enabled: true, url, token: 'tk' });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({
        message: 'invalid data sent',
        details: [{ field: 'url', message: 'private addresses are not allowed' }],
      });
    }
    // An ordinary public address is taken (nothing is posted on save).
    const ok = await admin.patch('/settings/push', { is_enabled: false, url: 'https://93.184.215.14/push', token: 'tk' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(got).toEqual([]);
  });

  it('refuses to post to an address inside the site at send time: the test push and every delivery', async () => {
    await storePush(`http://127.0.0.1:${port}/push`);
    const test = await admin.post('/settings/push/test');
    expect(test.statusCode).toBe(400);
    expect(test.json().details).toEqual([{ field: 'url', message: 'private addresses are not allowed' }]);

    const u = await residentWithApp();
    await admin.put('/conversations', { subject: 'Leak', interlocutor: { id: u.id }, message: 'Floor 2' });
    await expect.poll(async () => (await deliveries(u.id))[0]?.attempts, { timeout: 10_000 }).toBe(1);
    expect((await deliveries(u.id))[0]).toMatchObject({ status: 'pending', error: 'private addresses are not allowed' });
    expect(got).toEqual([]);
  });

  it('resolves the name once per attempt and connects to that address (DNS rebinding)', async () => {
    // The app's own worker is stopped: the services below claim the deliveries.
    await t.app.services.push.stop();
    const name = 'push.atrium-rebind.invalid';
    await storePush(`http://${name}:${port}/push`);
    const u = await residentWithApp();
    await admin.put('/conversations', { subject: 'Door', interlocutor: { id: u.id }, message: 'Stuck' });

    // The name now answers a loopback address: refused, nothing reaches the server.
    const refusing = new PushService(t.database.db, { log: t.app.log, pollMs: 50, retryBaseMs: 10, resolve: async () => ['127.0.0.1'] });
    refusing.start();
    await expect.poll(async () => (await deliveries(u.id))[0]?.error, { timeout: 10_000 }).toBe('private addresses are not allowed');
    await refusing.stop();
    expect(got).toEqual([]);

    // Allowed inside the site: posted to the address resolved, with the push server's own name as the host.
    const allowing = new PushService(t.database.db, {
      log: t.app.log,
      pollMs: 50,
      retryBaseMs: 10,
      allowPrivate: true,
      resolve: async () => ['127.0.0.1'],
    });
    allowing.start();
    await expect.poll(async () => (await deliveries(u.id))[0]?.status, { timeout: 10_000 }).toBe('succeeded');
    await allowing.stop();
    expect(got.map((h) => h.host)).toEqual([`${name}:${port}`]);
  });
});
