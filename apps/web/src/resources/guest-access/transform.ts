import type { CreateGuestBody, Identifier, UpdateGuestBody } from '@atrium/contract';

export const GUEST_TYPES = ['guest', 'courier', 'service'] as const;
export type GuestType = (typeof GUEST_TYPES)[number];

const HOUR_MS = 3_600_000;
/** A new guest's validity: from now for a day (the grant page's default). */
export const DEFAULT_PERIOD_HOURS = 24;
/** A new guest's pass limit, once the limit is switched on. */
export const DEFAULT_PASS_LIMIT = 1;

/** The grant form's values: the body's names, dates as a date-time input holds them. */
export interface GuestFormValues {
  name?: string | null;
  access_rules: number[];
  restrict_period: boolean;
  valid_from?: unknown;
  valid_to?: unknown;
  restrict_pass_count: boolean;
  pass_limit?: unknown;
  key_message?: string | null;
  guest_type?: string;
}

/** A date-time input's value (a Date, local "2025-03-01T09:00" or ISO) → ISO, or null. */
export function isoOrNull(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(String(v));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const blankToNull = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

const isGuestType = (v: unknown): v is GuestType => (GUEST_TYPES as readonly unknown[]).includes(v);

/** The form of a new guest (spec entities §3): a guest, valid from now for a day, no pass limit. */
export function newGuestValues(now: Date = new Date()): GuestFormValues {
  return {
    name: '',
    access_rules: [],
    restrict_period: true,
    valid_from: now.toISOString(),
    valid_to: new Date(now.getTime() + DEFAULT_PERIOD_HOURS * HOUR_MS).toISOString(),
    restrict_pass_count: false,
    pass_limit: DEFAULT_PASS_LIMIT,
    key_message: '',
    guest_type: 'guest',
  };
}

/**
 * A guest identifier → the form's values. The message is not part of an identifier as the API
 * answers it, so it starts empty (and an empty message is not sent, keeping the stored one).
 */
export function guestFormValues(record: Identifier, now: Date = new Date()): GuestFormValues & { id: number } {
  const defaults = newGuestValues(now);
  return {
    id: record.id,
    name: record.name,
    access_rules: record.access_rules,
    restrict_period: record.period_restrict_active,
    valid_from: record.period_restrict_from ?? defaults.valid_from,
    valid_to: record.period_restrict_to ?? defaults.valid_to,
    restrict_pass_count: record.passes_restrict_active,
    pass_limit: record.passes_restrict_active ? record.passes_restrict_max_count : DEFAULT_PASS_LIMIT,
    key_message: '',
    guest_type: record.guest_type ?? 'guest',
  };
}

/** The pass limit as sent: the number only while the restriction is on, otherwise 0 (spec entities §5). */
export function passLimitOf(values: Pick<GuestFormValues, 'restrict_pass_count' | 'pass_limit'>): number {
  if (!values.restrict_pass_count) return 0;
  const n = Number(values.pass_limit);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

/** The period as sent: both ends while the restriction is on, otherwise null. */
function periodOf(values: GuestFormValues): { valid_from: string | null; valid_to: string | null } {
  return values.restrict_period
    ? { valid_from: isoOrNull(values.valid_from), valid_to: isoOrNull(values.valid_to) }
    : { valid_from: null, valid_to: null };
}

/** The grant form → `PUT /guest-access`. A blank name is left out: the server gives the fixed one. */
export function createGuestBody(values: GuestFormValues): CreateGuestBody {
  const name = blankToNull(values.name);
  return {
    access_rules: [...(values.access_rules ?? [])],
    restrict_period: !!values.restrict_period,
    ...periodOf(values),
    restrict_pass_count: !!values.restrict_pass_count,
    pass_limit: passLimitOf(values),
    key_message: blankToNull(values.key_message),
    guest_type: isGuestType(values.guest_type) ? values.guest_type : 'guest',
    ...(name ? { name } : {}),
  };
}

/**
 * The edit form → `PATCH /guest-access/{id}`: the same fields but the guest type (fixed once
 * granted); a blank message or name is left out, keeping the stored one.
 */
export function updateGuestBody(values: GuestFormValues): UpdateGuestBody {
  const name = blankToNull(values.name);
  const message = blankToNull(values.key_message);
  return {
    access_rules: [...(values.access_rules ?? [])],
    restrict_period: !!values.restrict_period,
    ...periodOf(values),
    restrict_pass_count: !!values.restrict_pass_count,
    pass_limit: passLimitOf(values),
    ...(message ? { key_message: message } : {}),
    ...(name ? { name } : {}),
  };
}

/** The end of the validity period comes after its start. */
export const validPeriodEnd = (value: unknown, values: Record<string, unknown> = {}): string | undefined => {
  if (!values.restrict_period) return undefined;
  const from = isoOrNull(values.valid_from);
  const to = isoOrNull(value);
  return from && to && Date.parse(from) >= Date.parse(to) ? 'validation.invalid_value' : undefined;
};

/** Passes a guest has left, or null when unlimited. */
export const passesLeft = (i: Pick<Identifier, 'passes_restrict_active' | 'passes_restrict_max_count' | 'passes_restrict_passes_count'>) =>
  i.passes_restrict_active ? Math.max(0, i.passes_restrict_max_count - i.passes_restrict_passes_count) : null;
