import polyglotI18nProvider from 'ra-i18n-polyglot';
import type { TranslationMessages } from 'react-admin';
import { describe, expect, it } from 'vitest';
import { AREA_MESSAGES } from './areas';
import { en } from './en';
import { ru } from './ru';

/** Every leaf of a catalogue as [dot-joined key, text]. */
function leaves(tree: unknown, prefix = ''): [string, string][] {
  if (typeof tree === 'string') return [[prefix, tree]];
  if (typeof tree !== 'object' || tree === null) return [];
  return Object.entries(tree).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}
const english = [...leaves(en), ...AREA_MESSAGES.flatMap((m) => leaves(m.en))];
const russian = [...leaves(ru), ...AREA_MESSAGES.flatMap((m) => leaves(m.ru))];
const text = (list: [string, string][], key: string) => list.find(([k]) => k === key)?.[1] ?? '';

// react-admin's polyglot picks a plural form only for %{smart_count}; a number given as %{count}
// before a noun reads "1 backups" in English and has no right form at all in Russian.
describe('plurals', () => {
  it('never writes a counted English noun with a plain %{count}', () => {
    expect(english.filter(([, t]) => /%\{count\} [a-z]+s\b/i.test(t) || /%\{count\} [a-z]+ [a-z]+s\b/i.test(t)).map(([k]) => k)).toEqual(
      [],
    );
  });

  it('gives English two forms and Russian three wherever a text has plural forms', () => {
    expect(english.filter(([, t]) => t.includes('||||') && t.split('||||').length !== 2).map(([k]) => k)).toEqual([]);
    // Resource names are react-admin's "singular |||| plural", asked only with 1 or 2.
    const counted = (k: string) => !/^resources\.[^.]+\.name$/.test(k);
    expect(russian.filter(([k, t]) => counted(k) && t.includes('||||') && t.split('||||').length !== 3).map(([k]) => k)).toEqual([]);
  });

  it('asks to delete one backup, two backups, in both languages', () => {
    const say = (locale: 'en' | 'ru', key: string, n: number) =>
      polyglotI18nProvider(
        () => ({ k: text(locale === 'en' ? english : russian, key) }) as unknown as TranslationMessages,
        locale,
      ).translate('k', { smart_count: n });
    expect(say('en', 'backups.bulk_delete_confirm', 1)).toBe('Delete 1 backup? Its file is removed too.');
    expect(say('en', 'backups.bulk_delete_confirm', 2)).toBe('Delete 2 backups? Their files are removed too.');
    expect(say('ru', 'backups.bulk_delete_confirm', 1)).toMatch(/^Удалить 1 копию\?/);
    expect(say('ru', 'backups.bulk_delete_confirm', 3)).toMatch(/^Удалить 3 копии\?/);
    expect(say('ru', 'backups.bulk_delete_confirm', 5)).toMatch(/^Удалить 5 копий\?/);
    expect(say('en', 'list.confirm_delete', 1)).toBe('Delete 1 record?');
    expect(say('ru', 'list.confirm_delete', 2)).toBe('Удалить 2 записи?');
  });
});
