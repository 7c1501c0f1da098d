import { z } from 'zod';

// System info (spec comms §7 "System: info, logs, workers start, stop, restart; route metrics"):
// GET /system/info, GET /system/metrics, POST /system/workers/{name}/{start|stop|restart}, and the
// Prometheus text at GET /metrics (outside /api/v0; a bearer token of a user with the permission).

/** The permission that shows system information and route metrics. */
export const SYSTEM_INFO_PERMISSION = 'can_view_system_info';
/** Starting, stopping and restarting a worker needs this too: it changes how the instance runs. */
export const SYSTEM_WORKERS_PERMISSION = 'can_change_project_settings';

/** The background workers of one instance that may be started, stopped and restarted. */
export const CONTROLLABLE_WORKERS = ['device_tasks', 'mail', 'log_life', 'push'] as const;
export type ControllableWorker = (typeof CONTROLLABLE_WORKERS)[number];
/** Every worker the page lists; the others follow the process (read-only). */
export const SYSTEM_WORKERS = [...CONTROLLABLE_WORKERS, 'realtime', 'mqtt_gateway', 'sip'] as const;
export type SystemWorkerName = (typeof SYSTEM_WORKERS)[number];
export const WORKER_ACTIONS = ['start', 'stop', 'restart'] as const;
export type WorkerAction = (typeof WORKER_ACTIONS)[number];

export const SystemWorkerSchema = z.object({
  name: z.enum(SYSTEM_WORKERS),
  is_running: z.boolean(),
  /** Whether POST /system/workers/{name}/{start|stop|restart} applies to it. */
  controllable: z.boolean(),
});
export type SystemWorker = z.infer<typeof SystemWorkerSchema>;

export const WorkerParamsSchema = z.object({ name: z.enum(CONTROLLABLE_WORKERS) });
/** Which instance a worker action is for (its id in System info's `instances`); this one when absent. */
export const WorkerQuerySchema = z.object({ instance: z.string().min(1).max(64).optional() });

/** One Atrium instance on the database, as it last reported itself (every 10 s while it runs). */
export const SystemInstanceSchema = z.object({
  id: z.string(),
  /** INSTANCE_NAME, else host:pid. */
  name: z.string(),
  host: z.string(),
  pid: z.number(),
  version: z.string(),
  started_at: z.string(),
  seen_at: z.string(),
  workers: z.array(SystemWorkerSchema),
  /** Whether it is the instance that answered. */
  self: z.boolean(),
});
export type SystemInstance = z.infer<typeof SystemInstanceSchema>;

export const SystemInfoSchema = z.object({
  name: z.string(),
  /** The instance that answered: every figure below is its own. */
  instance: z.object({ id: z.string(), name: z.string() }),
  /** Every live instance on this database (the one that answered first); one when Atrium runs alone. */
  instances: z.array(SystemInstanceSchema),
  version: z.string(),
  node_version: z.string(),
  /** When this instance's process started, and for how long it has run (seconds). */
  started_at: z.string(),
  uptime_seconds: z.number(),
  database: z.object({
    kind: z.enum(['pglite', 'postgres']),
    status: z.enum(['ok', 'unavailable']),
    /** How long a trivial query took; null when it did not answer in time. */
    latency_ms: z.number().nullable(),
    /** Whether changes by other instances are being heard right now (LISTEN/NOTIFY). */
    change_feed_live: z.boolean(),
  }),
  mqtt: z.object({
    /** embedded: Atrium's own broker; external: MQTT_URL; none: no broker (its port was taken). */
    mode: z.enum(['embedded', 'external', 'none']),
    /** host:port of the broker, never its credentials. */
    address: z.string().nullable(),
    /** Whether Atrium's own client is connected to it; null when it has none. */
    connected: z.boolean().nullable(),
  }),
  /**
   * Devices' events on their way in (counters since this instance started). A QoS 1 event is
   * acknowledged to its device only once stored: while the database is slow or away they wait here,
   * and the devices wait with them.
   */
  device_events: z.object({
    /** Events received and not stored yet (so not acknowledged). */
    backlog: z.number(),
    /** How long the oldest of them has waited (ms; 0 when none waits). */
    oldest_unstored_ms: z.number(),
    /** Events stored (a re-sent one already stored counts again: it was answered). */
    stored: z.number(),
    /** QoS 1 events acknowledged once stored, and those waiting for their acknowledgement now. */
    acknowledged: z.number(),
    awaiting_ack: z.number(),
    /**
     * Delays, per reason: a write tried again (database slow or away); the intake full (reading
     * stopped); events read past unacknowledged while the intake was full and the database away, and
     * connections then closed so that their devices send those events again.
     */
    delayed: z.object({
      write_retry: z.number(),
      intake_full: z.number(),
      read_paused: z.number(),
      deferred: z.number(),
      reconnect_asked: z.number(),
    }),
    /**
     * Acknowledgements not sent because their connection to an external broker closed first: the
     * broker sends those events again (the same event id is not stored twice).
     */
    acks_of_closed_connections: z.number(),
    /** Device messages refused, per reason (overloaded: only messages that need no acknowledgement). */
    refused: z.record(z.string(), z.number()),
    /** Events not stored when the service stopped: unacknowledged, their devices send them again. */
    unstored_at_stop: z.number(),
  }),
  sip: z.object({
    enabled: z.boolean(),
    is_running: z.boolean(),
    started_at: z.string().nullable(),
    udp_port: z.number().nullable(),
    ws_port: z.number().nullable(),
    /** SIP over TLS (null: no certificate configured, or not listening). */
    tls_port: z.number().nullable(),
    /** What the edge refused since start (null: no SIP server here): malformed messages, unusable destinations, worker crashes. */
    edge: z.object({ malformed: z.number(), send_failures: z.number(), worker_crashes: z.number() }).nullable(),
  }),
  /** Bytes. */
  memory: z.object({ rss: z.number(), heap_used: z.number(), heap_total: z.number(), external: z.number() }),
  workers: z.array(SystemWorkerSchema),
});
export type SystemInfo = z.infer<typeof SystemInfoSchema>;
export type DeviceEventsInfo = SystemInfo['device_events'];

