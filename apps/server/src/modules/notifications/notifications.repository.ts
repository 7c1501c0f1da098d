import { ACS_TYPES, ALARM_TYPES, type NotificationClass } from '@atrium/contract';
import { and, desc, eq, inArray, isNull, notInArray, type SQL, sql } from 'drizzle-orm';
import { type Db, type DbOrTx, queryRows, type Tx } from '../../core/db/client.js';
import { enqueuePushFrom } from '../../core/push-outbox.js';
import { users } from '../users/users.table.js';
import { notifications } from './notifications.table.js';

export type NotificationRow = typeof notifications.$inferSelect;
export type NewNotificationRow = typeof notifications.$inferInsert;

function classFilter(cls: NotificationClass): SQL | undefined {
  switch (cls) {
    case 'important':
      return eq(notifications.significance, 'important');
    case 'normal':
      return and(eq(notifications.significance, 'other'), notInArray(notifications.type, [...ACS_TYPES, ...ALARM_TYPES]));
    case 'acs':
      return inArray(notifications.type, [...ACS_TYPES]);
    case 'alarm':
      return inArray(notifications.type, [...ALARM_TYPES]);
    default:
      return undefined;
  }
}

export class NotificationsRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a notification and, in the same statement, its push to the user's mobile apps (core/push-outbox.ts). */
  async insert(row: NewNotificationRow): Promise<NotificationRow> {
    const j = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
    const [r] = await queryRows<{
      id: number;
      project_id: number;
      user_id: number;
      type: string;
      data: Record<string, unknown>;
      significance: string;
      icon: string | null;
      color: string | null;
      popup_action: Record<string, unknown> | null;
      sound: Record<string, unknown> | null;
      read_at: Date | string | null;
      created_at: Date | string;
      updated_at: Date | string;
    }>(
      this.db,
      sql`WITH n AS (
          INSERT INTO notifications (project_id, user_id, type, data, significance, icon, color, popup_action, sound)
          VALUES (${row.projectId}::int, ${row.userId}::int, ${row.type}::text, ${j(row.data ?? {})}::jsonb, ${row.significance ?? 'other'}::text,
            ${row.icon ?? null}::text, ${row.color ?? null}::text, ${j(row.popupAction)}::jsonb, ${j(row.sound)}::jsonb)
          RETURNING *
        ), push AS (${enqueuePushFrom('n')})
        SELECT * FROM n`,
    );
    if (!r) throw new Error('notification insert returned nothing');
    const date = (d: Date | string) => (d instanceof Date ? d : new Date(d));
    return {
      id: Number(r.id),
      projectId: Number(r.project_id),
      userId: Number(r.user_id),
      type: r.type,
      data: r.data,
      significance: r.significance,
      icon: r.icon,
      color: r.color,
      popupAction: r.popup_action,
      sound: r.sound,
      readAt: r.read_at === null ? null : date(r.read_at),
      createdAt: date(r.created_at),
      updatedAt: date(r.updated_at),
    };
  }

  async list(userId: number, cls: NotificationClass, offset: number, limit: number) {
    const where = and(eq(notifications.userId, userId), classFilter(cls));
    const [rows, [count]] = await Promise.all([
      this.db.select().from(notifications).where(where).orderBy(desc(notifications.id)).limit(limit).offset(offset),
      this.db.select({ n: sql<number>`count(*)::int` }).from(notifications).where(where),
    ]);
    return { rows, total: count?.n ?? 0 };
  }

  async unread(userId: number, limit: number) {
    const where = and(eq(notifications.userId, userId), isNull(notifications.readAt));
    const [rows, [count]] = await Promise.all([
      this.db.select().from(notifications).where(where).orderBy(desc(notifications.id)).limit(limit),
      this.db.select({ n: sql<number>`count(*)::int` }).from(notifications).where(where),
    ]);
    return { rows, total: count?.n ?? 0 };
  }

  /** Runs `fn` in one transaction, so a change and its audit event commit together. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** Whether the user wants ACS notifications (profile.notification_settings.acs; on unless turned off). */
  async wantsAcs(userId: number): Promise<boolean> {
    const [row] = await this.db
      .select({ acs: sql<boolean | null>`(${users.profile} -> 'notification_settings' ->> 'acs')::boolean` })
      .from(users)
      .where(eq(users.id, userId));
    return row?.acs !== false;
  }

  /** Marks one notification (by id) or all of the user's unread ones; answers how many changed. */
  async markRead(db: DbOrTx, userId: number, id?: number): Promise<number> {
    const rows = await db
      .update(notifications)
      .set({ readAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(notifications.userId, userId), isNull(notifications.readAt), id === undefined ? undefined : eq(notifications.id, id)))
      .returning({ id: notifications.id });
    return rows.length;
  }

  async exists(userId: number, id: number): Promise<boolean> {
    const [row] = await this.db
      .select({ id: notifications.id })
      .from(notifications)
      .where(and(eq(notifications.userId, userId), eq(notifications.id, id)));
    return !!row;
  }
}
