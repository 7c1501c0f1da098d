import { describe, expect, it } from 'vitest';
import {
  ACCESS_REFUSALS,
  type AccessGrant,
  type AccessIdentifier,
  decideAccess,
  grantsOf,
  localTime,
  previousDate,
  type ScheduleEntry,
  type ScheduleSpec,
  scheduleOpen,
  scheduleVerdict,
  WEEKDAYS,
  type Weekday,
} from './access.js';

// Every instant below is an exact UTC instant; the comments give the wall clock it is in the zone.

const H = 3600;
const EVERY_DAY: readonly Weekday[] = WEEKDAYS;
const at = (iso: string) => new Date(iso);
const plus = (d: Date, seconds: number) => new Date(d.getTime() + seconds * 1000);
const spec = (time_zone: string, entries: ScheduleEntry[], extra: Partial<ScheduleSpec> = {}): ScheduleSpec => ({
  time_zone,
  entries,
  ...extra,
});
const nineToSix = (zone: string) => spec(zone, [{ days: EVERY_DAY, from: 9 * H, to: 18 * H }]);

describe('localTime and previousDate', () => {
  it('reads the wall-clock date, weekday and second of an instant in a zone', () => {
    expect(localTime(at('2026-03-29T00:59:59Z'), 'Europe/Berlin')).toEqual({ date: '2026-03-29', weekday: 'sun', second: 1 * H + 3599 });
    expect(localTime(at('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toEqual({ date: '2026-03-29', weekday: 'sun', second: 3 * H });
    expect(localTime(at('2026-01-01T00:00:00Z'), 'UTC')).toEqual({ date: '2026-01-01', weekday: 'thu', second: 0 });
    expect(localTime(at('2026-12-31T23:30:00Z'), 'Europe/Moscow')).toEqual({ date: '2027-01-01', weekday: 'fri', second: 2 * H + 1800 });
  });

  it('gives midnight as second 0, never 24:00', () => {
    expect(localTime(at('2026-06-30T22:00:00Z'), 'Europe/Berlin')).toEqual({ date: '2026-07-01', weekday: 'wed', second: 0 });
  });

  it('knows 2028-02-29 is a Tuesday', () => {
    expect(localTime(at('2028-02-29T12:00:00Z'), 'UTC')).toMatchObject({ date: '2028-02-29', weekday: 'tue' });
    expect(localTime(at('2028-02-28T11:00:00Z'), 'Pacific/Auckland')).toEqual({ date: '2028-02-29', weekday: 'tue', second: 0 });
  });

  it('steps back over month, year and leap-day boundaries', () => {
    expect(previousDate('2028-03-01')).toBe('2028-02-29');
    expect(previousDate('2027-03-01')).toBe('2027-02-28');
    expect(previousDate('2026-01-01')).toBe('2025-12-31');
    expect(previousDate('2100-03-01')).toBe('2100-02-28');
    expect(previousDate('2000-03-01')).toBe('2000-02-29');
    expect(previousDate('2026-03-29')).toBe('2026-03-28');
    expect(previousDate('2026-10-25')).toBe('2026-10-24');
  });

  it('falls back to UTC for an unknown time zone instead of throwing', () => {
    const instant = at('2026-07-15T10:20:30Z');
    expect(localTime(instant, 'Mars/Olympus_Mons')).toEqual(localTime(instant, 'UTC'));
    expect(localTime(instant, '')).toEqual({ date: '2026-07-15', weekday: 'wed', second: 10 * H + 20 * 60 + 30 });
    const s = nineToSix('Not/A_Zone');
    expect(() => scheduleOpen(s, instant)).not.toThrow();
    expect(scheduleOpen(s, at('2026-07-15T08:59:59Z'))).toBe(false);
    expect(scheduleOpen(s, at('2026-07-15T09:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-07-15T17:59:59Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-07-15T18:00:00Z'))).toBe(false);
  });
});

describe('scheduleOpen across DST changes', () => {
  // The instant 09:00 local falls on, on the day before and the day of each change.
  const changes = [
    { zone: 'Europe/Berlin', change: 'spring forward 2026-03-29', before: '2026-03-28T08:00:00Z', after: '2026-03-29T07:00:00Z' },
    { zone: 'Europe/Berlin', change: 'fall back 2026-10-25', before: '2026-10-24T07:00:00Z', after: '2026-10-25T08:00:00Z' },
    { zone: 'America/New_York', change: 'spring forward 2026-03-08', before: '2026-03-07T14:00:00Z', after: '2026-03-08T13:00:00Z' },
    { zone: 'America/New_York', change: 'fall back 2026-11-01', before: '2026-10-31T13:00:00Z', after: '2026-11-01T14:00:00Z' },
    { zone: 'Australia/Sydney', change: 'DST ends 2026-04-05', before: '2026-04-03T22:00:00Z', after: '2026-04-04T23:00:00Z' },
    { zone: 'Australia/Sydney', change: 'DST starts 2026-10-04', before: '2026-10-02T23:00:00Z', after: '2026-10-03T22:00:00Z' },
    { zone: 'America/Santiago', change: 'DST ends 2026-04-05', before: '2026-04-04T12:00:00Z', after: '2026-04-05T13:00:00Z' },
    { zone: 'America/Santiago', change: 'DST starts 2026-09-06', before: '2026-09-05T13:00:00Z', after: '2026-09-06T12:00:00Z' },
  ];

  it.each(changes)(
    '$zone $change: a 09:00–18:00 entry opens at 09:00 and closes at 18:00 wall clock on both sides',
    ({ zone, before, after }) => {
      const s = nineToSix(zone);
      for (const nine of [at(before), at(after)]) {
        expect(localTime(nine, zone).second, `${nine.toISOString()} is 09:00 in ${zone}`).toBe(9 * H);
        expect(scheduleOpen(s, plus(nine, -1)), `${nine.toISOString()} - 1s`).toBe(false);
        expect(scheduleOpen(s, nine), nine.toISOString()).toBe(true);
        // No change happens during the day, so 18:00 is nine hours later.
        const six = plus(nine, 9 * H);
        expect(localTime(six, zone).second).toBe(18 * H);
        expect(scheduleOpen(s, plus(six, -1))).toBe(true);
        expect(scheduleOpen(s, six)).toBe(false);
      }
    },
  );

  // The skipped hour: the last second before the jump and the first after it.
  const gaps = [
    {
      zone: 'Europe/Berlin',
      day: '2026-03-29',
      gap: [2 * H, 3 * H],
      lastBefore: '2026-03-29T00:59:59Z',
      firstAfter: '2026-03-29T01:00:00Z',
    },
    {
      zone: 'America/New_York',
      day: '2026-03-08',
      gap: [2 * H, 3 * H],
      lastBefore: '2026-03-08T06:59:59Z',
      firstAfter: '2026-03-08T07:00:00Z',
    },
    {
      zone: 'Australia/Sydney',
      day: '2026-10-04',
      gap: [2 * H, 3 * H],
      lastBefore: '2026-10-03T15:59:59Z',
      firstAfter: '2026-10-03T16:00:00Z',
    },
    // Santiago jumps from Saturday 24:00 to Sunday 01:00: the Sunday has no 00:00–01:00.
    {
      zone: 'America/Santiago',
      day: '2026-09-06',
      gap: [0, 1 * H],
      lastBefore: '2026-09-06T03:59:59Z',
      firstAfter: '2026-09-06T04:00:00Z',
    },
  ] as const;

  it.each(gaps)(
    '$zone spring forward $day: an entry covering only the skipped hour is never open that day',
    ({ zone, day, gap, firstAfter }) => {
      const s = spec(zone, [{ days: EVERY_DAY, from: gap[0], to: gap[1] }]);
      // Every minute from 12 hours before the jump to 12 hours after it.
      const jump = at(firstAfter).getTime();
      for (let t = jump - 12 * H * 1000; t <= jump + 12 * H * 1000; t += 60_000) {
        const instant = new Date(t);
        if (localTime(instant, zone).date !== day) continue;
        expect(scheduleOpen(s, instant), instant.toISOString()).toBe(false);
      }
      // The same entry opens on an ordinary day a week later (the gap hour exists then).
      const weekLater = at(firstAfter).getTime() + 7 * 24 * H * 1000 - 30 * 60_000;
      expect(localTime(new Date(weekLater), zone).second).toBe(gap[0] + 30 * 60);
      expect(scheduleOpen(s, new Date(weekLater))).toBe(true);
    },
  );

  it.each(gaps)(
    '$zone spring forward $day: an entry around the skipped hour is open on both sides of the jump',
    ({ zone, gap, lastBefore, firstAfter }) => {
      // For Santiago (gap at midnight) that is 23:00–02:00, an entry spanning midnight.
      const s = spec(zone, [{ days: EVERY_DAY, from: (gap[0] - H + 86_400) % 86_400, to: gap[1] + H }]);
      expect(scheduleOpen(s, at(lastBefore))).toBe(true);
      expect(scheduleOpen(s, at(firstAfter))).toBe(true);
      // It still starts and ends by the wall clock: one hour after the jump it closes.
      expect(scheduleOpen(s, plus(at(firstAfter), H - 1))).toBe(true);
      expect(scheduleOpen(s, plus(at(firstAfter), H))).toBe(false);
      // and one hour of real time before the jump (wall clock gap[0] - 1h) it opens.
      expect(scheduleOpen(s, plus(at(lastBefore), -H + 1))).toBe(true);
      expect(scheduleOpen(s, plus(at(lastBefore), -H))).toBe(false);
    },
  );

  // The repeated hour: the first instant of its first and of its second occurrence.
  const repeats = [
    { zone: 'Europe/Berlin', day: '2026-10-25', from: 2 * H, first: '2026-10-25T00:00:00Z', second: '2026-10-25T01:00:00Z' },
    { zone: 'America/New_York', day: '2026-11-01', from: 1 * H, first: '2026-11-01T05:00:00Z', second: '2026-11-01T06:00:00Z' },
    { zone: 'Australia/Sydney', day: '2026-04-05', from: 2 * H, first: '2026-04-04T15:00:00Z', second: '2026-04-04T16:00:00Z' },
    { zone: 'America/Santiago', day: '2026-04-04', from: 23 * H, first: '2026-04-05T02:00:00Z', second: '2026-04-05T03:00:00Z' },
  ] as const;

  it.each(repeats)(
    '$zone fall back $day: a half-hour entry in the repeated hour is open in both occurrences',
    ({ zone, day, from, first, second }) => {
      const s = spec(zone, [{ days: EVERY_DAY, from, to: from + 30 * 60 }]);
      for (const start of [at(first), at(second)]) {
        expect(localTime(start, zone)).toMatchObject({ date: day, second: from });
        expect(scheduleOpen(s, plus(start, -1)), `${start.toISOString()} - 1s`).toBe(false);
        expect(scheduleOpen(s, start)).toBe(true);
        expect(scheduleOpen(s, plus(start, 15 * 60))).toBe(true);
        expect(scheduleOpen(s, plus(start, 30 * 60 - 1))).toBe(true);
        expect(scheduleOpen(s, plus(start, 30 * 60))).toBe(false);
      }
    },
  );

  it('Europe/Berlin fall back: a 09:00–18:00 entry lasts ten real hours that day, and a 02:00–03:00 entry two', () => {
    const day = (s: ScheduleSpec) => {
      let open = 0;
      for (let t = at('2026-10-24T22:00:00Z').getTime(); t < at('2026-10-25T23:00:00Z').getTime(); t += 60_000) {
        if (scheduleOpen(s, new Date(t))) open += 1;
      }
      return open / 60;
    };
    expect(day(nineToSix('Europe/Berlin'))).toBe(9);
    expect(day(spec('Europe/Berlin', [{ days: EVERY_DAY, from: 2 * H, to: 3 * H }]))).toBe(2);
    expect(day(spec('Europe/Berlin', [{ days: EVERY_DAY, from: 0, to: 0 }]))).toBe(25);
  });
});

describe('scheduleOpen: entries spanning midnight', () => {
  // 2026-01-02 is a Friday, 2026-01-03 a Saturday.
  const night = (extra: Partial<ScheduleSpec> = {}, zone = 'UTC') => spec(zone, [{ days: ['fri'], from: 79_200, to: 21_600 }], extra);

  it('is open from 22:00 on a listed Friday to 06:00 on the unlisted Saturday', () => {
    const s = night();
    expect(scheduleOpen(s, at('2026-01-02T21:59:59Z'))).toBe(false);
    expect(scheduleOpen(s, at('2026-01-02T22:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-02T23:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-02T23:59:59Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-03T00:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-03T05:59:59Z'))).toBe(true);
    expect(scheduleVerdict(s, at('2026-01-03T05:59:59Z'))).toEqual({ open: true, by: 'entry', entry: 0 });
    expect(scheduleOpen(s, at('2026-01-03T06:00:00Z'))).toBe(false);
    expect(scheduleVerdict(s, at('2026-01-03T06:00:00Z'))).toEqual({ open: false, by: 'no_entry' });
  });

  it('does not open on the unlisted days around it', () => {
    const s = night();
    expect(scheduleOpen(s, at('2026-01-03T23:00:00Z'))).toBe(false); // Saturday evening
    expect(scheduleOpen(s, at('2026-01-04T01:00:00Z'))).toBe(false); // Sunday morning
    expect(scheduleOpen(s, at('2026-01-01T23:00:00Z'))).toBe(false); // Thursday evening
    expect(scheduleOpen(s, at('2026-01-02T05:00:00Z'))).toBe(false); // Friday morning (Thursday not listed)
  });

  it('follows the wall clock of its zone', () => {
    // Europe/Berlin in January is UTC+1: Friday 22:00 is 21:00Z, Saturday 06:00 is 05:00Z.
    const s = night({}, 'Europe/Berlin');
    expect(scheduleOpen(s, at('2026-01-02T20:59:59Z'))).toBe(false);
    expect(scheduleOpen(s, at('2026-01-02T21:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-03T04:59:59Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-03T05:00:00Z'))).toBe(false);
  });

  it('keeps the morning part closed when the Friday was a closed exception', () => {
    const s = night({ exceptions: [{ date: '2026-01-02', open: false }] });
    expect(scheduleVerdict(s, at('2026-01-02T23:00:00Z'))).toEqual({ open: false, by: 'exception' });
    expect(scheduleOpen(s, at('2026-01-03T00:00:00Z'))).toBe(false);
    expect(scheduleOpen(s, at('2026-01-03T05:00:00Z'))).toBe(false);
    // The next Friday night is unaffected.
    expect(scheduleOpen(s, at('2026-01-10T05:00:00Z'))).toBe(true);
  });

  it('keeps the morning part closed when the Saturday itself is a closed exception', () => {
    const s = night({ exceptions: [{ date: '2026-01-03', open: false }] });
    expect(scheduleOpen(s, at('2026-01-02T23:00:00Z'))).toBe(true);
    expect(scheduleVerdict(s, at('2026-01-03T05:00:00Z'))).toEqual({ open: false, by: 'exception' });
  });

  it('keeps the morning part closed when the Friday was before valid_from', () => {
    const s = night({ valid_from: '2026-01-03' });
    expect(scheduleVerdict(s, at('2026-01-02T23:00:00Z'))).toEqual({ open: false, by: 'not_yet_valid' });
    expect(scheduleVerdict(s, at('2026-01-03T05:00:00Z'))).toEqual({ open: false, by: 'no_entry' });
    expect(scheduleOpen(s, at('2026-01-09T23:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-10T05:00:00Z'))).toBe(true);
  });

  it('stops at valid_to even in the middle of a night that began on the last valid day', () => {
    const s = night({ valid_to: '2026-01-02' });
    expect(scheduleOpen(s, at('2026-01-02T23:00:00Z'))).toBe(true);
    expect(scheduleVerdict(s, at('2026-01-03T01:00:00Z'))).toEqual({ open: false, by: 'expired' });
  });

  it('crosses the spring-forward night by the wall clock', () => {
    // Saturday 2026-03-28 22:00 CET (21:00Z) to Sunday 06:00 CEST (04:00Z).
    const s = spec('Europe/Berlin', [{ days: ['sat'], from: 79_200, to: 21_600 }]);
    expect(scheduleOpen(s, at('2026-03-28T20:59:59Z'))).toBe(false);
    expect(scheduleOpen(s, at('2026-03-28T21:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-03-29T00:59:59Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-03-29T01:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-03-29T03:59:59Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-03-29T04:00:00Z'))).toBe(false);
  });
});

describe('scheduleOpen: whole days, exceptions and validity', () => {
  // 2026-01-07 is a Wednesday.
  it('treats from = to as the whole listed day', () => {
    const s = spec('UTC', [{ days: ['wed'], from: 36_000, to: 36_000 }]);
    expect(scheduleOpen(s, at('2026-01-06T23:59:59Z'))).toBe(false);
    expect(scheduleVerdict(s, at('2026-01-07T00:00:00Z'))).toEqual({ open: true, by: 'entry', entry: 0 });
    expect(scheduleOpen(s, at('2026-01-07T09:59:59Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-07T23:59:59Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-08T00:00:00Z'))).toBe(false);
  });

  it('reports which entry opened', () => {
    const s = spec('UTC', [
      { days: ['mon'], from: 9 * H, to: 12 * H },
      { days: ['wed'], from: 13 * H, to: 14 * H },
    ]);
    expect(scheduleVerdict(s, at('2026-01-07T13:30:00Z'))).toEqual({ open: true, by: 'entry', entry: 1 });
    expect(scheduleVerdict(s, at('2026-01-07T10:00:00Z'))).toEqual({ open: false, by: 'no_entry' });
  });

  it('is open all day, every day, when is_all_day', () => {
    const s = spec('UTC', [{ days: ['mon'], from: 9 * H, to: 10 * H }], { is_all_day: true });
    for (const iso of ['2026-01-07T00:00:00Z', '2026-01-10T12:00:00Z', '2026-01-11T23:59:59Z']) {
      expect(scheduleVerdict(s, at(iso)), iso).toEqual({ open: true, by: 'all_day' });
    }
  });

  it('lets a closed holiday beat both entries and is_all_day', () => {
    const exceptions = [{ date: '2026-01-07', open: false }];
    const byEntry = spec('UTC', [{ days: EVERY_DAY, from: 0, to: 0 }], { exceptions });
    const allDay = spec('UTC', [], { is_all_day: true, exceptions });
    for (const s of [byEntry, allDay]) {
      expect(scheduleOpen(s, at('2026-01-06T23:59:59Z'))).toBe(true);
      expect(scheduleVerdict(s, at('2026-01-07T00:00:00Z'))).toEqual({ open: false, by: 'exception' });
      expect(scheduleVerdict(s, at('2026-01-07T12:00:00Z'))).toEqual({ open: false, by: 'exception' });
      expect(scheduleOpen(s, at('2026-01-08T00:00:00Z'))).toBe(true);
    }
  });

  it('lets an open exception open a whole day that has no entry', () => {
    const s = spec('UTC', [{ days: ['mon'], from: 9 * H, to: 10 * H }], { exceptions: [{ date: '2026-01-10', open: true }] });
    expect(scheduleOpen(s, at('2026-01-09T23:59:59Z'))).toBe(false);
    expect(scheduleVerdict(s, at('2026-01-10T00:00:00Z'))).toEqual({ open: true, by: 'exception' });
    expect(scheduleVerdict(s, at('2026-01-10T23:59:59Z'))).toEqual({ open: true, by: 'exception' });
    expect(scheduleOpen(s, at('2026-01-11T00:00:00Z'))).toBe(false);
  });

  it('matches exceptions by the local date of the zone', () => {
    // 2026-01-07T23:30Z is already Thursday 2026-01-08 in Europe/Moscow (UTC+3).
    const s = spec('Europe/Moscow', [], { exceptions: [{ date: '2026-01-08', open: true }] });
    expect(scheduleOpen(s, at('2026-01-07T20:59:59Z'))).toBe(false);
    expect(scheduleOpen(s, at('2026-01-07T21:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2026-01-07T23:30:00Z'))).toBe(true);
  });

  it('does not let an exception open a day outside validity', () => {
    const s = spec('UTC', [], { valid_to: '2026-01-09', exceptions: [{ date: '2026-01-10', open: true }] });
    expect(scheduleVerdict(s, at('2026-01-10T12:00:00Z'))).toEqual({ open: false, by: 'expired' });
  });

  it('applies valid_from and valid_to inclusively by the local date', () => {
    // In Europe/Moscow (UTC+3) 2026-12-31T21:00Z is already 2027-01-01 00:00.
    const untilNewYear = spec('Europe/Moscow', [], { is_all_day: true, valid_to: '2026-12-31' });
    expect(scheduleOpen(untilNewYear, at('2026-12-31T20:59:59Z'))).toBe(true);
    expect(scheduleVerdict(untilNewYear, at('2026-12-31T21:00:00Z'))).toEqual({ open: false, by: 'expired' });
    expect(scheduleVerdict(untilNewYear, at('2026-12-31T23:30:00Z'))).toEqual({ open: false, by: 'expired' });

    const fromNewYear = spec('Europe/Moscow', [], { is_all_day: true, valid_from: '2027-01-01' });
    expect(scheduleVerdict(fromNewYear, at('2026-12-31T20:59:59Z'))).toEqual({ open: false, by: 'not_yet_valid' });
    expect(scheduleOpen(fromNewYear, at('2026-12-31T21:00:00Z'))).toBe(true);
    expect(scheduleOpen(fromNewYear, at('2026-12-31T23:30:00Z'))).toBe(true);

    // West of UTC it is the other way round: 2027-01-01T03:00Z is still 2026-12-31 in New York.
    const ny = spec('America/New_York', [{ days: EVERY_DAY, from: 0, to: 0 }], { valid_from: '2027-01-01', valid_to: '2027-01-01' });
    expect(scheduleVerdict(ny, at('2027-01-01T03:00:00Z'))).toEqual({ open: false, by: 'not_yet_valid' });
    expect(scheduleOpen(ny, at('2027-01-01T05:00:00Z'))).toBe(true);
    expect(scheduleOpen(ny, at('2027-01-02T04:59:59Z'))).toBe(true);
    expect(scheduleVerdict(ny, at('2027-01-02T05:00:00Z'))).toEqual({ open: false, by: 'expired' });
  });

  it('treats null validity bounds as unbounded', () => {
    const s = spec('UTC', [], { is_all_day: true, valid_from: null, valid_to: null });
    expect(scheduleOpen(s, at('1999-01-01T00:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2099-12-31T23:59:59Z'))).toBe(true);
  });

  it('is open on a schedule valid only on 2028-02-29 that day only', () => {
    const leap = { valid_from: '2028-02-29', valid_to: '2028-02-29' };
    const allDay = spec('UTC', [], { is_all_day: true, ...leap });
    const tuesdays = spec('UTC', [{ days: ['tue'], from: 0, to: 0 }], leap);
    const everyDay = spec('UTC', [{ days: EVERY_DAY, from: 9 * H, to: 18 * H }], leap);
    for (const s of [allDay, tuesdays]) {
      expect(scheduleVerdict(s, at('2028-02-28T23:59:59Z'))).toEqual({ open: false, by: 'not_yet_valid' });
      expect(scheduleOpen(s, at('2028-02-29T00:00:00Z'))).toBe(true);
      expect(scheduleOpen(s, at('2028-02-29T23:59:59Z'))).toBe(true);
      expect(scheduleVerdict(s, at('2028-03-01T00:00:00Z'))).toEqual({ open: false, by: 'expired' });
    }
    expect(scheduleOpen(everyDay, at('2028-02-28T12:00:00Z'))).toBe(false);
    expect(scheduleOpen(everyDay, at('2028-02-29T12:00:00Z'))).toBe(true);
    expect(scheduleOpen(everyDay, at('2028-03-01T12:00:00Z'))).toBe(false);
  });

  it('carries a night begun on 2028-02-28 into the leap day, and one begun on the leap day into 03-01', () => {
    // Monday 2028-02-28 and Tuesday 2028-02-29 listed, 22:00–06:00.
    const s = spec('UTC', [{ days: ['mon', 'tue'], from: 79_200, to: 21_600 }], { exceptions: [{ date: '2028-02-29', open: false }] });
    expect(scheduleOpen(s, at('2028-02-28T23:00:00Z'))).toBe(true);
    expect(scheduleOpen(s, at('2028-02-29T05:00:00Z'))).toBe(false); // the leap day is a holiday
    expect(scheduleOpen(s, at('2028-03-01T05:00:00Z'))).toBe(false); // the night began on the holiday
    const noHoliday = { ...s, exceptions: [] };
    expect(scheduleOpen(noHoliday, at('2028-02-29T05:00:00Z'))).toBe(true);
    expect(scheduleOpen(noHoliday, at('2028-03-01T05:00:00Z'))).toBe(true);
    expect(scheduleOpen(noHoliday, at('2028-03-02T05:00:00Z'))).toBe(false);
  });
});

describe('decideAccess', () => {
  const AT = at('2026-05-06T12:00:00Z');
  const OPEN = 1;
  const CLOSED = 2;
  const MISSING = 99;
  const held: Record<number, ScheduleSpec> = {
    [OPEN]: spec('UTC', [], { is_all_day: true }),
    [CLOSED]: spec('UTC', []),
  };
  const schedules = (id: number) => held[id];

  const permit = (locks: number[], schedule_ids: number[] = [], rule_id?: number): AccessGrant => ({ rule_id, locks, schedule_ids });
  const deny = (locks: number[], schedule_ids: number[] = []): AccessGrant => ({ locks, schedule_ids, deny: true });
  const card = (extra: Partial<AccessIdentifier> = {}): AccessIdentifier => ({ id: 7, value: '04A1B2C3D4', ...extra });

  it('lists its refusals in the order it checks them', () => {
    expect(ACCESS_REFUSALS).toEqual(['unknown', 'revoked', 'not_yet_valid', 'expired', 'passes', 'prohibited', 'lock', 'schedule']);
  });

  it('refuses an unknown identifier', () => {
    expect(decideAccess(undefined, schedules, 1, AT)).toEqual({ granted: false, reason: 'unknown' });
  });

  it('gives each refusal in order of precedence as the identifier is put right one fault at a time', () => {
    let id = card({
      revoked: true,
      valid_from: '2026-06-01T00:00:00Z',
      valid_to: '2026-05-01T00:00:00Z',
      exhausted: true,
      grants: [deny([1], [OPEN]), permit([1], [OPEN])],
    });
    const reasons: string[] = [];
    const next = () => {
      const d = decideAccess(id, schedules, 1, AT);
      reasons.push(d.granted ? 'granted' : d.reason);
    };
    next();
    id = { ...id, revoked: false };
    next();
    id = { ...id, valid_from: null };
    next();
    id = { ...id, valid_to: null };
    next();
    id = { ...id, exhausted: false };
    next();
    id = { ...id, grants: [permit([1], [OPEN])] };
    next();
    expect(reasons).toEqual(['revoked', 'not_yet_valid', 'expired', 'passes', 'prohibited', 'granted']);
  });

  it('refuses before valid_from and grants from that instant', () => {
    const id = card({ valid_from: '2026-05-06T12:00:00Z' });
    expect(decideAccess(id, schedules, 1, plus(AT, -1))).toEqual({ granted: false, reason: 'not_yet_valid' });
    expect(decideAccess(id, schedules, 1, AT)).toMatchObject({ granted: true });
  });

  it('grants until valid_to and refuses from that instant on', () => {
    const id = card({ valid_to: '2026-05-06T12:00:00Z' });
    expect(decideAccess(id, schedules, 1, plus(AT, -1))).toMatchObject({ granted: true });
    expect(decideAccess(id, schedules, 1, AT)).toEqual({ granted: false, reason: 'expired' });
  });

  it('refuses an identifier whose passes are used up', () => {
    expect(decideAccess(card({ exhausted: true }), schedules, 1, AT)).toEqual({ granted: false, reason: 'passes' });
  });

  it('lets a prohibition whose schedule is open win over a permitting grant on the same lock', () => {
    const prohibition = deny([1], [OPEN]);
    const id = card({ grants: [permit([1]), prohibition] });
    expect(decideAccess(id, schedules, 1, AT)).toEqual({ granted: false, reason: 'prohibited', grant: prohibition });
  });

  it('lets a prohibition without schedules apply always, and one without locks apply on every lock', () => {
    expect(decideAccess(card({ grants: [permit([1]), deny([1])] }), schedules, 1, AT)).toMatchObject({ reason: 'prohibited' });
    const everywhere = card({ grants: [permit([]), deny([], [OPEN])] });
    for (const lock of [1, 2, 5]) expect(decideAccess(everywhere, schedules, lock, AT)).toMatchObject({ reason: 'prohibited' });
  });

  it('ignores a prohibition whose schedule is closed, or not held by the device, or on another lock', () => {
    const allow = permit([1], [], 10);
    for (const prohibition of [deny([1], [CLOSED]), deny([1], [MISSING]), deny([2], [OPEN])]) {
      expect(decideAccess(card({ grants: [prohibition, allow] }), schedules, 1, AT)).toEqual({ granted: true, grant: allow });
    }
  });

  it('applies a prohibition with several schedules when any of them is open', () => {
    const prohibition = deny([1], [CLOSED, MISSING, OPEN]);
    expect(decideAccess(card({ grants: [permit([1]), prohibition] }), schedules, 1, AT)).toEqual({
      granted: false,
      reason: 'prohibited',
      grant: prohibition,
    });
  });

  it('refuses a lock no permitting grant covers', () => {
    expect(decideAccess(card({ grants: [permit([2, 3])] }), schedules, 1, AT)).toEqual({ granted: false, reason: 'lock' });
    expect(decideAccess(card({ grants: [] }), schedules, 1, AT)).toEqual({ granted: false, reason: 'lock' });
    // A prohibition that does not apply is no permission either.
    expect(decideAccess(card({ grants: [deny([1], [CLOSED])] }), schedules, 1, AT)).toEqual({ granted: false, reason: 'lock' });
    expect(decideAccess(card({ locks: [2], schedule_ids: [CLOSED] }), schedules, 1, AT)).toEqual({ granted: false, reason: 'lock' });
  });

  it('refuses when no permitting grant on the lock has an open schedule', () => {
    expect(decideAccess(card({ grants: [permit([1], [CLOSED])] }), schedules, 1, AT)).toEqual({ granted: false, reason: 'schedule' });
    expect(decideAccess(card({ grants: [permit([1], [CLOSED]), permit([2], [OPEN])] }), schedules, 1, AT)).toEqual({
      granted: false,
      reason: 'schedule',
    });
  });

  it('counts a schedule id the device does not hold as closed', () => {
    expect(decideAccess(card({ grants: [permit([1], [MISSING])] }), schedules, 1, AT)).toEqual({ granted: false, reason: 'schedule' });
    expect(decideAccess(card({ schedule_ids: [MISSING] }), schedules, 1, AT)).toEqual({ granted: false, reason: 'schedule' });
    expect(decideAccess(card({ grants: [permit([1], [MISSING, OPEN])] }), schedules, 1, AT)).toMatchObject({ granted: true });
  });

  it('decides the schedule at the instant given, in the schedule zone', () => {
    const office = { 3: spec('Europe/Berlin', [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 9 * H, to: 18 * H }]) };
    const byId = (id: number) => (office as Record<number, ScheduleSpec>)[id];
    const id = card({ grants: [permit([1], [3])] });
    // Wednesday 2026-05-06, Berlin is UTC+2.
    expect(decideAccess(id, byId, 1, at('2026-05-06T06:59:59Z'))).toEqual({ granted: false, reason: 'schedule' });
    expect(decideAccess(id, byId, 1, at('2026-05-06T07:00:00Z'))).toMatchObject({ granted: true });
    expect(decideAccess(id, byId, 1, at('2026-05-06T16:00:00Z'))).toEqual({ granted: false, reason: 'schedule' });
    expect(decideAccess(id, byId, 1, at('2026-05-09T10:00:00Z'))).toEqual({ granted: false, reason: 'schedule' }); // Saturday
  });

  it('reads the flat form as one grant and decides it the same', () => {
    const flats: Partial<AccessIdentifier>[] = [
      {},
      { locks: [1] },
      { locks: [2] },
      { locks: [1, 3], schedule_ids: [OPEN] },
      { schedule_ids: [CLOSED] },
      { schedule_ids: [MISSING] },
      { locks: [], schedule_ids: [CLOSED, OPEN] },
      { exhausted: true, locks: [1] },
    ];
    for (const flat of flats) {
      const { locks, schedule_ids, ...rest } = flat;
      const asGrant = card({ ...rest, grants: [{ locks: locks ?? [], schedule_ids: schedule_ids ?? [] }] });
      expect(grantsOf(card(flat))).toEqual(asGrant.grants);
      for (const lock of [1, 2, 3, 4]) {
        expect(decideAccess(card(flat), schedules, lock, AT), `${JSON.stringify(flat)} on lock ${lock}`).toEqual(
          decideAccess(asGrant, schedules, lock, AT),
        );
      }
    }
  });

  it('lets a grant with no locks cover every lock', () => {
    const all = permit([]);
    for (const lock of [1, 2, 17]) {
      expect(decideAccess(card({ grants: [all] }), schedules, lock, AT)).toEqual({ granted: true, grant: all });
      expect(decideAccess(card(), schedules, lock, AT)).toEqual({ granted: true, grant: { locks: [], schedule_ids: [] } });
    }
  });

  it('returns the grant that allowed', () => {
    const closedRule = permit([1], [CLOSED], 10);
    const otherLock = permit([2], [OPEN], 11);
    const openRule = permit([1], [OPEN], 12);
    const alsoOpen = permit([], [], 13);
    const d = decideAccess(card({ grants: [closedRule, otherLock, openRule, alsoOpen] }), schedules, 1, AT);
    expect(d).toEqual({ granted: true, grant: openRule });
    expect(d.granted && d.grant).toBe(openRule);
  });
});

describe('scheduleOpen agrees with an independent reading of the wall clock', () => {
  // mulberry32: a small seeded PRNG, so a failure reproduces.
  function prng(seed: number) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
  }

  const LONG_DAYS: Record<string, Weekday> = {
    Sunday: 'sun',
    Monday: 'mon',
    Tuesday: 'tue',
    Wednesday: 'wed',
    Thursday: 'thu',
    Friday: 'fri',
    Saturday: 'sat',
  };
  const readers = new Map<string, Intl.DateTimeFormat>();
  /** The local weekday and second of the day, read differently from access.ts (en-GB, long weekday, numeric fields). */
  function wallClock(at: Date, timeZone: string): { weekday: Weekday; second: number } {
    let f = readers.get(timeZone);
    if (!f) {
      f = new Intl.DateTimeFormat('en-GB', {
        timeZone,
        weekday: 'long',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        hourCycle: 'h23',
      });
      readers.set(timeZone, f);
    }
    const parts = f.formatToParts(at);
    const part = (type: Intl.DateTimeFormatPartTypes) => {
      const p = parts.find((x) => x.type === type);
      if (!p) throw new Error(`no ${type} in ${JSON.stringify(parts)}`);
      return p.value;
    };
    const weekday = LONG_DAYS[part('weekday')];
    if (!weekday) throw new Error(`unexpected weekday ${part('weekday')}`);
    return { weekday, second: Number(part('hour')) * 3600 + Number(part('minute')) * 60 + Number(part('second')) };
  }

  const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'America/Santiago', 'Asia/Kolkata', 'Pacific/Chatham'];
  const START = Date.parse('2026-01-01T00:00:00Z');
  const END = Date.parse('2029-01-01T00:00:00Z');

  it('for 2,000 pseudo-random instants in 2026–2028, entries [from, to) with from < to', () => {
    const random = prng(20_260_329);
    const int = (n: number) => Math.floor(random() * n);
    let opened = 0;
    for (let i = 0; i < 2000; i++) {
      const zone = ZONES[int(ZONES.length)] as string;
      const instant = new Date(START + Math.floor(random() * ((END - START) / 1000)) * 1000);
      const ref = wallClock(instant, zone);
      let from: number;
      let to: number;
      if (i % 2 === 0) {
        // Anywhere in the day.
        from = int(86_400);
        to = from + 1 + int(86_400 - from);
      } else {
        // Right at the edges around the instant's wall-clock second.
        const edge = [-1, 0, 1][int(3)] as number;
        if (random() < 0.5) {
          from = Math.min(86_399, Math.max(0, ref.second + edge));
          to = Math.min(86_400, from + 1 + int(7200));
        } else {
          to = Math.min(86_400, Math.max(1, ref.second + edge));
          from = Math.max(0, to - 1 - int(7200));
        }
      }
      const days = WEEKDAYS.filter(() => random() < 0.6);
      if (random() < 0.3 && !days.includes(ref.weekday)) days.push(ref.weekday);
      const expected = days.includes(ref.weekday) && ref.second >= from && ref.second < to;
      const actual = scheduleOpen(spec(zone, [{ days, from, to }]), instant);
      expect(actual, `${instant.toISOString()} ${zone} ${JSON.stringify({ days, from, to })} wall clock ${JSON.stringify(ref)}`).toBe(
        expected,
      );
      if (expected) opened += 1;
    }
    // The cases are not all trivially closed.
    expect(opened).toBeGreaterThan(300);
  });
});
