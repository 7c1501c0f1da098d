import type { ListQuery } from '@atrium/contract';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { aclPredicate, groupScopeCondition, groupVisible, intArray, qualifiedColumns, userAclTarget, userVisible } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { containsPattern, filtersSql, type ListSpec, pageOffset, sortSql } from '../../core/list-query.js';
import { projects } from '../projects/projects.table.js';
import { userGroups, users } from '../users/users.table.js';
import { SELF_DOMAIN_CODES } from './groups.rules.js';
import { domainTypes, groups } from './groups.table.js';

const G = qualifiedColumns(groups);
const U = qualifiedColumns(users);

const typeCode = sql<number | null>`(SELECT dt.type FROM domain_types dt WHERE dt.id = ${G.domainTypeId})`;

export const GROUP_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${G.id}`, type: 'number' },
    name: { expr: sql`${G.name}`, type: 'text' },
    description: { expr: sql`${G.description}`, type: 'text' },
    parent_id: { expr: sql`${G.parentId}`, type: 'number' },
    domain_type_id: { expr: sql`${G.domainTypeId}`, type: 'number' },
    type: { expr: typeCode, type: 'number' },
    logic_address: { expr: sql`${G.logicAddress}`, type: 'number' },
    is_resident_phonebook_enabled: { expr: sql`${G.isResidentPhonebookEnabled}`, type: 'boolean' },
    depth: { expr: sql`cardinality(${G.path})`, type: 'number' },
    // The ids from the top group down: sorted by it, a tree reads top-down, each group before its subgroups.
    path: { expr: sql`${G.path}`, type: 'int_array' },
    created_at: { expr: sql`${G.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${G.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${G.id} ASC`,
};

/** Who may see which groups: everyone sees their groups and below; group administrators of the whole project see all. */
export function groupViewPredicate(actor: Actor): SQL {
  return groupVisible(actor, sql`${G.path}`);
}

const self = { inGroups: (cond: SQL) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${G.id} AND ${cond})`, creatorMayView: false };

export const groupEditPredicate = (actor: Actor) => aclPredicate(actor, 'groups', 'edit', self);
export const groupDeletePredicate = (actor: Actor) => aclPredicate(actor, 'groups', 'delete', self);
const licenseView = (actor: Actor) => aclPredicate(actor, 'domain_licenses', 'view', self);
const licenseEdit = (actor: Actor) => aclPredicate(actor, 'domain_licenses', 'edit', self);

/**
 * What the actor may do with a group they see, as columns of the same select (groups.service update,
 * logo and delete): edit by the edit-groups scope, the licence-count scope, or as a member holding a
 * self-domain permission; delete by the delete scope, never their only group.
 */
function groupActions(actor: Actor) {
  const selfDomain = SELF_DOMAIN_CODES.some((c) => actor.permissions.has(c)) ? sql`${G.id} = ANY(${intArray(actor.groupIds)})` : sql`FALSE`;
  const onlyGroup = actor.groupIds.length === 1 ? sql`${G.id} = ${actor.groupIds[0]}` : sql`FALSE`;
  return {
    editable: sql<boolean>`coalesce(${groupEditPredicate(actor)} OR ${licenseEdit(actor)} OR ${selfDomain}, FALSE)`,
    deletable: sql<boolean>`coalesce(NOT (${onlyGroup}) AND ${groupDeletePredicate(actor)}, FALSE)`,
  };
}

const columns = (actor: Actor) => ({
  group: groups,
  type: sql<{
    id: number;
    type: number;
    name: string;
  } | null>`(SELECT json_build_object('id', dt.id, 'type', dt.type, 'name', dt.name) FROM domain_types dt WHERE dt.id = ${G.domainTypeId})`,
  hasChildren: sql<boolean>`EXISTS (SELECT 1 FROM groups c WHERE c.parent_id = ${G.id})`,
  licenseVisible: sql<boolean>`(${licenseView(actor)})`,
  ...groupActions(actor),
});

export type GroupRow = typeof groups.$inferSelect & {
  type: { id: number; type: number; name: string } | null;
  hasChildren: boolean;
  licenseVisible: boolean;
  /** What the caller may do with the group (see `groupActions`). */
  editable: boolean;
  deletable: boolean;
  users?: number[];
  parent?: { id: number; name: string } | null;
  pathNames?: string[];
};
export type GroupAccess = GroupRow & { canEdit: boolean; canDelete: boolean; canEditLicense: boolean };

const relationColumns = (actor: Actor, rel: ReadonlySet<string>) => ({
  ...(rel.has('path_names')
    ? {
        // Ancestors the caller may not see stay unnamed: the path starts at the first visible one.
        pathNames: sql<string[]>`ARRAY(SELECT a.name FROM groups a
          WHERE a.id = ANY(${G.path}) AND ${groupVisible(actor, sql`a.path`)}
          ORDER BY array_position(${G.path}, a.id))`,
      }
    : {}),
  ...(rel.has('users')
    ? {
        users: sql<number[]>`ARRAY(SELECT ug.user_id FROM user_groups ug WHERE ug.group_id = ${G.id} ORDER BY ug.user_id)`,
      }
    : {}),
  ...(rel.has('parent')
    ? {
        parent: sql<{
          id: number;
          name: string;
        } | null>`(SELECT json_build_object('id', p.id, 'name', p.name) FROM groups p WHERE p.id = ${G.parentId})`,
      }
    : {}),
});

type Selected = { group: typeof groups.$inferSelect } & Omit<GroupRow, keyof typeof groups.$inferSelect>;
const flatten = <T extends Selected>({ group, ...rest }: T) => ({ ...group, ...rest });

export class GroupsRepository {
  constructor(private readonly db: Db) {}

  async list(
    actor: Actor,
    q: ListQuery & { id?: number[] | undefined; search?: string | undefined },
    rel: ReadonlySet<string>,
  ): Promise<{ rows: GroupRow[]; total: number }> {
    const conds: (SQL | undefined)[] = [eq(groups.projectId, actor.projectId), groupViewPredicate(actor), filtersSql(GROUP_LIST, q)];
    if (q.id?.length) conds.push(sql`${G.id} = ANY(${intArray(q.id)})`);
    if (q.search) {
      const like = containsPattern(q.search);
      conds.push(sql`(${G.name} ILIKE ${like} OR ${G.description} ILIKE ${like} OR ${G.logicAddress}::text = ${q.search})`);
    }
    const where = and(...conds);
    const rows = await this.db
      .select({ ...columns(actor), ...relationColumns(actor, rel), total: sql<number>`(count(*) OVER ())::int` })
      .from(groups)
      .where(where)
      .orderBy(...sortSql(GROUP_LIST, q))
      .limit(q.size)
      .offset(pageOffset(q));
    let total = rows[0]?.total ?? 0;
    if (!rows.length && q.page > 1) {
      const [c] = await this.db.select({ n: sql<number>`count(*)::int` }).from(groups).where(where);
      total = c?.n ?? 0;
    }
    return { rows: rows.map(({ total: _t, ...r }) => flatten(r as Selected)), total };
  }

  /** Every group the actor sees, tree order, lean. */
  async tree(actor: Actor) {
    return this.db
      .select({
        id: groups.id,
        name: groups.name,
        parent_id: groups.parentId,
        domain_type_id: groups.domainTypeId,
        logic_address: groups.logicAddress,
      })
      .from(groups)
      .where(and(eq(groups.projectId, actor.projectId), groupViewPredicate(actor)))
      .orderBy(groups.path);
  }

  async children(actor: Actor, parentId: number): Promise<GroupRow[]> {
    const rows = await this.db
      .select(columns(actor))
      .from(groups)
      .where(and(eq(groups.projectId, actor.projectId), eq(groups.parentId, parentId), groupViewPredicate(actor)))
      .orderBy(groups.name, groups.id);
    return rows.map((r) => flatten(r as Selected));
  }

  /** A group of the actor's project that they see, with what they may do with it; undefined otherwise. */
  async find(db: DbOrTx, actor: Actor, id: number, rel: ReadonlySet<string> = new Set()): Promise<GroupAccess | undefined> {
    const [r] = await db
      .select({
        ...columns(actor),
        ...relationColumns(actor, rel),
        canEdit: sql<boolean>`(${groupEditPredicate(actor)})`,
        canDelete: sql<boolean>`(${groupDeletePredicate(actor)})`,
        canEditLicense: sql<boolean>`(${licenseEdit(actor)})`,
      })
      .from(groups)
      .where(and(eq(groups.id, id), eq(groups.projectId, actor.projectId), groupViewPredicate(actor)));
    return r ? (flatten(r as Selected) as GroupAccess) : undefined;
  }

  async domainType(projectId: number, id: number) {
    const [t] = await this.db
      .select({ id: domainTypes.id, code: domainTypes.type, name: domainTypes.name })
      .from(domainTypes)
      .where(and(eq(domainTypes.projectId, projectId), eq(domainTypes.id, id)));
    return t;
  }

  async domainTypes(projectId: number) {
    return this.db
      .select({ id: domainTypes.id, code: domainTypes.type, name: domainTypes.name })
      .from(domainTypes)
      .where(eq(domainTypes.projectId, projectId));
  }

  /** Does a sibling (same parent, type and address) already exist? */
  async siblingAddressTaken(
    projectId: number,
    parentId: number | null,
    domainTypeId: number | null,
    address: number,
    exceptId = 0,
  ): Promise<boolean> {
    const [row] = await this.db
      .select({ id: groups.id })
      .from(groups)
      .where(
        and(
          eq(groups.projectId, projectId),
          sql`coalesce(${G.parentId}, 0) = ${parentId ?? 0}`,
          domainTypeId === null ? sql`${G.domainTypeId} IS NULL` : eq(groups.domainTypeId, domainTypeId),
          eq(groups.logicAddress, address),
          sql`${G.id} <> ${exceptId}`,
        ),
      )
      .limit(1);
    return !!row;
  }

  /** Type codes present below a group (not the group itself). */
  async descendantTypeCodes(id: number): Promise<number[]> {
    const rows = await this.db
      .selectDistinct({ code: domainTypes.type })
      .from(groups)
      .innerJoin(domainTypes, eq(domainTypes.id, groups.domainTypeId))
      .where(and(sql`${G.path} && ${intArray([id])}`, sql`${G.id} <> ${id}`));
    return rows.map((r) => r.code);
  }

  async childTypes(id: number) {
    return this.db
      .selectDistinct({ code: domainTypes.type, name: domainTypes.name })
      .from(groups)
      .innerJoin(domainTypes, eq(domainTypes.id, groups.domainTypeId))
      .where(eq(groups.parentId, id));
  }

  /** Every group of the project whose licence info is enabled (few), with its path. */
  async licensed(projectId: number) {
    return this.db
      .select({ id: groups.id, path: groups.path, info: groups.licenseInfo })
      .from(groups)
      .where(and(eq(groups.projectId, projectId), sql`(${G.licenseInfo}->>'is_enabled')::boolean IS TRUE`));
  }

  async projectLicense(projectId: number) {
    const [p] = await this.db.select({ info: projects.licenseInfo }).from(projects).where(eq(projects.id, projectId));
    return p?.info ?? null;
  }

  /** Which of `ids` are users of the project the actor may edit. */
  /** The users among `ids` the actor may edit, with the role each holds. */
  async editableUsers(actor: Actor, ids: readonly number[]): Promise<Map<number, number | null>> {
    if (!ids.length) return new Map();
    const edit = aclPredicate(actor, 'users', 'edit', userAclTarget(sql`${U.id}`, sql`${U.createdBy}`));
    const rows = await this.db
      .select({ id: users.id, roleId: users.roleId })
      .from(users)
      .where(and(eq(users.projectId, actor.projectId), inArray(users.id, [...ids]), edit));
    return new Map(rows.map((r) => [r.id, r.roleId]));
  }

  /** Which of these users of the project the actor may see (a user outside the scope is as good as missing). */
  async visibleUsers(actor: Actor, ids: readonly number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, actor.projectId), inArray(users.id, [...ids]), userVisible(actor, U.id, U.createdBy)));
    return new Set(rows.map((r) => r.id));
  }

  async groupUsers(groupId: number): Promise<number[]> {
    const rows = await this.db.select({ id: userGroups.userId }).from(userGroups).where(eq(userGroups.groupId, groupId));
    return rows.map((r) => r.id);
  }

  async insert(tx: DbOrTx, v: Omit<typeof groups.$inferInsert, 'path'>, parentPath: readonly number[]): Promise<number> {
    const [g] = await tx
      .insert(groups)
      .values({ ...v, path: [] })
      .returning({ id: groups.id });
    if (!g) throw new Error('group insert returned nothing');
    await tx
      .update(groups)
      .set({ path: [...parentPath, g.id] })
      .where(eq(groups.id, g.id));
    return g.id;
  }

  /** Inserts many groups under one parent level at once; answers their ids in order. */
  async insertMany(tx: DbOrTx, rows: Omit<typeof groups.$inferInsert, 'path'>[]): Promise<number[]> {
    if (!rows.length) return [];
    const out = await tx
      .insert(groups)
      .values(rows.map((r) => ({ ...r, path: [] })))
      .returning({ id: groups.id });
    const ids = out.map((r) => r.id);
    await tx.execute(sql`UPDATE groups SET path = CASE WHEN groups.parent_id IS NULL THEN ARRAY[groups.id]
      ELSE (SELECT p.path FROM groups p WHERE p.id = groups.parent_id) || groups.id END
      WHERE groups.id = ANY(${intArray(ids)})`);
    return ids;
  }

  async update(tx: DbOrTx, id: number, v: Partial<typeof groups.$inferInsert>): Promise<void> {
    await tx
      .update(groups)
      .set({ ...v, updatedAt: sql`now()` })
      .where(eq(groups.id, id));
  }

  /** Moves a group and its subtree under a new parent path. */
  async move(tx: DbOrTx, id: number, oldPath: readonly number[], newParentPath: readonly number[]): Promise<void> {
    const depth = oldPath.length;
    await tx.execute(sql`UPDATE groups SET path = ${intArray(newParentPath)} || path[${depth}:]
      WHERE path && ${intArray([id])} AND path[${depth}] = ${id}`);
  }

  async attachUsers(tx: DbOrTx, groupId: number, userIds: readonly number[]): Promise<void> {
    if (userIds.length) {
      await tx
        .insert(userGroups)
        .values(userIds.map((userId) => ({ userId, groupId })))
        .onConflictDoNothing();
    }
  }

  async detachUsers(tx: DbOrTx, groupId: number, userIds: readonly number[]): Promise<void> {
    if (userIds.length) await tx.delete(userGroups).where(and(eq(userGroups.groupId, groupId), inArray(userGroups.userId, [...userIds])));
  }

  /** How many users belong to the group or below, and whether `userId` is one of them. */
  /** Groups below this one (all of them go with it). */
  async subgroupsInSubtree(id: number): Promise<number> {
    const [r] = await this.db
      .select({ n: sql<number>`count(*)::int` })
      .from(groups)
      .where(sql`${G.path} && ${intArray([id])} AND ${G.id} <> ${id}`);
    return r?.n ?? 0;
  }

  async usersInSubtree(id: number): Promise<number> {
    const [r] = await this.db
      .select({ n: sql<number>`count(DISTINCT ug.user_id)::int` })
      .from(sql`user_groups ug JOIN groups g ON g.id = ug.group_id`)
      .where(sql`g.path && ${intArray([id])}`);
    return r?.n ?? 0;
  }

  async devicesInSubtree(id: number): Promise<number> {
    const [r] = await this.db
      .select({ n: sql<number>`count(*)::int` })
      .from(sql`devices d JOIN groups g ON g.id = d.group_id`)
      .where(sql`g.path && ${intArray([id])}`);
    return r?.n ?? 0;
  }

  async subtreeLogos(id: number): Promise<string[]> {
    const rows = await this.db
      .select({ logo: groups.logoPath })
      .from(groups)
      .where(and(sql`${G.path} && ${intArray([id])}`, sql`${G.logoPath} IS NOT NULL`));
    return rows.map((r) => r.logo as string);
  }

  async deleteSubtree(tx: DbOrTx, id: number): Promise<void> {
    await tx.delete(groups).where(sql`${G.path} && ${intArray([id])}`);
  }

  /** Floors below a group and the apartments below each floor. */
  async floorsAndApartments(id: number, floorCode: number, apartmentCode: number) {
    return this.db
      .select({ id: groups.id, name: groups.name, logic_address: groups.logicAddress, path: groups.path, code: domainTypes.type })
      .from(groups)
      .innerJoin(domainTypes, eq(domainTypes.id, groups.domainTypeId))
      .where(and(sql`${G.path} && ${intArray([id])}`, inArray(domainTypes.type, [floorCode, apartmentCode])))
      .orderBy(groups.logicAddress, groups.name, groups.id);
  }

  /** Groups the actor may place users in, among `ids` (used by the structure import). */
  async inScope(actor: Actor, scope: 'all' | 'domain' | 'descendants', ids: readonly number[], underId: number): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const cond = scope === 'all' ? sql`TRUE` : groupScopeCondition(actor, scope);
    const rows = await this.db
      .select({ id: sql<number>`g.id` })
      .from(sql`groups g`)
      .where(sql`g.project_id = ${actor.projectId} AND g.id = ANY(${intArray(ids)}) AND g.path && ${intArray([underId])} AND ${cond}`);
    return new Set(rows.map((r) => r.id));
  }
}
