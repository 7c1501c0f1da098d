// Webhooks end to end: a real HTTP receiver checks every delivery's signature; a simulated panel's
// events, a recorded change and a test ping are delivered; a failing receiver is retried with
// backoff and the delivery log shows each attempt; deliveries pending when the server stops are sent
// by the next one; private addresses are refused unless allowed.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WEBHOOK_HEADERS, WEBHOOK_MAX_ATTEMPTS, type WebhookDelivery, type WebhookDeliveryDetail } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, freshDatabase, login, type TestApp } from '../../../test/helpers.js';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { isPrivateAddress } from '../../core/outbound.js';

const FAST = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_BASE_MS: '300', WEBHOOKS_POLL_MS: '100', WEBHOOKS_TIMEOUT_MS: '2000' };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; project_id: number; created_at: string; data: Record<string, unknown> };
}

/** A building's own system: answers with the next planned status (200 when none), keeps what it got. */
class Receiver {
  readonly got: Received[] = [];
  readonly plan: number[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        this.got.push({ path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body) });
        const status = this.plan.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 400 ? `failure ${'x'.repeat(5000)}` : 'ok');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  of(type: string): Received[] {
    return this.got.filter((g) => g.json.type === type);
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** What a receiver does with the README's recipe: HMAC of `<timestamp>.<body>`, compared in constant time, and a fresh timestamp. */
function verify(r: Received, secret: string): boolean {
  const timestamp = String(r.headers[WEBHOOK_HEADERS.timestamp]);
  const given = String(r.headers[WEBHOOK_HEADERS.signature]);
  const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${r.body}`).digest('hex')}`;
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
  return fresh && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let receiver: Receiver;
beforeAll(async () => {
  t = await buildTestApp({ env: FAST });
  admin = await adminClient(t);
  receiver = new Receiver();
  await receiver.start();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const ok = <T>(res: { statusCode: number; body: string; json(): { data: T } }): T => {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const deliveriesOf = async (id: number) => ok<WebhookDelivery[]>(await admin.get(`/webhooks/${id}/deliveries?size=100`));

describe('webhooks', () => {
  it('deliver a test ping and recorded changes, signed with the endpoint secret', async () => {
    const hook = ok<{ id: number; secret: string; event_types: string[] }>(
      await admin.put('/webhooks', { name: 'Markers', url: `${receiver.url}/markers`, event_types: ['audit.marker', 'audit.marker'] }),
    );
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.event_types).toEqual(['audit.marker']);
    expect(JSON.stringify(ok(await admin.get(`/webhooks/${hook.id}`)))).not.toContain(hook.secret);

    const ping = ok<WebhookDelivery>(await admin.post(`/webhooks/${hook.id}/ping`));
    await expect.poll(() => receiver.of('ping').length).toBe(1);
    const got = receiver.of('ping')[0]!;
    expect(verify(got, hook.secret)).toBe(true);
    expect(verify(got, `${hook.secret}x`)).toBe(false);
    expect(got.headers[WEBHOOK_HEADERS.event]).toBe('ping');
    expect(got.headers[WEBHOOK_HEADERS.delivery]).toBe(ping.event_id);
    expect(got.json).toMatchObject({ id: ping.event_id, type: 'ping', project_id: t.project.projectId, data: { webhook_id: hook.id } });

    const marker = ok<{ id: number }>(await admin.put('/markers', { name: 'Hooked', color: '#123456', domain_id: t.project.rootGroupId }));
    await expect.poll(() => receiver.of('audit.marker').length).toBe(1);
    const change = receiver.of('audit.marker')[0]!;
    expect(verify(change, hook.secret)).toBe(true);
    expect(change.json.data).toMatchObject({
      entity: 'marker',
      entity_id: String(marker.id),
      action: 'create',
      user_id: t.project.adminId,
    });
    // Other entities were not chosen: a new role is not sent.
    ok(await admin.put('/roles', { name: `r-${randomUUID().slice(0, 6)}`, permissions: [], available_roles: [] }));
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.got.filter((g) => g.path === '/markers').map((g) => g.json.type)).toEqual(['ping', 'audit.marker']);

    // A rotated secret signs from now on.
    const rotated = ok<{ secret: string }>(await admin.post(`/webhooks/${hook.id}/rotate-secret`));
    ok(await admin.post(`/webhooks/${hook.id}/ping`));
    await expect.poll(() => receiver.of('ping').length).toBe(2);
    expect(verify(receiver.of('ping')[1]!, rotated.secret)).toBe(true);
    expect(verify(receiver.of('ping')[1]!, hook.secret)).toBe(false);
  });

  it('retry a failing receiver with backoff, log every attempt, and redeliver on request', async () => {
    const hook = ok<{ id: number; secret: string }>(
      await admin.put('/webhooks', { name: 'Flaky', url: `${receiver.url}/flaky`, event_types: ['audit.marker'] }),
    );
    receiver.plan.push(500);
    const started = receiver.of('ping').length;
    const ping = ok<WebhookDelivery>(await admin.post(`/webhooks/${hook.id}/ping`));
    await expect
      .poll(async () => (await deliveriesOf(hook.id)).find((d) => d.id === ping.id)?.status, { timeout: 10_000 })
      .toBe('succeeded');
    const tries = receiver.of('ping').slice(started);
    expect(tries).toHaveLength(2);
    // The same event, signed anew for each attempt, after a wait.
    expect(tries.map((g) => g.json.id)).toEqual([ping.event_id, ping.event_id]);
    expect(tries.every((g) => verify(g, hook.secret))).toBe(true);
    const detail = ok<WebhookDeliveryDetail>(await admin.get(`/webhooks/${hook.id}/deliveries/${ping.id}`));
    expect(detail).toMatchObject({ status: 'succeeded', attempts: 2, response_status: 200, response_body: 'ok' });
    expect(detail.attempt_log.map((a) => [a.attempt, a.response_status])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    // Kept short: the start of the failing answer only.
    expect(detail.attempt_log[0]!.response_body!.length).toBe(2048);
    expect(Date.parse(detail.attempt_log[1]!.at) - Date.parse(detail.attempt_log[0]!.at)).toBeGreaterThanOrEqual(250);

    // Sent again by hand: one more attempt of the same event.
    const again = ok<WebhookDelivery>(await admin.post(`/webhooks/${hook.id}/deliveries/${ping.id}/redeliver`));
    expect(again.status).toBe('pending');
    await expect.poll(() => receiver.of('ping').slice(started).length).toBe(3);
    await expect
      .poll(async () => ok<WebhookDeliveryDetail>(await admin.get(`/webhooks/${hook.id}/deliveries/${ping.id}`)).attempt_log.length)
      .toBe(3);
    expect((await admin.get(`/webhooks/${hook.id}/deliveries/999999`)).statusCode).toBe(404);
  });

  it('are given up after the last attempt, and a disabled endpoint gets nothing new', async () => {
    const hook = ok<{ id: number }>(
      await admin.put('/webhooks', { name: 'Down', url: `${receiver.url}/down`, event_types: ['audit.role'] }),
    );
    ok(await admin.patch(`/webhooks/${hook.id}`, { enabled: false }));
    ok(await admin.put('/roles', { name: `r-${randomUUID().slice(0, 6)}`, permissions: [], available_roles: [] }));
    await new Promise((r) => setTimeout(r, 400));
    expect(await deliveriesOf(hook.id)).toEqual([]);
    expect(receiver.got.filter((g) => g.path === '/down')).toEqual([]);
    const list = ok<{ id: number; enabled: boolean }[]>(await admin.get('/webhooks'));
    expect(list.find((h) => h.id === hook.id)?.enabled).toBe(false);

    // A ping still goes to a disabled endpoint; failing on its last attempt, the delivery is given up.
    ok(await admin.patch(`/webhooks/${hook.id}`, { url: `${receiver.url}/down-again` }));
    receiver.plan.push(500, 500);
    const ping = ok<WebhookDelivery>(await admin.post(`/webhooks/${hook.id}/ping`));
    // After the first failure, while it waits for its retry: as if the earlier attempts had all failed.
    await expect.poll(async () => (await deliveriesOf(hook.id))[0]?.attempts).toBe(1);
    await t.database.db.execute(
      `UPDATE webhook_deliveries SET attempts = ${WEBHOOK_MAX_ATTEMPTS - 1} WHERE id = ${ping.id} AND status = 'pending'`,
    );
    await expect.poll(async () => (await deliveriesOf(hook.id))[0]?.status, { timeout: 10_000 }).toBe('failed');
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ attempts: WEBHOOK_MAX_ATTEMPTS, response_status: 500, next_attempt_at: null });
    expect(ok<{ last_delivery_status: string }>(await admin.get(`/webhooks/${hook.id}`)).last_delivery_status).toBe('failed');
  });

  it('tell of device events and presence from a simulated panel', async () => {
    const devices: DeviceHarness = await deviceHarness(t);
    try {
      const hook = ok<{ id: number; secret: string }>(
        await admin.put('/webhooks', {
          name: 'Panels',
          url: `${receiver.url}/panels`,
          event_types: ['device.online', 'device.alarm_on', 'device.alarm_off'],
        }),
      );
      const panel = await devices.device({ serial: `WH-${randomUUID().slice(0, 6)}`.toUpperCase() });
      await panel.sim.alarmOn({ kind: 'fire', zone: 'entrance' });
      await new Promise((r) => setTimeout(r, 150));
      await t.app.services.devices.flushEvents();
      const at = (type: string) => receiver.got.filter((g) => g.path === '/panels' && g.json.type === type);
      await expect.poll(() => at('device.alarm_on').length, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => at('device.online').length, { timeout: 10_000 }).toBe(1);
      const alarm = at('device.alarm_on')[0]!;
      expect(verify(alarm, hook.secret)).toBe(true);
      expect(alarm.json.data).toMatchObject({ device_id: panel.id, device_name: panel.serial, data: { kind: 'fire', zone: 'entrance' } });
      expect(at('device.online')[0]!.json.data).toMatchObject({ device_id: panel.id, online: true });
    } finally {
      await devices.close();
    }
  });

  it('are managed by project settings administrators only, and validated', async () => {
    const role = await makeRole(t.database.db, t.project.projectId, ['can_view_project_settings']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role });
    const viewer = client(t.app, await login(t.app, u.login, u.password));
    expect((await viewer.get('/webhooks')).statusCode).toBe(403);
    expect((await viewer.put('/webhooks', { name: 'x', url: receiver.url, event_types: ['ping'] })).statusCode).toBe(400);
    expect((await viewer.put('/webhooks', { name: 'x', url: receiver.url, event_types: ['audit.user'] })).statusCode).toBe(403);
    const bad = await admin.put('/webhooks', { name: '', url: 'ftp://example.org/x', event_types: ['nope'] });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field.split('.')[0])
        .sort(),
    ).toEqual(['event_types', 'name', 'url']);
    expect((await admin.put('/webhooks', { name: 'x', url: 'https://user:pw@example.org/', event_types: ['ping'] })).statusCode).toBe(400);
    expect((await admin.patch('/webhooks/999999', { enabled: true })).statusCode).toBe(404);
  });
});

