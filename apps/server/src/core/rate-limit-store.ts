import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import type { AttemptCounter } from './attempts.js';

/** The prefix of a route limit's keys among the attempt counters (log life forgets the old ones). */
export const RATE_KEY_PREFIX = 'rate:';

/** Route windows are minutes; rows a day past their window start are certainly over. */
export const RATE_ROW_LIFE_SECONDS = 86_400;

type Answer = (err: Error | null, res?: { current: number; ttl: number }) => void;

/** What the plugin really hands `child`: the route's limit merged with the route itself as `routeInfo` (its types say otherwise). */
type ChildOptions = Parameters<FastifyRateLimitStore['child']>[0];
type RouteInfo = { routeInfo?: { method?: string | string[]; url?: string } };

/**
 * The store of @fastify/rate-limit on the database's attempt counters, instead of the plugin's
 * in-memory one: each instance counting on its own would let a client through N times the
 * documented limit behind a proxy spreading requests over N instances. One statement per limited
 * request (only public routes are limited), the same counting rule as sign-in lockouts. The plugin
 * builds its store with `new`, hence a class made for the counters at hand.
 */
export function sharedRateStore(attempts: AttemptCounter) {
  return class SharedRateStore implements FastifyRateLimitStore {
    constructor(
      _global: unknown,
      private readonly route = '*',
    ) {}

    incr(key: string, cb: Answer, timeWindow: number): void {
      // Whole seconds: the window is stored as a start time and compared in SQL.
      const seconds = Math.max(1, Math.ceil(timeWindow / 1000));
      if (seconds > RATE_ROW_LIFE_SECONDS) {
        cb(new Error(`a route rate limit window over ${RATE_ROW_LIFE_SECONDS} s would outlive its counter`));
        return;
      }
      attempts.countInWindow(`${RATE_KEY_PREFIX}${this.route}|${key}`, seconds).then(
        ({ count, leftMs }) => cb(null, { current: count, ttl: leftMs }),
        (err: Error) => cb(err),
      );
    }

    /** One store per limited route, so two routes' limits never share a count. */
    child(routeOptions: ChildOptions): SharedRateStore {
      const info = (routeOptions as unknown as RouteInfo).routeInfo;
      return new SharedRateStore(null, `${info?.method ?? ''} ${info?.url ?? ''}`);
    }
  };
}
