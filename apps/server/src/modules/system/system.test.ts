import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';
import { labels, RouteMetrics } from './route-metrics.js';

const METRICS_TOKEN = 'metrics-token-metrics-token-metrics-token';
let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp({ env: { METRICS_TOKEN } });
  admin = await adminClient(t);
});
afterAll(() => t.close());

/** A signed-in client of a new user whose role holds `permissions`. */
async function withPermissions(permissions: string[]) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
  const token = await login(t.app, u.login, u.password);
  return { api: client(t.app, token), token };
}

const scrape = (authorization?: string) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

describe('system info', () => {
  it('shows version, uptime, database, broker, SIP, memory and workers', async () => {
    const res = await admin.get('/system/info');
    expect(res.statusCode, res.body).toBe(200);
    const info = res.json().data;
    expect(info).toMatchObject({
      name: 'Atrium',
      version: '0.1.0',
      node_version: process.version,
      database: { kind: t.database.kind, status: 'ok' },
      // No broker runs in tests: nothing is attached.
      mqtt: { mode: 'none', address: null, connected: null },
      sip: { enabled: expect.any(Boolean), is_running: false, tls_port: null, edge: null },
    });
    expect(info.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(info.started_at)).toBeLessThanOrEqual(Date.now());
    expect(info.memory.rss).toBeGreaterThan(0);
    expect(info.workers).toEqual(
      expect.arrayContaining([
        { name: 'device_tasks', is_running: true, controllable: true },
        { name: 'mail', is_running: true, controllable: true },
        expect.objectContaining({ name: 'sip', controllable: false }),
      ]),
    );
  });

  it('shows Atrium connected to its embedded broker while a gateway is attached', async () => {
    const h = await deviceHarness(t);
    try {
      const { mqtt, workers } = (await admin.get('/system/info')).json().data;
      expect(mqtt).toMatchObject({ mode: 'embedded', connected: true });
      expect(workers).toContainEqual({ name: 'mqtt_gateway', is_running: true, controllable: false });
    } finally {
      await h.close();
    }
    expect((await admin.get('/system/info')).json().data.mqtt).toEqual({ mode: 'none', address: null, connected: null });
  });

  it('is refused without can_view_system_info; workers need can_change_project_settings too', async () => {
    const none = await withPermissions([]);
    for (const url of ['/system/info', '/system/metrics']) {
      const res = await none.api.get(url);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().message).toBe('action prohibited');
    }
    expect((await none.api.post('/system/workers/mail/stop')).statusCode).toBe(403);

    const viewer = await withPermissions(['can_view_system_info']);
    expect((await viewer.api.get('/system/info')).statusCode).toBe(200);
    expect((await viewer.api.get('/system/metrics')).statusCode).toBe(200);
    expect((await viewer.api.post('/system/workers/mail/restart')).statusCode).toBe(403);
    expect(t.app.services.mailer.running).toBe(true);
  });

  it('stops, starts and restarts a worker, and audits it', async () => {
    const stopped = await admin.post('/system/workers/device_tasks/stop');
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json().data).toEqual({ name: 'device_tasks', is_running: false, controllable: true });
    expect(t.app.services.devices.running).toBe(false);
    const info = (await admin.get('/system/info')).json().data;
    expect(info.workers.find((w: { name: string }) => w.name === 'device_tasks').is_running).toBe(false);

    const started = await admin.post('/system/workers/device_tasks/start');
    expect(started.json().data.is_running).toBe(true);
    const restarted = await admin.post('/system/workers/mail/restart');
    expect(restarted.json().data).toEqual({ name: 'mail', is_running: true, controllable: true });
    expect(t.app.services.mailer.running).toBe(true);

    const rows = await t.database.db.select().from(auditEvents).where(eq(auditEvents.entity, 'system_worker'));
    expect(rows.map((r) => [r.entityId, r.action])).toEqual(
      expect.arrayContaining([
        ['device_tasks', 'stop'],
        ['device_tasks', 'start'],
        ['mail', 'restart'],
      ]),
    );
    // Only the workers with a start and a stop: the others follow the process.
    expect((await admin.post('/system/workers/sip/stop')).statusCode).toBe(400);
  });
});

