import { AMENITY_VALIDATION_MESSAGES, RESERVATION_STATUSES, WEEK_DAYS } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { en, ru } from './messages';
import { StatusChip } from './ReservationPages';

/** Every leaf's dotted path with its text. */
const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

describe('amenities texts', () => {
  it('exist in both languages, none empty, for every status, day and form message', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const s of RESERVATION_STATUSES) expect(en.reservations.statuses[s], s).toBeTypeOf('string');
    for (const d of WEEK_DAYS) expect(ru.amenities.days[d], d).toBeTypeOf('string');
    for (const key of Object.values(AMENITY_VALIDATION_MESSAGES)) {
      const leaf = key.replace(/^validation\./, '') as keyof typeof en.validation;
      expect(en.validation[leaf], key).toBeTypeOf('string');
      expect(ru.validation[leaf], key).toBeTypeOf('string');
    }
  });

  it('name a reservation status in the reader’s language', () => {
    const chip = (locale: 'en' | 'ru') =>
      renderToString(
        <MemoryRouter>
          <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
            <QueryClientProvider client={new QueryClient()}>
              <StatusChip status="active" />
            </QueryClientProvider>
          </AdminContext>
        </MemoryRouter>,
      );
    expect(chip('en')).toContain('In use');
    expect(chip('ru')).toContain('Используется');
  });
});
