import { ERRORS } from '@atrium/contract';
import { type Session, sessionStore } from './session';

export const API_BASE = '/api/v0';
/** Spec core §9: default call timeout 30 s, sign-in 3 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const LOGIN_TIMEOUT_MS = 3_000;

/** A failed call: the HTTP status and the server's error envelope `{message, code, details}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly details: unknown[] | undefined;
  readonly body: unknown;

  constructor(status: number, message: string, body?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    const envelope = (body ?? {}) as { code?: unknown; details?: unknown };
    this.code = typeof envelope.code === 'string' ? envelope.code : undefined;
    this.details = Array.isArray(envelope.details) ? envelope.details : undefined;
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** JSON body, or FormData sent as multipart. */
  body?: unknown;
  query?: Record<string, string | number | boolean | null | undefined>;
  /** Send the bearer token and refresh it on a 401 (true), or call anonymously (false). */
  auth?: boolean;
  /** Refresh once on a 401 (default); sign-out turns it off. */
  refresh?: boolean;
  timeout?: number;
  signal?: AbortSignal;
  /** This access token instead of the current one (sign-out sends it after forgetting it). */
  bearer?: string;
  /** Let the call finish even if the page is left or reloaded meanwhile (fetch keepalive). */
  keepalive?: boolean;
}

/** Where the client keeps its tokens; the default is the session store. */
export interface TokenSource {
  token(): string | null;
  refreshToken(): string | null;
  update(tokens: { token: string; refresh: string }): void;
  /** The session cannot be renewed: sign out and send the user to sign in again. */
  expire(): void;
}

/** True for the answers that call for a refresh: 401 "unauthenticated" or code not_authorized. */
export function needsRefresh(status: number, body: unknown): boolean {
  if (status !== 401) return false;
  const { message, code } = (body ?? {}) as { message?: unknown; code?: unknown };
  return (
    (typeof message === 'string' && message.toLowerCase() === ERRORS.unauthenticated.message) ||
    code === 'not_authorized' ||
    code === 'unauthenticated'
  );
}

export function buildUrl(base: string, path: string, query?: RequestOptions['query']): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  }
  const s = qs.toString();
  return `${base}${path.startsWith('/') ? path : `/${path}`}${s ? `?${s}` : ''}`;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface HttpClient {
  /** Calls the API and answers the parsed JSON body (the `{data}` envelope as it came). */
  request<T = unknown>(path: string, options?: RequestOptions): Promise<T>;
  /** Like request, and unwraps `{data}`. */
  data<T = unknown>(path: string, options?: RequestOptions): Promise<T>;
  /** Renews the tokens once for everyone waiting; false when the session cannot be renewed. */
  refresh(): Promise<boolean>;
}

/**
 * The API client. A 401 "unauthenticated" (or code not_authorized) triggers exactly one token
 * refresh, shared by every call that failed meanwhile, and one retry; if the refresh fails the
 * session is ended and the caller gets the 401.
 */
export function createHttp(options: { base?: string; tokens: TokenSource; fetch?: typeof fetch }): HttpClient {
  const base = options.base ?? API_BASE;
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const { tokens } = options;
  let refreshing: Promise<boolean> | null = null;

  async function send(path: string, o: RequestOptions, token: string | null): Promise<{ res: Response; body: unknown }> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    let body: BodyInit | undefined;
    if (o.body instanceof FormData) body = o.body;
    else if (o.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    if (token) headers.Authorization = `Bearer ${token}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('timeout', 'TimeoutError')), o.timeout ?? DEFAULT_TIMEOUT_MS);
    const onAbort = () => controller.abort(o.signal?.reason);
    o.signal?.addEventListener('abort', onAbort);
    try {
      const res = await doFetch(buildUrl(base, path, o.query), {
        method: o.method ?? 'GET',
        headers,
        body,
        signal: controller.signal,
        ...(o.keepalive ? { keepalive: true } : {}),
      });
      return { res, body: await readBody(res) };
    } catch (error) {
      if (controller.signal.aborted && !o.signal?.aborted) throw new ApiError(0, 'request timeout');
      if (o.signal?.aborted) throw error;
      throw new ApiError(0, 'network error');
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    }
  }

  async function refresh(): Promise<boolean> {
    if (!refreshing) {
      refreshing = (async () => {
        const refreshToken = tokens.refreshToken();
        if (!refreshToken) return false;
        let renewed: { token: string; refresh: string } | null = null;
        try {
          const { res, body } = await send('/refresh', { method: 'POST', body: { token: refreshToken } }, null);
          const session = (body as { data?: { session?: Partial<Session> } } | undefined)?.data?.session;
          if (res.ok && session?.token && session.refresh) renewed = { token: session.token, refresh: session.refresh };
        } catch {
          // a failed renewal, as below
        }
        // Signed out, or someone else signed in, while the answer was on its way: it speaks of a
        // session this browser no longer holds, so it neither stores its tokens nor ends the current
        // one; waiting calls retry with the current session, if there is one.
        if (tokens.refreshToken() !== refreshToken) return tokens.token() !== null;
        if (!renewed) return false;
        tokens.update(renewed);
        return true;
      })().finally(() => {
        refreshing = null;
      });
    }
    return refreshing;
  }

  function fail(res: Response, body: unknown): never {
    const message = (body as { message?: unknown } | undefined)?.message;
    throw new ApiError(res.status, typeof message === 'string' && message ? message : res.statusText || `http ${res.status}`, body);
  }

  async function request<T>(path: string, o: RequestOptions = {}): Promise<T> {
    const auth = o.auth ?? true;
    const used = auth ? (o.bearer ?? tokens.token()) : null;
    let { res, body } = await send(path, o, used);
    if (auth && o.refresh !== false && needsRefresh(res.status, body)) {
      // Another call may have refreshed already while this one was in flight: then just retry.
      const current = tokens.token();
      const renewed = current && current !== used ? true : await refresh();
      if (!renewed) {
        tokens.expire();
        fail(res, body);
      }
      ({ res, body } = await send(path, o, tokens.token()));
      if (needsRefresh(res.status, body)) {
        tokens.expire();
        fail(res, body);
      }
    }
    if (!res.ok) fail(res, body);
    return body as T;
  }

  return {
    request,
    async data<T>(path: string, o?: RequestOptions): Promise<T> {
      const body = await request<{ data: T } | undefined>(path, o);
      return (body && typeof body === 'object' && 'data' in body ? body.data : body) as T;
    },
    refresh,
  };
}

/** The console's client, on the signed-in session. */
export const http: HttpClient = createHttp({
  tokens: {
    token: () => sessionStore.get().session?.token ?? null,
    refreshToken: () => sessionStore.get().session?.refresh ?? null,
    update: (t) => sessionStore.update(t),
    expire: () => {
      if (sessionStore.get().session) sessionStore.end('expired');
    },
  },
});
