import { MAIL_COMPANY_PLACEHOLDERS, MAIL_TEMPLATE_KINDS, MAIL_TEMPLATE_PLACEHOLDERS, missingPlaceholders } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { en, ru } from './messages';
import { insertPlaceholder } from './placeholders';

const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

describe('mail templates page', () => {
  it('has every text in both languages and a name for every kind', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const kind of MAIL_TEMPLATE_KINDS) {
      expect(en.mail_templates.kinds[kind], kind).toBeTypeOf('string');
      expect(ru.mail_templates.kinds[kind], kind).toBeTypeOf('string');
    }
  });

  it('explains every placeholder of every kind in both languages, the company ones included', () => {
    for (const kind of MAIL_TEMPLATE_KINDS) {
      expect(MAIL_TEMPLATE_PLACEHOLDERS[kind].all).toEqual(expect.arrayContaining([...MAIL_COMPANY_PLACEHOLDERS]));
      for (const p of MAIL_TEMPLATE_PLACEHOLDERS[kind].all) {
        expect((en.mail_templates.placeholder_help as Record<string, string>)[p], `${kind} {${p}}`).toMatch(/\S/);
        expect((ru.mail_templates.placeholder_help as Record<string, string>)[p], `${kind} {${p}}`).toMatch(/\S/);
      }
    }
  });

  it('inserts a placeholder at the cursor, replacing a selection', () => {
    expect(insertPlaceholder('Hello !', 'name', 6)).toEqual({ text: 'Hello {name}!', cursor: 12 });
    expect(insertPlaceholder('Go: XXX', 'link', 4, 7)).toEqual({ text: 'Go: {link}', cursor: 10 });
    expect(insertPlaceholder('abc', 'code')).toEqual({ text: 'abc{code}', cursor: 9 });
    expect(insertPlaceholder('abc', 'code', 99, 120)).toEqual({ text: 'abc{code}', cursor: 9 });
  });

  it('names the required placeholders a text lacks', () => {
    expect(missingPlaceholders('invite', 'Hi {name}')).toEqual(['{link}']);
    expect(missingPlaceholders('invite', 'Hi {name}: {link}')).toEqual([]);
    expect(missingPlaceholders('announce', '{link}')).toEqual(['{body}']);
    for (const kind of MAIL_TEMPLATE_KINDS)
      for (const r of MAIL_TEMPLATE_PLACEHOLDERS[kind].required) expect(MAIL_TEMPLATE_PLACEHOLDERS[kind].all).toContain(r);
  });
});
