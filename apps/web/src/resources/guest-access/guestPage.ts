import type { GuestInfo } from '@atrium/contract';
import { type AppLocale, DEFAULT_APP_LOCALE } from '../../i18n';

/** The first of the browser's languages the console speaks, else the default. */
export function browserLocale(languages: readonly string[]): AppLocale {
  for (const tag of languages) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'en' || base === 'ru') return base;
  }
  return DEFAULT_APP_LOCALE;
}

/** Each door's name on its button; doors of one device with several locks say which lock. */
export function doorNames(doors: GuestInfo['doors'], withLock: (name: string, lock: number) => string): { token: string; name: string }[] {
  const count = new Map<string, number>();
  for (const d of doors) count.set(d.name, (count.get(d.name) ?? 0) + 1);
  return doors.map((d) => ({ token: d.token, name: (count.get(d.name) ?? 0) > 1 ? withLock(d.name, d.lock) : d.name }));
}
