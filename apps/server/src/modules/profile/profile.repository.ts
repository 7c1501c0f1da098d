import { and, eq, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';
import { userGroups, users } from '../users/users.table.js';

export type UserRow = typeof users.$inferSelect;

export class ProfileRepository {
  constructor(private readonly db: Db) {}

  async user(db: DbOrTx, userId: number, projectId: number): Promise<UserRow | undefined> {
    const [u] = await db
      .select()
      .from(users)
      .where(and(eq(users.id, userId), eq(users.projectId, projectId)));
    return u;
  }

  async role(roleId: number) {
    const [r] = await this.db
      .select({ id: roles.id, name: roles.name, permissions: roles.permissions, isBuiltin: roles.isBuiltin })
      .from(roles)
      .where(eq(roles.id, roleId));
    return r;
  }

  async domains(userId: number) {
    return this.db
      .select({ id: groups.id, name: groups.name })
      .from(userGroups)
      .innerJoin(groups, eq(groups.id, userGroups.groupId))
      .where(eq(userGroups.userId, userId))
      .orderBy(groups.name);
  }

  async project(projectId: number) {
    const [p] = await this.db.select().from(projects).where(eq(projects.id, projectId));
    return p;
  }

  async update(db: DbOrTx, userId: number, values: Partial<typeof users.$inferInsert>): Promise<UserRow | undefined> {
    const [u] = await db
      .update(users)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(users.id, userId))
      .returning();
    return u;
  }

  async delete(db: DbOrTx, userId: number): Promise<void> {
    await db.delete(users).where(eq(users.id, userId));
  }

  async emailTaken(projectId: number, email: string, exceptUserId: number): Promise<boolean> {
    const [row] = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, projectId), sql`lower(${users.email}) = lower(${email})`, sql`${users.id} <> ${exceptUserId}`));
    return !!row;
  }

  /** Whether any other user of the project could still administer it. */
  async otherAdmins(projectId: number, userId: number): Promise<number> {
    const [row] = await this.db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(and(eq(users.projectId, projectId), eq(roles.isBuiltin, true), sql`${users.id} <> ${userId}`));
    return row?.n ?? 0;
  }
}
