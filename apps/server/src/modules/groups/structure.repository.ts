import { and, eq, inArray, sql } from 'drizzle-orm';
import { aclPredicate, intArray, qualifiedColumns, userAclTarget } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { projectLocale } from '../users/project-locale.js';
import { userGroups, users } from '../users/users.table.js';
import { domainTypes, groups } from './groups.table.js';

const G = qualifiedColumns(groups);
const U = qualifiedColumns(users);

export interface ExistingUser {
  id: number;
  login: string;
  email: string | null;
  roleId: number | null;
  editable: boolean;
}

/** The queries of the structure import and export, set-based so 10,000 rows take a few round trips. */
export class StructureRepository {
  constructor(private readonly db: Db) {}

  /** Users of the project matched by id or login, with whether the actor may edit them. */
  async usersByIdOrLogin(actor: Actor, ids: readonly number[], logins: readonly string[]): Promise<ExistingUser[]> {
    if (!ids.length && !logins.length) return [];
    const edit = aclPredicate(actor, 'users', 'edit', userAclTarget(sql`${U.id}`, sql`${U.createdBy}`));
    const lower = logins.map((l) => l.toLowerCase());
    return this.db
      .select({ id: users.id, login: users.login, email: users.email, roleId: users.roleId, editable: sql<boolean>`(${edit})` })
      .from(users)
      .where(
        and(
          eq(users.projectId, actor.projectId),
          sql`(${U.id} = ANY(${intArray(ids)}) OR lower(${U.login}) = ANY(${
            lower.length
              ? sql`ARRAY[${sql.join(
                  lower.map((l) => sql`${l}`),
                  sql`, `,
                )}]::text[]`
              : sql`ARRAY[]::text[]`
          }))`,
        ),
      );
  }

  async emailsTaken(projectId: number, emails: readonly string[]): Promise<Set<string>> {
    if (!emails.length) return new Set();
    const rows = await this.db
      .select({ email: sql<string>`lower(${U.email})` })
      .from(users)
      .where(
        and(
          eq(users.projectId, projectId),
          sql`lower(${U.email}) = ANY(ARRAY[${sql.join(
            emails.map((e) => sql`${e.toLowerCase()}`),
            sql`, `,
          )}]::text[])`,
        ),
      );
    return new Set(rows.map((r) => r.email));
  }

  async insertUsers(tx: DbOrTx, rows: (typeof users.$inferInsert)[]): Promise<{ id: number; login: string }[]> {
    if (!rows.length) return [];
    return tx
      .insert(users)
      .values(rows.map((r) => ({ ...r, locale: r.locale ?? projectLocale(r.projectId) })))
      .returning({ id: users.id, login: users.login });
  }

  async attach(tx: DbOrTx, pairs: { userId: number; groupId: number }[]): Promise<void> {
    if (pairs.length) await tx.insert(userGroups).values(pairs).onConflictDoNothing();
  }

  /** A page of the subtree in tree order, after `afterPath`, with each group's path of names. */
  async groupPage(projectId: number, rootId: number, domainTypeId: number | undefined, afterPath: number[] | null, limit: number) {
    return this.db
      .select({
        id: groups.id,
        path: groups.path,
        logicAddress: groups.logicAddress,
        typeName: domainTypes.name,
        names: sql<string>`(SELECT string_agg(a.name, ' / ' ORDER BY array_position(${G.path}, a.id)) FROM groups a WHERE a.id = ANY(${G.path}))`,
      })
      .from(groups)
      .leftJoin(domainTypes, eq(domainTypes.id, groups.domainTypeId))
      .where(
        and(
          eq(groups.projectId, projectId),
          sql`${G.path} && ${intArray([rootId])}`,
          domainTypeId ? eq(groups.domainTypeId, domainTypeId) : undefined,
          afterPath ? sql`${G.path} > ${intArray(afterPath)}` : undefined,
        ),
      )
      .orderBy(groups.path)
      .limit(limit);
  }

  /** The users the actor sees in these groups. */
  async usersOfGroups(actor: Actor, groupIds: readonly number[]) {
    if (!groupIds.length) return [];
    const view = sql`(${U.id} = ${actor.userId} OR ${aclPredicate(actor, 'users', 'view', userAclTarget(sql`${U.id}`, sql`${U.createdBy}`))})`;
    return this.db
      .select({
        groupId: userGroups.groupId,
        id: users.id,
        login: users.login,
        name: users.name,
        email: users.email,
        profile: users.profile,
        licenseInfo: users.licenseInfo,
      })
      .from(userGroups)
      .innerJoin(users, eq(users.id, userGroups.userId))
      .where(and(inArray(userGroups.groupId, [...groupIds]), view))
      .orderBy(userGroups.groupId, users.name, users.id);
  }
}
