import type { TranslationMessages } from 'ra-core';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import russianMessages from 'ra-language-russian';
import * as kitMessages from '../app/kit/messages';
import * as dashboardMessages from '../pages/dashboardMessages';
import * as devicesMessages from '../resources/devices/messages';
import * as domainTypesMessages from '../resources/domain-types/messages';
import * as groupsMessages from '../resources/groups/messages';
import * as outboxMessages from '../resources/outbox/messages';
import * as rolesMessages from '../resources/roles/messages';
import * as usersMessages from '../resources/users/messages';
import { en } from './en';
import { ru } from './ru';

/** Texts kept beside the code they belong to (the kit, each area), each module exporting `{ en, ru }`. */
export const AREA_MESSAGES: readonly { en: Tree; ru: Tree }[] = [
  kitMessages,
  groupsMessages,
  domainTypesMessages,
  usersMessages,
  rolesMessages,
  devicesMessages,
  outboxMessages,
  dashboardMessages,
];

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
const catalogues: Record<AppLocale, TranslationMessages> = {
  en: deepMerge(englishMessages as unknown as Tree, en, ...AREA_MESSAGES.map((m) => m.en)) as unknown as TranslationMessages,
  ru: deepMerge(
    englishMessages as unknown as Tree,
    russianMessages as unknown as Tree,
    ru,
    ...AREA_MESSAGES.map((m) => m.ru),
  ) as unknown as TranslationMessages,
};

export const messagesFor = (locale: string): TranslationMessages => catalogues[isAppLocale(locale) ? locale : DEFAULT_APP_LOCALE];

export const createI18nProvider = (locale: AppLocale) =>
  polyglotI18nProvider(messagesFor, locale, [
    { locale: 'en', name: en.toolbar.languages.en },
    { locale: 'ru', name: en.toolbar.languages.ru },
  ]);
