// Log life (issue 14, general settings "logs_life" in days): a worker deletes log rows older than each
// project keeps them, in batches, leaving newer rows, open work and other projects' logs alone.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { LogLifeWorker } from './log-life.js';
import { LogLifeRepository } from './log-life.repository.js';

let t: TestApp;
let other: number;
beforeAll(async () => {
  t = await buildTestApp();
  other = (
    await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'other-admin',
      adminName: 'O',
      adminPassword: 'other-password-1',
    })
  ).projectId;
});
afterAll(() => t.close());

const db = () => t.database.db;
const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
const count = async (q: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(db(), q))[0]!.n;

/** Puts one row `days` old into every log of `projectId`; answers the ids the test looks at later. */
async function seed(projectId: number, deviceId: number, endpointId: number, days: number, tag: string) {
  const at = ago(days);
  await db().execute(sql`INSERT INTO audit_events (project_id, entity, action, created_at) VALUES (${projectId}, ${tag}, 'update', ${at})`);
  await db().execute(
    sql`INSERT INTO device_events (project_id, device_id, type, occurred_at, received_at) VALUES (${projectId}, ${deviceId}, ${tag}, ${at}, ${at})`,
  );
  await db().execute(
    sql`INSERT INTO access_events (project_id, device_id, granted, value, occurred_at, received_at) VALUES (${projectId}, ${deviceId}, true, ${tag}, ${at}, ${at})`,
  );
  await db().execute(
    sql`INSERT INTO call_history (project_id, call_id, from_number, to_number, status, created_at) VALUES (${projectId}, ${tag}, '100', '200', 'answered', ${at})`,
  );
  for (const state of ['completed', 'waiting']) {
    await db().execute(
      sql`INSERT INTO device_tasks (project_id, device_id, type, state, created_at, updated_at, finished_at)
        VALUES (${projectId}, ${deviceId}, ${`${tag}:${state}`}, ${state}, ${at}, ${at}, ${state === 'completed' ? at : null})`,
    );
  }
  for (const status of ['sent', 'queued']) {
    await db().execute(
      sql`INSERT INTO mail_outbox (project_id, "to", subject, text, status, created_at) VALUES (${projectId}, 'a@b.test', ${`${tag}:${status}`}, 'x', ${status}, ${at})`,
    );
  }
  for (const status of ['succeeded', 'pending']) {
    await db().execute(
      sql`INSERT INTO webhook_deliveries (endpoint_id, project_id, event_type, event_id, payload, status, created_at)
        VALUES (${endpointId}, ${projectId}, 'device.event', ${`${tag}:${status}:${projectId}`}, '{}'::jsonb, ${status}, ${at})`,
    );
  }
}

async function deviceAndEndpoint(projectId: number, serial: string) {
  const [d] = await queryRows<{ id: number }>(
    db(),
    sql`INSERT INTO devices (project_id, name, type, model, serial_number) VALUES (${projectId}, ${serial}, 'panel', 'AP-100', ${serial}) RETURNING id`,
  );
  const [e] = await queryRows<{ id: number }>(
    db(),
    sql`INSERT INTO webhook_endpoints (project_id, name, url, secret, event_types) VALUES (${projectId}, 'hook', 'https://example.test/', 's', ARRAY['device.event']) RETURNING id`,
  );
  return { deviceId: d!.id, endpointId: e!.id };
}

const remaining = (projectId: number) =>
  queryRows<{ log: string; tag: string }>(
    db(),
    sql`SELECT 'audit' AS log, entity AS tag FROM audit_events WHERE project_id = ${projectId} AND entity LIKE 'age-%'
      UNION ALL SELECT 'device_event', type FROM device_events WHERE project_id = ${projectId}
      UNION ALL SELECT 'access_event', value FROM access_events WHERE project_id = ${projectId}
      UNION ALL SELECT 'call', call_id FROM call_history WHERE project_id = ${projectId}
      UNION ALL SELECT 'task', type FROM device_tasks WHERE project_id = ${projectId}
      UNION ALL SELECT 'mail', subject FROM mail_outbox WHERE project_id = ${projectId} AND subject LIKE 'age-%'
      UNION ALL SELECT 'webhook', split_part(event_id, ':', 1) || ':' || split_part(event_id, ':', 2) FROM webhook_deliveries WHERE project_id = ${projectId}
      ORDER BY 1, 2`,
  );

