import { WEBHOOK_EVENT_TYPES, type Webhook } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { en, ru } from './messages';
import { EVENT_GROUPS, EventTypesPicker, WebhooksTable } from './WebhooksPage';

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

const hook: Webhook = {
  id: 5,
  name: 'Building BMS',
  url: 'https://bms.example.org/atrium',
  event_types: ['device.access_denied', 'audit.user'],
  enabled: true,
  last_delivery_status: 'failed',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

describe('webhooks page', () => {
  it('has every text in both languages, and a name for every event type', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const t of WEBHOOK_EVENT_TYPES) expect((en.webhooks.events as Record<string, string>)[t], t).toBeTypeOf('string');
  });

  it('offers every event type once, grouped', () => {
    const offered = EVENT_GROUPS.flatMap((g) => g.types);
    expect([...offered].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const html = wrap(<EventTypesPicker value={['device.alarm_on']} onChange={() => undefined} error={false} />);
    expect(html.match(/type="checkbox"/g)).toHaveLength(WEBHOOK_EVENT_TYPES.length);
    expect(html.match(/checked=""/g)).toHaveLength(1);
    expect(wrap(<EventTypesPicker value={[]} onChange={() => undefined} error />, 'ru')).toContain('Выберите хотя бы одно событие');
  });

  it('lists endpoints with their events by name, on/off and the last delivery', () => {
    const html = wrap(<WebhooksTable hooks={[hook]} onAction={() => undefined} />);
    for (const s of ['Building BMS', 'https://bms.example.org/atrium', 'Access denied, Users', 'Failed', 'Delivery log'])
      expect(html).toContain(s);
    // The other actions wait behind one button named after the endpoint (its menu opens on a click).
    expect(html).toContain('aria-label="More actions: Building BMS"');
    expect(html).not.toContain('Send test ping');
    expect(wrap(<WebhooksTable hooks={[]} onAction={() => undefined} />, 'ru')).toContain('Вебхуков пока нет');
  });
});
