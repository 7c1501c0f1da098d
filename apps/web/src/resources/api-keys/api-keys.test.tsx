import type { ApiKey } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { ApiKeysTable, createBody } from './ApiKeysPage';
import { en, ru } from './messages';

const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

const key = (id: number, status: ApiKey['status'], extra: Partial<ApiKey> = {}): ApiKey => ({
  id,
  name: `Key ${id}`,
  prefix: `atr_abcd${id}xyz`,
  role: 3,
  role_info: { id: 3, name: 'Integrations' },
  domains: [],
  status,
  expires_at: null,
  last_used_at: null,
  revoked_at: status === 'revoked' ? '2026-01-01T00:00:00.000Z' : null,
  created_by: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

const render = (keys: ApiKey[], locale: 'en' | 'ru' = 'en') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={new QueryClient()}>
          <ApiKeysTable keys={keys} onRevoke={() => undefined} onDelete={() => undefined} />
        </QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );

describe('API keys page', () => {
  it('has every text in both languages, none empty', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
  });

  it('sends the chosen role, groups and expiry, leaving out what was not set', () => {
    expect(createBody({ name: ' Billing ', role: 4 })).toEqual({ name: 'Billing', role: 4, domains: [] });
    expect(createBody({ name: 'B', role: 4, domains: [7], expires_at: '2030-01-02T03:04:00.000Z' })).toEqual({
      name: 'B',
      role: 4,
      domains: [7],
      expires_at: '2030-01-02T03:04:00.000Z',
    });
  });

  it('lists keys by their start only, with status and last use; only an active key can be revoked', () => {
    const html = render([key(1, 'active', { last_used_at: '2026-02-01T10:00:00.000Z' }), key(2, 'revoked'), key(3, 'expired')]);
    expect(html).toContain('atr_abcd1xyz…');
    expect(html).toContain('Integrations');
    for (const s of ['Active', 'Revoked', 'Expired', 'Never']) expect(html).toContain(s);
    // One line per row: an active key's Revoke on the row and Delete behind its menu; the others' Delete on the row.
    expect(html.match(/>Revoke</g)).toHaveLength(1);
    expect(html.match(/>Delete</g)).toHaveLength(2);
    expect(html).toContain('aria-label="More actions: Key 1"');
    expect(html).not.toContain('More actions: Key 2');
    expect(render([], 'ru')).toContain('API-ключей пока нет');
  });
});
