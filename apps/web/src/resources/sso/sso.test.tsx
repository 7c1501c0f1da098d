import type { SsoProvider } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { ssoStartUrl } from '../../pages/SsoSignIn';
import { en, ru } from './messages';

const session = vi.hoisted(() => ({ permissions: [] as string[] }));
vi.mock('../../app/SessionContext', () => ({ useSessionData: () => ({ permissions: session.permissions }) }));
const { providerBody, SsoProvidersPage } = await import('./SsoProvidersPage');

const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

const provider: SsoProvider = {
  id: 4,
  name: 'Company login',
  issuer: 'https://id.example.com',
  client_id: 'atrium',
  client_secret: null,
  has_client_secret: true,
  scopes: 'openid email',
  claim: 'email',
  match_field: 'email',
  is_enabled: true,
  auto_create: true,
  default_role_id: 2,
  default_group_id: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

function render(permissions: string[], providers: SsoProvider[], locale: 'en' | 'ru' = 'en') {
  session.permissions = permissions;
  const client = new QueryClient();
  client.setQueryData(['sso-providers'], { data: providers });
  return renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={client}>
          <SsoProvidersPage />
        </QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );
}

describe('single sign-on providers page', () => {
  it('lists the providers; only who may change settings can add, edit and delete', () => {
    const changer = render(['can_change_project_settings'], [provider]);
    expect(changer).toContain('Company login');
    expect(changer).toContain('https://id.example.com');
    expect(changer).toContain('Creates users');
    expect(changer).toContain('Add a provider');
    expect(changer).toContain('aria-label="Delete Company login"');
    const viewer = render(['can_view_project_settings'], [provider]);
    expect(viewer).toContain('Company login');
    expect(viewer).not.toContain('Add a provider');
    expect(viewer).not.toContain('aria-label="Delete Company login"');
  });

  it('says when there is none, in Russian too', () => {
    expect(render(['can_change_project_settings'], [])).toContain('No provider yet.');
    expect(render(['can_change_project_settings'], [], 'ru')).toContain('Провайдеров пока нет.');
  });

  it('sends the secret only when a new one was typed', () => {
    expect(providerBody({ ...provider, client_secret: '********' })).not.toHaveProperty('client_secret');
    expect(providerBody({ ...provider, client_secret: '' })).not.toHaveProperty('client_secret');
    expect(providerBody({ ...provider, client_secret: 'new-secret' })).toMatchObject({ client_secret: 'new-secret' });
    expect(providerBody({ name: ' X ', issuer: 'https://a', client_id: 'c' })).toMatchObject({
      name: 'X',
      scopes: 'openid email profile',
      claim: 'email',
      match_field: 'email',
      auto_create: false,
      default_group_id: null,
    });
  });

  it('starts a sign-on with only a console path as the way back', () => {
    expect(ssoStartUrl(3, '?redirect=%2Fusers')).toBe('/api/v0/sso/3/start?redirect=%2Fusers');
    expect(ssoStartUrl(3, '?redirect=https%3A%2F%2Fevil.example')).toBe('/api/v0/sso/3/start');
    expect(ssoStartUrl(3, '')).toBe('/api/v0/sso/3/start');
  });

  it('has every text in English and Russian', () => {
    expect(leaves(ru).map(([k]) => k)).toEqual(leaves(en).map(([k]) => k));
    for (const [k, v] of leaves(ru)) expect(v, k).toBeTruthy();
  });
});
