// The one evaluation of access shared by the server ("why was I refused?"), the device simulator
// (a door deciding from what was synced to it) and the console: is a schedule open at an instant,
// and does an identifier open a lock then. Time zones are the runtime's ICU data through Intl
// (the same in Node and in the browser), so wall-clock rules follow DST in every zone.

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Default entry of a new time rule: 09:00 to 18:00 (spec entities §9). */
export const DEFAULT_ENTRY = { from: 32_400, to: 64_800 } as const;

/** A time rule entry: open on the listed weekdays from `from` to `to` (local seconds of the day). */
export interface ScheduleEntry {
  days: readonly Weekday[];
  /**
   * `from < to`: that span of each listed day; `from > to`: it spans midnight, from `from` on a
   * listed day to `to` on the next day; `from = to`: the whole listed day.
   */
  from: number;
  to: number;
}

/** A day that does not follow the entries: a holiday (closed) or an exceptional open day. */
export interface ScheduleException {
  /** Local date, `YYYY-MM-DD`. */
  date: string;
  open: boolean;
}

/** What deciding a schedule needs (the time rule as stored, and as synced to devices). */
export interface ScheduleSpec {
  /** IANA zone the entries' wall-clock times are in. */
  time_zone: string;
  /** First and last local dates it applies on (inclusive), `YYYY-MM-DD`; null: unbounded. */
  valid_from?: string | null;
  valid_to?: string | null;
  /** Open all day on every day (within validity, except closed exceptions). */
  is_all_day?: boolean;
  entries: readonly ScheduleEntry[];
  exceptions?: readonly ScheduleException[];
}

export interface LocalTime {
  /** `YYYY-MM-DD` */
  date: string;
  weekday: Weekday;
  /** Seconds since local midnight (wall clock). */
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    if (formatters.size > 500) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock date, weekday and second of `at` in a time zone (an unknown zone counts as UTC). */
export function localTime(at: Date, timeZone: string): LocalTime {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = formatter(timeZone).formatToParts(at);
  } catch {
    parts = formatter('UTC').formatToParts(at);
  }
  const get = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? '0';
  const weekday = get('weekday').toLowerCase().slice(0, 3) as Weekday;
  return {
    date: `${get('year')}-${get('month')}-${get('day')}`,
    weekday,
    second: Number(get('hour')) * 3600 + Number(get('minute')) * 60 + Number(get('second')),
  };
}

/** The local date before `date` (`YYYY-MM-DD`), by the calendar, leap days included. */
export function previousDate(date: string): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

const previousWeekday = (w: Weekday): Weekday => WEEKDAYS[(WEEKDAYS.indexOf(w) + 6) % 7] as Weekday;

/** Which part of the schedule decides an instant: for explanations. */
export type ScheduleVerdict =
  | { open: true; by: 'all_day' | 'entry' | 'exception'; entry?: number }
  | { open: false; by: 'not_yet_valid' | 'expired' | 'exception' | 'no_entry' };

/** Whether the schedule is open at `at`, and why. */
export function scheduleVerdict(s: ScheduleSpec, at: Date): ScheduleVerdict {
  const now = localTime(at, s.time_zone);
  if (s.valid_from && now.date < s.valid_from) return { open: false, by: 'not_yet_valid' };
  if (s.valid_to && now.date > s.valid_to) return { open: false, by: 'expired' };
  const exception = s.exceptions?.find((e) => e.date === now.date);
  if (exception) return exception.open ? { open: true, by: 'exception' } : { open: false, by: 'exception' };
  if (s.is_all_day) return { open: true, by: 'all_day' };
  const yesterday = previousWeekday(now.weekday);
  // The part after midnight of a span that began yesterday counts only if yesterday itself was open
  // by the rule's dates (a span begun the day before `valid_from` does not reach into it).
  const yesterdayValid = !s.valid_from || previousDate(now.date) >= s.valid_from;
  const yesterdayClosed = s.exceptions?.some((e) => e.date === previousDate(now.date) && !e.open) ?? false;
  for (const [i, e] of s.entries.entries()) {
    if (e.from === e.to) {
      if (e.days.includes(now.weekday)) return { open: true, by: 'entry', entry: i };
    } else if (e.from < e.to) {
      if (e.days.includes(now.weekday) && now.second >= e.from && now.second < e.to) return { open: true, by: 'entry', entry: i };
    } else {
      if (e.days.includes(now.weekday) && now.second >= e.from) return { open: true, by: 'entry', entry: i };
      if (e.days.includes(yesterday) && now.second < e.to && yesterdayValid && !yesterdayClosed)
        return { open: true, by: 'entry', entry: i };
    }
  }
  return { open: false, by: 'no_entry' };
}

