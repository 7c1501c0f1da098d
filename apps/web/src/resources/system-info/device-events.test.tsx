import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { DeviceEvents } from './SystemInfoPage';

const events = {
  backlog: 1200,
  oldest_unstored_ms: 4300,
  stored: 1_000_000,
  acknowledged: 999_000,
  awaiting_ack: 1000,
  delayed: { write_retry: 3, intake_full: 0, read_paused: 1, deferred: 40, reconnect_asked: 6 },
  acks_of_closed_connections: 0,
  refused: { too_large: 0, status_mismatch: 2 },
  unstored_at_stop: 0,
};

// The card's text as read: tags and React's text markers dropped, spaces collapsed.
const render = (locale: 'en' | 'ru') =>
  renderHtml(locale)
    .replace(/<!-- -->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

const renderHtml = (locale: 'en' | 'ru') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={new QueryClient()}>
          <DeviceEvents events={events} />
        </QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );

describe('the device events card', () => {
  it('shows the backlog, the oldest wait and the reasons of delays and refusals, a row each, in the reader’s language', () => {
    const en = render('en');
    expect(en).toContain('Waiting to be stored');
    expect(en).toContain('4.3 s');
    expect(en).toContain('database slow or away 3');
    expect(en).toContain('model or type of another device 2');
    expect(en).toContain('left for the device to send again 40');
    expect(en).toContain('connections closed to have them sent again 6');
    expect(en).not.toContain('too large');
    // Not one joined string that a narrow card breaks anywhere.
    expect(renderHtml('en')).not.toMatch(/database slow or away: 3, /);
    const ru = render('ru');
    expect(ru).toContain('Ожидают сохранения');
    expect(ru).toContain('4,3 с');
    expect(ru).toContain('база данных медленна или недоступна 3');
    expect(ru).toContain('модель или тип другого устройства 2');
    expect(ru).toContain('оставлены устройству для повторной отправки 40');
    expect(ru).toContain('соединений закрыто для повторной отправки 6');
  });
});
