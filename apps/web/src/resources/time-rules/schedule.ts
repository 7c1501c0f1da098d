import { DAY_SECONDS, type ScheduleEntry, type Weekday } from '@atrium/contract';

/** The week as the form and the list show it: Monday first (the contract's order starts on Sunday). */
export const WEEK: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
/** The days of a new entry. */
export const WORKING_DAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri'];

const pad = (n: number) => String(n).padStart(2, '0');

/** Seconds of the local day → `HH:MM` (what a time input shows); anything else → ''. */
export function hhmm(seconds: unknown): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '';
  const s = Math.min(Math.max(Math.round(seconds), 0), DAY_SECONDS);
  // The end of the day stays 24:00, so a stored 86400 reads back as itself.
  if (s === DAY_SECONDS) return '24:00';
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}`;
}

/**
 * A typed time → seconds of the day: `HH:MM` (and `H:MM`, `HH:MM:SS`, `9.30`, `930`, `9`, as people
 * type them); a number passes as is; anything else → null.
 */
export function secondsOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const m = /^(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?$/.exec(text) ?? /^(\d{1,2})(\d{2})?$/.exec(text);
  if (!m) return null;
  const [h, min, sec] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
  if (h > 24 || min > 59 || sec > 59 || (h === 24 && (min > 0 || sec > 0))) return null;
  return h * 3600 + min * 60 + sec;
}

/** The entry runs past midnight into the next day (from > to; to = 00:00 only ends at midnight). */
export const spansMidnight = (e: { from: number; to: number }): boolean => e.from > e.to && e.to > 0;
/** from = to: the whole of each listed day. */
export const wholeDay = (e: { from: number; to: number }): boolean => e.from === e.to;

/** The listed days in week order, without repeats or unknown values. */
export const orderedDays = (days: readonly unknown[] | undefined): Weekday[] => WEEK.filter((d) => days?.includes(d));

/** The texts a summary is written with, in the viewer's language. */
export interface SummaryTexts {
  /** Short name of a weekday ("Mon"). */
  day: (day: Weekday) => string;
  everyDay: string;
  /** An entry whose from = to. */
  wholeDay: string;
  /** A schedule with `is_all_day`. */
  allDay: string;
  /** A schedule with no entries. */
  none: string;
}

/** "Mon–Fri", "Sat, Sun", "Mon, Wed–Fri": runs of three or more days joined by a dash. */
export function daysText(days: readonly unknown[] | undefined, t: Pick<SummaryTexts, 'day' | 'everyDay'>): string {
  const list = orderedDays(days);
  if (list.length === WEEK.length) return t.everyDay;
  const runs: Weekday[][] = [];
  for (const d of list) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && WEEK.indexOf(d) === WEEK.indexOf(last) + 1) run.push(d);
    else runs.push([d]);
  }
  return runs
    .map((run) => {
      const first = run[0] as Weekday;
      const last = run.at(-1) as Weekday;
      return run.length >= 3 ? `${t.day(first)}–${t.day(last)}` : run.map(t.day).join(', ');
    })
    .join(', ');
}

/** One entry as people say it: "Mon–Fri 09:00–18:00", "Sat 22:00–06:00", "Sun all day". */
export function entryText(e: ScheduleEntry, t: SummaryTexts): string {
  const days = daysText(e.days, t);
  return wholeDay(e) ? `${days} ${t.wholeDay}` : `${days} ${hhmm(e.from)}–${hhmm(e.to)}`;
}

/** A schedule's opening hours on one line, for the list. */
export function scheduleSummary(rule: { is_all_day?: boolean; entries?: readonly ScheduleEntry[] }, t: SummaryTexts): string {
  if (rule.is_all_day) return t.allDay;
  const entries = rule.entries ?? [];
  return entries.length ? entries.map((e) => entryText(e, t)).join('; ') : t.none;
}
