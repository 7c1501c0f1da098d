import { useSyncExternalStore } from 'react';
import { type AppLocale, createI18nProvider, DEFAULT_APP_LOCALE, isAppLocale } from '../i18n';
import { readRaw, STORAGE_KEYS, write } from './storage';

/** The locale chosen in this browser (storage key "user locale"), English by default. */
export function storedLocale(): AppLocale {
  const value = readRaw(STORAGE_KEYS.locale);
  return isAppLocale(value) ? value : DEFAULT_APP_LOCALE;
}

let current: AppLocale = storedLocale();
const listeners = new Set<() => void>();

/** One translation provider for the whole console, signed in or not. */
export const i18nProvider = createI18nProvider(current);

/** Switches the language everywhere and remembers it. */
export async function setAppLocale(locale: AppLocale): Promise<void> {
  write(STORAGE_KEYS.locale, locale);
  if (i18nProvider.getLocale() !== locale) await i18nProvider.changeLocale(locale);
  if (current === locale) return;
  current = locale;
  document.documentElement.lang = locale;
  for (const l of listeners) l();
}

export const getAppLocale = (): AppLocale => current;

export function useAppLocale(): AppLocale {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}
