import { describe, expect, it, vi } from 'vitest';
import { ApiError, buildUrl, createHttp, needsRefresh, type TokenSource } from './http';

type Handler = (url: string, init: RequestInit) => { status: number; body?: unknown };

function setup(handler: Handler, initial = { token: 'a1', refresh: 'r1' }) {
  const state = { ...initial, expired: 0 };
  const tokens: TokenSource = {
    token: () => state.token || null,
    refreshToken: () => state.refresh || null,
    update: (t) => Object.assign(state, t),
    expire: () => {
      state.expired++;
      state.token = '';
      state.refresh = '';
    },
  };
  const calls: { url: string; auth: string | null; body: unknown }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    const headers = init.headers as Record<string, string>;
    calls.push({ url, auth: headers.Authorization ?? null, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const { status, body } = handler(url, init);
    return new Response(body === undefined ? null : JSON.stringify(body), { status });
  });
  const http = createHttp({ base: '/api/v0', tokens, fetch: fetch as unknown as typeof globalThis.fetch });
  return { http, state, calls };
}

const unauthenticated = { status: 401, body: { message: 'unauthenticated', code: 'unauthenticated' } };

describe('refresh once on 401', () => {
  it('refreshes the tokens once and retries the request', async () => {
    const { http, state, calls } = setup((url, init) => {
      const auth = (init.headers as Record<string, string>).Authorization;
      if (url.endsWith('/refresh')) return { status: 200, body: { data: { session: { token: 'a2', refresh: 'r2' } } } };
      return auth === 'Bearer a2' ? { status: 200, body: { data: { id: 7 } } } : unauthenticated;
    });
    await expect(http.data('/profile')).resolves.toEqual({ id: 7 });
    expect(calls.map((c) => [c.url, c.auth])).toEqual([
      ['/api/v0/profile', 'Bearer a1'],
      ['/api/v0/refresh', null],
      ['/api/v0/profile', 'Bearer a2'],
    ]);
    expect(calls[1]?.body).toEqual({ token: 'r1' });
    expect(state).toMatchObject({ token: 'a2', refresh: 'r2', expired: 0 });
  });

  it('also refreshes on code not_authorized', async () => {
    const { http, calls } = setup((url, init) => {
      if (url.endsWith('/refresh')) return { status: 200, body: { data: { session: { token: 'a2', refresh: 'r2' } } } };
      const auth = (init.headers as Record<string, string>).Authorization;
      return auth === 'Bearer a2'
        ? { status: 200, body: { data: 1 } }
        : { status: 401, body: { message: 'whatever', code: 'not_authorized' } };
    });
    await expect(http.data('/x')).resolves.toBe(1);
    expect(calls.filter((c) => c.url.endsWith('/refresh'))).toHaveLength(1);
  });

  it('shares one refresh among concurrent calls', async () => {
    const { http, calls } = setup((url, init) => {
      if (url.endsWith('/refresh')) return { status: 200, body: { data: { session: { token: 'a2', refresh: 'r2' } } } };
      const auth = (init.headers as Record<string, string>).Authorization;
      return auth === 'Bearer a2' ? { status: 200, body: { data: url } } : unauthenticated;
    });
    await Promise.all([http.data('/a'), http.data('/b'), http.data('/c')]);
    expect(calls.filter((c) => c.url.endsWith('/refresh'))).toHaveLength(1);
  });

  it('ends the session when the refresh fails, without retrying', async () => {
    const { http, state, calls } = setup((url) =>
      url.endsWith('/refresh') ? { status: 401, body: { message: 'invalid token', code: 'invalid_token' } } : unauthenticated,
    );
    const error = (await http.data('/profile').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(401);
    expect(state.expired).toBe(1);
    expect(calls.map((c) => c.url)).toEqual(['/api/v0/profile', '/api/v0/refresh']);
  });

  it('refreshes at most once even when the retry is refused again', async () => {
    const { http, state, calls } = setup((url) =>
      url.endsWith('/refresh') ? { status: 200, body: { data: { session: { token: 'a2', refresh: 'r2' } } } } : unauthenticated,
    );
    await expect(http.data('/profile')).rejects.toBeInstanceOf(ApiError);
    expect(calls.map((c) => c.url)).toEqual(['/api/v0/profile', '/api/v0/refresh', '/api/v0/profile']);
    expect(state.expired).toBe(1);
  });

  it('does not refresh on other errors, nor on anonymous calls', async () => {
    const { http, calls } = setup((url) =>
      url.endsWith('/login')
        ? { status: 401, body: { message: 'invalid credentials', code: 'invalid_credentials' } }
        : { status: 403, body: { message: 'action prohibited' } },
    );
    await expect(http.data('/roles')).rejects.toMatchObject({ status: 403, message: 'action prohibited' });
    await expect(http.data('/login', { method: 'POST', auth: false, body: {} })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_credentials',
    });
    expect(calls.map((c) => c.url)).toEqual(['/api/v0/roles', '/api/v0/login']);
    expect(calls[1]?.auth).toBeNull();
  });
});

