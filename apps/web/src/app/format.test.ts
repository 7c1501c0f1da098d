import { describe, expect, it } from 'vitest';
import { formatBytes, formatDate, formatDateTime, formatDuration, formatMegabytes, formatMilliseconds, formatNumber } from './format';

// A fixed moment read in a fixed zone: the test machine's zone must not move the day.
const moment = new Date(2026, 10, 27, 16, 43, 5);
// ICU puts (narrow) no-break spaces between a number and its unit; what a reader sees is a space.
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('the console formats in the chosen language, not the browser’s', () => {
  it('dates and times', () => {
    expect(plain(formatDateTime(moment, 'ru'))).toBe('27.11.2026, 16:43:05');
    expect(plain(formatDateTime(moment, 'en'))).toBe('11/27/2026, 4:43:05 PM');
    expect(plain(formatDateTime(moment.toISOString(), 'ru', { seconds: false }))).toBe('27.11.2026, 16:43');
    expect(plain(formatDate('2026-11-27', 'ru', { utc: true }))).toBe('27.11.2026');
    expect(plain(formatDate(moment, 'ru', { long: true }))).toBe('27 ноября 2026 г.');
    // Russian writes the hour with two digits, as the browser's own toLocaleString does.
    expect(plain(formatDateTime(new Date(2026, 10, 5, 9, 5, 7), 'ru'))).toBe('05.11.2026, 09:05:07');
    expect(plain(formatDateTime(null, 'ru'))).toBe('');
    expect(plain(formatDateTime('not a date', 'ru'))).toBe('');
  });

  it('numbers', () => {
    expect(plain(formatNumber(12345.5, 'ru'))).toBe('12 345,5');
    expect(plain(formatNumber(12345.5, 'en'))).toBe('12,345.5');
  });

  it('sizes', () => {
    expect(plain(formatBytes(5 * 1024 * 1024, 'en'))).toBe('5 MB');
    expect(plain(formatBytes(1.5 * 1024 * 1024, 'ru'))).toBe('1,5 МБ');
    expect(plain(formatBytes(512, 'ru'))).toBe('512 байт');
    expect(plain(formatMegabytes(1024 * 1024 * 1.5, 'en'))).toBe('1.5 MB');
    expect(plain(formatMegabytes(1024 * 1024 * 1.5, 'ru'))).toBe('1,5 МБ');
  });

  it('durations', () => {
    expect(plain(formatMilliseconds(250, 'en'))).toBe('250 ms');
    expect(plain(formatMilliseconds(250, 'ru'))).toBe('250 мс');
    expect(plain(formatMilliseconds(4200, 'ru'))).toBe('4,2 с');
    expect(plain(formatDuration(5, 'en'))).toBe('5s');
    expect(plain(formatDuration(17 * 60 + 9, 'en'))).toBe('17m 9s');
    expect(plain(formatDuration(17 * 60 + 9, 'ru'))).toBe('17 мин 9 с');
    expect(plain(formatDuration(3 * 3600 + 60, 'en'))).toBe('3h 1m');
    expect(plain(formatDuration(93_784, 'en'))).toBe('1d 2h 3m');
    expect(plain(formatDuration(93_784, 'ru'))).toBe('1 д. 2 ч 3 мин');
    expect(plain(formatDuration(0, 'ru'))).toBe('0 с');
  });
});
