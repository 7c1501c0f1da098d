import type { Identifier } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { AREAS, isAvailable } from '../../../app/areas';
import { findMenuEntry } from '../../../app/menu-rules';
import { createI18nProvider } from '../../../i18n';
import '../../../i18n/areas';
import { en, ru } from './messages';
import { Ukey2Details } from './Ukey2Pages';

const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

const wrap = (node: React.ReactNode, locale: 'en' | 'ru' = 'en') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={new QueryClient()}>{node}</QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );

const key: Identifier = {
  id: 7,
  name: 'Phone of Anna',
  description: null,
  is_active: true,
  type: 'ukey2',
  value: 'ab12cd34ef56',
  owner_id: 4,
  owner: { id: 4, name: 'Anna Petrova', login: 'anna' },
  period_restrict_active: false,
  period_restrict_from: null,
  period_restrict_to: null,
  passes_restrict_active: false,
  passes_restrict_max_count: 0,
  passes_restrict_passes_count: 0,
  access_rules: [1, 2],
  guest_type: null,
  key_message: null,
  photo_url: null,
  is_revoked: false,
  revoked_at: null,
  created_by: 1,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-02T10:00:00.000Z',
  can_edit: false,
  can_delete: false,
};

describe('UKEY2 pages', () => {
  it('have every text in both languages', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
  });

  it('are an area with a list and a read-only page, behind the licence and the view permission', () => {
    const area = AREAS.find((a) => a.name === 'ukey2');
    expect(area?.parts).toEqual(['list', 'edit']);
    expect(area?.menuPaths).toEqual(['/ukey2']);
    expect(isAvailable('/ukey2')).toBe(true);
    expect(findMenuEntry('/ukey2')?.item.rule).toBeDefined();
  });

  it('show a key read only, with its owner, state, period and rules, in English and Russian', () => {
    const html = wrap(<Ukey2Details data={key} format="hex" />);
    for (const s of ['UKEY2 key Phone of Anna', 'Anna Petrova (anna)', 'Active', '2 access rules', 'In use', 'only shows them'])
      expect(html).toContain(s);
    expect(html).not.toMatch(/<(input|textarea)/);
    const revoked = wrap(
      <Ukey2Details data={{ ...key, owner: null, is_revoked: true, revoked_at: '2026-11-03T10:00:00.000Z' }} format="dec" />,
      'ru',
    );
    for (const s of ['Ключ UKEY2 Phone of Anna', 'Без владельца', 'здесь их можно только просмотреть']) expect(revoked).toContain(s);
  });
});