// Each of these starts servers of its own (a fresh database's first open is slow on a busy machine).
describe('webhooks across a restart', { timeout: 120_000 }, () => {
  it('send the deliveries that were pending when the server stopped', async () => {
    const db = await freshDatabase();
    const first = await buildTestApp({ database: db, env: { ...FAST, WEBHOOKS_RETRY_BASE_MS: '60000' } });
    const api = await adminClient(first);
    const hook = ok<{ id: number; secret: string }>(
      await api.put('/webhooks', { name: 'Later', url: `${receiver.url}/later`, event_types: ['audit.marker'] }),
    );
    receiver.plan.push(503);
    ok(await api.put('/markers', { name: 'Before stop', color: '#abcdef', domain_id: first.project.rootGroupId }));
    const mine = () => receiver.got.filter((g) => g.path === '/later');
    await expect.poll(() => mine().length).toBe(1);
    await first.app.close();

    // A new server on the same database: the delivery waits for its retry time, then goes.
    await db.db.execute(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending'`);
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
      await expect.poll(() => mine().length, { timeout: 10_000 }).toBe(2);
      expect(mine()[1]!.json.id).toBe(mine()[0]!.json.id);
      expect(verify(mine()[1]!, hook.secret)).toBe(true);
    } finally {
      await second.close();
      await db.close();
    }
  });
});

describe('webhook addresses', { timeout: 120_000 }, () => {
  it('are refused inside the site unless allowed', async () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      // Special-purpose ranges a hand list missed: benchmarking, documentation, reserved, NAT64, 6to4, Teredo, documentation v6.
      '198.18.0.1',
      '198.19.255.254',
      '192.0.2.10',
      '203.0.113.5',
      '240.0.0.1',
      '255.255.255.255',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      '2001:0:4136:e378::1',
      '2001:db8::1',
      'not-an-address',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) expect(isPrivateAddress(a), a).toBe(false);

    const strict = await buildTestApp();
    try {
      const api = await adminClient(strict);
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://localhost/hook',
        'http://[::1]/hook',
        'https://10.0.0.5/x',
        'http://169.254.169.254/latest',
        'http://198.18.0.5/hook',
        'http://[64:ff9b::a00:1]/hook',
      ]) {
        const res = await api.put('/webhooks', { name: 'Inside', url, event_types: ['audit.user'] });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().details[0], url).toMatchObject({ field: 'url', message: 'private addresses are not allowed' });
      }
    } finally {
      await strict.close();
    }
  });
});
