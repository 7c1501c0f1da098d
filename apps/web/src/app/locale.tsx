import { I18nContext, useStore } from 'ra-core';
import { type ReactNode, useEffect, useState } from 'react';
import { type AppLocale, createI18nProvider, DEFAULT_APP_LOCALE, isAppLocale } from '../i18n';
import { raStore } from './ra-store';

/**
 * The language lives in react-admin's store under `locale` (local storage "RaStore.atrium.locale"),
 * so the signed-out pages and the console, each with its own translation context, follow one value.
 */
const LOCALE_KEY = 'locale';

/** The locale chosen in this browser, English by default. */
export function storedLocale(): AppLocale {
  const value = raStore.getItem<string>(LOCALE_KEY);
  return isAppLocale(value) ? value : DEFAULT_APP_LOCALE;
}

/** One translation provider for the whole console, signed in or not. */
export const i18nProvider = createI18nProvider(DEFAULT_APP_LOCALE);

/**
 * Settled once the provider speaks the stored language: another language's catalogue is a chunk
 * of its own, fetched here (before the first render, so no page shows in English first).
 */
export const i18nReady: Promise<void> =
  storedLocale() === DEFAULT_APP_LOCALE ? Promise.resolve() : i18nProvider.changeLocale(storedLocale()).catch(() => undefined);

/** Reloads the catalogues into the provider after texts were registered (a chunk that brings its own). */
export function reloadMessages(): Promise<void> {
  return i18nProvider.changeLocale(i18nProvider.getLocale());
}

/** Switches the language everywhere and remembers it. */
export function setAppLocale(locale: AppLocale): void {
  raStore.setItem(LOCALE_KEY, locale);
}

export const getAppLocale = (): AppLocale => storedLocale();

export function useAppLocale(): AppLocale {
  const [value] = useStore<string>(LOCALE_KEY, storedLocale());
  return isAppLocale(value) ? value : DEFAULT_APP_LOCALE;
}

/** Keeps the page's `lang` on the chosen language (screen readers, hyphenation, spell check), signed in or not. */
export function useDocumentLanguage(): void {
  const locale = useAppLocale();
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);
}

/**
 * Translation context of the signed-out pages: re-renders them in the new language once its
 * catalogue is loaded. (Inside the console react-admin's own provider does the same.)
 */
export function LocaleScope({ children }: { children: ReactNode }) {
  const locale = useAppLocale();
  const [ready, setReady] = useState(() => i18nProvider.getLocale());
  useEffect(() => {
    let live = true;
    Promise.resolve(i18nProvider.getLocale() === locale ? undefined : i18nProvider.changeLocale(locale)).then(() => {
      if (live) setReady(locale);
    });
    return () => {
      live = false;
    };
  }, [locale]);
  return (
    <I18nContext.Provider value={i18nProvider} key={ready}>
      {children}
    </I18nContext.Provider>
  );
}
