import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from '../i18n/en';
import { ru } from '../i18n/ru';

// index.html's shell is written by hand in both languages: each text must stay the catalogue's.
const html = readFileSync(path.resolve(import.meta.dirname, '../../index.html'), 'utf8');
const texts = [...html.matchAll(/<span class="(en|ru)" data-t="([\w.]+)">([^<]*)<\/span>/g)].map(([, lang, key, text]) => ({
  lang: lang as 'en' | 'ru',
  key: key as string,
  text,
}));
const lookup = (catalogue: unknown, key: string): unknown =>
  key
    .split('.')
    .reduce<unknown>((node, k) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined), catalogue);

describe("index.html's shell", () => {
  it('says what the sign-in page says, in English and in Russian', () => {
    expect(texts.length).toBeGreaterThanOrEqual(12);
    for (const { lang, key, text } of texts) expect(text, `${lang} ${key}`).toBe(lookup(lang === 'en' ? en : ru, key));
  });

  it('has every text in both languages', () => {
    const keysOf = (lang: string) => texts.filter((t) => t.lang === lang).map((t) => t.key);
    expect(keysOf('ru')).toEqual(keysOf('en'));
  });
});
