import type { BulkDeleteResult, CreateMarkerBody, ListMeta, ListQuery, Marker, UpdateMarkerBody } from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import { markers, userMarkers } from './markers.table.js';

const MK = qualifiedColumns(markers);

export const MARKER_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${MK.id}`, type: 'number' },
    name: { expr: sql`${MK.name}`, type: 'text' },
    color: { expr: sql`${MK.color}`, type: 'text' },
    domain_id: { expr: sql`${MK.groupId}`, type: 'number' },
    created_at: { expr: sql`${MK.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${MK.id} ASC`,
};

const target: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${MK.groupId} AND ${cond})`,
  createdBy: sql`${MK.createdBy}`,
};
/** Markers the actor sees; to change one they need the plain permission as well. */
export const markerVisible = (actor: Actor): SQL => aclPredicate(actor, 'markers', 'view', target);

type Row = typeof markers.$inferSelect & { usersCount: number; canView: boolean };

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** Markers (spec entities §3, §7): CRUD and bulk delete, scoped by group; applied to users from the users area. */
export class MarkersService {
  constructor(private readonly db: Db) {}

  private select(actor: Actor) {
    return this.db
      .select({
        ...getTableColumns(markers),
        usersCount: sql<number>`(SELECT count(*)::int FROM user_markers um WHERE um.marker_id = ${MK.id})`,
        canView: sql<boolean>`coalesce(${markerVisible(actor)}, FALSE)`,
      })
      .from(markers);
  }

  private toMarker(actor: Actor, r: Row): Marker {
    return {
      id: r.id,
      name: r.name,
      color: r.color,
      domain_id: r.groupId,
      users_count: Number(r.usersCount),
      created_by: r.createdBy,
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      can_edit: actor.permissions.has('can_edit_markers'),
      can_delete: actor.permissions.has('can_delete_markers'),
    };
  }

  private assertView(actor: Actor) {
    if (!['can_view_markers', 'can_view_all_markers'].some((c) => actor.permissions.has(c)))
      throw prohibited([{ permission: 'can_view_markers' }]);
  }

  private async assertGroup(actor: Actor, groupId: number) {
    const [g] = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT g.id FROM groups g WHERE g.id = ${groupId} AND g.project_id = ${actor.projectId}
        AND (${actor.permissions.has('can_view_all_markers')} OR g.path && ${intArray(actor.groupIds)})`,
    );
    if (!g) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [groupId] }]);
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: Marker[]; meta: ListMeta }> {
    this.assertView(actor);
    const where = and(
      eq(markers.projectId, actor.projectId),
      filtersSql(MARKER_LIST, q),
      markerVisible(actor),
      q.search ? sql`${MK.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: markers, id: sql`${MK.id}`, where, spec: MARKER_LIST, query: q });
    const rows = page.ids.length ? await this.select(actor).where(sql`${MK.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows as Row[]).map((r) => this.toMarker(actor, r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  private async visible(actor: Actor, id: number, permission?: string): Promise<Row> {
    this.assertView(actor);
    const [r] = await this.select(actor).where(and(eq(markers.id, id), eq(markers.projectId, actor.projectId)));
    if (!r?.canView) throw notFound();
    if (permission && !actor.permissions.has(permission)) throw prohibited([{ permission }]);
    return r as Row;
  }

  async get(actor: Actor, id: number): Promise<Marker> {
    return this.toMarker(actor, await this.visible(actor, id));
  }

  async create(ctx: RequestContext, body: CreateMarkerBody): Promise<Marker> {
    if (!ctx.actor.permissions.has('can_create_markers')) throw prohibited([{ permission: 'can_create_markers' }]);
    await this.assertGroup(ctx.actor, body.domain_id);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(markers)
        .values({
          projectId: ctx.actor.projectId,
          groupId: body.domain_id,
          name: body.name,
          color: body.color,
          createdBy: ctx.actor.userId,
        })
        .returning({ id: markers.id });
      await recordAudit(tx, ctx, { entity: 'marker', entityId: r!.id, action: 'create', after: body });
      return r!.id;
    });
    return this.get(ctx.actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateMarkerBody): Promise<Marker> {
    const before = await this.visible(ctx.actor, id, 'can_edit_markers');
    if (body.domain_id !== undefined) await this.assertGroup(ctx.actor, body.domain_id);
    await this.db.transaction(async (tx) => {
      await tx
        .update(markers)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.color !== undefined ? { color: body.color } : {}),
          ...(body.domain_id !== undefined ? { groupId: body.domain_id } : {}),
          updatedAt: new Date(),
        })
        .where(eq(markers.id, id));
      await recordAudit(tx, ctx, {
        entity: 'marker',
        entityId: id,
        action: 'update',
        before: this.toMarker(ctx.actor, before),
        after: body,
      });
    });
    return this.get(ctx.actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id, 'can_delete_markers');
    await this.db.transaction(async (tx) => {
      await tx.delete(markers).where(eq(markers.id, id));
      await recordAudit(tx, ctx, { entity: 'marker', entityId: id, action: 'delete', before: this.toMarker(ctx.actor, before) });
    });
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  /** Applies markers to a user (the users area calls it with the user's update): needs "apply markers" and markers one sees. */
  async applyToUser(tx: DbOrTx, actor: Actor, userId: number, markerIds: readonly number[]): Promise<void> {
    if (!actor.permissions.has('can_apply_markers')) throw prohibited([{ permission: 'can_apply_markers' }]);
    const unique = [...new Set(markerIds)];
    if (unique.length) {
      const ok = await queryRows<{ id: number }>(
        tx,
        sql`SELECT markers.id FROM markers WHERE markers.project_id = ${actor.projectId} AND markers.id = ANY(${intArray(unique)}) AND ${markerVisible(actor)}`,
      );
      const okIds = new Set(ok.map((r) => Number(r.id)));
      const bad = unique.filter((m) => !okIds.has(m));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'markers', entity: 'markers', ids: bad }]);
    }
    await tx.delete(userMarkers).where(eq(userMarkers.userId, userId));
    if (unique.length) await tx.insert(userMarkers).values(unique.map((markerId) => ({ userId, markerId })));
  }
}