export const scheduleOpen = (s: ScheduleSpec, at: Date): boolean => scheduleVerdict(s, at).open;

// --- deciding a door ------------------------------------------------------------------------------

/** One way an identifier reaches a device: the locks of a rule and its schedules (any open; none: always). */
export interface AccessGrant {
  /** The access rule it comes from. */
  rule_id?: number;
  locks: readonly number[];
  schedule_ids: readonly number[];
  /** A prohibition: while it applies, the identifier is refused on these locks, whatever else allows. */
  deny?: boolean;
}

/** An identifier as a device holds it. */
export interface AccessIdentifier {
  id: number;
  value: string;
  revoked?: boolean;
  valid_from?: string | null;
  valid_to?: string | null;
  /** Its pass limit is used up. */
  exhausted?: boolean;
  grants?: readonly AccessGrant[];
  /** The flat form (one grant): locks it opens (absent: every lock) and schedules (absent: always). */
  locks?: readonly number[];
  schedule_ids?: readonly number[];
}

/** Why a door refuses, in the order `decideAccess` checks them. */
export const ACCESS_REFUSALS = ['unknown', 'revoked', 'not_yet_valid', 'expired', 'passes', 'prohibited', 'lock', 'schedule'] as const;
export type AccessRefusal = (typeof ACCESS_REFUSALS)[number];

export type AccessDecision = { granted: true; grant: AccessGrant } | { granted: false; reason: AccessRefusal; grant?: AccessGrant };

/** The grants of an identifier, its flat form read as one grant. */
export function grantsOf(i: AccessIdentifier): readonly AccessGrant[] {
  if (i.grants) return i.grants;
  return [{ locks: i.locks ?? [], schedule_ids: i.schedule_ids ?? [] }];
}

/**
 * Does `identifier` open `lock` at `at`? The device's decision and the server's explanation both
 * come from here. A grant with no locks covers every lock; a grant with no schedules applies at
 * any time; a schedule the device does not hold counts as closed. Prohibitions win.
 */
export function decideAccess(
  identifier: AccessIdentifier | undefined,
  schedules: (id: number) => ScheduleSpec | undefined,
  lock: number,
  at: Date,
): AccessDecision {
  if (!identifier) return { granted: false, reason: 'unknown' };
  if (identifier.revoked) return { granted: false, reason: 'revoked' };
  if (identifier.valid_from && new Date(identifier.valid_from) > at) return { granted: false, reason: 'not_yet_valid' };
  if (identifier.valid_to && new Date(identifier.valid_to) <= at) return { granted: false, reason: 'expired' };
  if (identifier.exhausted) return { granted: false, reason: 'passes' };
  const onLock = grantsOf(identifier).filter((g) => g.locks.length === 0 || g.locks.includes(lock));
  const applies = (g: AccessGrant) =>
    g.schedule_ids.length === 0 ||
    g.schedule_ids.some((id) => {
      const s = schedules(id);
      return s !== undefined && scheduleOpen(s, at);
    });
  const deny = onLock.find((g) => g.deny && applies(g));
  if (deny) return { granted: false, reason: 'prohibited', grant: deny };
  const allows = onLock.filter((g) => !g.deny);
  if (!allows.length) return { granted: false, reason: 'lock' };
  const open = allows.find(applies);
  return open ? { granted: true, grant: open } : { granted: false, reason: 'schedule' };
}
