import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONTROLLABLE_WORKERS,
  type ControllableWorker,
  dataResponse,
  SYSTEM_INFO_PERMISSION,
  SYSTEM_WORKERS_PERMISSION,
  type SystemInfo,
  SystemInfoSchema,
  SystemLogQuerySchema,
  SystemLogsSchema,
  SystemMetricsSchema,
  type SystemWorker,
  SystemWorkerSchema,
  WORKER_ACTIONS,
  WorkerParamsSchema,
  WorkerQuerySchema,
} from '@atrium/contract';
import type { AppInstance } from '../../app.js';
import { recordAudit } from '../../core/audit.js';
import type { Actor } from '../../core/context.js';
import { databaseAnswers } from '../../core/db/client.js';
import { AppError, prohibited } from '../../core/errors.js';
import type { PlaneHealth } from '../devices/devices.gateway.js';
import { VERSION } from '../frontend/frontend.routes.js';
import { telephonyOf } from '../telephony/telephony.js';
import { actOnWorker, INSTANCE_GONE_MS, InstanceRegistry } from './instances.js';
import type { LogRing } from './log-ring.js';
import { labels, RouteMetrics } from './route-metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts and latencies per route of this instance (System info, GET /metrics). */
    routeMetrics: RouteMetrics;
    /** The last lines this instance logged (System info's recent logs); empty when logging is off. */
    logRing: LogRing;
    /** This instance among the others on the database (System info's instances, worker actions across them). */
    instances: InstanceRegistry;
  }
}

/** The server's version as its package.json says (VERSION when it cannot be read). */
const SERVER_VERSION = (() => {
  try {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : VERSION;
  } catch {
    return VERSION;
  }
})();

/**
 * Counts every answer of the app per route (core of GET /system/metrics and GET /metrics). Called on
 * the root app before any route is registered, so every route, the API's and the console's, is counted.
 */
export function collectRouteMetrics(app: AppInstance): RouteMetrics {
  const metrics = new RouteMetrics();
  app.decorate('routeMetrics', metrics);
  app.addHook('onResponse', (req, reply, done) => {
    metrics.record(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime);
    done();
  });
  return metrics;
}

const need = (actor: Actor, code: string) => {
  if (!actor.permissions.has(code)) throw prohibited([{ permission: code }]);
};

/** Whether the database answers a trivial query within `ms`, and how fast. */
async function databaseCheck(app: AppInstance, ms = 2000): Promise<{ status: 'ok' | 'unavailable'; latency_ms: number | null }> {
  const start = performance.now();
  const ok = await databaseAnswers(app.database.db, ms);
  return ok ? { status: 'ok', latency_ms: Math.round((performance.now() - start) * 10) / 10 } : { status: 'unavailable', latency_ms: null };
}

/** The workers of this instance with start and stop: the device-task sweep, the mail retry worker, log life and push delivery. */
function controls(app: AppInstance): Record<ControllableWorker, { running(): boolean; start(): void; stop(): Promise<void> }> {
  const { devices, mailer, logLife, push } = app.services;
  return {
    device_tasks: { running: () => devices.running, start: () => devices.start(), stop: () => devices.stop() },
    mail: { running: () => mailer.running, start: () => mailer.start(), stop: () => mailer.stop() },
    log_life: { running: () => logLife.running, start: () => logLife.start(), stop: () => logLife.stop() },
    push: { running: () => push.running, start: () => push.start(), stop: () => push.stop() },
  };
}

