import { ERROR_MESSAGES, PERMISSIONS, VALIDATION_MESSAGES } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import * as kitMessages from '../app/kit/messages';
import { MENU, SECTION_CODES } from '../app/menu-rules';
import { AREA_MESSAGES } from './areas';
import { en } from './en';
import { ru } from './ru';

/** Every leaf of a catalogue as [dot-joined key, text]. */
function leaves(tree: unknown, prefix = ''): [string, unknown][] {
  if (typeof tree !== 'object' || tree === null) return [[prefix, tree]];
  return Object.entries(tree).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}
const keys = (tree: unknown) => leaves(tree).map(([k]) => k);
const get = (tree: unknown, path: string[]): unknown =>
  path.reduce<unknown>((node, k) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined), tree);

describe('translations', () => {
  const enKeys = new Set(keys(en));
  const ruKeys = new Set(keys(ru));

  it('every English key has a Russian text', () => {
    expect([...enKeys].filter((k) => !ruKeys.has(k))).toEqual([]);
  });
  it('every Russian key has an English text', () => {
    expect([...ruKeys].filter((k) => !enKeys.has(k))).toEqual([]);
  });
  it('no text is empty', () => {
    for (const [name, cat] of [
      ['en', en],
      ['ru', ru],
    ] as const) {
      const empty = leaves(cat)
        .filter(([, v]) => typeof v !== 'string' || v.trim() === '')
        .map(([k]) => k);
      expect(empty, name).toEqual([]);
    }
  });
  it('every error message of the contract has an errors.http text in both languages', () => {
    for (const cat of [en, ru]) {
      const http = cat.errors.http as Record<string, string>;
      expect(ERROR_MESSAGES.filter((m) => !http[m])).toEqual([]);
    }
  });
  it('every validation message of the contract has a text in both languages', () => {
    for (const cat of [en, ru]) {
      for (const key of Object.values(VALIDATION_MESSAGES) as string[]) expect(get(cat, key.split('.')), key).toBeTypeOf('string');
    }
  });
  it('every menu section and entry has a text', () => {
    for (const cat of [en, ru]) {
      for (const code of SECTION_CODES) expect(get(cat, ['menu', 'sections', code]), code).toBeTypeOf('string');
      for (const item of MENU.flatMap((s) => s.items)) expect(get(cat, item.label.split('.')), item.label).toBeTypeOf('string');
    }
  });
  it('every text kept beside the kit and the areas exists in both languages, without empty ones', () => {
    for (const m of AREA_MESSAGES) {
      const enArea = new Set(keys(m.en));
      const ruArea = new Set(keys(m.ru));
      expect([...enArea].filter((k) => !ruArea.has(k))).toEqual([]);
      expect([...ruArea].filter((k) => !enArea.has(k))).toEqual([]);
      for (const cat of [m.en, m.ru])
        expect(
          leaves(cat)
            .filter(([, v]) => typeof v !== 'string' || v.trim() === '')
            .map(([k]) => k),
        ).toEqual([]);
    }
  });
  it('the permission catalogue carries both labels', () => {
    expect(PERMISSIONS.filter((p) => !p.en || !p.ru).map((p) => p.code)).toEqual([]);
  });

  it('no Russian text is left in English, beyond proper names and codes', () => {
    // Names and codes a Russian reader meets as they are (products, protocols, standards), the language
    // names each written in its own language, and texts that are nothing but placeholders or signs.
    const proper =
      /Atrium|Axxon One|Apple Wallet|App Store|Google Play|Pass Type ID|Team ID|Node\.js|PostgreSQL|SSL\/TLS|STARTTLS|UKEY2?|MQTT|HTTP|SIP|SOS|TLS|API|iOS|Android|Excel|xlsx|iPhone|ID|English|\bpass\b|\d+xx/g;
    const residue = (text: string) =>
      text
        .replace(/%\{\w+\}/g, '')
        .replace(proper, '')
        .replace(/[^A-Za-z]/g, '');
    const english: string[] = [];
    for (const [e, r] of [[en, ru], [kitMessages.en, kitMessages.ru], ...AREA_MESSAGES.map((m) => [m.en, m.ru] as const)] as const) {
      const russian = new Map(leaves(r));
      for (const [key, text] of leaves(e)) {
        if (typeof text === 'string' && russian.get(key) === text && residue(text) !== '') english.push(`${key}: ${text}`);
      }
    }
    expect(english).toEqual([]);
  });
});
