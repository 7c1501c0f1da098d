import type { ListQuery, MobileClientInfo, Scope } from '@atrium/contract';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import {
  type AclTarget,
  aclPredicate,
  groupScopeCondition,
  groupVisible,
  intArray,
  qualifiedColumns,
  scopeOf,
  userAclTarget,
  userVisible,
} from '../../core/acl.js';
import { AttemptCounter } from '../../core/attempts.js';
import type { Actor } from '../../core/context.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { containsPattern, filterShape, filtersSql, type ListSpec, listPage } from '../../core/list-query.js';
import { groups } from '../groups/groups.table.js';
import { markerVisible } from '../markers/markers.service.js';
import { roles } from '../roles/roles.table.js';
import { projectLocale } from './project-locale.js';
import { userGroups, users } from './users.table.js';

const U = qualifiedColumns(users);

/** The user's mobile clients (issue 14), read-only in the user: one indexed subquery per row of a page. */
const mobileClientsColumn = sql<MobileClientInfo[]>`(SELECT coalesce(jsonb_agg(jsonb_build_object('id', mc.id,
  'mobile_client_id', mc.mobile_client_id, 'platform', mc.platform, 'info', mc.info, 'auth_at', mc.auth_at,
  'vendor_id', mc.vendor_id, 'sip_number', mc.sip_number, 'ukey2', mc.ukey2) ORDER BY mc.id), '[]'::jsonb)
  FROM mobile_clients mc WHERE mc.user_id = ${U.id})`;

const domainIds = sql<number[]>`ARRAY(SELECT ug.group_id FROM user_groups ug WHERE ug.user_id = ${U.id} ORDER BY ug.group_id)`;

/**
 * The user's groups the caller may see: a user in two branches shows an administrator of one only
 * that branch's ids, as `domains_info` shows only its names.
 */
const visibleDomainIds = (actor: Actor) =>
  sql<number[]>`ARRAY(SELECT ug.group_id FROM user_groups ug JOIN groups g ON g.id = ug.group_id
    WHERE ug.user_id = ${U.id} AND ${groupVisible(actor, sql`g.path`)} ORDER BY ug.group_id)`;

