import { type CreateTimeRuleBody, DEFAULT_ENTRY, type UpdateTimeRuleBody } from '@atrium/contract';
import { hhmm, orderedDays, secondsOf, WORKING_DAYS } from './schedule';

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
/** A date input's value as the API's local date (`YYYY-MM-DD`), or null when emptied. */
const localDate = (v: unknown): string | null => {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString().slice(0, 10);
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null;
};
const idsOf = (v: unknown): number[] =>
  Array.isArray(v)
    ? v.map((x) => Number(x && typeof x === 'object' ? (x as { id: unknown }).id : x)).filter((n) => Number.isInteger(n) && n > 0)
    : [];
const rows = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : [];

/** Entries as the API takes them: days in week order, times in seconds (the form may hold `HH:MM`). */
export const entriesBody = (v: unknown) =>
  rows(v).map((e) => ({
    days: orderedDays(Array.isArray(e.days) ? e.days : []),
    from: secondsOf(e.from) ?? DEFAULT_ENTRY.from,
    to: secondsOf(e.to) ?? DEFAULT_ENTRY.to,
  }));

/** Exception days by date, each closed unless marked open; rows without a date are left out. */
export const exceptionsBody = (v: unknown) =>
  rows(v)
    .map((e) => ({ date: localDate(e.date), open: e.open === true }))
    .filter((e): e is { date: string; open: boolean } => e.date !== null)
    .sort((a, b) => a.date.localeCompare(b.date));

/**
 * The form's values (or the record as read) → the body the API takes: only its fields (the record
 * carries read-only ones such as `can_edit`), '' → null, dates as `YYYY-MM-DD`, times in seconds.
 * Applied to both the values and the record on edit, so `patchTransform` sends only what changed.
 */
export function timeRuleBody(values: Record<string, unknown>, mode: 'create' | 'edit'): CreateTimeRuleBody | UpdateTimeRuleBody {
  const out: Record<string, unknown> = {};
  const has = (f: string) => values[f] !== undefined;
  if (has('name')) out.name = String(values.name ?? '').trim();
  if (has('description')) out.description = blank(values.description) ? null : String(values.description).trim();
  if (has('domain_id') && !blank(values.domain_id)) out.domain_id = Number(values.domain_id);
  if (has('time_zone') && !blank(values.time_zone)) out.time_zone = values.time_zone;
  for (const f of ['valid_from', 'valid_to'] as const) if (has(f)) out[f] = localDate(values[f]);
  if (has('is_all_day')) out.is_all_day = values.is_all_day === true;
  if (has('repeat_mode') && !blank(values.repeat_mode)) out.repeat_mode = values.repeat_mode;
  if (has('entries')) out.entries = entriesBody(values.entries);
  if (has('exceptions')) out.exceptions = exceptionsBody(values.exceptions);
  if (has('access_rules')) out.access_rules = idsOf(values.access_rules);
  if (mode === 'create') for (const f of ['description', 'valid_from', 'valid_to']) if (out[f] === null) delete out[f];
  return out as CreateTimeRuleBody | UpdateTimeRuleBody;
}

/** A new schedule starts open on working days 09:00–18:00 (spec entities §9), in the viewer's time zone. */
export const newTimeRuleRecord = (timeZone: string) => ({
  time_zone: timeZone,
  valid_from: null,
  valid_to: null,
  is_all_day: false,
  repeat_mode: 'weekly',
  entries: [{ days: [...WORKING_DAYS], from: DEFAULT_ENTRY.from, to: DEFAULT_ENTRY.to }],
  exceptions: [],
  access_rules: [],
});

/** The viewer's zone, when the zone picker offers it: their profile's, else the browser's; otherwise none (they choose). */
export const viewerTimeZone = (profileZone: string | null | undefined, offered: readonly string[]): string => {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return [profileZone, browserZone].find((z): z is string => !!z && offered.includes(z)) ?? '';
};

/** The record as the form edits it: entry times as `HH:MM` text (`timeRuleBody` turns them back into seconds). */
export const toFormValues = <T extends { entries?: unknown }>(record: T): T => ({
  ...record,
  entries: rows(record.entries).map((e) => ({ ...e, from: hhmm(e.from), to: hhmm(e.to) })),
});

/** Form checks the API would refuse anyway, said next to the field. */
export const validateDays = (value: unknown): string | undefined =>
  Array.isArray(value) && value.length > 0 ? undefined : 'schedules.days_required';

export const validateTime = (value: unknown): string | undefined =>
  value === undefined || value === null || value === '' || secondsOf(value) !== null ? undefined : 'schedules.time_invalid';

export const validateValidTo = (value: unknown, values: Record<string, unknown> = {}): string | undefined => {
  const from = localDate(values.valid_from);
  const to = localDate(value);
  return from && to && to < from ? 'schedules.valid_to_before_from' : undefined;
};

export const validateExceptions = (value: unknown): string | undefined => {
  const dates = rows(value)
    .map((e) => localDate(e.date))
    .filter(Boolean);
  return new Set(dates).size === dates.length ? undefined : 'schedules.exception_dates_unique';
};
