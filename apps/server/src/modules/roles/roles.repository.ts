import type { ListQuery } from '@atrium/contract';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { aclPredicate, qualifiedColumns, scopeOf, userAclTarget, userVisible } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { filtersSql, type ListSpec, pageOffset, sortSql } from '../../core/list-query.js';
import { users } from '../users/users.table.js';
import { roleAvailableRoles, roles } from './roles.table.js';

const R = qualifiedColumns(roles);
const U = qualifiedColumns(users);

export const ROLE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${R.id}`, type: 'number' },
    name: { expr: sql`${R.name}`, type: 'text' },
    description: { expr: sql`${R.description}`, type: 'text' },
    is_builtin: { expr: sql`${R.isBuiltin}`, type: 'boolean' },
    created_by: { expr: sql`${R.createdBy}`, type: 'number' },
    created_at: { expr: sql`${R.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${R.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${R.id} ASC`,
};

const columns = {
  id: roles.id,
  name: roles.name,
  description: roles.description,
  permissions: roles.permissions,
  isBuiltin: roles.isBuiltin,
  twoFactorRequired: roles.twoFactorRequired,
  createdBy: roles.createdBy,
  createdAt: roles.createdAt,
  updatedAt: roles.updatedAt,
  creatorName: sql<string | null>`(SELECT cu.name FROM users cu WHERE cu.id = ${R.createdBy})`,
  available: sql<{ id: number; name: string }[]>`coalesce((
    SELECT json_agg(json_build_object('id', a.id, 'name', a.name) ORDER BY a.name, a.id)
    FROM role_available_roles ra JOIN roles a ON a.id = ra.available_role_id WHERE ra.role_id = ${R.id}), '[]'::json)`,
};
export type RoleRow = {
  id: number;
  name: string;
  description: string | null;
  permissions: string[];
  isBuiltin: boolean;
  twoFactorRequired: boolean;
  createdBy: number | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  creatorName: string | null;
  available: { id: number; name: string }[];
  usersCount?: number;
  /** What the caller may do with the role (see `roleActions`). */
  editable: boolean;
  deletable: boolean;
};

/** A role is "of users I see" when some user holding it is visible to the actor. */
function usersSeenHolding(actor: Actor): SQL {
  const seen = aclPredicate(actor, 'users', 'view', userAclTarget(sql`u.id`, sql`u.created_by`));
  return sql`EXISTS (SELECT 1 FROM users u WHERE u.role_id = ${R.id} AND u.project_id = ${actor.projectId} AND ${seen})`;
}

const availableToActor = (actor: Actor) =>
  sql`${R.id} IN (SELECT ra.available_role_id FROM role_available_roles ra WHERE ra.role_id = ${actor.roleId ?? 0})`;

const roleTarget = (actor: Actor) => ({ inGroups: () => usersSeenHolding(actor), createdBy: sql`${R.createdBy}` });

/**
 * A role held by someone the actor may not see is shared with people outside their scope: changing
 * or deleting it would act on them. Only the all-roles scope or the grant-beyond-own permission may.
 */
function noHiddenHolder(actor: Actor, action: 'edit' | 'delete'): SQL | null {
  if (scopeOf(actor, 'roles', action) === 'all' || actor.permissions.has('can_grant_more_permissions')) return null;
  return sql`NOT EXISTS (SELECT 1 FROM users h WHERE h.role_id = ${R.id} AND NOT ${userVisible(actor, sql`h.id`, sql`h.created_by`)})`;
}

/** The edit or delete scope alone: own, available, users' or all roles, and no holder outside the scope. */
function roleScoped(actor: Actor, action: 'edit' | 'delete'): SQL {
  const scoped = aclPredicate(actor, 'roles', action, roleTarget(actor));
  const availableCode = action === 'edit' ? 'can_edit_available_roles' : 'can_delete_available_roles';
  const either = actor.permissions.has(availableCode) ? sql`(${scoped} OR ${availableToActor(actor)})` : scoped;
  const hidden = noHiddenHolder(actor, action);
  return hidden ? sql`(${either} AND ${hidden})` : either;
}

/** The view, edit or delete predicate on roles for an actor (edit and delete also need view). */
export function rolePredicate(actor: Actor, action: 'view' | 'edit' | 'delete'): SQL {
  const view = aclPredicate(actor, 'roles', 'view', roleTarget(actor));
  if (action === 'view') return view;
  return sql`(${view}) AND (${roleScoped(actor, action)})`;
}

/**
 * What the actor may do with a role they see, as columns of the same select (roles.service update
 * and delete): edit by the edit scope; delete by the delete scope, never the built-in role nor their own.
 */
function roleActions(actor: Actor) {
  return {
    editable: sql<boolean>`coalesce(${roleScoped(actor, 'edit')}, FALSE)`,
    deletable: sql<boolean>`coalesce(NOT ${R.isBuiltin} AND ${R.id} <> ${actor.roleId ?? 0} AND ${roleScoped(actor, 'delete')}, FALSE)`,
  };
}

export class RolesRepository {
  constructor(private readonly db: Db) {}

  async list(actor: Actor, q: ListQuery, withUsersCount: boolean): Promise<{ rows: RoleRow[]; total: number }> {
    const where = and(eq(roles.projectId, actor.projectId), rolePredicate(actor, 'view'), filtersSql(ROLE_LIST, q));
    const rows = await this.db
      .select({
        ...columns,
        ...roleActions(actor),
        total: sql<number>`(count(*) OVER ())::int`,
        // Only holders the caller may see are counted (a count must not reach outside the scope).
        ...(withUsersCount
          ? {
              usersCount: sql<number>`(SELECT count(*)::int FROM users x
                WHERE x.role_id = ${R.id} AND ${userVisible(actor, sql`x.id`, sql`x.created_by`)})`,
            }
          : {}),
      })
      .from(roles)
      .where(where)
      .orderBy(...sortSql(ROLE_LIST, q))
      .limit(q.size)
      .offset(pageOffset(q));
    let total = rows[0]?.total ?? 0;
    if (!rows.length && q.page > 1) {
      const [c] = await this.db.select({ n: sql<number>`count(*)::int` }).from(roles).where(where);
      total = c?.n ?? 0;
    }
    return { rows: rows as RoleRow[], total };
  }

  /** The role with what the actor may do with it, or undefined when it is not in the actor's project. */
  async find(actor: Actor, id: number): Promise<(RoleRow & { canView: boolean; canEdit: boolean; canDelete: boolean }) | undefined> {
    const [row] = await this.db
      .select({
        ...columns,
        ...roleActions(actor),
        canView: sql<boolean>`(${rolePredicate(actor, 'view')})`,
        canEdit: sql<boolean>`(${rolePredicate(actor, 'edit')})`,
        canDelete: sql<boolean>`(${rolePredicate(actor, 'delete')})`,
      })
      .from(roles)
      .where(and(eq(roles.id, id), eq(roles.projectId, actor.projectId)));
    return row as (RoleRow & { canView: boolean; canEdit: boolean; canDelete: boolean }) | undefined;
  }

  async byIds(projectId: number, ids: readonly number[]) {
    if (!ids.length) return [];
    return this.db
      .select({ id: roles.id, name: roles.name, permissions: roles.permissions, isBuiltin: roles.isBuiltin })
      .from(roles)
      .where(and(eq(roles.projectId, projectId), inArray(roles.id, [...ids])));
  }

  async all(projectId: number) {
    return this.db
      .select({ id: roles.id, name: roles.name, permissions: roles.permissions, isBuiltin: roles.isBuiltin })
      .from(roles)
      .where(eq(roles.projectId, projectId))
      .orderBy(roles.name, roles.id);
  }

  async availableOf(roleId: number) {
    return this.db
      .select({ id: roles.id, name: roles.name, permissions: roles.permissions, isBuiltin: roles.isBuiltin })
      .from(roleAvailableRoles)
      .innerJoin(roles, eq(roles.id, roleAvailableRoles.availableRoleId))
      .where(eq(roleAvailableRoles.roleId, roleId))
      .orderBy(roles.name, roles.id);
  }

  async insert(tx: DbOrTx, v: typeof roles.$inferInsert): Promise<number> {
    const [r] = await tx.insert(roles).values(v).returning({ id: roles.id });
    if (!r) throw new Error('role insert returned nothing');
    return r.id;
  }

  async update(tx: DbOrTx, id: number, v: Partial<typeof roles.$inferInsert>): Promise<void> {
    await tx
      .update(roles)
      .set({ ...v, updatedAt: sql`now()` })
      .where(eq(roles.id, id));
  }

  async setAvailable(tx: DbOrTx, roleId: number, ids: readonly number[]): Promise<void> {
    await tx.delete(roleAvailableRoles).where(eq(roleAvailableRoles.roleId, roleId));
    if (ids.length) await tx.insert(roleAvailableRoles).values(ids.map((availableRoleId) => ({ roleId, availableRoleId })));
  }

  async delete(tx: DbOrTx, id: number): Promise<void> {
    await tx.delete(roles).where(eq(roles.id, id));
  }

  /**
   * The holders of a role the actor may see (up to `limit`, with their count), and whether anyone
   * the actor may not see holds it too — named by neither id nor count.
   */
  async holders(
    actor: Actor,
    roleId: number,
    limit: number,
  ): Promise<{ total: number; users: { id: number; login: string; name: string }[]; hidden: boolean }> {
    const visible = userVisible(actor, U.id, U.createdBy);
    const rows = await this.db
      .select({ id: users.id, login: users.login, name: users.name, total: sql<number>`(count(*) OVER ())::int` })
      .from(users)
      .where(and(eq(users.roleId, roleId), visible))
      .orderBy(users.name, users.id)
      .limit(limit);
    const [hidden] = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.roleId, roleId), sql`NOT ${visible}`))
      .limit(1);
    return { total: rows[0]?.total ?? 0, users: rows.map(({ id, login, name }) => ({ id, login, name })), hidden: hidden !== undefined };
  }
}
