import type { TwoFactorStatus } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signIn, signInWithCode, signInWithEnrolment, startSignInEnrolment } from '../app/auth';
import { sessionStore } from '../app/session';
import { createI18nProvider } from '../i18n';
import { TwoFactorSection } from './TwoFactorSection';
import { TwoFactorStep } from './TwoFactorStep';

// Two-factor sign-in (issue 14): the login's second step and the profile's section, rendered to HTML
// (no DOM here), and the sign-in calls against a stubbed server.

afterEach(() => {
  vi.unstubAllGlobals();
});

function render(node: React.ReactNode, client = new QueryClient()): string {
  return renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider('en')} store={memoryStore({ locale: 'en' })}>
        <QueryClientProvider client={client}>{node}</QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );
}

const project = (id: number, name: string) => ({ challenge: `c${id}`, project: { id, uid: `p${id}`, name } });

describe('the code step of sign-in', () => {
  it('asks for the code, and for the project only when several want a code', () => {
    const one = render(<TwoFactorStep challenges={[project(1, 'Tower')]} remember={false} onBack={() => undefined} />);
    expect(one).toContain('id="two-factor-code"');
    expect(one).toContain('autoComplete="one-time-code"');
    expect(one).toContain('Six digits from the app, or a recovery code');
    expect(one).not.toContain('id="two-factor-project"');
    const two = render(<TwoFactorStep challenges={[project(1, 'Tower'), project(2, 'Annex')]} remember={false} onBack={() => undefined} />);
    expect(two).toContain('id="two-factor-project"');
  });

  it('renders in Russian', () => {
    const html = renderToString(
      <MemoryRouter>
        <AdminContext i18nProvider={createI18nProvider('ru')} store={memoryStore({ locale: 'ru' })}>
          <TwoFactorStep challenges={[project(1, 'Tower')]} remember={false} onBack={() => undefined} />
        </AdminContext>
      </MemoryRouter>,
    );
    expect(html).toContain('Двухфакторный вход');
  });

  it('asks a user whose role requires it to set two-factor sign-in up first, in English and Russian', () => {
    const required = { ...project(1, 'Tower'), enrolment_required: true };
    const html = render(<TwoFactorStep challenges={[required]} remember={false} onBack={() => undefined} />);
    expect(html).toContain('Your role requires two-factor sign-in');
    expect(html).toContain('Set up two-factor sign-in');
    expect(html).not.toContain('id="two-factor-code"');
    const ru = renderToString(
      <MemoryRouter>
        <AdminContext i18nProvider={createI18nProvider('ru')} store={memoryStore({ locale: 'ru' })}>
          <TwoFactorStep challenges={[required]} remember={false} onBack={() => undefined} />
        </AdminContext>
      </MemoryRouter>,
    );
    expect(ru).toContain('Настроить двухфакторный вход');
  });
});

describe('the profile section', () => {
  const withStatus = (status: TwoFactorStatus) => {
    const client = new QueryClient();
    client.setQueryData(['profile', 'two-factor'], status);
    return render(<TwoFactorSection />, client);
  };

  it('offers to turn it on while it is off', () => {
    const html = withStatus({ enabled: false, pending: false, recovery_codes_left: 0, enabled_at: null });
    expect(html).toContain('Turn on two-factor sign-in');
    expect(html).not.toContain('Turn off two-factor sign-in');
  });

  it('shows the recovery codes left and offers new codes or turning it off while it is on', () => {
    const html = withStatus({ enabled: true, pending: false, recovery_codes_left: 7, enabled_at: '2026-01-01T00:00:00.000Z' });
    expect(html).toContain('On. Recovery codes left: 7');
    expect(html).toContain('New recovery codes');
    expect(html).toContain('Turn off two-factor sign-in');
  });
});

describe('signing in with a code', () => {
  const answer = (data: unknown) =>
    vi.fn(
      async (_url: string, _init: RequestInit) =>
        new Response(JSON.stringify({ data }), { headers: { 'content-type': 'application/json' } }),
    );

  it('a right password with two-factor on leads to the code step, not into the console', async () => {
    vi.stubGlobal('fetch', answer({ sessions: [], two_factor: [project(1, 'Tower')] }));
    sessionStore.end('logout');
    const result = await signIn('pat', 'secret', true);
    expect(result).toEqual({ kind: 'two-factor', challenges: [project(1, 'Tower')], remember: true });
    expect(sessionStore.get().session).toBeNull();
  });

  it('the challenge and the code enter the project', async () => {
    const fetch = answer({ sessions: [{ token: 't1', refresh: 'r1', expires_in: 900, project: project(1, 'Tower').project }] });
    vi.stubGlobal('fetch', fetch);
    await signInWithCode('c1', '123456', false);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe('/api/v0/login/two-factor');
    expect(JSON.parse(String(init?.body))).toEqual({ challenge: 'c1', code: '123456' });
    expect(sessionStore.get().session?.token).toBe('t1');
  });

  it('an enrolment at sign-in asks for a secret, then enters only when the recovery codes were seen', async () => {
    const enrolment = answer({ secret: 'ABCD', otpauth_url: 'otpauth://totp/x', qr: 'data:image/svg+xml;base64,' });
    vi.stubGlobal('fetch', enrolment);
    expect((await startSignInEnrolment('c1')).secret).toBe('ABCD');
    expect(enrolment.mock.calls[0]?.[0]).toBe('/api/v0/login/two-factor/enrol');
    sessionStore.end('logout');
    vi.stubGlobal(
      'fetch',
      answer({
        sessions: [{ token: 't2', refresh: 'r2', expires_in: 900, project: project(1, 'Tower').project }],
        recovery_codes: ['aaaaa-bbbbb'],
      }),
    );
    const done = await signInWithEnrolment('c1', '123456', false);
    expect(done.recoveryCodes).toEqual(['aaaaa-bbbbb']);
    expect(sessionStore.get().session).toBeNull();
    done.enter();
    expect(sessionStore.get().session?.token).toBe('t2');
  });
});
