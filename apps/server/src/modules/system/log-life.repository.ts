import { FINAL_TASK_STATES, GENERAL_SETTINGS_DEFAULTS } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { AttemptCounter } from '../../core/attempts.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { MAX_ATTEMPTS } from '../../core/mail/mail.repository.js';
import { RATE_KEY_PREFIX, RATE_ROW_LIFE_SECONDS } from '../../core/rate-limit-store.js';

/**
 * The logs the general settings' "logs life" (days) keeps (spec comms §3): what happened, never what
 * is. Each is a table, the time a row is old by, and which rows are finished history: an open task,
 * an unsent mail, a pending webhook delivery or push, an unprocessed alarm or a live reservation keeps its logs.
 */
export const LOG_TABLES = [
  { name: 'audit_events', table: 'audit_events', time: 'created_at', where: (p: number) => sql`project_id = ${p}` },
  { name: 'device_events', table: 'device_events', time: 'occurred_at', where: (p: number) => sql`project_id = ${p}` },
  { name: 'access_events', table: 'access_events', time: 'occurred_at', where: (p: number) => sql`project_id = ${p}` },
  { name: 'call_history', table: 'call_history', time: 'created_at', where: (p: number) => sql`project_id = ${p}` },
  {
    name: 'device_tasks',
    table: 'device_tasks',
    time: 'coalesce(finished_at, updated_at)',
    // Tasks an alert or a lockdown still speaks of stay with it (modules/emergency).
    where: (p: number) =>
      sql`project_id = ${p} AND state IN (${sql.raw(FINAL_TASK_STATES.map((s) => `'${s}'`).join(', '))})
        AND NOT EXISTS (SELECT 1 FROM emergency_tasks e WHERE e.task_id = device_tasks.id)`,
  },
  {
    name: 'webhook_deliveries',
    table: 'webhook_deliveries',
    time: 'created_at',
    where: (p: number) => sql`project_id = ${p} AND status IN ('succeeded', 'failed')`,
  },
  // push delivery (issue 14): pushes sent or given up
  {
    name: 'push_deliveries',
    table: 'push_deliveries',
    time: 'created_at',
    where: (p: number) => sql`project_id = ${p} AND status IN ('succeeded', 'failed')`,
  },
  {
    name: 'mail_outbox',
    table: 'mail_outbox',
    time: 'created_at',
    where: (p: number) =>
      sql`project_id = ${p} AND (status IN ('sent', 'stored') OR (status = 'error' AND attempts >= ${sql.raw(String(MAX_ATTEMPTS))}))`,
  },
  {
    name: 'device_alarm_logs',
    table: 'device_alarm_logs',
    time: 'created_at',
    where: (p: number) => sql`alarm_id IN (SELECT a.id FROM device_alarms a WHERE a.project_id = ${p} AND a.processed_at IS NOT NULL)`,
  },
  {
    name: 'amenity_reservation_logs',
    table: 'amenity_reservation_logs',
    time: 'created_at',
    where: (p: number) =>
      sql`reservation_id IN (SELECT r.id FROM amenity_reservations r WHERE r.project_id = ${p} AND r.status IN ('cancelled', 'expired'))`,
  },
] as const;
export type LogTableName = (typeof LOG_TABLES)[number]['name'];

/** Deletes old log rows in batches (each statement a bounded number of rows, claimed with SKIP LOCKED). */
export class LogLifeRepository {
  constructor(private readonly db: Db) {}

  /** Every project and the days its logs live. */
  /** Route rate-limit counters whose window is long over: one row per client address and route would otherwise stay for ever. */
  forgetOldRateCounters(): Promise<number> {
    return new AttemptCounter(this.db).forgetOld(RATE_KEY_PREFIX, RATE_ROW_LIFE_SECONDS);
  }

  async projects(): Promise<{ id: number; days: number }[]> {
    return queryRows<{ id: number; days: number }>(
      this.db,
      sql`SELECT id, coalesce((settings->>'logs_life')::int, ${GENERAL_SETTINGS_DEFAULTS.logs_life}) AS days FROM projects ORDER BY id`,
    );
  }

  /** Deletes at most `limit` rows of `log` of the project older than `days`; answers how many went. */
  async prune(log: (typeof LOG_TABLES)[number], projectId: number, days: number, limit: number): Promise<number> {
    const table = sql.raw(log.table);
    const time = sql.raw(log.time);
    const [row] = await queryRows<{ n: number }>(
      this.db,
      sql`WITH gone AS (
          DELETE FROM ${table} WHERE id IN (
            SELECT id FROM ${table}
            WHERE ${log.where(projectId)} AND ${time} < now() - make_interval(days => ${days}::int)
            LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`,
    );
    return row?.n ?? 0;
  }
}
