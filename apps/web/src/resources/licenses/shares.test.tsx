import { DomainLicenseInfoSchema, fullLicenseInfo, UNLIMITED_PERIOD } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore, testDataProvider } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider, registerAreaMessages } from '../../i18n';
import { GroupShares } from './GroupShares';
import * as messages from './messages';
import { projectCount, shareInfo, shareProblems, shareRows } from './shares';

// The group licence share editor (issue 14): what it reads from a group's licence info, what it
// sends back, what it refuses before sending, and how it renders in both languages.

const info = DomainLicenseInfoSchema.parse({
  is_enabled: true,
  notifications: { is_active: false, period: 'never', notify_before: 3 },
  licenses: [
    { type: 'sip', quantity: 10, period: { from: Date.UTC(2026, 0, 1) / 1000, to: Date.UTC(2026, 11, 31, 23, 59, 59) / 1000 } },
    { type: 'elevator', is_active: false, restrict_period: { is_active: true, from: 100, to: 200 } },
    { type: 'ukey2', is_device_license: true, device: 7, quantity: 1 },
  ],
});

describe('group licence shares', () => {
  it('shows shares (not device licences) with dates as days and unlimited as empty', () => {
    expect(shareRows(info)).toEqual([
      { type: 'sip', is_active: true, quantity: 10, from: '2026-01-01', to: '2026-12-31' },
      { type: 'elevator', is_active: false, quantity: null, from: '', to: '' },
    ]);
  });

  it('sends the edited shares, keeping notifications, device licences and restricted periods', () => {
    const rows = shareRows(info);
    rows[0] = { ...rows[0]!, quantity: 4, to: '2026-06-30' };
    rows.push({ type: 'amenity', is_active: true, quantity: null, from: '', to: '' });
    const sent = shareInfo(info, false, rows);
    expect(sent.is_enabled).toBe(false);
    expect(sent.notifications).toEqual(info.notifications);
    expect(sent.licenses.map((l) => l.type)).toEqual(['sip', 'elevator', 'amenity', 'ukey2']);
    expect(sent.licenses[0]).toMatchObject({
      quantity: 4,
      period: { from: Date.UTC(2026, 0, 1) / 1000, to: Date.UTC(2026, 5, 30, 23, 59, 59) / 1000 },
    });
    expect(sent.licenses[1]?.restrict_period).toEqual({ is_active: true, from: 100, to: 200 });
    expect(sent.licenses[2]).toMatchObject({ quantity: null, period: { ...UNLIMITED_PERIOD }, is_device_license: false });
    expect(sent.licenses[3]).toMatchObject({ type: 'ukey2', is_device_license: true, device: 7 });
    // What the server takes.
    expect(DomainLicenseInfoSchema.safeParse(sent).success).toBe(true);
  });

  it('refuses a missing or repeated feature, a bad count and a reversed period before sending', () => {
    expect(shareProblems(shareRows(info))).toEqual([]);
    expect(
      shareProblems([
        { type: '', is_active: true, quantity: null, from: '', to: '' },
        { type: 'sip', is_active: true, quantity: -1, from: '', to: '' },
        { type: 'sip', is_active: true, quantity: 1.5, from: '2026-02-01', to: '2026-01-01' },
      ]),
    ).toEqual([
      { index: 0, problem: 'type_required' },
      { index: 1, problem: 'quantity' },
      { index: 2, problem: 'type_twice' },
      { index: 2, problem: 'quantity' },
      { index: 2, problem: 'period' },
    ]);
  });

  it('reads the project licence count of each feature', () => {
    const features = fullLicenseInfo();
    features.sip.license_count = 25;
    expect(projectCount(features, 'sip')).toBe(25);
    expect(projectCount(features, 'web_dialer')).toBe(25);
    expect(projectCount(features, 'nonsense')).toBeUndefined();
  });

  it('renders the editor in English and Russian', () => {
    registerAreaMessages([messages]);
    const render = (locale: 'en' | 'ru') =>
      renderToString(
        <MemoryRouter>
          <AdminContext dataProvider={testDataProvider()} i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
            <QueryClientProvider client={new QueryClient()}>
              <GroupShares features={fullLicenseInfo()} editable />
            </QueryClientProvider>
          </AdminContext>
        </MemoryRouter>,
      );
    expect(render('en')).toContain('Group shares');
    expect(render('ru')).toContain('Доли групп');
  });
});