/** One route's counts since the instance started (or since its metrics were full: see `dropped`). */
export const RouteMetricSchema = z.object({
  method: z.string(),
  /** The route's pattern (`/api/v0/users/:id`), or `(unmatched)` for calls no route took. */
  route: z.string(),
  count: z.number().int(),
  /** Answers with a 4xx and a 5xx status. */
  client_errors: z.number().int(),
  server_errors: z.number().int(),
  avg_ms: z.number(),
  max_ms: z.number(),
  /** The upper bound of the latency bucket that holds the 95th percentile (ms); null past the last bucket. */
  p95_ms: z.number().nullable(),
});
export type RouteMetric = z.infer<typeof RouteMetricSchema>;

export const SystemMetricsSchema = z.object({
  since: z.string(),
  /** Calls not counted because the table of routes was full. */
  dropped: z.number().int(),
  routes: z.array(RouteMetricSchema),
});
export type SystemMetrics = z.infer<typeof SystemMetricsSchema>;

/** Upper bounds (ms) of the latency histogram's buckets, the Prometheus `le` labels in seconds. */
export const LATENCY_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000] as const;

// Recent logs (spec comms §7 "System: … logs"): GET /system/logs, the last lines this instance logged.

/** Pino's levels, lowest first. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Lines each instance keeps in memory for System info. */
export const SYSTEM_LOG_CAPACITY = 2000;

export const SystemLogQuerySchema = z.object({
  /** This level and above. */
  level: z.enum(LOG_LEVELS).optional(),
  /** The newest this many lines that match. */
  limit: z.coerce.number().int().min(1).max(SYSTEM_LOG_CAPACITY).default(200),
  /** Text the line contains (message or any field), case-insensitive. */
  q: z.string().trim().max(200).optional(),
});
export type SystemLogQuery = z.infer<typeof SystemLogQuerySchema>;

export const SystemLogEntrySchema = z.object({
  /** The line's number since the instance started: names it across refreshes. */
  seq: z.number().int(),
  time: z.string(),
  level: z.enum(LOG_LEVELS),
  msg: z.string(),
  /** The request the line was logged for, when any. */
  request_id: z.string().nullable(),
  /** The line's other fields (secrets already redacted when it was logged). */
  fields: z.record(z.string(), z.unknown()),
});
export type SystemLogEntry = z.infer<typeof SystemLogEntrySchema>;

export const SystemLogsSchema = z.object({
  /** Matching lines, newest first. */
  items: z.array(SystemLogEntrySchema),
  /** Lines held now, and at most. */
  held: z.number().int(),
  capacity: z.number().int(),
});
export type SystemLogs = z.infer<typeof SystemLogsSchema>;