describe('log life', () => {
  it('deletes what is older than the project keeps, in batches; newer rows, open work and other projects stay', async () => {
    const admin = await adminClient(t);
    expect((await admin.patch('/settings/general', { logs_life: 30 })).statusCode).toBe(200);
    // The other project keeps the default (90 days).
    const mine = await deviceAndEndpoint(t.project.projectId, 'LOGLIFE-1');
    const theirs = await deviceAndEndpoint(other, 'LOGLIFE-2');
    for (const [p, ids] of [
      [t.project.projectId, mine],
      [other, theirs],
    ] as const) {
      await seed(p, ids.deviceId, ids.endpointId, 10, 'age-10');
      await seed(p, ids.deviceId, ids.endpointId, 45, 'age-45');
      await seed(p, ids.deviceId, ids.endpointId, 120, 'age-120');
    }
    // Many old rows: more than one batch.
    await db().execute(
      sql`INSERT INTO audit_events (project_id, entity, action, created_at)
        SELECT ${t.project.projectId}, 'bulk', 'update', now() - interval '40 days' FROM generate_series(1, 25)`,
    );

    const worker = new LogLifeWorker(new LogLifeRepository(db()), { batch: 7 });
    const gone = await worker.pruneOnce();

    const kept = await remaining(t.project.projectId);
    expect(kept).toEqual(
      [
        { log: 'access_event', tag: 'age-10' },
        { log: 'audit', tag: 'age-10' },
        { log: 'call', tag: 'age-10' },
        { log: 'device_event', tag: 'age-10' },
        { log: 'mail', tag: 'age-10:queued' },
        { log: 'mail', tag: 'age-10:sent' },
        // Unsent mail, waiting tasks and pending deliveries are work, not logs: they stay whatever their age.
        { log: 'mail', tag: 'age-120:queued' },
        { log: 'mail', tag: 'age-45:queued' },
        { log: 'task', tag: 'age-10:completed' },
        { log: 'task', tag: 'age-10:waiting' },
        { log: 'task', tag: 'age-120:waiting' },
        { log: 'task', tag: 'age-45:waiting' },
        { log: 'webhook', tag: 'age-10:pending' },
        { log: 'webhook', tag: 'age-10:succeeded' },
        { log: 'webhook', tag: 'age-120:pending' },
        { log: 'webhook', tag: 'age-45:pending' },
      ].sort((a, b) => (a.log + a.tag < b.log + b.tag ? -1 : a.log + a.tag > b.log + b.tag ? 1 : 0)),
    );
    expect(await count(sql`SELECT count(*)::int AS n FROM audit_events WHERE entity = 'bulk'`)).toBe(0);
    // 90 days for the other project: only the 120-day-old rows went.
    const theirsKept = await remaining(other);
    expect(theirsKept.filter((r) => r.tag.startsWith('age-120'))).toEqual([
      { log: 'mail', tag: 'age-120:queued' },
      { log: 'task', tag: 'age-120:waiting' },
      { log: 'webhook', tag: 'age-120:pending' },
    ]);
    expect(theirsKept.filter((r) => r.tag.startsWith('age-45'))).toHaveLength(10);
    expect(gone.audit_events).toBe(25 + 2 + 1);
    expect(gone.device_events).toBe(3);

    // A second pass finds nothing more.
    expect(Object.values(await worker.pruneOnce()).every((n) => n === 0)).toBe(true);
  });

  it('runs as a worker of System info with start, stop and restart', async () => {
    const admin = await adminClient(t);
    const info = (await admin.get('/system/info')).json().data;
    expect(info.workers).toContainEqual({ name: 'log_life', is_running: true, controllable: true });
    const stopped = await admin.post('/system/workers/log_life/stop');
    expect(stopped.json().data).toEqual({ name: 'log_life', is_running: false, controllable: true });
    expect(t.app.services.logLife.running).toBe(false);
    expect((await admin.post('/system/workers/log_life/restart')).json().data.is_running).toBe(true);
    expect(t.app.services.logLife.running).toBe(true);
  });

  it('prunes on its own timer', async () => {
    await db().execute(
      sql`INSERT INTO audit_events (project_id, entity, action, created_at) VALUES (${t.project.projectId}, 'timer', 'update', now() - interval '400 days')`,
    );
    const worker = new LogLifeWorker(new LogLifeRepository(db()), { firstDelayMs: 10, intervalMs: 50 });
    worker.start();
    try {
      await expect.poll(() => count(sql`SELECT count(*)::int AS n FROM audit_events WHERE entity = 'timer'`), { timeout: 5000 }).toBe(0);
    } finally {
      await worker.stop();
    }
    expect(worker.running).toBe(false);
  });
});
