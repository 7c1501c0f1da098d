import { ACS_TYPES, ALARM_TYPES, type NotificationClass } from '@atrium/contract';
import { and, desc, eq, inArray, isNull, notInArray, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../../core/db/client.js';
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

  async insert(row: NewNotificationRow): Promise<NotificationRow> {
    const [created] = await this.db.insert(notifications).values(row).returning();
    if (!created) throw new Error('notification insert returned nothing');
    return created;
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