/** What System info shows: this instance's process, database, broker, SIP server and workers. */
export async function systemInfo(app: AppInstance): Promise<SystemInfo> {
  const { config } = app;
  const brokerConnected = app.services.devices.brokerConnected();
  const mode = config.mqttUrl ? 'external' : brokerConnected === null ? 'none' : 'embedded';
  const sip = telephonyOf(app).calls.runtimeStatus();
  const memory = process.memoryUsage();
  const uptime = process.uptime();
  return {
    name: 'Atrium',
    instance: { id: app.instances.id, name: app.instances.name },
    instances: await app.instances.live(),
    version: SERVER_VERSION,
    node_version: process.version,
    started_at: new Date(Date.now() - uptime * 1000).toISOString(),
    uptime_seconds: Math.round(uptime),
    database: { kind: app.database.kind, ...(await databaseCheck(app)), change_feed_live: app.database.live() },
    mqtt: {
      mode,
      address: config.mqttUrl ? new URL(config.mqttUrl).host : mode === 'embedded' ? `${config.mqttHost}:${config.mqttPort}` : null,
      connected: brokerConnected,
    },
    device_events: app.services.devices.intakeStats(),
    sip: {
      enabled: config.sip.enabled,
      is_running: sip.is_running,
      started_at: sip.started_at,
      udp_port: app.sipWs.udp,
      ws_port: app.sipWs.port,
      tls_port: app.sipWs.tls ?? null,
      edge: telephonyOf(app).calls.edgeCounters(),
    },
    memory: { rss: memory.rss, heap_used: memory.heapUsed, heap_total: memory.heapTotal, external: memory.external },
    workers: workersOf(app),
  };
}

/** This instance's workers as System info lists them, and as its row tells the other instances. */
function workersOf(app: AppInstance): SystemWorker[] {
  const ctl = controls(app);
  const sip = telephonyOf(app).calls.runtimeStatus();
  return [
    ...CONTROLLABLE_WORKERS.map((name) => ({ name, is_running: ctl[name].running(), controllable: true })),
    { name: 'realtime', is_running: app.database.live(), controllable: false },
    { name: 'mqtt_gateway', is_running: app.services.devices.brokerConnected() === true, controllable: false },
    { name: 'sip', is_running: sip.is_running, controllable: false },
  ];
}

/**
 * Registers this instance among the others on the database when the app is ready, and takes it off
 * the list when it closes (a killed one drops off after INSTANCE_GONE_MS without a refresh).
 */
export function registerInstance(app: AppInstance): void {
  const registry = new InstanceRegistry(app.database, {
    version: SERVER_VERSION,
    name: app.config.instanceName,
    workers: () => workersOf(app),
    controls: controls(app),
    log: app.log,
    sessionUrl: app.database.kind === 'postgres' ? app.config.databaseUrl : undefined,
  });
  app.decorate('instances', registry);
  // Devices this instance hears are its to judge; those of a dead instance are judged by the others.
  app.services.devices.startLiveness({ id: registry.id, sessions: app.database.kind === 'postgres', goneMs: INSTANCE_GONE_MS });
  app.addHook('onReady', () => registry.start());
  app.addHook('onClose', async () => {
    await app.services.devices.stopLiveness();
    await registry.stop();
  });
}

/** System info (spec comms §7): GET /system/info, GET /system/metrics, workers' start, stop and restart. */
export async function systemRoutes(app: AppInstance): Promise<void> {
  const tags = ['system'];
  const ctl = controls(app);

  app.get('/system/info', { schema: { tags, response: { 200: dataResponse(SystemInfoSchema) } } }, async (req) => {
    need(req.actor, SYSTEM_INFO_PERMISSION);
    return { data: await systemInfo(app) };
  });

  app.get('/system/metrics', { schema: { tags, response: { 200: dataResponse(SystemMetricsSchema) } } }, async (req) => {
    need(req.actor, SYSTEM_INFO_PERMISSION);
    return { data: app.routeMetrics.snapshot() };
  });

  // This instance's lines only: with several instances, each keeps its own.
  app.get(
    '/system/logs',
    { schema: { tags, querystring: SystemLogQuerySchema, response: { 200: dataResponse(SystemLogsSchema) } } },
    async (req) => {
      need(req.actor, SYSTEM_INFO_PERMISSION);
      const ring = app.logRing;
      return { data: { items: ring.read(req.query), held: ring.held, capacity: ring.capacity } };
    },
  );

  // On the answering instance, or on the one `?instance=` names (asked through the database).
  for (const action of WORKER_ACTIONS) {
    app.post(
      `/system/workers/:name/${action}`,
      { schema: { tags, params: WorkerParamsSchema, querystring: WorkerQuerySchema, response: { 200: dataResponse(SystemWorkerSchema) } } },
      async (req) => {
        need(req.actor, SYSTEM_INFO_PERMISSION);
        need(req.actor, SYSTEM_WORKERS_PERMISSION);
        const { name } = req.params;
        const target = req.query.instance;
        let before: boolean;
        let after: boolean;
        if (target === undefined || target === app.instances.id) {
          before = ctl[name].running();
          after = await actOnWorker(ctl[name], action);
        } else {
          const other = (await app.instances.live()).find((i) => i.id === target);
          if (!other) throw new AppError('instance_not_found');
          before = other.workers.find((w) => w.name === name)?.is_running ?? false;
          const answer = await app.instances.ask(target, name, action);
          if (answer === null) throw new AppError('instance_not_answering');
          after = answer;
        }
        await recordAudit(app.database.db, req.ctx, {
          entity: 'system_worker',
          entityId: target ? `${name}@${target}` : name,
          action,
          before: { is_running: before },
          after: { is_running: after },
        });
        req.log.info({ worker: name, action, running: after, instance: target ?? app.instances.id }, 'system: worker');
        return { data: { name, is_running: after, controllable: true } };
      },
    );
  }
}

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * GET /metrics (outside /api/v0, not in the API document): Prometheus' text format for the people
 * who run Atrium. A bearer token is required: METRICS_TOKEN, or a user's access token with
 * can_view_system_info. Values are this instance's: scrape every instance.
 */
