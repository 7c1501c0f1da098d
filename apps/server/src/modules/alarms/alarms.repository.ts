import type { ListQuery } from '@atrium/contract';
import { and, type SQL, sql } from 'drizzle-orm';
import { groupScopeCondition, intArray, qualifiedColumns, scopeOf } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import { devicePredicate } from '../devices/devices.repository.js';
import { deviceAlarms } from './alarms.table.js';

const A = qualifiedColumns(deviceAlarms);

/** Where an alarm stands, as SQL (ALARM_STATUSES). */
const STATUS = sql`CASE WHEN ${A.processedAt} IS NOT NULL THEN 'processed' WHEN ${A.isActive} THEN 'active' ELSE 'cleared' END`;
const DEVICE_GROUP = sql`(SELECT d.group_id FROM devices d WHERE d.id = ${A.deviceId})`;

export const ALARM_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${A.id}`, type: 'number' },
    status: { expr: STATUS, type: 'text' },
    is_active: { expr: sql`${A.isActive}`, type: 'boolean' },
    kind: { expr: sql`${A.kind}`, type: 'text' },
    zone: { expr: sql`${A.zone}`, type: 'text' },
    device_id: { expr: sql`${A.deviceId}`, type: 'number' },
    domain_id: { expr: DEVICE_GROUP, type: 'number' },
    raised_at: { expr: sql`${A.raisedAt}`, type: 'date' },
    cleared_at: { expr: sql`${A.clearedAt}`, type: 'date' },
    processed_at: { expr: sql`${A.processedAt}`, type: 'date' },
    created_at: { expr: sql`${A.createdAt}`, type: 'date' },
  },
  defaultSort: '-raised_at',
  tiebreak: sql`${A.id} DESC`,
};

/**
 * "The actor may see this alarm": they may view device alarms, and the alarm's device is within
 * their device view scope (its group, or a device they created).
 */
export function alarmVisible(actor: Actor): SQL {
  if (!actor.permissions.has('can_view_device_alarms')) return sql`FALSE`;
  return sql`EXISTS (SELECT 1 FROM devices WHERE devices.id = ${A.deviceId} AND ${devicePredicate(actor, 'view')})`;
}

/**
 * "The actor may see calls of this number" (SOS call history): their own number, a device's
 * number within their device view scope, or a group's or person's number of a group within it.
 */
export function numberReach(actor: Actor, number: SQL): SQL {
  const scope = scopeOf(actor, 'devices', 'view');
  if (scope === 'all') return sql`TRUE`;
  const groups =
    scope === 'domain' || scope === 'descendants'
      ? sql`EXISTS (SELECT 1 FROM groups g WHERE ${groupScopeCondition(actor, scope)}
            AND (g.id = n.group_id OR g.id IN (SELECT ug.group_id FROM user_groups ug WHERE ug.user_id = n.user_id)))`
      : sql`FALSE`;
  return sql`EXISTS (SELECT 1 FROM sip_numbers n WHERE n.number = ${number} AND n.project_id = ${actor.projectId}
    AND (n.user_id = ${actor.userId} OR ${groups}
      OR EXISTS (SELECT 1 FROM devices WHERE devices.id = n.device_id AND ${devicePredicate(actor, 'view')})))`;
}

export interface AlarmRow {
  id: number;
  project_id: number;
  device_id: number;
  kind: string;
  zone: string;
  is_active: boolean;
  raised_at: Date | string;
  cleared_at: Date | string | null;
  processed_at: Date | string | null;
  processed_by: number | null;
  processed_by_name: string | null;
  comment: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  device_name: string;
  domain_id: number | null;
  domain_name: string | null;
  visible: boolean;
}

export interface LogRow {
  id: number;
  alarm_id: number;
  event: string;
  user_id: number | null;
  user_name: string | null;
  comment: string | null;
  info: Record<string, unknown>;
  created_at: Date | string;
}

/** What an alarm's notifications and realtime audience need to know of its device. */
export interface AlarmDevice {
  id: number;
  project_id: number;
  name: string;
  group_id: number | null;
  group_name: string | null;
  group_path: number[] | null;
  created_by: number | null;
}

/** One alarm the device raised, cleared or repeated (its log entry written). */
export interface AlarmChange {
  id: number;
  event: 'enabled' | 'repeated' | 'disabled';
  kind: string;
  zone: string;
  processed: boolean;
}

export class AlarmsRepository {
  constructor(private readonly db: Db) {}

  private select(actor: Actor, where: SQL): Promise<AlarmRow[]> {
    return queryRows<AlarmRow>(
      this.db,
      sql`SELECT device_alarms.*, d.name AS device_name, d.group_id AS domain_id, g.name AS domain_name,
          coalesce(${alarmVisible(actor)}, FALSE) AS visible
        FROM device_alarms JOIN devices d ON d.id = device_alarms.device_id LEFT JOIN groups g ON g.id = d.group_id
        WHERE ${where}`,
    );
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }) {
    const where = and(
      sql`${A.projectId} = ${actor.projectId}`,
      alarmVisible(actor),
      filtersSql(ALARM_LIST, q),
      q.search
        ? sql`(${A.zone} ILIKE ${containsPattern(q.search)} OR ${A.kind} ILIKE ${containsPattern(q.search)}
            OR EXISTS (SELECT 1 FROM devices d WHERE d.id = ${A.deviceId} AND d.name ILIKE ${containsPattern(q.search)}))`
        : undefined,
    );
    const page = await pageOfIds(this.db, { table: deviceAlarms, id: sql`${A.id}`, where, spec: ALARM_LIST, query: q });
    const rows = page.ids.length ? await this.select(actor, sql`device_alarms.id = ANY(${intArray(page.ids)})`) : [];
    return {
      rows: inPageOrder(
        page.ids,
        rows.map((r) => ({ ...r, id: Number(r.id) })),
      ),
      total: page.total,
      estimated: page.estimated,
    };
  }

  async byId(actor: Actor, id: number): Promise<AlarmRow | undefined> {
    const [r] = await this.select(actor, sql`device_alarms.id = ${id} AND device_alarms.project_id = ${actor.projectId}`);
    return r;
  }

  logs(alarmId: number): Promise<LogRow[]> {
    return queryRows<LogRow>(this.db, sql`SELECT * FROM device_alarm_logs WHERE alarm_id = ${alarmId} ORDER BY created_at, id LIMIT 10000`);
  }

  async devices(ids: readonly number[]): Promise<AlarmDevice[]> {
    if (!ids.length) return [];
    return queryRows<AlarmDevice>(
      this.db,
      sql`SELECT d.id, d.project_id, d.name, d.group_id, g.name AS group_name, g.path AS group_path, d.created_by
        FROM devices d LEFT JOIN groups g ON g.id = d.group_id WHERE d.id = ANY(${intArray(ids)})`,
    );
  }

  /** A device raised an alarm (alarm_on, tamper): a new one, or a log entry of the one still open. */
  async raise(tx: DbOrTx, e: { projectId: number; deviceId: number; kind: string; zone: string; at: Date; info: object }) {
    const [created] = await queryRows<{ id: number }>(
      tx,
      sql`INSERT INTO device_alarms (project_id, device_id, kind, zone, raised_at)
        VALUES (${e.projectId}, ${e.deviceId}, ${e.kind}, ${e.zone}, ${e.at.toISOString()})
        ON CONFLICT (device_id, kind, zone) WHERE is_active AND processed_at IS NULL DO NOTHING RETURNING id`,
    );
    const id = created
      ? Number(created.id)
      : Number(
          (
            await queryRows<{ id: number }>(
              tx,
              sql`SELECT id FROM device_alarms WHERE device_id = ${e.deviceId} AND kind = ${e.kind} AND zone = ${e.zone}
                AND is_active AND processed_at IS NULL`,
            )
          )[0]?.id,
        );
    const event = created ? 'enabled' : 'repeated';
    await this.log(tx, id, { event, info: e.info, at: e.at });
    return { id, event } as const;
  }

  /**
   * A device cleared its alarms (alarm_off): every active one of the zone and kind it names (of
   * the zone alone when it names no kind; every one of the device when it names neither).
   */
  async clear(tx: DbOrTx, e: { deviceId: number; kind: string | null; zone: string | null; at: Date; info: object }) {
    const rows = await queryRows<{ id: number; kind: string; zone: string; processed_at: Date | null }>(
      tx,
      sql`UPDATE device_alarms SET is_active = FALSE, cleared_at = ${e.at.toISOString()}, updated_at = now()
        WHERE device_id = ${e.deviceId} AND is_active
          ${e.zone !== null ? sql`AND zone = ${e.zone}` : sql``} ${e.kind !== null ? sql`AND kind = ${e.kind}` : sql``}
        RETURNING id, kind, zone, processed_at`,
    );
    for (const r of rows) await this.log(tx, Number(r.id), { event: 'disabled', info: e.info, at: e.at });
    return rows.map((r) => ({ id: Number(r.id), kind: r.kind, zone: r.zone, processed: r.processed_at !== null }));
  }

  /** Marks an alarm processed, unless it already is: false then. */
  async process(tx: DbOrTx, id: number, by: { userId: number; name: string; comment: string }): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      tx,
      sql`UPDATE device_alarms SET processed_at = now(), processed_by = ${by.userId}, processed_by_name = ${by.name},
          comment = ${by.comment}, updated_at = now()
        WHERE id = ${id} AND processed_at IS NULL RETURNING id`,
    );
    if (!rows.length) return false;
    await this.log(tx, id, { event: 'processed', userId: by.userId, userName: by.name, comment: by.comment, info: {} });
    return true;
  }

  /** Deletes a processed alarm with its log; false when it is not processed (or gone). */
  async deleteProcessed(tx: DbOrTx, id: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      tx,
      sql`DELETE FROM device_alarms WHERE id = ${id} AND processed_at IS NOT NULL RETURNING id`,
    );
    return rows.length > 0;
  }

  private async log(
    tx: DbOrTx,
    alarmId: number,
    l: { event: string; info: object; at?: Date; userId?: number; userName?: string; comment?: string },
  ): Promise<void> {
    await tx.execute(sql`INSERT INTO device_alarm_logs (alarm_id, event, user_id, user_name, comment, info, created_at)
      VALUES (${alarmId}, ${l.event}, ${l.userId ?? null}, ${l.userName ?? null}, ${l.comment ?? null}, ${JSON.stringify(l.info)}::jsonb,
        ${l.at ? l.at.toISOString() : new Date().toISOString()})`);
  }

  async userName(userId: number): Promise<string> {
    const [u] = await queryRows<{ name: string }>(this.db, sql`SELECT name FROM users WHERE id = ${userId}`);
    return u?.name ?? '';
  }

  /**
   * Who hears of a device's alarms: users of its project whose role may view device alarms and
   * whose device view scope holds the device (all devices, its group or below their groups, their
   * groups, or a device they created). A built-in role holds every permission.
   */
  async notifyTargets(deviceId: number): Promise<number[]> {
    const has = (code: string) => sql`(r.is_builtin OR ${code} = ANY(r.permissions))`;
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT u.id FROM devices d JOIN users u ON u.project_id = d.project_id JOIN roles r ON r.id = u.role_id
        LEFT JOIN groups dg ON dg.id = d.group_id
        WHERE d.id = ${deviceId} AND ${has('can_view_device_alarms')}
          AND (${has('can_view_all_devices')} OR d.created_by = u.id
            OR (${has('can_view_descendant_devices')} AND EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = u.id AND ug.group_id = ANY(dg.path)))
            OR (${has('can_view_devices')} AND EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = u.id AND ug.group_id = d.group_id)))
        ORDER BY u.id`,
    );
    return rows.map((r) => Number(r.id));
  }
}
