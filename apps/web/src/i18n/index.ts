import type { TranslationMessages } from 'ra-core';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import * as kitMessages from '../app/kit/messages';
import { en } from './en';

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

/**
 * The Russian catalogues (the shell's and react-admin's), loaded when Russian is first wanted: the
 * sign-in page in English does not download them. `loadRussian` before rendering in Russian.
 */
let russian: { pack: Tree; shell: Tree } | null = null;

export async function loadRussian(): Promise<void> {
  if (russian) return;
  const [pack, shell] = await Promise.all([import('ra-language-russian'), import('./ru')]);
  russian = { pack: pack.default as unknown as Tree, shell: shell.ru };
  catalogues = build();
}

// react-admin's Russian pack lags its English one: English fills the gaps rather than raw keys.
const build = (): { en: TranslationMessages; ru: TranslationMessages | null } => ({
  en: deepMerge(englishMessages as unknown as Tree, en, ...registered.map((m) => m.en)) as unknown as TranslationMessages,
  ru: russian
    ? (deepMerge(
        englishMessages as unknown as Tree,
        russian.pack,
        russian.shell,
        ...registered.map((m) => m.ru),
      ) as unknown as TranslationMessages)
    : null,
});
let catalogues = build();

/** A locale's catalogue; Russian's arrives with its chunk the first time (a promise until then). */
export const messagesFor = (locale: string): TranslationMessages | Promise<TranslationMessages> => {
  if (locale !== 'ru') return catalogues.en;
  return catalogues.ru ?? loadRussian().then(() => catalogues.ru as TranslationMessages);
};

export const createI18nProvider = (locale: AppLocale) =>
  polyglotI18nProvider(messagesFor, locale, [
    { locale: 'en', name: en.toolbar.languages.en },
    { locale: 'ru', name: en.toolbar.languages.ru },
  ]);
