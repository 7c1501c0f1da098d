import { and, eq, sql } from 'drizzle-orm';
import { AttemptCounter } from '../../core/attempts.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';
import { userGroups, users } from '../users/users.table.js';

export type UserRow = typeof users.$inferSelect;

export class ProfileRepository {
  /** Wrong current passwords per person (core/attempts.ts). */
  readonly attempts: AttemptCounter;

  constructor(private readonly db: Db) {
    this.attempts = new AttemptCounter(db);
  }

  async user(db: DbOrTx, userId: number, projectId: number): Promise<UserRow | undefined> {
    const [u] = await db
      .select()
      .from(users)
      .where(and(eq(users.id, userId), eq(users.projectId, projectId)));
    return u;
  }

  /** The user with their role, project and groups in one round trip: GET /profile is the console's most frequent call. */
  async full(userId: number, projectId: number) {
    const [row] = await this.db
      .select({
        // What the profile shows: not the password hash nor the description.
        user: {
          id: users.id,
          login: users.login,
          email: users.email,
          name: users.name,
          locale: users.locale,
          avatarPath: users.avatarPath,
          isInvited: users.isInvited,
          profile: users.profile,
          licenseInfo: users.licenseInfo,
        },
        role: {
          id: roles.id,
          name: roles.name,
          // The built-in role holds every permission: its stored list is neither sent nor parsed.
          permissions: sql<string[] | null>`CASE WHEN ${roles.isBuiltin} THEN NULL ELSE ${roles.permissions} END`,
          isBuiltin: roles.isBuiltin,
        },
        project: { id: projects.id, uid: projects.uid, name: projects.name, description: projects.description },
        domains: sql<
          { id: number; name: string }[]
        >`coalesce((SELECT json_agg(json_build_object('id', g.id, 'name', g.name) ORDER BY g.name, g.id)
          FROM ${userGroups} ug JOIN ${groups} g ON g.id = ug.group_id WHERE ug.user_id = ${users.id}), '[]'::json)`,
        // The user's master virtual number: the one the web dialer registers with.
        sipNumber: sql<
          string | null
        >`(SELECT n.number FROM sip_numbers n WHERE n.user_id = ${users.id} AND n.purpose = 'master_sip_number')`,
      })
      .from(users)
      .innerJoin(projects, eq(projects.id, users.projectId))
      .leftJoin(roles, eq(roles.id, users.roleId))
      .where(and(eq(users.id, userId), eq(users.projectId, projectId)));
    return row;
  }

  /**
   * Updates the user's columns; `profilePatch` is merged into the stored profile by the database
   * (`profile || patch`), so saves of different profile keys at once do not overwrite each other.
   */
  async update(
    db: DbOrTx,
    userId: number,
    values: Partial<Omit<typeof users.$inferInsert, 'profile'>>,
    profilePatch?: Record<string, unknown>,
  ): Promise<UserRow | undefined> {
    const [u] = await db
      .update(users)
      .set({
        ...values,
        ...(profilePatch ? { profile: sql`${users.profile} || ${JSON.stringify(profilePatch)}::jsonb` } : {}),
        updatedAt: sql`now()`,
      })
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

  /**
   * The project's administrators (users of the built-in role), locked until the transaction ends:
   * two of them leaving at once are taken one after the other, and the second sees it is the last.
   */
  async lockAdmins(db: DbOrTx, projectId: number): Promise<number[]> {
    const rows = await db
      .select({ id: users.id })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(and(eq(users.projectId, projectId), eq(roles.isBuiltin, true)))
      .orderBy(users.id)
      .for('update', { of: users });
    return rows.map((r) => r.id);
  }
}
