import type { Weekday } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { daysText, entryText, hhmm, type SummaryTexts, scheduleSummary, secondsOf, spansMidnight, wholeDay } from './schedule';

const texts: SummaryTexts = {
  day: (d: Weekday) => d.charAt(0).toUpperCase() + d.slice(1),
  everyDay: 'Every day',
  wholeDay: 'all day',
  allDay: 'All day, every day',
  none: 'No opening hours',
};

describe('seconds of the day ↔ HH:MM', () => {
  it('writes seconds as HH:MM', () => {
    expect(hhmm(0)).toBe('00:00');
    expect(hhmm(32_400)).toBe('09:00');
    expect(hhmm(64_800)).toBe('18:00');
    expect(hhmm(86_340)).toBe('23:59');
    expect(hhmm(30_630)).toBe('08:30');
    // The end of the day (the API allows 86400) stays itself.
    expect(hhmm(86_400)).toBe('24:00');
    expect(hhmm(null)).toBe('');
    expect(hhmm(undefined)).toBe('');
  });

  it('reads HH:MM back, as people type it, refusing what is no time', () => {
    expect(secondsOf('09:00')).toBe(32_400);
    expect(secondsOf('9.30')).toBe(34_200);
    expect(secondsOf('930')).toBe(34_200);
    expect(secondsOf('0930')).toBe(34_200);
    expect(secondsOf('9')).toBe(32_400);
    expect(secondsOf('18:00')).toBe(64_800);
    expect(secondsOf('7:05')).toBe(25_500);
    expect(secondsOf('23:59:30')).toBe(86_370);
    expect(secondsOf('24:00')).toBe(86_400);
    expect(secondsOf(32_400)).toBe(32_400);
    for (const bad of ['', '25:00', '12:60', '24:01', '2460', 'noon', '9:3', null, undefined]) expect(secondsOf(bad)).toBeNull();
  });

  it('round-trips every minute of the day', () => {
    for (let s = 0; s <= 86_400; s += 60) expect(secondsOf(hhmm(s))).toBe(s);
  });

  it('tells a span past midnight and a whole day', () => {
    expect(spansMidnight({ from: 79_200, to: 21_600 })).toBe(true);
    expect(spansMidnight({ from: 64_800, to: 0 })).toBe(false);
    expect(spansMidnight({ from: 32_400, to: 64_800 })).toBe(false);
    expect(wholeDay({ from: 0, to: 0 })).toBe(true);
  });
});

describe('a schedule in words', () => {
  it('joins runs of three days or more with a dash, Monday first', () => {
    expect(daysText(['fri', 'mon', 'wed', 'tue', 'thu'], texts)).toBe('Mon–Fri');
    expect(daysText(['sat', 'sun'], texts)).toBe('Sat, Sun');
    expect(daysText(['sun', 'mon', 'wed', 'thu', 'fri'], texts)).toBe('Mon, Wed–Fri, Sun');
    expect(daysText(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], texts)).toBe('Every day');
  });

  it('writes entries with their times', () => {
    expect(entryText({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32_400, to: 64_800 }, texts)).toBe('Mon–Fri 09:00–18:00');
    expect(entryText({ days: ['sat'], from: 79_200, to: 21_600 }, texts)).toBe('Sat 22:00–06:00');
    expect(entryText({ days: ['sun'], from: 0, to: 0 }, texts)).toBe('Sun all day');
  });

  it('summarises a whole schedule', () => {
    expect(
      scheduleSummary(
        {
          entries: [
            { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32_400, to: 64_800 },
            { days: ['sat'], from: 36_000, to: 50_400 },
          ],
        },
        texts,
      ),
    ).toBe('Mon–Fri 09:00–18:00; Sat 10:00–14:00');
    expect(scheduleSummary({ is_all_day: true, entries: [{ days: ['mon'], from: 0, to: 60 }] }, texts)).toBe('All day, every day');
    expect(scheduleSummary({ entries: [] }, texts)).toBe('No opening hours');
  });
});