export async function prometheusRoute(app: AppInstance): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token) throw new AppError('unauthenticated');
    if (!(app.config.metricsToken && sameSecret(token, app.config.metricsToken))) {
      const actor = await app.services.auth.actorFromToken(token);
      if (!actor) throw new AppError('unauthenticated');
      need(actor, SYSTEM_INFO_PERMISSION);
    }
    const info = await systemInfo(app);
    const gauge = (name: string, help: string, rows: [Record<string, string>, number][]) => [
      `# HELP ${name} ${help}`,
      `# TYPE ${name} gauge`,
      ...rows.map(([l, v]) => `${name}${Object.keys(l).length ? labels(l) : ''} ${v}`),
    ];
    const counter = (name: string, help: string, rows: [Record<string, string>, number][]) => [
      `# HELP ${name} ${help}`,
      `# TYPE ${name} counter`,
      ...rows.map(([l, v]) => `${name}${Object.keys(l).length ? labels(l) : ''} ${v}`),
    ];
    const bit = (b: boolean | null) => (b ? 1 : 0);
    const ev = info.device_events;
    const deviceStats = app.services.devices.stats;
    const lines = [
      ...gauge('atrium_build_info', 'Version of Atrium and of Node.js.', [[{ version: info.version, node: info.node_version }, 1]]),
      ...gauge('atrium_uptime_seconds', 'Seconds since this instance started.', [[{}, info.uptime_seconds]]),
      ...gauge('atrium_memory_bytes', 'Memory of this instance.', [
        [{ kind: 'rss' }, info.memory.rss],
        [{ kind: 'heap_used' }, info.memory.heap_used],
        [{ kind: 'heap_total' }, info.memory.heap_total],
        [{ kind: 'external' }, info.memory.external],
      ]),
      ...gauge('atrium_database_up', 'Whether the database answers (1) or not (0).', [
        [{ kind: info.database.kind }, bit(info.database.status === 'ok')],
      ]),
      ...gauge('atrium_mqtt_connected', 'Whether Atrium is connected to its MQTT broker.', [
        [{ mode: info.mqtt.mode }, bit(info.mqtt.connected)],
      ]),
      ...gauge('atrium_device_events_backlog', 'Device events received and not stored yet (not acknowledged to their devices).', [
        [{}, ev.backlog],
      ]),
      ...gauge('atrium_device_events_oldest_unstored_seconds', 'How long the oldest device event not stored yet has waited.', [
        [{}, ev.oldest_unstored_ms / 1000],
      ]),
      ...gauge('atrium_device_events_awaiting_ack', 'QoS 1 device events whose acknowledgement waits for their commit.', [
        [{}, ev.awaiting_ack],
      ]),
      ...counter('atrium_device_events_stored_total', 'Device events stored.', [[{}, ev.stored]]),
      ...counter('atrium_device_events_acknowledged_total', 'QoS 1 device events acknowledged once stored.', [[{}, ev.acknowledged]]),
      ...counter(
        'atrium_device_events_delayed_total',
        'Times device events were delayed, per reason (write tried again, intake full, reading paused, read past for the device to send again, connection closed for that).',
        Object.entries(ev.delayed).map(([reason, n]) => [{ reason }, n]),
      ),
      ...counter(
        'atrium_device_events_acks_of_closed_connections_total',
        'Acknowledgements not sent because their broker connection closed first (the broker sends the events again).',
        [[{}, ev.acks_of_closed_connections]],
      ),
      ...counter(
        'atrium_device_messages_refused_total',
        'Device messages refused, per reason.',
        Object.entries(ev.refused).map(([reason, n]) => [{ reason }, n]),
      ),
      ...planeLines(app.services.devices.planeHealth(), gauge, counter),
      ...counter('atrium_device_sync_requests_total', 'Full syncs devices asked for.', [[{}, deviceStats.syncRequests]]),
      ...counter(
        'atrium_device_events_unstored_at_stop_total',
        'Device events unstored when the service stopped (sent again by their devices).',
        [[{}, ev.unstored_at_stop]],
      ),
      ...gauge('atrium_sip_running', 'Whether the SIP server runs.', [[{}, bit(info.sip.is_running)]]),
      ...(info.sip.edge
        ? counter('atrium_sip_refused_total', 'SIP messages and sends the edge refused since start, by reason.', [
            [{ reason: 'malformed' }, info.sip.edge.malformed],
            [{ reason: 'unusable_destination' }, info.sip.edge.send_failures],
          ]).concat(
            counter('atrium_sip_worker_crashes_total', 'How often the SIP worker died and was started again.', [
              [{}, info.sip.edge.worker_crashes],
            ]),
          )
        : []),
      ...gauge(
        'atrium_worker_running',
        'Whether each worker of this instance runs.',
        info.workers.map((w) => [{ worker: w.name }, bit(w.is_running)]),
      ),
      // Why answers are or are not kept (core/read-cache.ts): hits and misses of cacheable reads, every
      // entry forgotten at once and why, and the changes heard per table (each makes the answers read from it stale).
      ...counter(
        'atrium_read_cache_answers_total',
        'Cacheable reads answered from memory (hit), or not (miss), and misses answered by the same read made for another request (shared).',
        [
          [{ result: 'hit' }, app.readCache.stats.answerHits],
          [{ result: 'miss' }, app.readCache.stats.answerMisses],
          [{ result: 'shared' }, app.readCache.stats.answersShared],
        ],
      ),
      ...counter('atrium_read_cache_callers_total', 'Signed-in callers known from memory (hit) or read again (miss).', [
        [{ result: 'hit' }, app.readCache.stats.actorHits],
        [{ result: 'miss' }, app.readCache.stats.actorMisses],
      ]),
      ...counter(
        'atrium_read_cache_forgotten_total',
        'Times the read cache forgot everything: its change feed was lost, or a write’s own changes did not come back in time.',
        Object.entries(app.readCache.stats.forgotten).map(([reason, n]) => [{ reason }, n]),
      ),
      ...counter(
        'atrium_read_cache_changes_total',
        'Committed writes heard per table (answers read from that table are read again).',
        [...app.readCache.stats.changes].map(([table, n]) => [{ table }, n]),
      ),
    ];
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(`${lines.join('\n')}\n${app.routeMetrics.prometheus()}`);
  });
}

type MetricLines = (name: string, help: string, rows: [Record<string, string>, number][]) => string[];

/** The device plane thread's heap against its bound, and its crashes (each closes every device connection it held). */
function planeLines(health: PlaneHealth | null, gauge: MetricLines, counter: MetricLines): string[] {
  if (!health) return [];
  return [
    ...gauge('atrium_device_plane_heap_bytes', "The device plane thread's JavaScript heap: used, and the limit it dies at.", [
      [{ kind: 'used' }, health.heapUsed],
      [{ kind: 'limit' }, health.heapLimit],
    ]),
    ...counter(
      'atrium_device_plane_crashes_total',
      'How often the device plane thread died and was started again (its devices reconnect).',
      [[{}, health.crashes]],
    ),
  ];
}
