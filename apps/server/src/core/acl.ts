import { type Scope, scopeCodes } from '@atrium/contract';
import { getTableColumns, getTableName, type SQL, sql, type Table } from 'drizzle-orm';
import type { Actor } from './context.js';

const ORDER: Scope[] = ['all', 'descendants', 'domain', 'own'];

/** The widest scope the actor's permissions grant for `action` on `resource`, or null. */
export function scopeOf(actor: Actor, resource: string, action: string): Scope | null {
  const codes = scopeCodes(resource, action);
  for (const scope of ORDER) {
    const code = codes[scope];
    if (code && actor.permissions.has(code)) return scope;
  }
  return null;
}

/** How rows of a resource relate to groups and to their creator. */
export interface AclTarget {
  /**
   * A predicate "this row belongs to a group g for which `groupCond` holds"; `groupCond` speaks of
   * a groups row aliased `g` (columns g.id, g.path).
   */
  inGroups: (groupCond: SQL) => SQL;
  /** The row's creator column, for the own scope and "creator may view". */
  createdBy?: SQL;
  /** Any user can view what they created, except groups (spec §6). Default true. */
  creatorMayView?: boolean;
}

const intArray = (ids: readonly number[]) => sql`ARRAY[${sql.join(ids.length ? ids.map((i) => sql`${i}`) : [sql`0`], sql`, `)}]::int[]`;

/** A predicate on groups aliased `g` for a scope: my groups, or my groups and below. */
export function groupScopeCondition(actor: Actor, scope: 'domain' | 'descendants'): SQL {
  return scope === 'domain' ? sql`g.id = ANY(${intArray(actor.groupIds)})` : sql`g.path && ${intArray(actor.groupIds)}`;
}

/**
 * Turns (actor, resource, action) into one SQL predicate, so routes never hand-roll scope checks.
 * Project scoping is not done here: every repository query is already limited to the actor's project.
 */
export function aclPredicate(actor: Actor, resource: string, action: string, target: AclTarget): SQL {
  const scope = scopeOf(actor, resource, action);
  const creatorClause =
    target.createdBy && action === 'view' && target.creatorMayView !== false ? sql`${target.createdBy} = ${actor.userId}` : null;
  let scoped: SQL | null;
  switch (scope) {
    case 'all':
      return sql`TRUE`;
    case 'descendants':
    case 'domain':
      scoped = target.inGroups(groupScopeCondition(actor, scope));
      break;
    case 'own':
      scoped = target.createdBy ? sql`${target.createdBy} = ${actor.userId}` : null;
      break;
    default:
      scoped = null;
  }
  if (scoped && creatorClause) return sql`(${scoped} OR ${creatorClause})`;
  return scoped ?? creatorClause ?? sql`FALSE`;
}

export { intArray };

/**
 * The ACL target of users: a user row belongs to the groups listed for it in user_groups. `userId`
 * and `createdBy` are the row's columns (for example `users.id`, or `u.id` inside a subquery).
 */
export function userAclTarget(userId: SQL, createdBy: SQL): AclTarget {
  return {
    inGroups: (groupCond) =>
      sql`${userId} IN (SELECT ug.user_id FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ${groupCond})`,
    createdBy,
  };
}

/**
 * Every column of a table as SQL written with its table name (`"users"."id"`). Drizzle leaves
 * columns bare inside a select list, where a subquery over another table would capture them.
 */
export function qualifiedColumns<T extends Table>(table: T): Record<keyof T['_']['columns'], SQL> {
  const name = getTableName(table);
  return Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, col]) => [key, sql.raw(`"${name}"."${col.name}"`)]),
  ) as Record<keyof T['_']['columns'], SQL>;
}

/**
 * "The actor may see this user": their own record, or one the users view rule covers. `userId` and
 * `createdBy` are the user row's columns in the caller's query (e.g. `u.id`, `u.created_by`).
 * Relations and counts that name users use it, so an answer never reaches outside the scope.
 */
export function userVisible(actor: Actor, userId: SQL, createdBy: SQL): SQL {
  // coalesce: a NULL creator must make the answer false, not unknown (NOT of it would be unknown too).
  return sql`coalesce(${userId} = ${actor.userId} OR ${aclPredicate(actor, 'users', 'view', userAclTarget(userId, createdBy))}, FALSE)`;
}

/**
 * "The actor may see this group": their groups and below, or every group for a project-wide group
 * administrator. `groupPath` is the groups row's path column in the caller's query.
 */
export function groupVisible(actor: Actor, groupPath: SQL): SQL {
  const all = ['can_edit_all_domains', 'can_delete_all_domains', 'can_create_root_domains'].some((c) => actor.permissions.has(c));
  return all ? sql`TRUE` : sql`${groupPath} && ${intArray(actor.groupIds)}`;
}
