import type { IpBlockingServiceName } from '@atrium/contract';
import type { FastifyRequest } from 'fastify';
import type { AppInstance } from '../../app.js';
import type { IpBlockingService } from './ip-blocking.service.js';

/**
 * The steps of signing in, and the answers that are a failed guess at each: a wrong password (401,
 * or 429 while locked and still trying), a wrong two-factor code (400) or a used, forged or expired
 * challenge (401), an unknown single sign-on ticket (401).
 */
const SIGN_IN_STEPS = new Map<string, readonly number[]>([
  ['/api/v0/login', [401, 429]],
  ['/api/v0/login/two-factor', [400, 401, 429]],
  ['/api/v0/login/two-factor/enrol', [401]],
  ['/api/v0/sso/exchange', [401]],
]);

/** Which service an HTTP request belongs to: sign-in, the guest pages, or the rest of the API. */
export function serviceOf(req: FastifyRequest): IpBlockingServiceName | null {
  const url = req.routeOptions.url ?? req.url.split('?')[0] ?? '';
  if (SIGN_IN_STEPS.has(url) || url === '/api/v0/refresh') return 'console';
  if (url.startsWith('/api/v0/guest-access/key/')) return 'guest';
  if (url.startsWith('/api/')) return 'api';
  return null;
}

/**
 * The token a request presented (a bearer header, an API key's X-Api-Key, or the realtime socket's
 * access_token), or what else stood in the header.
 */
function presented(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (header) return header.startsWith('Bearer ') ? header.slice(7) : header;
  const key = req.headers['x-api-key'];
  if (typeof key === 'string' && key) return key;
  const query = req.routeOptions.url === '/api/v0/ws' ? (req.query as Record<string, unknown> | undefined) : undefined;
  return typeof query?.access_token === 'string' ? query.access_token : null;
}

/**
 * What counts as a failure per service, judged on the answer:
 * - console: a failed step of signing in (SIGN_IN_STEPS: password, two-factor code, single sign-on ticket);
 * - guest: an unknown key or door (404), a face not recognised (403), too many calls (429);
 * - api: a 401 to a caller presenting a token Atrium never signed (an expired one is no failure) or an
 *   API key that is no key (a guess, or one revoked).
 */
async function failure(req: FastifyRequest, status: number, service: IpBlockingServiceName, signedHere: (t: string) => Promise<boolean>) {
  switch (service) {
    case 'console': {
      const url = req.routeOptions.url ?? '';
      if (!SIGN_IN_STEPS.get(url)?.includes(status)) return null;
      if (url !== '/api/v0/login') return { lastAttempt: `${req.method} ${url}` };
      const login = (req.body as { login?: unknown } | undefined)?.login;
      return { lastAttempt: typeof login === 'string' ? `login ${login}` : null };
    }
    case 'guest':
      return status === 403 || status === 404 || status === 429 ? { lastAttempt: `${req.method} ${req.routeOptions.url ?? ''}` } : null;
    case 'api': {
      if (status !== 401) return null;
      const token = presented(req);
      if (!token || (await signedHere(token))) return null;
      return { lastAttempt: `${req.method} ${req.routeOptions.url ?? '(unmatched)'}` };
    }
    default:
      return null;
  }
}

/**
 * Enforces IP blocking on HTTP, on the root app before any route: a banned address gets 403 "your
 * ip address is banned" from the service it is banned from (memory only, no query). A failure is
 * counted before its answer leaves: one statement, and only failed calls wait for it.
 */
export function guardIpBlocking(
  app: AppInstance,
  blocking: () => IpBlockingService,
  signedHere: (token: string) => Promise<boolean>,
): void {
  // Callback hooks: they run on every request and, but for a failed call, never wait.
  app.addHook('onRequest', (req, _reply, done) => {
    const service = serviceOf(req);
    try {
      if (service) blocking().assertAllowed(service, req.ip);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    const service = serviceOf(req);
    if (!service || reply.statusCode < 400) return done(null, payload);
    countFailure(req, reply.statusCode, service).then(() => done(null, payload));
  });
  const countFailure = async (req: FastifyRequest, status: number, service: IpBlockingServiceName): Promise<void> => {
    try {
      const found = await failure(req, status, service, signedHere);
      if (found) await blocking().failed(service, req.ip, found.lastAttempt);
    } catch (err) {
      req.log.error({ err }, 'ip blocking: failure not counted');
    }
  };
}
