import type { MobileAppLinks, Profile } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../i18n';
import '../i18n/areas';
import { en } from '../i18n/en';
import { ru } from '../i18n/ru';
import { MobileAppButton, MobileAppDownload, opensByItself } from './MobileAppDialog';

const links: MobileAppLinks = {
  app_store_url: 'https://apps.apple.com/app/id000000001',
  google_play_url: 'https://play.google.com/store/apps/details?id=example.atrium',
};
const profile = (active: boolean) => ({ id: 7, profile: { is_app_popup_active: active } }) as unknown as Profile;

// No DOM in these tests (environment node): rendered to HTML as the server would.
const render = (node: ReactNode, locale: 'en' | 'ru' = 'en') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={new QueryClient()}>{node}</QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );

describe('the mobile app download dialog', () => {
  it('has its texts in English and Russian', () => {
    expect(Object.keys(ru.profile.mobile_app)).toEqual(Object.keys(en.profile.mobile_app));
    for (const m of [en, ru]) for (const v of Object.values(m.profile.mobile_app)) expect(v).toMatch(/\S/);
  });

  it('shows a QR code and a link per store page the project has', () => {
    const html = render(<MobileAppDownload links={links} />);
    expect(html).toContain('href="https://apps.apple.com/app/id000000001"');
    expect(html).toContain('href="https://play.google.com/store/apps/details?id=example.atrium"');
    expect(html).toContain('App Store (iPhone)');
    expect(html).toContain('Google Play (Android)');
    const only = render(<MobileAppDownload links={{ app_store_url: null, google_play_url: links.google_play_url }} />, 'ru');
    expect(only).toContain('Google Play (Android)');
    expect(only).not.toContain('App Store');
    expect(only).toContain('Наведите камеру телефона');
  });

  it('says the links are not set when the project has none', () => {
    for (const l of [null, { app_store_url: null, google_play_url: null }]) {
      const html = render(<MobileAppDownload links={l} />);
      expect(html).toContain('The download links of the mobile app are not set yet');
      expect(html).not.toContain('<a ');
    }
  });

  it('opens by itself only while the flag is on and there is a store page; the button is always there', () => {
    expect(opensByItself(profile(true), links)).toBe(true);
    expect(opensByItself(profile(false), links)).toBe(false);
    expect(opensByItself(profile(true), { app_store_url: null, google_play_url: null })).toBe(false);
    expect(opensByItself(profile(true), null)).toBe(false);
    expect(render(<MobileAppButton profile={profile(false)} links={links} />)).toContain('Get the mobile app');
    expect(render(<MobileAppButton profile={profile(false)} links={links} />, 'ru')).toContain('Мобильное приложение');
  });
});
