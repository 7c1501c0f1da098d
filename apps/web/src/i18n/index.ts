import type { TranslationMessages } from 'ra-core';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import russianMessages from 'ra-language-russian';
import * as kitMessages from '../app/kit/messages';
import { en } from './en';
import { ru } from './ru';

/**
 * Texts kept beside the code they belong to (the kit, each area), each module exporting `{ en, ru }`.
 * The areas' texts come with the console's code (`i18n/areas.ts`, loaded by App): the sign-in pages
 * carry only the shell's and the kit's.
 */
const registered: { en: Tree; ru: Tree }[] = [kitMessages];

/** Adds texts to the catalogues (once per module); the provider reloads them with `reloadMessages`. */
export function registerAreaMessages(list: readonly { en: Tree; ru: Tree }[]): void {
  for (const m of list) if (!registered.includes(m)) registered.push(m);
  catalogues = build();
}

export type AppLocale = 'en' | 'ru';
export const APP_LOCALES: readonly AppLocale[] = ['en', 'ru'];
export const DEFAULT_APP_LOCALE: AppLocale = 'en';

export const isAppLocale = (value: unknown): value is AppLocale => value === 'en' || value === 'ru';

type Tree = { [key: string]: unknown };
const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Later sources win; nested objects merge key by key. */
export function deepMerge(...sources: Tree[]): Tree {
  const out: Tree = {};
  for (const src of sources) {
    for (const [k, v] of Object.entries(src)) {
      const prev = out[k];
      out[k] = isTree(v) && isTree(prev) ? deepMerge(prev, v) : isTree(v) ? deepMerge(v) : v;
    }
  }
  return out;
}

// react-admin's Russian pack lags its English one: English fills the gaps rather than raw keys.
const build = (): Record<AppLocale, TranslationMessages> => ({
  en: deepMerge(englishMessages as unknown as Tree, en, ...registered.map((m) => m.en)) as unknown as TranslationMessages,
  ru: deepMerge(
    englishMessages as unknown as Tree,
    russianMessages as unknown as Tree,
    ru,
    ...registered.map((m) => m.ru),
  ) as unknown as TranslationMessages,
});
let catalogues = build();

export const messagesFor = (locale: string): TranslationMessages => catalogues[isAppLocale(locale) ? locale : DEFAULT_APP_LOCALE];

export const createI18nProvider = (locale: AppLocale) =>
  polyglotI18nProvider(messagesFor, locale, [
    { locale: 'en', name: en.toolbar.languages.en },
    { locale: 'ru', name: en.toolbar.languages.ru },
  ]);
