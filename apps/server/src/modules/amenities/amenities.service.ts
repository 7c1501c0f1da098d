import {
  AMENITY_DEFAULTS,
  type Amenity,
  type AmenityState,
  type AmenityTimeSlots,
  type BulkDeleteResult,
  type CreateAmenityBody,
  type ListMeta,
  type ListQuery,
  RESERVATION_LIVE,
  readsQr,
  slotsOfDay,
  type UpdateAmenityBody,
  weekDayOf,
} from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, groupVisible, intArray, qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows, type Tx } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { type FileStore, storableImage } from '../../core/files.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import type { AccessService } from '../access/access.service.js';
import type { DevicesService } from '../devices/devices.service.js';
import { amenities, amenityAccessRules, amenityDomains } from './amenities.table.js';

const AM = qualifiedColumns(amenities);

export const AMENITY_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${AM.id}`, type: 'number' },
    name: { expr: sql`${AM.name}`, type: 'text' },
    address: { expr: sql`${AM.address}`, type: 'text' },
    domain_id: {
      expr: sql`ARRAY(SELECT ad.group_id FROM amenity_domains ad WHERE ad.amenity_id = ${AM.id})`,
      type: 'int_array',
      sortable: false,
    },
    created_by: { expr: sql`${AM.createdBy}`, type: 'number' },
    created_at: { expr: sql`${AM.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${AM.id} ASC`,
};

/** Amenities belong to their groups (the scopes speak of them) and to their creator. */
const amenityTarget = (amenityId: SQL, createdBy: SQL): AclTarget => ({
  inGroups: (cond) =>
    sql`EXISTS (SELECT 1 FROM amenity_domains ad JOIN groups g ON g.id = ad.group_id WHERE ad.amenity_id = ${amenityId} AND ${cond})`,
  createdBy,
});

/** "The user belongs to the amenity's groups or a group below one": they may book it. */
export const allowedForUser = (amenityId: SQL, userId: SQL | number): SQL =>
  sql`EXISTS (SELECT 1 FROM amenity_domains ad JOIN user_groups ug ON ug.user_id = ${userId} JOIN groups ugg ON ugg.id = ug.group_id
    WHERE ad.amenity_id = ${amenityId} AND ad.group_id = ANY(ugg.path))`;

/**
 * Amenities the actor sees: those their amenity view scope covers, and those they may book (a
 * resident who may make reservations sees the amenities of their building).
 */
export const amenityVisible = (actor: Actor, amenityId: SQL = AM.id, createdBy: SQL = AM.createdBy): SQL => {
  const scoped = aclPredicate(actor, 'amenities', 'view', amenityTarget(amenityId, createdBy));
  return actor.permissions.has('can_create_amenity_reservations')
    ? sql`coalesce(${scoped} OR ${allowedForUser(amenityId, actor.userId)}, FALSE)`
    : sql`coalesce(${scoped}, FALSE)`;
};

type Row = typeof amenities.$inferSelect & {
  domains: number[];
  rules: number[];
  creatorName: string | null;
  live: number;
  canView: boolean;
  canEdit: boolean;
  canDelete: boolean;
};

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();
const fileUrl = (key: string | null) => (key ? `/api/v0/files/${key}` : null);
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

/** The amenity's week of slots as stored, in the contract's shape. */
export const timeSlotsOf = (r: { slotDuration: number; slotItems: { days: string[]; from: number; to: number }[] }): AmenityTimeSlots =>
  ({ duration: r.slotDuration, items: r.slotItems }) as AmenityTimeSlots;

type Held = { id: number; persons: number; slots: { from: number; to: number }[] };

/** The reservations holding places in an amenity on a date. */
export const heldOn = (db: DbOrTx, amenityId: number, date: string): Promise<Held[]> =>
  queryRows<Held>(
    db,
    sql`SELECT id, number_of_persons AS persons, time_slots AS slots FROM amenity_reservations
      WHERE amenity_id = ${amenityId} AND date = ${date}::date AND status = ANY(${`{${RESERVATION_LIVE.join(',')}}`}::text[])`,
  );

/** Places taken in each slot by the reservations `held`, except one being edited. */
export const takenPerSlot = (held: readonly Held[], slots: readonly { from: number; to: number }[], except: number | null): number[] =>
  slots.map((s) =>
    held.reduce(
      (sum, r) => sum + (Number(r.id) !== except && r.slots.some((x) => x.from < s.to && s.from < x.to) ? Number(r.persons) : 0),
      0,
    ),
  );

/** Places taken in each slot of a date by reservations holding places, except one being edited. */
export async function reservedPerSlot(
  db: DbOrTx,
  amenityId: number,
  date: string,
  slots: readonly { from: number; to: number }[],
  except: number | null,
): Promise<number[]> {
  return takenPerSlot(await heldOn(db, amenityId, date), slots, except);
}

/** The instant a wall-clock time of a date begins, for a clock `offset` minutes east of UTC. */
export const instantOf = (date: string, seconds: number, offset: number): Date =>
  new Date(Date.parse(`${date}T00:00:00Z`) + seconds * 1000 - offset * 60_000);

/**
 * Amenities (spec comms §3, §5, §7, §8): CRUD with their groups, access rules (whose doors must
 * read QR codes), persons and slots; image and terms-of-use files; the free places of a date.
 */
export class AmenitiesService {
  constructor(
    private readonly db: Db,
    private readonly access: AccessService,
    private readonly devices: DevicesService,
    private readonly files: FileStore,
  ) {}

  private select(actor: Actor) {
    return this.db
      .select({
        ...getTableColumns(amenities),
        domains: sql<number[]>`ARRAY(SELECT ad.group_id FROM amenity_domains ad WHERE ad.amenity_id = ${AM.id} ORDER BY 1)`,
        rules: sql<number[]>`ARRAY(SELECT ar.rule_id FROM amenity_access_rules ar WHERE ar.amenity_id = ${AM.id} ORDER BY 1)`,
        creatorName: sql<string | null>`(SELECT u.name FROM users u WHERE u.id = ${AM.createdBy})`,
        live: sql<number>`(SELECT count(*)::int FROM amenity_reservations r WHERE r.amenity_id = ${AM.id}
          AND r.status = ANY(${`{${RESERVATION_LIVE.join(',')}}`}::text[]))`,
        canView: amenityVisible(actor),
        canEdit: sql<boolean>`coalesce(${aclPredicate(actor, 'amenities', 'edit', amenityTarget(AM.id, AM.createdBy))}, FALSE)`,
        canDelete: sql<boolean>`coalesce(${aclPredicate(actor, 'amenities', 'delete', amenityTarget(AM.id, AM.createdBy))}, FALSE)`,
      })
      .from(amenities);
  }

  private toAmenity(r: Row): Amenity {
    return {
      id: r.id,
      name: r.name,
      address: r.address,
      description: r.description,
      domains: r.domains.map(Number),
      access_rules: r.rules.map(Number),
      number_of_persons: { min: r.personsMin, max: r.personsMax },
      time_slots: timeSlotsOf(r),
      files: { image: fileUrl(r.imagePath), terms_of_use: fileUrl(r.termsPath) },
      created_by_user: r.createdBy && r.creatorName !== null ? { id: r.createdBy, name: r.creatorName } : null,
      live_reservations: Number(r.live),
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      can_edit: r.canEdit,
      can_delete: r.canDelete && Number(r.live) === 0,
    };
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: Amenity[]; meta: ListMeta }> {
    const where = and(
      eq(amenities.projectId, actor.projectId),
      filtersSql(AMENITY_LIST, q),
      amenityVisible(actor),
      q.search ? sql`${AM.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: amenities, id: sql`${AM.id}`, where, spec: AMENITY_LIST, query: q });
    const rows = page.ids.length ? await this.select(actor).where(sql`${AM.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows as Row[]).map((r) => this.toAmenity(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  /** An amenity the actor sees (not found otherwise), and may `action` when asked. */
  private async visible(actor: Actor, id: number, action?: 'edit' | 'delete'): Promise<Row> {
    const [r] = await this.select(actor).where(and(eq(amenities.id, id), eq(amenities.projectId, actor.projectId)));
    if (!r?.canView) throw notFound();
    if (action === 'edit' && !r.canEdit) throw prohibited([{ permission: 'can_edit_amenities' }]);
    if (action === 'delete' && !r.canDelete) throw prohibited([{ permission: 'can_delete_amenities' }]);
    return r as Row;
  }

  async get(actor: Actor, id: number): Promise<Amenity> {
    return this.toAmenity(await this.visible(actor, id));
  }

  /** Groups the actor sees, and rules they see whose every door reads QR codes. */
  private async assertLinks(actor: Actor, domains: number[] | undefined, rules: number[] | undefined) {
    if (domains?.length) {
      const unique = [...new Set(domains)];
      const ok = await queryRows<{ id: number }>(
        this.db,
        sql`SELECT g.id FROM groups g WHERE g.project_id = ${actor.projectId} AND g.id = ANY(${intArray(unique)}) AND ${groupVisible(actor, sql`g.path`)}`,
      );
      const okIds = new Set(ok.map((r) => Number(r.id)));
      const bad = unique.filter((g) => !okIds.has(g));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: bad }]);
    }
    if (rules?.length) {
      const unique = [...new Set(rules)];
      const ok = await this.access.visibleRules(actor, unique);
      const bad = unique.filter((r) => !ok.has(r));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'access_rules', entity: 'access_rules', ids: bad }]);
      const lacking = await this.devicesWithoutQr(this.db, unique);
      if (lacking.length) throw new AppError('amenity_rule_without_qr', [{ field: 'access_rules', devices: lacking }]);
    }
  }

  /** Devices of these rules whose readers do not take QR codes. */
  async devicesWithoutQr(db: DbOrTx, ruleIds: number[]): Promise<{ rule_id: number; device_id: number; name: string }[]> {
    if (!ruleIds.length) return [];
    const rows = await queryRows<{ rule_id: number; device_id: number; name: string; model: string | null }>(
      db,
      sql`SELECT DISTINCT rd.rule_id, d.id AS device_id, d.name, d.model FROM access_rule_devices rd JOIN devices d ON d.id = rd.device_id
        WHERE rd.rule_id = ANY(${intArray(ruleIds)}) ORDER BY 1, 2`,
    );
    return rows.filter((r) => !readsQr(r.model)).map((r) => ({ rule_id: Number(r.rule_id), device_id: Number(r.device_id), name: r.name }));
  }

  private async link(tx: Tx, id: number, domains: number[] | undefined, rules: number[] | undefined) {
    if (domains) {
      await tx.delete(amenityDomains).where(eq(amenityDomains.amenityId, id));
      await tx.insert(amenityDomains).values([...new Set(domains)].map((groupId) => ({ amenityId: id, groupId })));
    }
    if (rules) {
      await tx.delete(amenityAccessRules).where(eq(amenityAccessRules.amenityId, id));
      await tx.insert(amenityAccessRules).values([...new Set(rules)].map((ruleId) => ({ amenityId: id, ruleId })));
    }
  }

  async create(ctx: RequestContext, body: CreateAmenityBody): Promise<Amenity> {
    if (!ctx.actor.permissions.has('can_create_amenities')) throw prohibited([{ permission: 'can_create_amenities' }]);
    await this.assertLinks(ctx.actor, body.domains, body.access_rules);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(amenities)
        .values({
          projectId: ctx.actor.projectId,
          name: body.name,
          address: body.address ?? null,
          description: body.description ?? null,
          personsMin: body.number_of_persons.min,
          personsMax: body.number_of_persons.max,
          slotDuration: body.time_slots.duration,
          slotItems: body.time_slots.items,
          createdBy: ctx.actor.userId,
        })
        .returning({ id: amenities.id });
      await this.link(tx, r!.id, body.domains, body.access_rules);
      await recordAudit(tx, ctx, { entity: 'amenity', entityId: r!.id, action: 'create', after: body });
      return r!.id;
    });
    return this.get(ctx.actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateAmenityBody): Promise<Amenity> {
    const before = await this.visible(ctx.actor, id, 'edit');
    const slotsChange = body.time_slots !== undefined && JSON.stringify(body.time_slots) !== JSON.stringify(timeSlotsOf(before));
    // Reservations are made of the slots as they are: while any holds places, the slots stay.
    if (slotsChange && Number(before.live) > 0)
      throw new AppError('amenity_has_reservations', [{ field: 'time_slots', reservations: Number(before.live) }]);
    await this.assertLinks(ctx.actor, body.domains, body.access_rules);
    const rulesChange =
      body.access_rules !== undefined &&
      JSON.stringify([...new Set(body.access_rules)].sort((a, b) => a - b)) !== JSON.stringify(before.rules.map(Number));
    const live = rulesChange
      ? await queryRows<{ identifier_id: number; starts_at: string; ends_at: string }>(
          this.db,
          sql`SELECT identifier_id, starts_at, ends_at FROM amenity_reservations WHERE amenity_id = ${id} AND identifier_id IS NOT NULL
            AND status = ANY(${`{${RESERVATION_LIVE.join(',')}}`}::text[])`,
        )
      : [];
    await this.db.transaction(async (tx) => {
      await tx
        .update(amenities)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.address !== undefined ? { address: body.address } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.number_of_persons ? { personsMin: body.number_of_persons.min, personsMax: body.number_of_persons.max } : {}),
          ...(body.time_slots ? { slotDuration: body.time_slots.duration, slotItems: body.time_slots.items } : {}),
          updatedAt: new Date(),
        })
        .where(eq(amenities.id, id));
      await this.link(tx, id, body.domains, body.access_rules);
      // The QR codes of reservations holding places now open the new rules' doors (and no longer the old ones').
      for (const r of live) {
        await this.access.issueIdentifierInTx(tx, {
          id: Number(r.identifier_id),
          projectId: ctx.actor.projectId,
          name: '',
          ruleIds: body.access_rules ?? [],
          validFrom: new Date(r.starts_at),
          validTo: new Date(r.ends_at),
          revoked: false,
          createdBy: null,
        });
      }
      await recordAudit(tx, ctx, { entity: 'amenity', entityId: id, action: 'update', before: this.toAmenity(before), after: body });
    });
    if (live.length) await this.devices.dispatch();
    return this.get(ctx.actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id);
    if (Number(before.live) > 0) throw new AppError('amenity_has_reservations', [{ reservations: Number(before.live) }]);
    if (!before.canDelete) throw prohibited([{ permission: 'can_delete_amenities' }]);
    await this.db.transaction(async (tx) => {
      // A reservation booked meanwhile would be lost with it: checked again under the amenity's lock.
      await tx.execute(sql`SELECT id FROM amenities WHERE id = ${id} FOR UPDATE`);
      const [held] = await queryRows<{ n: number }>(
        tx,
        sql`SELECT count(*)::int AS n FROM amenity_reservations WHERE amenity_id = ${id} AND status = ANY(${`{${RESERVATION_LIVE.join(',')}}`}::text[])`,
      );
      if (Number(held?.n) > 0) throw new AppError('amenity_has_reservations', [{ reservations: Number(held?.n) }]);
      await tx.delete(amenities).where(eq(amenities.id, id));
      await recordAudit(tx, ctx, { entity: 'amenity', entityId: id, action: 'delete', before: this.toAmenity(before) });
    });
    await this.files.remove(before.imagePath);
    await this.files.remove(before.termsPath);
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  // --- files ----------------------------------------------------------------------------------------

  /** Sets the image (PNG, JPEG, GIF, WebP) or the terms of use (PDF), at most 5 MB each. */
  async setFile(ctx: RequestContext, id: number, kind: 'image' | 'terms-of-use', data: Buffer): Promise<Amenity> {
    const before = await this.visible(ctx.actor, id, 'edit');
    if (data.length > AMENITY_DEFAULTS.max_file_bytes)
      throw new AppError('payload_too_large', [{ field: 'file', max: AMENITY_DEFAULTS.max_file_bytes }]);
    let stored: { ext: string; data: Buffer };
    if (kind === 'image') stored = await storableImage(data);
    else if (PDF_MAGIC.every((b, i) => data[i] === b)) stored = { ext: 'pdf', data };
    else throw new AppError('invalid_file', [{ field: 'file', message: 'file must be a pdf document' }]);
    const key = await this.files.put('amenities', stored.ext, stored.data);
    const column = kind === 'image' ? { imagePath: key } : { termsPath: key };
    try {
      await this.db.transaction(async (tx) => {
        await tx
          .update(amenities)
          .set({ ...column, updatedAt: new Date() })
          .where(eq(amenities.id, id));
        await recordAudit(tx, ctx, { entity: 'amenity', entityId: id, action: `set_${kind}`, after: { file: key } });
      });
    } catch (e) {
      await this.files.remove(key);
      throw e;
    }
    await this.files.remove(kind === 'image' ? before.imagePath : before.termsPath);
    return this.get(ctx.actor, id);
  }

  async removeFile(ctx: RequestContext, id: number, kind: 'image' | 'terms-of-use'): Promise<Amenity> {
    const before = await this.visible(ctx.actor, id, 'edit');
    const key = kind === 'image' ? before.imagePath : before.termsPath;
    if (!key) throw new AppError('amenity_file_not_found', [{ field: kind }]);
    await this.db.transaction(async (tx) => {
      await tx
        .update(amenities)
        .set({ ...(kind === 'image' ? { imagePath: null } : { termsPath: null }), updatedAt: new Date() })
        .where(eq(amenities.id, id));
      await recordAudit(tx, ctx, { entity: 'amenity', entityId: id, action: `remove_${kind}`, before: { file: key } });
    });
    await this.files.remove(key);
    return this.get(ctx.actor, id);
  }

  // --- state ----------------------------------------------------------------------------------------

  /** Free places in each slot of a date; slots begun by the caller's clock are past. */
  async state(actor: Actor, id: number, date: string, offset: number, except: number | null, now = new Date()): Promise<AmenityState> {
    const a = await this.visible(actor, id);
    const day = weekDayOf(date);
    const slots = slotsOfDay(timeSlotsOf(a), day);
    const taken = await reservedPerSlot(this.db, id, date, slots, except);
    return {
      amenity_id: id,
      date,
      day,
      number_of_persons: { min: a.personsMin, max: a.personsMax },
      slots: slots.map((s, i) => ({
        ...s,
        reserved: taken[i] ?? 0,
        free_places: Math.max(0, a.personsMax - (taken[i] ?? 0)),
        is_past: instantOf(date, s.from, offset) <= now,
      })),
    };
  }
}
