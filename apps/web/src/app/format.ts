import { useLocaleState } from 'ra-core';
import { useMemo } from 'react';

/**
 * The console's one way to write dates, numbers, durations and units: always in the language the
 * person chose (never the browser's, which is what `toLocaleString()` with no argument and
 * react-admin's `DateField` follow), through `Intl` so a Russian reader gets `27.11.2026, 16:43:05`,
 * `1,5 МБ` and `17 мин 9 с`.
 */

type Input = string | number | Date | null | undefined;

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = cache.get(key);
  if (!f) {
    f = make();
    cache.set(key, f);
  }
  return f as T;
}

const toDate = (value: Input): Date | null => {
  if (value === null || value === undefined || value === '') return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
};

const dateTimeFormat = (locale: string, options: Intl.DateTimeFormatOptions) =>
  cached(`dt:${locale}:${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(locale, options));

const DATE: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'numeric', day: 'numeric' };
const TIME: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: 'numeric', second: 'numeric' };
const SHORT_TIME: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: 'numeric' };

/** A moment: `27.11.2026, 16:43:05` / `11/27/2026, 4:43:05 PM`; '' when there is none. */
export function formatDateTime(value: Input, locale: string, options: { seconds?: boolean } = {}): string {
  const d = toDate(value);
  return d ? dateTimeFormat(locale, { ...DATE, ...(options.seconds === false ? SHORT_TIME : TIME) }).format(d) : '';
}

/** A day: `27.11.2026` / `11/27/2026`. `utc` for values that are a calendar day rather than a moment. */
export function formatDate(value: Input, locale: string, options: { utc?: boolean; long?: boolean } = {}): string {
  const d = toDate(value);
  if (!d) return '';
  const shape: Intl.DateTimeFormatOptions = options.long ? { year: 'numeric', month: 'long', day: 'numeric' } : DATE;
  return dateTimeFormat(locale, { ...shape, ...(options.utc ? { timeZone: 'UTC' } : {}) }).format(d);
}

/** A time of day: `16:43` / `4:43 PM`. */
export function formatTime(value: Input, locale: string): string {
  const d = toDate(value);
  return d ? dateTimeFormat(locale, SHORT_TIME).format(d) : '';
}

/** A count or measure with the language's separators: `12 345,5` / `12,345.5`. */
export function formatNumber(value: number, locale: string, maximumFractionDigits = 2): string {
  return cached(`n:${locale}:${maximumFractionDigits}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits })).format(value);
}

type Unit = 'byte' | 'kilobyte' | 'megabyte' | 'gigabyte' | 'millisecond' | 'second' | 'minute' | 'hour' | 'day' | 'percent';

/** A value with its unit in the language's words and abbreviations: `250 мс`, `1,5 МБ`. */
export function formatUnit(
  value: number,
  unit: Unit,
  locale: string,
  options: { digits?: number; display?: 'short' | 'narrow' | 'long' } = {},
): string {
  const display = options.display ?? 'short';
  const digits = options.digits ?? 1;
  return cached(
    `u:${locale}:${unit}:${display}:${digits}`,
    () => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: display, maximumFractionDigits: digits }),
  ).format(value);
}

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

/** A size in the largest unit that keeps it ≥ 1 (binary steps): `1,5 МБ`, `512 байт`. */
export function formatBytes(bytes: number, locale: string): string {
  let v = Math.max(0, bytes);
  let i = 0;
  while (v >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  // "10 byte" is what the short form of a bare byte count reads in English; the long one is a word.
  return formatUnit(v, BYTE_UNITS[i] as Unit, locale, { digits: i ? 1 : 0, display: i ? 'short' : 'long' });
}

/** A size in megabytes whatever its magnitude (memory figures read side by side): `12,3 МБ`. */
export function formatMegabytes(bytes: number, locale: string): string {
  return formatUnit(Math.round((bytes / 1024 / 1024) * 10) / 10, 'megabyte', locale, { digits: 1 });
}

/** A duration in milliseconds: `250 мс` under a second, `4,2 с` under a minute. */
export function formatMilliseconds(ms: number, locale: string): string {
  return ms < 1000 ? formatUnit(Math.round(ms), 'millisecond', locale, { digits: 0 }) : formatUnit(ms / 1000, 'second', locale);
}

/** A length of time in whole seconds, in its two largest units: `17 мин 9 с`, `1d 2h 3m`. */
export function formatDuration(seconds: number, locale: string): string {
  const s = Math.max(0, Math.floor(seconds));
  const parts: [number, Unit][] = [
    [Math.floor(s / 86_400), 'day'],
    [Math.floor((s % 86_400) / 3600), 'hour'],
    [Math.floor((s % 3600) / 60), 'minute'],
    [s % 60, 'second'],
  ];
  const first = parts.findIndex(([v]) => v > 0);
  if (first === -1) return formatUnit(0, 'second', locale, { display: 'narrow' });
  // Days and hours keep their minutes (an uptime of "1d 2h" hides too much); below an hour, seconds.
  const shown = first < 2 ? parts.slice(first, 3) : parts.slice(first, first + 2);
  return shown.map(([v, unit]) => formatUnit(v, unit, locale, { display: 'narrow', digits: 0 })).join(' ');
}

/** Formatters bound to the console's current language. */
export function useFormat() {
  const [locale] = useLocaleState();
  return useMemo(
    () => ({
      locale,
      dateTime: (v: Input, options?: { seconds?: boolean }) => formatDateTime(v, locale, options),
      date: (v: Input, options?: { utc?: boolean; long?: boolean }) => formatDate(v, locale, options),
      time: (v: Input) => formatTime(v, locale),
      number: (v: number, digits?: number) => formatNumber(v, locale, digits),
      unit: (v: number, unit: Unit, options?: { digits?: number; display?: 'short' | 'narrow' | 'long' }) =>
        formatUnit(v, unit, locale, options),
      bytes: (v: number) => formatBytes(v, locale),
      megabytes: (v: number) => formatMegabytes(v, locale),
      milliseconds: (v: number) => formatMilliseconds(v, locale),
      duration: (seconds: number) => formatDuration(seconds, locale),
    }),
    [locale],
  );
}