export const USER_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${U.id}`, type: 'number' },
    login: { expr: sql`${U.login}`, type: 'text' },
    name: { expr: sql`${U.name}`, type: 'text' },
    email: { expr: sql`${U.email}`, type: 'text' },
    description: { expr: sql`${U.description}`, type: 'text' },
    role: { expr: sql`${U.roleId}`, type: 'number' },
    domains: { expr: domainIds, type: 'int_array', sortable: false },
    is_group_admin: { expr: sql`${U.isGroupAdmin}`, type: 'boolean' },
    elevator_access_disabled: { expr: sql`${U.elevatorAccessDisabled}`, type: 'boolean' },
    activated: { expr: sql`(${U.activatedAt} IS NOT NULL)`, type: 'boolean' },
    activated_at: { expr: sql`${U.activatedAt}`, type: 'date' },
    created_by: { expr: sql`${U.createdBy}`, type: 'number' },
    created_at: { expr: sql`${U.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${U.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${U.id} ASC`,
};

/** The columns of a user an answer shows (not the password hash, project or locale). */
const shownColumns = {
  id: users.id,
  login: users.login,
  name: users.name,
  description: users.description,
  email: users.email,
  roleId: users.roleId,
  avatarPath: users.avatarPath,
  profile: users.profile,
  licenseInfo: users.licenseInfo,
  isGroupAdmin: users.isGroupAdmin,
  elevatorAccessDisabled: users.elevatorAccessDisabled,
  isInvited: users.isInvited,
  activatedAt: users.activatedAt,
  createdBy: users.createdBy,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};

/** A user as a list shows it: its shown columns, groups, what the caller may do, and the relations asked for. */
export type UserListRow = Pick<typeof users.$inferSelect, keyof typeof shownColumns> & {
  /** The groups the caller may see. */
  domains: number[];
  /** What the caller may do with the row (see `rowActions`). */
  editable: boolean;
  deletable: boolean;
  roleName?: string | null;
  domainsInfo?: { id: number; name: string }[];
  markersInfo?: { id: number; name: string; color: string }[];
  /** With `with=mobile_clients` in a list; always for one user. */
  mobileClients?: MobileClientInfo[];
};

export type UserRow = typeof users.$inferSelect & {
  /** The groups the caller may see (all of them for the caller's own reads of the row, see `find`). */
  domains: number[];
  /** What the caller may do with the row (see `rowActions`). */
  editable: boolean;
  deletable: boolean;
  roleName?: string | null;
  domainsInfo?: { id: number; name: string }[];
  markersInfo?: { id: number; name: string; color: string }[];
  mobileClients?: MobileClientInfo[];
};

const target = userAclTarget(sql`${U.id}`, sql`${U.createdBy}`);

/** A user's groups checked row by row (EXISTS per user): for a page of rows or a list already narrowed to a branch. */
const rowTarget: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ${U.id} AND ${cond})`,
  createdBy: sql`${U.createdBy}`,
};

/** The view rule checked row by row. */
function rowVisible(actor: Actor): SQL {
  return sql`(${U.id} = ${actor.userId} OR ${aclPredicate(actor, 'users', 'view', rowTarget)})`;
}

/**
 * What the actor may do with a user row they see, as columns of the same select (users.service
 * update and delete): edit by the edit scope, or their own record with edit-own-profile; delete by
 * the delete scope, never themselves.
 */
function rowActions(actor: Actor) {
  const edit = aclPredicate(actor, 'users', 'edit', rowTarget);
  const self = sql`${U.id} = ${actor.userId}`;
  return {
    editable: sql<boolean>`coalesce(${actor.permissions.has('can_edit_own_profile') ? sql`(${self} OR ${edit})` : edit}, FALSE)`,
    deletable: sql<boolean>`coalesce(NOT (${self}) AND ${aclPredicate(actor, 'users', 'delete', rowTarget)}, FALSE)`,
  };
}

/** Users may always see their own record; everyone else by the view rule. */
export function userPredicate(actor: Actor, action: 'view' | 'edit' | 'delete'): SQL {
  const view = userVisible(actor, sql`${U.id}`, sql`${U.createdBy}`);
  if (action === 'view') return view;
  return sql`${view} AND ${aclPredicate(actor, 'users', action, target)}`;
}

const relationColumns = (actor: Actor, rel: ReadonlySet<string>) => ({
  // Only the markers the caller may see (a marker of another branch stays unseen).
  ...(rel.has('markers')
    ? {
        markersInfo: sql<
          { id: number; name: string; color: string }[]
        >`coalesce((SELECT json_agg(json_build_object('id', markers.id, 'name', markers.name, 'color', markers.color) ORDER BY markers.name, markers.id)
          FROM user_markers um JOIN markers ON markers.id = um.marker_id
          WHERE um.user_id = ${U.id} AND ${markerVisible(actor)}), '[]'::json)`,
      }
    : {}),
  ...(rel.has('role') ? { roleName: sql<string | null>`(SELECT r.name FROM roles r WHERE r.id = ${U.roleId})` } : {}),
  ...(rel.has('domains')
    ? {
        domainsInfo: sql<
          { id: number; name: string }[]
        >`coalesce((SELECT json_agg(json_build_object('id', g.id, 'name', g.name) ORDER BY g.name, g.id)
          FROM user_groups ug JOIN groups g ON g.id = ug.group_id
          WHERE ug.user_id = ${U.id} AND ${groupVisible(actor, sql`g.path`)}), '[]'::json)`,
      }
    : {}),
});

/**
 * The columns a list row shows, by the name UserListRow gives them: only the page's rows get their
 * groups and relations; mobile clients only when asked.
 */
function listColumns(actor: Actor, rel: ReadonlySet<string>): Record<string, SQL> {
  const shown = Object.fromEntries(Object.entries(shownColumns).map(([name, column]) => [name, sql`${column}`]));
  const actions = rowActions(actor);
  return {
    ...shown,
    domains: visibleDomainIds(actor),
    ...(rel.has('mobile_clients') ? { mobileClients: mobileClientsColumn } : {}),
    editable: actions.editable,
    deletable: actions.deletable,
    ...relationColumns(actor, rel),
  };
}

export class UsersRepository {
  /** Wrong current passwords per person (core/attempts.ts). */
  readonly attempts: AttemptCounter;

  constructor(private readonly db: Db) {
    this.attempts = new AttemptCounter(db);
  }

  async list(
    actor: Actor,
    q: ListQuery & { search?: string | undefined; branch?: number | undefined },
    rel: ReadonlySet<string>,
  ): Promise<{ rows: UserListRow[]; total: number; estimated: boolean }> {
    // A call's values go beside the statement, which is compiled once per caller and shape (core/list-query.ts listPage).
    const values: Record<string, unknown> = { project: actor.projectId };
    const filters = filtersSql(USER_LIST, q, values);
    if (q.search) values.search = containsPattern(q.search);
    if (q.branch) values.branch = `{${q.branch}}`;
    const shape = JSON.stringify([filterShape(q), !!q.search, !!q.branch, [...rel].sort()]);
    const page = await listPage<Record<string, unknown>>(this.db, {
      owner: actor,
      shape,
      spec: USER_LIST,
      query: q,
      values,
      statement: () => ({ table: users, id: sql`${U.id}`, where: this.listWhere(actor, q, filters), columns: listColumns(actor, rel) }),
    });
    return {
      rows: page.rows.map((r) => ({
        id: r.id as number,
        login: r.login as string,
        name: r.name as string,
        description: r.description as string | null,
        email: r.email as string | null,
        roleId: r.roleId as number | null,
        avatarPath: r.avatarPath as string | null,
        profile: r.profile as Record<string, unknown>,
        licenseInfo: r.licenseInfo as Record<string, unknown> | null,
        isGroupAdmin: r.isGroupAdmin as boolean,
        elevatorAccessDisabled: r.elevatorAccessDisabled as boolean,
        isInvited: r.isInvited as boolean,
        activatedAt: r.activatedAt as Date | null,
        createdBy: r.createdBy as number | null,
        createdAt: r.createdAt as Date,
        updatedAt: r.updatedAt as Date,
        domains: r.domains as number[],
        ...('mobileClients' in r ? { mobileClients: r.mobileClients as MobileClientInfo[] } : {}),
        editable: r.editable as boolean,
        deletable: r.deletable as boolean,
        ...pickRel(r as Parameters<typeof pickRel>[0]),
      })),
      total: page.total,
      estimated: page.estimated,
    };
  }

  /** The list's WHERE, with placeholders for the call's values (`project`, `search`, `branch`, the filters'). */
  private listWhere(
    actor: Actor,
    q: { search?: string | undefined; branch?: number | undefined },
    filters: SQL | undefined,
  ): SQL | undefined {
    const p = sql.placeholder('project');
    const conds: (SQL | undefined)[] = [sql`${U.projectId} = ${p}`, filters];
    const scope = scopeOf(actor, 'users', 'view');
    // Plans measured on 200,000 users (ARCHITECTURE §12): a branch narrows to its user ids first and checks
    // the scope per row; without one, a scoped caller's visible ids are gathered by index and joined by key.
    if (q.branch) {
      conds.push(
        sql`${U.id} IN (SELECT ug.user_id FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE g.project_id = ${p} AND g.path && ${sql.placeholder('branch')}::int[])`,
      );
      if (scope !== 'all') conds.push(rowVisible(actor));
    } else if (scope === 'domain' || scope === 'descendants') {
      conds.push(sql`${U.id} IN (SELECT ug.user_id FROM user_groups ug JOIN groups g ON g.id = ug.group_id
        WHERE g.project_id = ${p} AND ${groupScopeCondition(actor, scope)}
        UNION SELECT ${actor.userId}::int
        UNION SELECT u.id FROM users u WHERE u.project_id = ${p} AND u.created_by = ${actor.userId})`);
    } else if (scope !== 'all') {
      conds.push(userPredicate(actor, 'view'));
    }
    if (q.search) {
      const like = sql.placeholder('search');
      conds.push(sql`(${U.login} ILIKE ${like} OR ${U.name} ILIKE ${like} OR ${U.email} ILIKE ${like})`);
    }
    return and(...conds);
  }

  async find(
    db: DbOrTx,
    actor: Actor,
    id: number,
    rel: ReadonlySet<string> = new Set(),
  ): Promise<(UserRow & { allDomains: number[]; canView: boolean; canEdit: boolean; canDelete: boolean }) | undefined> {
    const [r] = await db
      .select({
        user: users,
        domains: visibleDomainIds(actor),
        // Every group, seen or not: an edit by a scoped administrator keeps those it cannot see.
        allDomains: domainIds,
        mobileClients: mobileClientsColumn,
        canView: sql<boolean>`(${userPredicate(actor, 'view')})`,
        canEdit: sql<boolean>`(${userPredicate(actor, 'edit')})`,
        canDelete: sql<boolean>`(${userPredicate(actor, 'delete')})`,
        ...rowActions(actor),
        ...relationColumns(actor, rel),
      })
      .from(users)
      .where(and(eq(users.id, id), eq(users.projectId, actor.projectId)));
    if (!r) return undefined;
    const { user, canView, canEdit, canDelete, editable, deletable, domains, allDomains, mobileClients } = r;
    return { ...user, domains, allDomains, mobileClients, canView, canEdit, canDelete, editable, deletable, ...pickRel(r) };
  }

  async loginTaken(projectId: number, login: string, exceptId = 0): Promise<boolean> {
    const [row] = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, projectId), sql`lower(${U.login}) = lower(${login})`, sql`${U.id} <> ${exceptId}`))
      .limit(1);
    return !!row;
  }

  async emailTaken(projectId: number, email: string, exceptId = 0): Promise<boolean> {
    const [row] = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, projectId), sql`lower(${U.email}) = lower(${email})`, sql`${U.id} <> ${exceptId}`))
      .limit(1);
    return !!row;
  }

  /** Which of `ids` are groups of the project inside `scope` of the actor (all: any group of the project). */
  async groupsInScope(actor: Actor, scope: Scope, ids: readonly number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const cond = scope === 'all' ? sql`TRUE` : scope === 'own' ? sql`FALSE` : groupScopeCondition(actor, scope);
    const rows = await this.db
      .select({ id: sql<number>`g.id` })
      .from(sql`groups g`)
      .where(sql`g.project_id = ${actor.projectId} AND g.id = ANY(${intArray(ids)}) AND ${cond}`);
    return new Set(rows.map((r) => r.id));
  }

  /** The groups of a user with their paths, for the top-level rule. */
  async groupPaths(userId: number): Promise<{ id: number; path: number[] }[]> {
    return this.db
      .select({ id: groups.id, path: groups.path })
      .from(userGroups)
      .innerJoin(groups, eq(groups.id, userGroups.groupId))
      .where(eq(userGroups.userId, userId));
  }

  async roleOf(roleId: number) {
    const [r] = await this.db.select({ id: roles.id, isBuiltin: roles.isBuiltin }).from(roles).where(eq(roles.id, roleId));
    return r;
  }

  async insert(tx: DbOrTx, v: typeof users.$inferInsert): Promise<number> {
    const locale = v.locale ?? projectLocale(v.projectId);
    const [u] = await tx
      .insert(users)
      .values({ ...v, locale })
      .returning({ id: users.id });
    if (!u) throw new Error('user insert returned nothing');
    return u.id;
  }

  async update(tx: DbOrTx, id: number, v: Partial<typeof users.$inferInsert>): Promise<void> {
    await tx
      .update(users)
      .set({ ...v, updatedAt: sql`now()` })
      .where(eq(users.id, id));
  }

  async setGroups(tx: DbOrTx, userId: number, groupIds: readonly number[]): Promise<void> {
    await tx.delete(userGroups).where(eq(userGroups.userId, userId));
    if (groupIds.length) await tx.insert(userGroups).values([...new Set(groupIds)].map((groupId) => ({ userId, groupId })));
  }

  async delete(tx: DbOrTx, id: number): Promise<void> {
    await tx.delete(users).where(eq(users.id, id));
  }

  async existing(projectId: number, ids: readonly number[]): Promise<number[]> {
    if (!ids.length) return [];
    const rows = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, projectId), inArray(users.id, [...ids])));
    return rows.map((r) => r.id);
  }
}

function pickRel(r: {
  roleName?: string | null;
  domainsInfo?: { id: number; name: string }[];
  markersInfo?: { id: number; name: string; color: string }[];
}) {
  return {
    ...(r.roleName !== undefined ? { roleName: r.roleName } : {}),
    ...(r.domainsInfo !== undefined ? { domainsInfo: r.domainsInfo } : {}),
    ...(r.markersInfo !== undefined ? { markersInfo: r.markersInfo } : {}),
  };
}