describe('route metrics', () => {
  it('count a request by its route pattern, not its URL', async () => {
    const before = (await admin.get('/system/metrics')).json().data.routes;
    const countOf = (routes: { method: string; route: string; count: number }[], route: string) =>
      routes.find((r) => r.method === 'GET' && r.route === route)?.count ?? 0;
    await admin.get('/users/999999');
    await admin.get('/users/999998');
    const res = await admin.get('/system/metrics');
    expect(res.statusCode).toBe(200);
    const { routes, since, dropped } = res.json().data;
    expect(countOf(routes, '/api/v0/users/:id') - countOf(before, '/api/v0/users/:id')).toBe(2);
    const users = routes.find((r: { route: string }) => r.route === '/api/v0/users/:id');
    expect(users.client_errors).toBeGreaterThanOrEqual(2);
    expect(users.avg_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(since)).toBeLessThanOrEqual(Date.now());
    expect(dropped).toBe(0);
    expect(routes.some((r: { route: string }) => r.route.includes('999999'))).toBe(false);
  });

  it('stay bounded: past the limit, calls of new routes are only counted as dropped', () => {
    const m = new RouteMetrics(2);
    m.record('GET', '/a', 200, 3);
    m.record('GET', '/b', 500, 30);
    m.record('GET', '/c', 200, 1);
    m.record('GET', '/a', 404, 7000);
    const s = m.snapshot();
    expect(s.dropped).toBe(1);
    expect(s.routes).toEqual([
      { method: 'GET', route: '/a', count: 2, client_errors: 1, server_errors: 0, avg_ms: 3501.5, max_ms: 7000, p95_ms: 10_000 },
      { method: 'GET', route: '/b', count: 1, client_errors: 0, server_errors: 1, avg_ms: 30, max_ms: 30, p95_ms: 50 },
    ]);
    const text = m.prometheus();
    expect(text).toContain('atrium_http_requests_total{method="GET",route="/a"} 2');
    expect(text).toContain('atrium_http_request_duration_seconds_bucket{method="GET",route="/a",le="0.005"} 1');
    expect(text).toContain('atrium_http_request_duration_seconds_bucket{method="GET",route="/a",le="+Inf"} 2');
    expect(text).toContain('atrium_http_requests_dropped_total 1');
    expect(labels({ a: 'x"y\\z\n' })).toBe('{a="x\\"y\\\\z\\n"}');
  });
});

describe('GET /metrics (Prometheus)', () => {
  it('needs a bearer token: METRICS_TOKEN or a user with can_view_system_info', async () => {
    for (const auth of [undefined, 'Bearer wrong-token', `Basic ${Buffer.from('admin:admin').toString('base64')}`]) {
      const res = await scrape(auth);
      expect(res.statusCode, auth).toBe(401);
      expect(res.json().message).toBe('unauthenticated');
    }
    const none = await withPermissions([]);
    expect((await scrape(`Bearer ${none.token}`)).statusCode).toBe(403);
    const viewer = await withPermissions(['can_view_system_info']);
    expect((await scrape(`Bearer ${viewer.token}`)).statusCode).toBe(200);
  });

  it('answers the text exposition format with the process, its parts and every route', async () => {
    await admin.get('/system/info');
    const res = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('# TYPE atrium_http_requests_total counter');
    expect(res.body).toMatch(/atrium_http_requests_total\{method="GET",route="\/api\/v0\/system\/info"\} [1-9]/);
    expect(res.body).toContain(`atrium_database_up{kind="${t.database.kind}"} 1`);
    expect(res.body).toContain('atrium_worker_running{worker="mail"} 1');
    expect(res.body).toMatch(/atrium_build_info\{version="0\.1\.0",node="v\d+/);
    // Every sample line is `name{labels} value` or `name value`.
    for (const line of res.body
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('#'))) {
      expect(line).toMatch(/^[a-z_]+(\{.*\})? -?[\d.e+-]+$/);
    }
  });
});
