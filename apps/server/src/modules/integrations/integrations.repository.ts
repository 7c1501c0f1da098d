import type { IntegrationListQuery } from '@atrium/contract';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { intArray } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import { integrations } from './integrations.table.js';

export type IntegrationRow = typeof integrations.$inferSelect;
const I = integrations;

export const INTEGRATION_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${I.id}`, type: 'number' },
    name: { expr: sql`${I.name}`, type: 'text' },
    url: { expr: sql`${I.url}`, type: 'text' },
    type: { expr: sql`${I.type}`, type: 'text' },
    domain_id: { expr: sql`${I.groupId}`, type: 'number' },
    created_at: { expr: sql`${I.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${I.id} ASC`,
};

const bool = (v: boolean) => (v ? sql`TRUE` : sql`FALSE`);

/**
 * The integrations an actor may read (`change` false) or change (spec entities §6): project-level
 * ones with the project settings permissions, a group's with edit all groups, edit my groups and
 * below (the group under one of mine), or self-group management of integrations (one of my groups).
 */
export function integrationAccess(actor: Actor, change: boolean): SQL {
  const has = (c: string) => actor.permissions.has(c);
  const project = has('can_change_project_settings') || (!change && has('can_view_project_settings'));
  const mine = intArray(actor.groupIds);
  return sql`((${I.groupId} IS NULL AND ${bool(project)}) OR (${I.groupId} IS NOT NULL AND (${bool(has('can_edit_all_domains'))}
    OR (${bool(has('can_edit_descendant_domains'))} AND EXISTS (SELECT 1 FROM groups g WHERE g.id = ${I.groupId} AND g.path && ${mine}))
    OR (${bool(has('can_manage_self_domain_integrations'))} AND ${I.groupId} = ANY(${mine})))))`;
}

/**
 * The integrations a group may use (spec entities §3 "available integrations"): the project's, those
 * of the group or a group above it, and those serving (domains) the group or a group above it.
 * `path` is the group's path (its ancestors and itself); empty for a device with no group.
 */
export function availableTo(path: readonly number[]): SQL {
  const p = intArray(path);
  return sql`(${I.groupId} IS NULL OR ${I.groupId} = ANY(${p}) OR ${I.domainIds} && ${p})`;
}

/** Whether integration `id` of the project is available to a device placed in `groupId` (null: no group). */
export async function integrationAvailableTo(db: DbOrTx, projectId: number, id: number, groupId: number | null): Promise<boolean> {
  const path = sql`COALESCE((SELECT g.path FROM groups g WHERE g.id = ${groupId ?? 0} AND g.project_id = ${projectId}), '{}'::int[])`;
  const rows = await queryRows<{ ok: boolean }>(
    db,
    sql`SELECT TRUE AS ok FROM integrations i WHERE i.id = ${id} AND i.project_id = ${projectId}
      AND (i.group_id IS NULL OR i.group_id = ANY(${path}) OR i.domain_ids && ${path})`,
  );
  return rows.length > 0;
}

export class IntegrationsRepository {
  constructor(private readonly db: Db) {}

  async list(actor: Actor, q: IntegrationListQuery): Promise<{ rows: IntegrationRow[]; total: number; estimated: boolean }> {
    const where = and(
      eq(I.projectId, actor.projectId),
      integrationAccess(actor, false),
      q.domain_id ? eq(I.groupId, q.domain_id) : undefined,
      filtersSql(INTEGRATION_LIST, q),
      q.search ? sql`(${I.name} ILIKE ${containsPattern(q.search)} OR ${I.url} ILIKE ${containsPattern(q.search)})` : undefined,
    );
    const page = await pageOfIds(this.db, { table: integrations, id: sql`${I.id}`, where, spec: INTEGRATION_LIST, query: q });
    const rows = page.ids.length
      ? await this.db
          .select()
          .from(I)
          .where(sql`${I.id} = ANY(${intArray(page.ids)})`)
      : [];
    return { rows: inPageOrder(page.ids, rows), total: page.total, estimated: page.estimated };
  }

  async byId(projectId: number, id: number): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(I)
      .where(and(eq(I.id, id), eq(I.projectId, projectId)));
    return row;
  }

  /** Whether the actor may read or change this row. */
  async allowed(actor: Actor, id: number, change: boolean): Promise<boolean> {
    const [r] = await this.db
      .select({ id: I.id })
      .from(I)
      .where(and(eq(I.id, id), eq(I.projectId, actor.projectId), integrationAccess(actor, change)));
    return Boolean(r);
  }

  async byUrl(projectId: number, url: string): Promise<{ id: number } | undefined> {
    const [r] = await this.db
      .select({ id: I.id })
      .from(I)
      .where(and(eq(I.projectId, projectId), eq(I.url, url)));
    return r;
  }

  /** A group of the project, with whether it is one of `mine` and whether it lies under one of them. */
  async group(projectId: number, groupId: number, mine: readonly number[]): Promise<{ mine: boolean; below: boolean } | undefined> {
    const [g] = await queryRows<{ mine: boolean; below: boolean }>(
      this.db,
      sql`SELECT g.id = ANY(${intArray(mine)}) AS mine, g.path && ${intArray(mine)} AS below
        FROM groups g WHERE g.id = ${groupId} AND g.project_id = ${projectId}`,
    );
    return g;
  }

  /**
   * The given devices of the project with whether each lies in `groupId`'s branch or in that of one of
   * `domains` (any device for a project-level integration, groupId null).
   */
  async devicesInScope(
    projectId: number,
    ids: readonly number[],
    groupId: number | null,
    domains: readonly number[] = [],
  ): Promise<{ id: number; inScope: boolean }[]> {
    if (!ids.length) return [];
    const served = intArray(groupId === null ? domains : [groupId, ...domains]);
    return queryRows<{ id: number; inScope: boolean }>(
      this.db,
      sql`SELECT d.id, ${groupId === null ? sql`TRUE` : sql`COALESCE(g.path && ${served}, FALSE)`} AS "inScope"
        FROM devices d LEFT JOIN groups g ON g.id = d.group_id
        WHERE d.project_id = ${projectId} AND d.id = ANY(${intArray(ids)})`,
    );
  }

  /** The integrations available to a group with this path (the picker), those the actor may not read included. */
  available(projectId: number, path: readonly number[]): Promise<Pick<IntegrationRow, 'id' | 'type' | 'name' | 'groupId'>[]> {
    return this.db
      .select({ id: I.id, type: I.type, name: I.name, groupId: I.groupId })
      .from(I)
      .where(and(eq(I.projectId, projectId), availableTo(path)))
      .orderBy(I.name, I.id);
  }

  /** A group's path (its ancestors and itself), when it is the project's. */
  async groupPath(projectId: number, groupId: number): Promise<number[] | undefined> {
    const [g] = await queryRows<{ path: number[] }>(
      this.db,
      sql`SELECT path FROM groups WHERE id = ${groupId} AND project_id = ${projectId}`,
    );
    return g ? g.path.map(Number) : undefined;
  }

  /** A device's group (null when it has none), when it is the project's. */
  async deviceGroup(projectId: number, deviceId: number): Promise<{ groupId: number | null } | undefined> {
    const [d] = await queryRows<{ groupId: number | null }>(
      this.db,
      sql`SELECT group_id AS "groupId" FROM devices WHERE id = ${deviceId} AND project_id = ${projectId}`,
    );
    return d;
  }

  /** The integrations of a project that have macro rules (for device events). */
  withRules(projectId: number): Promise<IntegrationRow[]> {
    return this.db
      .select()
      .from(I)
      .where(and(eq(I.projectId, projectId), sql`jsonb_array_length(${I.macroRules}) > 0`));
  }

  /** Each device's group path (empty when it has no group). */
  async devicePaths(ids: readonly number[]): Promise<Map<number, number[]>> {
    const rows = await queryRows<{ id: number; path: number[] | null }>(
      this.db,
      sql`SELECT d.id, g.path FROM devices d LEFT JOIN groups g ON g.id = d.group_id WHERE d.id = ANY(${intArray(ids)})`,
    );
    return new Map(rows.map((r) => [Number(r.id), (r.path ?? []).map(Number)]));
  }

  /** The settings version (update time and address) of each of these integrations that still exists. */
  async versions(ids: readonly number[]): Promise<Map<number, { updatedAt: Date; url: string }>> {
    const rows = await this.db
      .select({ id: I.id, updatedAt: I.updatedAt, url: I.url })
      .from(I)
      .where(sql`${I.id} = ANY(${intArray(ids)})`);
    return new Map(rows.map((r) => [r.id, { updatedAt: r.updatedAt, url: r.url }]));
  }

  insert(tx: DbOrTx, values: typeof integrations.$inferInsert): Promise<IntegrationRow[]> {
    return tx.insert(I).values(values).returning();
  }

  update(tx: DbOrTx, id: number, values: Partial<typeof integrations.$inferInsert>): Promise<IntegrationRow[]> {
    return tx
      .update(I)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(I.id, id))
      .returning();
  }

  async delete(tx: DbOrTx, id: number): Promise<void> {
    await tx.delete(I).where(eq(I.id, id));
  }
}
