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

/**
 * An int[] of ids as ONE query parameter (its text form, `{1,2,3}`): a parameter per id would
 * overflow PostgreSQL's 65,535 parameters of a statement with a large import or fan-out.
 */
const intArray = (ids: readonly number[]) => {
  const list = ids.map((i) => Math.trunc(Number(i))).filter((i) => Number.isSafeInteger(i));
  return sql`${`{${list.join(',')}}`}::int[]`;
};

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

/**
 * Who may receive a realtime event about one row, decided without a query when the event is
 * delivered: the same rule as `aclPredicate` for a row of a group-scoped resource, written in
 * memory (the row's group, that group's path of ancestors and its creator travel with the event).
 */
export interface RowAudience {
  resource: string;
  action: string;
  groupId: number | null;
  /** The row's group and every ancestor of it (groups.path). */
  groupPath: readonly number[];
  createdBy: number | null;
  /** A permission the receiver needs as well (for example the one that lists a device's tasks). */
  permission?: string;
  /** Any user can view what they created (spec §6); false where that does not hold. Default true. */
  creatorMayView?: boolean;
}

/** An event for named users only (a remote-control session's screen is its operator's). */
export interface UsersAudience {
  users: readonly number[];
}

export type Audience = RowAudience | UsersAudience;

export function audienceIncludes(actor: Actor, a: Audience): boolean {
  if ('users' in a) return a.users.includes(actor.userId);
  if (a.permission && !actor.permissions.has(a.permission)) return false;
  return rowInScope(actor, scopeOf(actor, a.resource, a.action), a);
}

/**
 * audienceIncludes' rule for one row with the actor's scope for its action already found: a list
 * that decides every row's actions in memory finds the scope once, not once a row.
 */
export function rowInScope(
  actor: Actor,
  scope: Scope | null,
  a: Pick<RowAudience, 'action' | 'groupId' | 'groupPath' | 'createdBy' | 'creatorMayView'>,
): boolean {
  const own = a.createdBy !== null && a.createdBy === actor.userId;
  const creator = own && a.action === 'view' && a.creatorMayView !== false;
  switch (scope) {
    case 'all':
      return true;
    case 'descendants':
      return creator || a.groupPath.some((g) => actor.groupIds.includes(g));
    case 'domain':
      return creator || (a.groupId !== null && actor.groupIds.includes(a.groupId));
    case 'own':
      return own || creator;
    default:
      return creator;
  }
}
