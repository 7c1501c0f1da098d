import {
  AMENITY_DEFAULTS,
  AMENITY_VALIDATION_MESSAGES,
  type Amenity,
  type AmenityState,
  AmenityTimeSlotsSchema,
  type Reservation,
  VALIDATION_MESSAGES,
  type WeekDay,
} from '@atrium/contract';

/** Seconds of the day as HH:MM (86400 is 24:00, the end of the day). */
export const hhmm = (s: number): string =>
  `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;

/** HH:MM (00:00 to 24:00) as seconds of the day, or null when it is not a time. */
export function secondsOf(text: unknown): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(String(text ?? '').trim());
  if (!m) return null;
  const [h, min] = [Number(m[1]), Number(m[2])];
  if (min > 59 || h > 24 || (h === 24 && min > 0)) return null;
  return h * 3600 + min * 60;
}

export const validateTime = (v: unknown): string | undefined =>
  v === undefined || v === null || v === ''
    ? VALIDATION_MESSAGES.required
    : secondsOf(v) === null
      ? VALIDATION_MESSAGES.invalid_value
      : undefined;

/** The amenity form's values: times as HH:MM, durations in minutes. */
export interface AmenityFormValues {
  name: string;
  address?: string | null;
  description?: string | null;
  domains: number[];
  access_rules: number[];
  number_of_persons: { min: number; max: number };
  time_slots: { duration_minutes: number; items: { days: WeekDay[]; from: string; to: string }[] };
}

export function amenityFormValues(a?: Amenity): AmenityFormValues {
  return {
    name: a?.name ?? '',
    address: a?.address ?? '',
    description: a?.description ?? '',
    domains: a?.domains ?? [],
    access_rules: a?.access_rules ?? [],
    number_of_persons: a?.number_of_persons ?? { min: AMENITY_DEFAULTS.persons_min, max: AMENITY_DEFAULTS.persons_max },
    time_slots: {
      duration_minutes: (a?.time_slots.duration ?? AMENITY_DEFAULTS.slot_duration) / 60,
      items: (a?.time_slots.items ?? []).map((i) => ({ days: i.days, from: hhmm(i.from), to: hhmm(i.to) })),
    },
  };
}

/** The body of PUT /amenities and PATCH /amenities/{id} (times in seconds, as the API takes them). */
export function amenityBody(v: AmenityFormValues) {
  const text = (s: string | null | undefined) => (s?.trim() ? s.trim() : null);
  return {
    name: v.name,
    address: text(v.address),
    description: text(v.description),
    domains: v.domains ?? [],
    access_rules: v.access_rules ?? [],
    number_of_persons: { min: Number(v.number_of_persons?.min), max: Number(v.number_of_persons?.max) },
    time_slots: {
      duration: Math.round(Number(v.time_slots?.duration_minutes) * 60),
      items: (v.time_slots?.items ?? []).map((i) => ({ days: i.days ?? [], from: secondsOf(i.from) ?? -1, to: secondsOf(i.to) ?? -1 })),
    },
  };
}

type Errors = { [key: string]: string | Errors | Errors[] | undefined };

/**
 * The form's slot rules, checked by the contract's own schema (spec comms §5: from below to, a
 * multiple of the duration, at least one day, no intersecting slots), as react-admin's nested errors.
 */
export function validateAmenityForm(v: AmenityFormValues): Errors {
  const errors: Errors = {};
  const body = amenityBody(v);
  if (!(v.time_slots?.items ?? []).length) errors.time_slots = { items: VALIDATION_MESSAGES.required } as Errors;
  if (Number(v.number_of_persons?.min) > Number(v.number_of_persons?.max))
    errors.number_of_persons = { max: VALIDATION_MESSAGES.greater_than } as Errors;
  const parsed = AmenityTimeSlotsSchema.safeParse(body.time_slots);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [head, index, field] = issue.path as (string | number)[];
      if (head !== 'items' || typeof index !== 'number' || typeof field !== 'string') continue;
      // Times that are not times already say so on their own field.
      if ((field === 'from' || field === 'to') && secondsOf(v.time_slots.items[index]?.[field]) === null) continue;
      const slots = ((errors.time_slots as Errors | undefined) ?? {}) as Errors;
      const items = (Array.isArray(slots.items) ? slots.items : []) as Errors[];
      items[index] = { ...(items[index] ?? {}), [field]: issue.message };
      errors.time_slots = { ...slots, items };
    }
  }
  return errors;
}

export const isSlotMessage = (m: string) => Object.values(AMENITY_VALIDATION_MESSAGES).includes(m as never);

// --- reservations -----------------------------------------------------------------------------------

/** The browser's offset from UTC in minutes east (the API's `user_offset`). */
export const browserOffset = (d = new Date()): number => -d.getTimezoneOffset();

export type Slot = { from: number; to: number };
export const sameSlot = (a: Slot, b: Slot) => a.from === b.from && a.to === b.to;

/**
 * Picks or drops a slot of the day: a reservation is one run of consecutive slots, so a slot next
 * to the run extends it, one inside it at an end shortens it, and any other starts a new run.
 */
export function toggleSlot(selected: readonly Slot[], slot: Slot): Slot[] {
  const run = [...selected].sort((a, b) => a.from - b.from);
  if (!run.length) return [slot];
  const first = run[0] as Slot;
  const last = run[run.length - 1] as Slot;
  if (run.some((s) => sameSlot(s, slot))) {
    if (sameSlot(first, slot)) return run.slice(1);
    if (sameSlot(last, slot)) return run.slice(0, -1);
    return [slot];
  }
  if (slot.to === first.from) return [slot, ...run];
  if (slot.from === last.to) return [...run, slot];
  return [slot];
}

/** A slot can be picked: not begun, and with room for the persons. */
export const slotAvailable = (s: AmenityState['slots'][number], persons: number): boolean => !s.is_past && s.free_places >= persons;

/** "Item should be active": a picked slot that is past or full now. */
export function validatePickedSlots(picked: readonly Slot[] | undefined, state: AmenityState | null, persons: number): string | undefined {
  if (!picked?.length) return VALIDATION_MESSAGES.required;
  if (!state) return undefined;
  const bad = picked.some((p) => {
    const s = state.slots.find((x) => sameSlot(x, p));
    return !s || !slotAvailable(s, persons);
  });
  return bad ? AMENITY_VALIDATION_MESSAGES.item_should_be_active : undefined;
}

/** The reserved time as HH:MM–HH:MM. */
export const spanText = (slots: readonly Slot[]): string =>
  slots.length ? `${hhmm((slots[0] as Slot).from)}–${hhmm((slots[slots.length - 1] as Slot).to)}` : '';

export interface ReservationFormValues {
  amenity_id?: number;
  user_id?: number | null;
  date?: string;
  number_of_persons: number;
  time_slots: Slot[];
}

export const reservationFormValues = (r?: Reservation): ReservationFormValues => ({
  amenity_id: r?.amenity.id,
  user_id: r?.user?.id ?? null,
  date: r?.date,
  number_of_persons: r?.number_of_persons ?? 1,
  time_slots: r?.time_slots ?? [],
});

export function createReservationBody(v: ReservationFormValues, offset = browserOffset()) {
  return {
    amenity_id: Number(v.amenity_id),
    date: String(v.date ?? '').slice(0, 10),
    number_of_persons: Number(v.number_of_persons),
    ...(v.user_id ? { user_id: Number(v.user_id) } : {}),
    time_slots: [...(v.time_slots ?? [])].sort((a, b) => a.from - b.from),
    user_offset: offset,
  };
}

export function updateReservationBody(v: ReservationFormValues, offset = browserOffset()) {
  const { amenity_id: _a, user_id: _u, ...rest } = createReservationBody(v, offset);
  return rest;
}
