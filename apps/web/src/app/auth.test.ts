import type { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signOut } from './auth';
import { createAuthProvider } from './authProvider';
import { sessionStore } from './session';

/** A server that never answers: what sign-out must not wait for. */
function silentServer() {
  const fetch = vi.fn((_url: string, _init: RequestInit) => new Promise<Response>(() => undefined));
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('signing out', () => {
  it('forgets the session at once and tells the server with the forgotten tokens', () => {
    const fetch = silentServer();
    sessionStore.start({ token: 'a1', refresh: 'r1' }, false);
    signOut();
    expect(sessionStore.get()).toMatchObject({ session: null, endReason: 'logout' });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe('/api/v0/logout');
    expect(init).toMatchObject({
      method: 'POST',
      keepalive: true,
      body: JSON.stringify({ token: 'r1' }),
      headers: { Authorization: 'Bearer a1' },
    });
  });

  it('is over for react-admin before the server answers, so its store reset and move to /login cannot come later', async () => {
    silentServer();
    sessionStore.start({ token: 'a1', refresh: 'r1' }, false);
    const logout = createAuthProvider({} as QueryClient).logout({});
    const outcome = await Promise.race([logout, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 100))]);
    expect(outcome).toBe('/login');
    expect(sessionStore.get().session).toBeNull();
  });

  it('without a session calls nobody', () => {
    // The session store is the module's: another file of the same worker may have signed in.
    sessionStore.end('logout');
    const fetch = silentServer();
    signOut();
    expect(fetch).not.toHaveBeenCalled();
    expect(sessionStore.get().session).toBeNull();
  });
});