describe('request helpers', () => {
  it('recognises the answers that call for a refresh', () => {
    expect(needsRefresh(401, { message: 'Unauthenticated' })).toBe(true);
    expect(needsRefresh(401, { message: 'invalid credentials', code: 'invalid_credentials' })).toBe(false);
    expect(needsRefresh(403, { message: 'unauthenticated' })).toBe(false);
  });
  it('builds query strings without empty values', () => {
    expect(buildUrl('/api/v0', 'users', { page: 1, sort: '-name', q: '', x: undefined, y: null })).toBe('/api/v0/users?page=1&sort=-name');
  });
});

describe('calls after the tokens are forgotten (sign-out)', () => {
  it('sends the given bearer token, keeps the call alive across a page unload, and never refreshes', async () => {
    let keepalive: boolean | undefined;
    const { http, state, calls } = setup(
      (_url, init) => {
        keepalive = init.keepalive;
        return unauthenticated;
      },
      { token: '', refresh: '' },
    );
    await expect(
      http.request('/logout', { method: 'POST', body: { token: 'r9' }, bearer: 'a9', refresh: false, keepalive: true }),
    ).rejects.toMatchObject({ status: 401 });
    expect(calls).toEqual([{ url: '/api/v0/logout', auth: 'Bearer a9', body: { token: 'r9' } }]);
    expect(keepalive).toBe(true);
    expect(state.expired).toBe(0);
  });
});

describe('a renewal answered after the session changed (signed out, or someone else signed in)', () => {
  const signedInAgain = (state: { token: string; refresh: string }) => Object.assign(state, { token: 'b1', refresh: 'q1' });

  it('leaves the new session its own tokens, and the waiting call retries with them', async () => {
    const { http, state, calls } = setup((url, init) => {
      if (url.endsWith('/refresh')) {
        signedInAgain(state);
        return { status: 200, body: { data: { session: { token: 'a2', refresh: 'r2' } } } };
      }
      return (init.headers as Record<string, string>).Authorization === 'Bearer b1' ? { status: 200, body: { data: 8 } } : unauthenticated;
    });
    await expect(http.data('/profile')).resolves.toBe(8);
    expect(state).toMatchObject({ token: 'b1', refresh: 'q1', expired: 0 });
    expect(calls.map((c) => [c.url, c.auth])).toEqual([
      ['/api/v0/profile', 'Bearer a1'],
      ['/api/v0/refresh', null],
      ['/api/v0/profile', 'Bearer b1'],
    ]);
  });

  it('does not end the new session when the old renewal is refused', async () => {
    const { http, state } = setup((url, init) => {
      if (url.endsWith('/refresh')) {
        signedInAgain(state);
        return { status: 401, body: { message: 'invalid token', code: 'invalid_token' } };
      }
      return (init.headers as Record<string, string>).Authorization === 'Bearer b1' ? { status: 200, body: { data: 8 } } : unauthenticated;
    });
    await expect(http.data('/profile')).resolves.toBe(8);
    expect(state).toMatchObject({ token: 'b1', refresh: 'q1', expired: 0 });
  });

  it('stores nothing when the browser signed out meanwhile', async () => {
    const { http, state } = setup((url) => {
      if (!url.endsWith('/refresh')) return unauthenticated;
      Object.assign(state, { token: '', refresh: '' });
      return { status: 200, body: { data: { session: { token: 'a2', refresh: 'r2' } } } };
    });
    await expect(http.data('/profile')).rejects.toMatchObject({ status: 401 });
    expect(state).toMatchObject({ token: '', refresh: '' });
  });
});
