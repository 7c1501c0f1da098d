import { z } from 'zod';
import { IdSchema, IdValueSchema, ListQuerySchema } from './list-query.js';
import { WEEK_DAYS, type WeekDay } from './telephony.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Amenities and reservations (spec comms §3, §4, §5, §7, §8): bookable facilities (a gym, a
// laundry, a meeting room) with their groups, access rules, persons and time slots; reservations
// of their slots by residents, each with a QR identifier that opens the amenity's doors during the
// reserved slots only. Paths: /amenities, /amenities/{id}/state/{date}, /amenities/reservations.

/** Defaults and limits of spec comms §9. */
export const AMENITY_DEFAULTS = {
  persons_min: 1,
  persons_max: 500,
  /** Seconds of one bookable slot. */
  slot_duration: 3600,
  /** Largest persons count an amenity may take. */
  persons_limit: 10_000,
  /** Largest image and terms-of-use file, in bytes. */
  max_file_bytes: 5 * 1024 * 1024,
} as const;

/**
 * Device models whose readers take QR codes: an amenity's doors must read the reservation's QR
 * (spec comms §8 "access rule with devices lacking QR"). Panels read it with their camera, access
 * controllers with their reader ports; monitors, barriers (licence plates) and lift controllers do not.
 */
export const QR_READER_MODELS: readonly string[] = ['AP-100', 'AP-200', 'AP-300F', 'AC-2', 'AC-4'];
export const readsQr = (model: string | null | undefined): boolean => !!model && QR_READER_MODELS.includes(model);

/** Form messages of this area the shared catalogue does not have (console keys). */
export const AMENITY_VALIDATION_MESSAGES = {
  /** "a slot's length must be a multiple of the duration" */
  slot_multiple: 'validation.amenity_slot_multiple',
  /** "select at least one day" */
  at_least_one_day: 'validation.at_least_one_day',
  /** "time slots cannot intersect" */
  slots_intersect: 'validation.amenity_slots_intersect',
  /** "Item should be active": a slot picked that is past or full. */
  item_should_be_active: 'validation.item_should_be_active',
  /** "from must be below to" */
  slot_order: 'validation.amenity_slot_order',
} as const;
const A = AMENITY_VALIDATION_MESSAGES;

const SECONDS = z.number().int().min(0).max(86_400);

/** One line of an amenity's week: days, and a window of the day cut into slots of `duration`. */
export const AmenitySlotItemSchema = z
  .object({
    days: z
      .array(z.enum(WEEK_DAYS))
      .max(7)
      .refine((d) => d.length > 0, A.at_least_one_day)
      .transform((d) => WEEK_DAYS.filter((w) => d.includes(w))),
    from: SECONDS,
    to: SECONDS,
  })
  .refine((i) => i.from < i.to, { message: A.slot_order, path: ['to'] });
export type AmenitySlotItem = z.infer<typeof AmenitySlotItemSchema>;

/** Two windows of the week meet: a day in common and overlapping times. */
export const slotItemsIntersect = (a: AmenitySlotItem, b: AmenitySlotItem): boolean =>
  a.days.some((d) => b.days.includes(d)) && a.from < b.to && b.from < a.to;

/** Spec comms §5: at least one slot; each a multiple of the duration; none intersecting another. */
export const AmenityTimeSlotsSchema = z
  .object({
    duration: z.number().int().min(60).max(86_400).default(AMENITY_DEFAULTS.slot_duration),
    items: z.array(AmenitySlotItemSchema).min(1, M.required).max(100),
  })
  .superRefine((v, ctx) => {
    v.items.forEach((item, i) => {
      if ((item.to - item.from) % v.duration !== 0)
        ctx.addIssue({ code: 'custom', message: A.slot_multiple, path: ['items', i, 'to'], params: { duration: v.duration } });
      for (let j = 0; j < i; j++) {
        const other = v.items[j] as AmenitySlotItem;
        if (slotItemsIntersect(other, item)) ctx.addIssue({ code: 'custom', message: A.slots_intersect, path: ['items', i, 'from'] });
      }
    });
  });
export type AmenityTimeSlots = z.infer<typeof AmenityTimeSlotsSchema>;

export const AmenityPersonsSchema = z
  .object({
    min: z.number().int().min(1).max(AMENITY_DEFAULTS.persons_limit).default(AMENITY_DEFAULTS.persons_min),
    max: z.number().int().min(1).max(AMENITY_DEFAULTS.persons_limit).default(AMENITY_DEFAULTS.persons_max),
  })
  .refine((p) => p.min <= p.max, { message: M.greater_than, path: ['max'] });

