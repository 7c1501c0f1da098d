import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../core/db/client.js';
import { auditEvents } from '../audit/audit.table.js';
import { users } from '../users/users.table.js';

export interface RecentChangeRow {
  id: number;
  entity: string;
  entityId: string | null;
  action: string;
  userId: number | null;
  userName: string | null;
  before: unknown;
  after: unknown;
  createdAt: Date;
}

/** The audit log as the home page reads it. */
export class DashboardRepository {
  constructor(private readonly db: Db) {}

  /** The project's latest changes, or only those one user made. */
  async recentChanges(projectId: number, limit: number, byUserId?: number): Promise<RecentChangeRow[]> {
    return this.db
      .select({
        id: auditEvents.id,
        entity: auditEvents.entity,
        entityId: auditEvents.entityId,
        action: auditEvents.action,
        userId: auditEvents.userId,
        userName: users.name,
        before: auditEvents.before,
        after: auditEvents.after,
        createdAt: auditEvents.createdAt,
      })
      .from(auditEvents)
      .leftJoin(users, eq(users.id, auditEvents.userId))
      .where(
        byUserId === undefined
          ? eq(auditEvents.projectId, projectId)
          : sql`${auditEvents.projectId} = ${projectId} AND ${auditEvents.userId} = ${byUserId}`,
      )
      .orderBy(desc(auditEvents.id))
      .limit(limit);
  }
}
