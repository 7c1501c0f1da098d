import {
  type BulkDeleteResult,
  type CreateReservationBody,
  type ListMeta,
  type ListQuery,
  RESERVATION_CANCELABLE,
  RESERVATION_EDITABLE,
  RESERVATION_LIVE,
  type Reservation,
  type ReservationLog,
  type ReservationStatus,
  slotsOfDay,
  type UpdateReservationBody,
  weekDayOf,
} from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows, type Tx } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOffset, pageOfIds } from '../../core/list-query.js';
import type { AccessService } from '../access/access.service.js';
import type { DevicesService } from '../devices/devices.service.js';
import {
  type AmenitiesService,
  allowedForUser,
  amenityVisible,
  heldOn,
  instantOf,
  reservedPerSlot,
  takenPerSlot,
  timeSlotsOf,
} from './amenities.service.js';
import { amenityReservationLogs, amenityReservations } from './amenities.table.js';
import { translateLog } from './reservation-logs.js';

const R = qualifiedColumns(amenityReservations);
const LIVE = sql`${`{${RESERVATION_LIVE.join(',')}}`}::text[]`;

export const RESERVATION_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${R.id}`, type: 'number' },
    amenity_id: { expr: sql`${R.amenityId}`, type: 'number' },
    user_id: { expr: sql`${R.userId}`, type: 'number' },
    status: { expr: sql`${R.status}`, type: 'text' },
    date: { expr: sql`${R.date}::timestamptz`, type: 'date' },
    starts_at: { expr: sql`${R.startsAt}`, type: 'date' },
    created_by: { expr: sql`${R.createdBy}`, type: 'number' },
    created_at: { expr: sql`${R.createdAt}`, type: 'date' },
  },
  defaultSort: '-starts_at',
  tiebreak: sql`${R.id} DESC`,
};

/** A reservation belongs to its amenity's groups and to whoever made it. */
const target = (reservation: { amenityId: SQL; createdBy: SQL }): AclTarget => ({
  inGroups: (cond) =>
    sql`EXISTS (SELECT 1 FROM amenity_domains ad JOIN groups g ON g.id = ad.group_id WHERE ad.amenity_id = ${reservation.amenityId} AND ${cond})`,
  createdBy: reservation.createdBy,
});
const rowTarget = target({ amenityId: R.amenityId, createdBy: R.createdBy });
/** Logs follow their own scopes: having made a reservation is not reading its logs. */
const logsTarget: AclTarget = { ...rowTarget, creatorMayView: false };

/** Reservations the actor sees: by their scope, those they made, and those made for them. */
export const reservationVisible = (actor: Actor): SQL =>
  sql`coalesce(${aclPredicate(actor, 'amenity_reservations', 'view', rowTarget)} OR ${R.userId} = ${actor.userId}, FALSE)`;

type Row = typeof amenityReservations.$inferSelect & {
  amenityName: string;
  personsMin: number;
  personsMax: number;
  userName: string | null;
  creatorName: string | null;
  identifierType: string | null;
  identifierValue: string | null;
  canView: boolean;
  canEdit: boolean;
  canDelete: boolean;
  canLogs: boolean;
};

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();
const dayOf = (d: Date | string) => (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10));

/** The caller's calendar date now, on a clock `offset` minutes east of UTC. */
const localToday = (now: Date, offset: number) => new Date(now.getTime() + offset * 60_000).toISOString().slice(0, 10);

export interface AmenityForBooking {
  id: number;
  personsMin: number;
  personsMax: number;
  slotDuration: number;
  slotItems: { days: string[]; from: number; to: number }[];
  rules: number[];
}

/**
 * Reservations (spec comms §3, §4, §7, §8): booked for a user on consecutive slots of an amenity,
 * each with a QR identifier that opens the amenity's doors from the first slot's start to the last
 * one's end (the doors decide by its validity, whatever the time of the sweep); cancelled (the QR is
 * revoked); moved by time (`tick`): reserved → active at the start → expired at the end, inactive
 * while an operator has switched its QR off. Two bookings racing for the last places are serialised
 * by a lock on the amenity's row: the second sees the first's persons.
 */
export class ReservationsService {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly db: Db,
    private readonly amenitiesService: AmenitiesService,
    private readonly access: AccessService,
    private readonly devices: DevicesService,
  ) {}

  private select(actor: Actor) {
    const scoped = (action: string, resource = 'amenity_reservations', on = rowTarget) =>
      sql<boolean>`coalesce(${aclPredicate(actor, resource, action, on)}, FALSE)`;
    return this.db
      .select({
        ...getTableColumns(amenityReservations),
        amenityName: sql<string>`(SELECT a.name FROM amenities a WHERE a.id = ${R.amenityId})`,
        personsMin: sql<number>`(SELECT a.persons_min FROM amenities a WHERE a.id = ${R.amenityId})`,
        personsMax: sql<number>`(SELECT a.persons_max FROM amenities a WHERE a.id = ${R.amenityId})`,
        userName: sql<string | null>`(SELECT u.name FROM users u WHERE u.id = ${R.userId})`,
        creatorName: sql<string | null>`(SELECT u.name FROM users u WHERE u.id = ${R.createdBy})`,
        identifierType: sql<string | null>`(SELECT i.type FROM identifiers i WHERE i.id = ${R.identifierId})`,
        identifierValue: sql<string | null>`(SELECT i.value FROM identifiers i WHERE i.id = ${R.identifierId})`,
        canView: reservationVisible(actor),
        canEdit: scoped('edit'),
        canDelete: scoped('delete'),
        canLogs: scoped('view', 'amenity_reservation_logs', logsTarget),
      })
      .from(amenityReservations);
  }

  private async toReservations(rows: Row[]): Promise<Reservation[]> {
    // Free places of each reservation's slots on its date (one query per amenity and date on the page).
    const free = new Map<number, number>();
    const groups = new Map<string, Row[]>();
    for (const r of rows) groups.set(`${r.amenityId}|${dayOf(r.date)}`, [...(groups.get(`${r.amenityId}|${dayOf(r.date)}`) ?? []), r]);
    for (const list of groups.values()) {
      const first = list[0] as Row;
      const held = await heldOn(this.db, first.amenityId, dayOf(first.date));
      for (const r of list) free.set(r.id, Math.max(0, Number(r.personsMax) - Math.max(0, ...takenPerSlot(held, r.timeSlots, null))));
    }
    return rows.map((r) => ({
      id: r.id,
      amenity: { id: r.amenityId, name: r.amenityName },
      date: dayOf(r.date),
      number_of_persons: r.numberOfPersons,
      user: r.userId && r.userName !== null ? { id: r.userId, name: r.userName } : null,
      identifier:
        r.identifierId && r.identifierValue !== null
          ? { id: r.identifierId, type: r.identifierType ?? 'qr', value: r.identifierValue }
          : null,
      created_by_user: r.createdBy && r.creatorName !== null ? { id: r.createdBy, name: r.creatorName } : null,
      status: r.status as ReservationStatus,
      time_slots: r.timeSlots,
      user_offset: r.userOffset,
      starts_at: iso(r.startsAt),
      ends_at: iso(r.endsAt),
      amenity_state: { number_of_persons: { min: Number(r.personsMin), max: Number(r.personsMax) }, free_places: free.get(r.id) ?? 0 },
      created_at: iso(r.createdAt),
      can_edit: r.canEdit && RESERVATION_EDITABLE.includes(r.status as ReservationStatus),
      can_cancel: r.canEdit && RESERVATION_CANCELABLE.includes(r.status as ReservationStatus),
    }));
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: Reservation[]; meta: ListMeta }> {
    const where = and(
      eq(amenityReservations.projectId, actor.projectId),
      filtersSql(RESERVATION_LIST, q),
      reservationVisible(actor),
      q.search
        ? sql`EXISTS (SELECT 1 FROM users u WHERE u.id = ${R.userId} AND u.name ILIKE ${containsPattern(q.search)})
            OR EXISTS (SELECT 1 FROM amenities a WHERE a.id = ${R.amenityId} AND a.name ILIKE ${containsPattern(q.search)})`
        : undefined,
    );
    const page = await pageOfIds(this.db, { table: amenityReservations, id: sql`${R.id}`, where, spec: RESERVATION_LIST, query: q });
    const rows = page.ids.length ? await this.select(actor).where(sql`${R.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: await this.toReservations(inPageOrder(page.ids, rows as Row[])),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  private async visible(actor: Actor, id: number, action?: 'edit' | 'delete'): Promise<Row> {
    const [r] = await this.select(actor).where(and(eq(amenityReservations.id, id), eq(amenityReservations.projectId, actor.projectId)));
    if (!r?.canView) throw notFound();
    if (action === 'edit' && !r.canEdit) throw prohibited([{ permission: 'can_edit_amenity_reservations' }]);
    if (action === 'delete' && !r.canDelete) throw prohibited([{ permission: 'can_delete_amenity_reservations' }]);
    return r as Row;
  }

  async get(actor: Actor, id: number): Promise<Reservation> {
    const [r] = await this.toReservations([await this.visible(actor, id)]);
    return r as Reservation;
  }

  /** The amenity as a booking needs it; "amenity not found" when it does not exist or the actor cannot see it. */
  private async amenityFor(actor: Actor, amenityId: number): Promise<AmenityForBooking> {
    const [a] = await queryRows<{
      id: number;
      persons_min: number;
      persons_max: number;
      slot_duration: number;
      slot_items: AmenityForBooking['slotItems'];
      rules: number[];
    }>(
      this.db,
      sql`SELECT amenities.id, amenities.persons_min, amenities.persons_max, amenities.slot_duration, amenities.slot_items,
          ARRAY(SELECT ar.rule_id FROM amenity_access_rules ar WHERE ar.amenity_id = amenities.id ORDER BY 1) AS rules
        FROM amenities WHERE amenities.id = ${amenityId} AND amenities.project_id = ${actor.projectId}
          AND ${amenityVisible(actor, sql`amenities.id`, sql`amenities.created_by`)}`,
    );
    if (!a) throw new AppError('amenity_not_found', [{ field: 'amenity_id', id: amenityId }]);
    return {
      id: Number(a.id),
      personsMin: Number(a.persons_min),
      personsMax: Number(a.persons_max),
      slotDuration: Number(a.slot_duration),
      slotItems: a.slot_items,
      rules: a.rules.map(Number),
    };
  }

  /**
   * Spec comms §5 and §8 for a booking: a date not past, consecutive slots of the amenity on that
   * day still ahead, persons within the amenity's limits, doors that read the QR.
   */
  private async check(
    a: AmenityForBooking,
    v: { date: string; slots: { from: number; to: number }[]; persons: number; offset: number },
    now: Date,
  ): Promise<{ slots: { from: number; to: number }[]; startsAt: Date; endsAt: Date }> {
    if (v.date < localToday(now, v.offset)) throw new AppError('amenity_date_not_in_future', [{ field: 'date', date: v.date }]);
    const slots = [...v.slots].sort((x, y) => x.from - y.from);
    for (let i = 1; i < slots.length; i++) {
      const prev = slots[i - 1] as { from: number; to: number };
      if ((slots[i] as { from: number }).from !== prev.to)
        throw new AppError('amenity_inconsistent_slots', [{ field: `time_slots.${i}`, after: prev }]);
    }
    const offered = slotsOfDay(timeSlotsOf(a), weekDayOf(v.date));
    slots.forEach((s, i) => {
      if (!offered.some((o) => o.from === s.from && o.to === s.to))
        throw new AppError('amenity_slot_mismatch', [{ field: `time_slots.${i}`, slot: s, duration: a.slotDuration }]);
    });
    const first = slots[0] as { from: number; to: number };
    const last = slots[slots.length - 1] as { from: number; to: number };
    const startsAt = instantOf(v.date, first.from, v.offset);
    if (startsAt <= now) throw new AppError('amenity_slot_not_in_future', [{ field: 'time_slots.0', slot: first }]);
    if (v.persons < a.personsMin || v.persons > a.personsMax)
      throw new AppError('amenity_person_limits', [{ field: 'number_of_persons', min: a.personsMin, max: a.personsMax }]);
    const lacking = await this.amenitiesService.devicesWithoutQr(this.db, a.rules);
    if (!a.rules.length || lacking.length) throw new AppError('amenity_devices_without_qr', [{ devices: lacking }]);
    return { slots, startsAt, endsAt: instantOf(v.date, last.to, v.offset) };
  }

  /** Under the amenity's lock: refuses when a slot has fewer free places than the persons booked. */
  private async assertFree(
    tx: Tx,
    a: AmenityForBooking,
    date: string,
    slots: { from: number; to: number }[],
    persons: number,
    except: number | null,
  ) {
    await tx.execute(sql`SELECT id FROM amenities WHERE id = ${a.id} FOR UPDATE`);
    const taken = await reservedPerSlot(tx, a.id, date, slots, except);
    const full = slots.findIndex((_, i) => (taken[i] ?? 0) + persons > a.personsMax);
    if (full >= 0)
      throw new AppError('amenity_no_free_places', [
        { field: `time_slots.${full}`, slot: slots[full], free_places: Math.max(0, a.personsMax - (taken[full] ?? 0)) },
      ]);
  }

  private async log(tx: Tx, reservationId: number, event: string, info: Record<string, unknown>, by: number | null) {
    await tx.insert(amenityReservationLogs).values({ reservationId, event, info, createdBy: by });
  }

  async create(ctx: RequestContext, body: CreateReservationBody, now = new Date()): Promise<Reservation> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_amenity_reservations')) throw prohibited([{ permission: 'can_create_amenity_reservations' }]);
    const a = await this.amenityFor(actor, body.amenity_id);
    const userId = body.user_id ?? actor.userId;
    if (userId !== actor.userId && !(await this.access.visibleUsers(actor, [userId])).has(userId))
      throw new AppError('invalid_related_entity', [{ field: 'user_id', entity: 'users', ids: [userId] }]);
    const [allowed] = await queryRows<{ ok: boolean }>(this.db, sql`SELECT ${allowedForUser(sql`${a.id}::int`, userId)} AS ok`);
    if (!allowed?.ok) throw new AppError('amenity_not_allowed_for_user', [{ field: 'user_id', user_id: userId }]);
    const c = await this.check(
      a,
      { date: body.date, slots: body.time_slots, persons: body.number_of_persons, offset: body.user_offset },
      now,
    );
    const id = await this.db.transaction(async (tx) => {
      await this.assertFree(tx, a, body.date, c.slots, body.number_of_persons, null);
      const [row] = await tx
        .insert(amenityReservations)
        .values({
          projectId: actor.projectId,
          amenityId: a.id,
          userId,
          date: body.date,
          numberOfPersons: body.number_of_persons,
          timeSlots: c.slots,
          userOffset: body.user_offset,
          startsAt: c.startsAt,
          endsAt: c.endsAt,
          status: 'reserved',
          createdBy: actor.userId,
        })
        .returning({ id: amenityReservations.id });
      const reservationId = row!.id;
      const qr = await this.access.issueIdentifierInTx(tx, {
        id: null,
        projectId: actor.projectId,
        name: `Reservation #${reservationId}`,
        ruleIds: a.rules,
        validFrom: c.startsAt,
        validTo: c.endsAt,
        revoked: false,
        createdBy: actor.userId,
      });
      await tx.update(amenityReservations).set({ identifierId: qr.id }).where(eq(amenityReservations.id, reservationId));
      await this.log(
        tx,
        reservationId,
        'created',
        { date: body.date, time_slots: c.slots, number_of_persons: body.number_of_persons },
        actor.userId,
      );
      await recordAudit(tx, ctx, { entity: 'amenity_reservation', entityId: reservationId, action: 'create', after: body });
      return reservationId;
    });
    await this.devices.dispatch();
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateReservationBody, now = new Date()): Promise<Reservation> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'edit');
    if (!RESERVATION_EDITABLE.includes(before.status as ReservationStatus))
      throw new AppError('reservation_not_editable', [{ status: before.status }]);
    const a = await this.amenityFor(actor, before.amenityId);
    const date = body.date ?? dayOf(before.date);
    const persons = body.number_of_persons ?? before.numberOfPersons;
    const offset = body.user_offset ?? before.userOffset;
    const c = await this.check(a, { date, slots: body.time_slots ?? before.timeSlots, persons, offset }, now);
    await this.db.transaction(async (tx) => {
      await this.assertFree(tx, a, date, c.slots, persons, id);
      // Changed only from a status that may be: a sweep or a cancel in between wins.
      const changed = await tx
        .update(amenityReservations)
        .set({
          date,
          numberOfPersons: persons,
          timeSlots: c.slots,
          userOffset: offset,
          startsAt: c.startsAt,
          endsAt: c.endsAt,
          updatedAt: new Date(),
        })
        .where(
          sql`${amenityReservations.id} = ${id} AND ${amenityReservations.status} = ANY(${`{${RESERVATION_EDITABLE.join(',')}}`}::text[])`,
        )
        .returning({ id: amenityReservations.id });
      if (!changed.length) throw new AppError('reservation_not_editable', [{ status: before.status }]);
      if (before.identifierId)
        await this.access.issueIdentifierInTx(tx, {
          id: before.identifierId,
          projectId: actor.projectId,
          name: '',
          ruleIds: a.rules,
          validFrom: c.startsAt,
          validTo: c.endsAt,
          revoked: false,
          createdBy: null,
        });
      await this.log(
        tx,
        id,
        'updated',
        {
          before: { date: dayOf(before.date), time_slots: before.timeSlots, number_of_persons: before.numberOfPersons },
          date,
          time_slots: c.slots,
          number_of_persons: persons,
        },
        actor.userId,
      );
      await recordAudit(tx, ctx, { entity: 'amenity_reservation', entityId: id, action: 'update', after: body });
    });
    await this.devices.dispatch();
    return this.get(actor, id);
  }

  /** Cancels it: its places are free again and its QR is revoked at once. */
  async cancel(ctx: RequestContext, id: number): Promise<Reservation> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'edit');
    if (!RESERVATION_CANCELABLE.includes(before.status as ReservationStatus))
      throw new AppError('reservation_not_cancelable', [{ status: before.status }]);
    const [rules] = await queryRows<{ ids: number[] }>(
      this.db,
      sql`SELECT ARRAY(SELECT rule_id FROM amenity_access_rules WHERE amenity_id = ${before.amenityId}) AS ids`,
    );
    await this.db.transaction(async (tx) => {
      const changed = await tx
        .update(amenityReservations)
        .set({ status: 'canceled', updatedAt: new Date() })
        .where(
          sql`${amenityReservations.id} = ${id} AND ${amenityReservations.status} = ANY(${`{${RESERVATION_CANCELABLE.join(',')}}`}::text[])`,
        )
        .returning({ id: amenityReservations.id });
      if (!changed.length) throw new AppError('reservation_not_cancelable', [{ status: before.status }]);
      if (before.identifierId)
        await this.access.issueIdentifierInTx(tx, {
          id: before.identifierId,
          projectId: actor.projectId,
          name: '',
          ruleIds: (rules?.ids ?? []).map(Number),
          validFrom: before.startsAt,
          validTo: before.endsAt,
          revoked: true,
          createdBy: null,
        });
      await this.log(tx, id, 'canceled', { from: before.status }, actor.userId);
      await recordAudit(tx, ctx, { entity: 'amenity_reservation', entityId: id, action: 'cancel' });
    });
    await this.devices.dispatch();
    return this.get(actor, id);
  }

  /** Deletes a reservation that no longer holds places (cancelled or expired). */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id, 'delete');
    if (RESERVATION_LIVE.includes(before.status as ReservationStatus)) throw new AppError('reservation_live', [{ status: before.status }]);
    await this.db.transaction(async (tx) => {
      await tx
        .delete(amenityReservations)
        .where(sql`${amenityReservations.id} = ${id} AND NOT (${amenityReservations.status} = ANY(${LIVE}))`);
      await recordAudit(tx, ctx, { entity: 'amenity_reservation', entityId: id, action: 'delete', before: { status: before.status } });
    });
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  async logs(actor: Actor, id: number, q: { page: number; size: number }): Promise<{ data: ReservationLog[]; meta: ListMeta }> {
    const r = await this.visible(actor, id);
    if (!r.canLogs) throw prohibited([{ permission: 'can_view_own_amenity_reservation_logs' }]);
    const [locale] = await queryRows<{ locale: string }>(this.db, sql`SELECT locale FROM users WHERE id = ${actor.userId}`);
    const rows = await queryRows<{ id: number; event: string; info: Record<string, unknown>; created_at: string; total: number }>(
      this.db,
      sql`SELECT id, event, info, created_at, count(*) OVER ()::int AS total FROM amenity_reservation_logs
        WHERE reservation_id = ${id} ORDER BY created_at DESC, id DESC LIMIT ${q.size} OFFSET ${pageOffset(q)}`,
    );
    return {
      data: rows.map((l) => ({
        id: Number(l.id),
        event: l.event,
        created_at: iso(l.created_at),
        info: l.info,
        translated_info: translateLog(l.event, l.info, locale?.locale === 'ru' ? 'ru' : 'en'),
      })),
      meta: { total: Number(rows[0]?.total ?? 0), page: q.page, size: q.size },
    };
  }

  // --- time ------------------------------------------------------------------------------------------

  /**
   * Moves statuses by time: reserved → active at the first slot's start, → expired at the last one's
   * end; inactive while the reservation's QR is switched off or revoked (and back once it is on).
   * Rows are claimed with SKIP LOCKED, so instances sweeping together move each row once.
   */
  async tick(now = new Date()): Promise<number> {
    const at = now.toISOString();
    return this.db.transaction(async (tx) => {
      const due = await queryRows<{ id: number; old: string; new: string }>(
        tx,
        sql`SELECT r.id, r.status AS old,
            CASE WHEN r.ends_at <= ${at}::timestamptz THEN 'expired'
                 WHEN i.id IS NULL OR NOT i.is_active OR i.revoked_at IS NOT NULL THEN 'inactive'
                 WHEN r.starts_at <= ${at}::timestamptz THEN 'active' ELSE 'reserved' END AS new
          FROM amenity_reservations r LEFT JOIN identifiers i ON i.id = r.identifier_id
          WHERE r.status = ANY(${LIVE})
            AND (r.starts_at <= ${at}::timestamptz OR r.status = 'inactive' OR i.id IS NULL OR NOT i.is_active OR i.revoked_at IS NOT NULL)
          ORDER BY r.starts_at LIMIT 1000 FOR UPDATE OF r SKIP LOCKED`,
      );
      const moved = due.filter((d) => d.old !== d.new);
      for (const m of moved) {
        await tx
          .update(amenityReservations)
          .set({ status: m.new, updatedAt: now })
          .where(eq(amenityReservations.id, Number(m.id)));
        await this.log(tx, Number(m.id), 'status_changed', { from: m.old, to: m.new }, null);
      }
      return moved.length;
    });
  }

  /** Sweeps every `intervalMs` until stopped; a failed sweep is reported and the next one tries again. */
  start(intervalMs: number, onError: (e: unknown) => void): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch(onError)
        .finally(() => {
          this.running = null;
        });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