/** The slots of one day of the week: every item of that day cut into `duration` pieces, in order. */
export function slotsOfDay(slots: AmenityTimeSlots, day: WeekDay): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (const item of slots.items) {
    if (!item.days.includes(day)) continue;
    for (let from = item.from; from + slots.duration <= item.to; from += slots.duration) out.push({ from, to: from + slots.duration });
  }
  return out.sort((a, b) => a.from - b.from);
}

/** The day code of a calendar date (YYYY-MM-DD). */
export function weekDayOf(date: string): WeekDay {
  const d = new Date(`${date}T00:00:00Z`).getUTCDay();
  return WEEK_DAYS[(d + 6) % 7] as WeekDay;
}

/** A calendar date, as the reservation form and the state call name it. */
export const CalendarDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, M.invalid_value)
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s && s >= '2000-01-01' && s <= '2999-12-31';
  }, M.invalid_value);

/** PUT /amenities. */
export const CreateAmenityBodySchema = z.strictObject({
  name: z.string().trim().min(1, M.required).max(64),
  address: z.string().trim().max(255).nullable().optional(),
  description: z.string().trim().max(2000).nullable().optional(),
  /** Groups whose residents may book it: at least one (spec comms §5). */
  domains: z.array(IdValueSchema).min(1, M.required).max(100),
  /** Rules whose doors a reservation's QR opens: at least one (spec comms §5). */
  access_rules: z.array(IdValueSchema).min(1, M.required).max(20),
  number_of_persons: AmenityPersonsSchema.default({ min: AMENITY_DEFAULTS.persons_min, max: AMENITY_DEFAULTS.persons_max }),
  time_slots: AmenityTimeSlotsSchema,
});
export type CreateAmenityBody = z.infer<typeof CreateAmenityBodySchema>;
/** PATCH /amenities/{id}. */
// Written out, not `.partial()`: a default inside would put the defaults back on every change.
export const UpdateAmenityBodySchema = z.strictObject({
  name: CreateAmenityBodySchema.shape.name.optional(),
  address: CreateAmenityBodySchema.shape.address,
  description: CreateAmenityBodySchema.shape.description,
  domains: CreateAmenityBodySchema.shape.domains.optional(),
  access_rules: CreateAmenityBodySchema.shape.access_rules.optional(),
  number_of_persons: AmenityPersonsSchema.optional(),
  time_slots: AmenityTimeSlotsSchema.optional(),
});
export type UpdateAmenityBody = z.infer<typeof UpdateAmenityBodySchema>;

const NamedRefSchema = z.object({ id: z.number(), name: z.string() });

export const AmenitySchema = z.object({
  id: z.number(),
  name: z.string(),
  address: z.string().nullable(),
  description: z.string().nullable(),
  domains: z.array(z.number()),
  access_rules: z.array(z.number()),
  number_of_persons: z.object({ min: z.number(), max: z.number() }),
  time_slots: z.object({
    duration: z.number(),
    items: z.array(z.object({ days: z.array(z.enum(WEEK_DAYS)), from: z.number(), to: z.number() })),
  }),
  /** Addresses of the files (GET, no sign-in needed: the keys are not guessable), or null. */
  files: z.object({ image: z.string().nullable(), terms_of_use: z.string().nullable() }),
  created_by_user: NamedRefSchema.nullable(),
  /** Reservations reserved or in use: while there are any, slots cannot change and it cannot be deleted. */
  live_reservations: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type Amenity = z.infer<typeof AmenitySchema>;

/** GET /amenities. Filterable: id, name, address, domain_id, created_by, created_at. */
export const AmenityListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

/**
 * The offset of the caller's wall clock from UTC, in minutes east (Moscow 180, New York -300): the
 * reservation's date and slots are that clock's, and "in the future" is judged by it.
 */
export const UserOffsetSchema = z.coerce.number().int().min(-840).max(840);

/** GET /amenities/{id}/state/{date}. */
export const AmenityStateParamsSchema = z.object({ id: IdSchema, date: CalendarDateSchema });
export const AmenityStateQuerySchema = z.object({
  user_offset: UserOffsetSchema.default(0),
  /** A reservation being edited: its own persons do not take places. */
  except: IdSchema.optional(),
});
export const AmenitySlotStateSchema = z.object({
  from: z.number(),
  to: z.number(),
  reserved: z.number(),
  free_places: z.number(),
  /** The slot has begun (or ended) by the caller's clock: it cannot be booked. */
  is_past: z.boolean(),
});
export const AmenityStateSchema = z.object({
  amenity_id: z.number(),
  date: z.string(),
  day: z.enum(WEEK_DAYS),
  number_of_persons: z.object({ min: z.number(), max: z.number() }),
  slots: z.array(AmenitySlotStateSchema),
});
export type AmenityState = z.infer<typeof AmenityStateSchema>;

// --- reservations ------------------------------------------------------------------------------------

export const RESERVATION_STATUSES = ['inactive', 'active', 'reserved', 'canceled', 'expired'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];
/** Statuses in which a reservation can still be changed: not once in use, cancelled or over. */
export const RESERVATION_EDITABLE: readonly ReservationStatus[] = ['reserved', 'inactive'];
/** Statuses in which it can be cancelled: not once cancelled or over. */
export const RESERVATION_CANCELABLE: readonly ReservationStatus[] = ['reserved', 'inactive', 'active'];
/** Statuses that hold places and keep an amenity from being deleted. */
export const RESERVATION_LIVE: readonly ReservationStatus[] = ['reserved', 'active', 'inactive'];

export const ReservationSlotSchema = z
  .object({ from: SECONDS, to: SECONDS })
  .refine((s) => s.from < s.to, { message: A.slot_order, path: ['to'] });

/** PUT /amenities/reservations. */
export const CreateReservationBodySchema = z.strictObject({
  amenity_id: IdValueSchema,
  date: CalendarDateSchema,
  number_of_persons: z.number().int().min(1).max(AMENITY_DEFAULTS.persons_limit),
  /** For whom: the caller when absent. */
  user_id: IdValueSchema.optional(),
  /** Consecutive slots of the amenity on that date: at least one (spec comms §5). */
  time_slots: z.array(ReservationSlotSchema).min(1, M.required).max(96),
  user_offset: UserOffsetSchema,
});
export type CreateReservationBody = z.infer<typeof CreateReservationBodySchema>;
/** PATCH /amenities/reservations/{id}. */
export const UpdateReservationBodySchema = z.strictObject({
  date: CalendarDateSchema.optional(),
  number_of_persons: z.number().int().min(1).max(AMENITY_DEFAULTS.persons_limit).optional(),
  time_slots: z.array(ReservationSlotSchema).min(1, M.required).max(96).optional(),
  /** The clock of this change; the reservation's own when absent. */
  user_offset: UserOffsetSchema.optional(),
});
export type UpdateReservationBody = z.infer<typeof UpdateReservationBodySchema>;

export const ReservationSchema = z.object({
  id: z.number(),
  amenity: NamedRefSchema,
  date: z.string(),
  number_of_persons: z.number(),
  user: NamedRefSchema.nullable(),
  /** The QR that opens the amenity's doors during the slots (shown to the holder and those who may see it). */
  identifier: z.object({ id: z.number(), type: z.string(), value: z.string() }).nullable(),
  created_by_user: NamedRefSchema.nullable(),
  status: z.enum(RESERVATION_STATUSES),
  time_slots: z.array(z.object({ from: z.number(), to: z.number() })),
  user_offset: z.number(),
  starts_at: z.string(),
  ends_at: z.string(),
  /** The amenity on the reservation's date: its persons limits and the fewest places left in the reserved slots. */
  amenity_state: z.object({ number_of_persons: z.object({ min: z.number(), max: z.number() }), free_places: z.number() }),
  created_at: z.string(),
  can_edit: z.boolean(),
  can_cancel: z.boolean(),
});
export type Reservation = z.infer<typeof ReservationSchema>;

/** GET /amenities/reservations. Filterable: id, amenity_id, user_id, status, date, created_by, created_at. */
export const ReservationListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

export const RESERVATION_LOG_EVENTS = ['created', 'updated', 'canceled', 'status_changed'] as const;
export type ReservationLogEvent = (typeof RESERVATION_LOG_EVENTS)[number];

export const ReservationLogSchema = z.object({
  id: z.number(),
  event: z.string(),
  created_at: z.string(),
  info: z.record(z.string(), z.unknown()),
  /** The entry as a sentence in the reader's language (English or Russian). */
  translated_info: z.string(),
});
export type ReservationLog = z.infer<typeof ReservationLogSchema>;
export const ReservationLogsQuerySchema = ListQuerySchema.pick({ page: true, size: true });
