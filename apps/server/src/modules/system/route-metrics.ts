import { LATENCY_BUCKETS_MS, type RouteMetric, type SystemMetrics } from '@atrium/contract';

interface Entry {
  method: string;
  route: string;
  count: number;
  clientErrors: number;
  serverErrors: number;
  sumMs: number;
  maxMs: number;
  /** Per bucket of LATENCY_BUCKETS_MS, then one past the last: calls not above it (not cumulative). */
  buckets: number[];
}

/** The route of calls no route took (404s of unknown paths): one entry, whatever the URL was. */
export const UNMATCHED = '(unmatched)';

/**
 * Counts and latencies per route of this instance, in memory since it started. Keyed by the route's
 * pattern, never the URL, so the table is bounded by the routes there are; past `maxRoutes` entries
 * (routes are some hundreds) further calls are only counted as dropped.
 */
export class RouteMetrics {
  readonly since = new Date();
  dropped = 0;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxRoutes = 2000) {}

  record(method: string, route: string | undefined | null, status: number, ms: number): void {
    const pattern = route ?? UNMATCHED;
    const key = `${method} ${pattern}`;
    let e = this.entries.get(key);
    if (!e) {
      if (this.entries.size >= this.maxRoutes) {
        this.dropped++;
        return;
      }
      e = {
        method,
        route: pattern,
        count: 0,
        clientErrors: 0,
        serverErrors: 0,
        sumMs: 0,
        maxMs: 0,
        buckets: new Array(LATENCY_BUCKETS_MS.length + 1).fill(0),
      };
      this.entries.set(key, e);
    }
    e.count++;
    if (status >= 500) e.serverErrors++;
    else if (status >= 400) e.clientErrors++;
    e.sumMs += ms;
    if (ms > e.maxMs) e.maxMs = ms;
    const i = LATENCY_BUCKETS_MS.findIndex((le) => ms <= le);
    const at = i === -1 ? LATENCY_BUCKETS_MS.length : i;
    e.buckets[at] = (e.buckets[at] ?? 0) + 1;
  }

  /** Every route called, busiest first. */
  snapshot(): SystemMetrics {
    const routes = [...this.entries.values()].map(toMetric).sort((a, b) => b.count - a.count || a.route.localeCompare(b.route));
    return { since: this.since.toISOString(), dropped: this.dropped, routes };
  }

  /** The request counters and latency histogram in Prometheus' text exposition format. */
  prometheus(): string {
    const out: string[] = [];
    const all = [...this.entries.values()];
    out.push('# HELP atrium_http_requests_total Requests answered, per route.', '# TYPE atrium_http_requests_total counter');
    for (const e of all) out.push(`atrium_http_requests_total${labels({ method: e.method, route: e.route })} ${e.count}`);
    out.push(
      '# HELP atrium_http_request_errors_total Requests answered with a 4xx (client) or 5xx (server) status, per route.',
      '# TYPE atrium_http_request_errors_total counter',
    );
    for (const e of all) {
      out.push(`atrium_http_request_errors_total${labels({ method: e.method, route: e.route, class: 'client' })} ${e.clientErrors}`);
      out.push(`atrium_http_request_errors_total${labels({ method: e.method, route: e.route, class: 'server' })} ${e.serverErrors}`);
    }
    out.push(
      '# HELP atrium_http_request_duration_seconds Time to answer, per route.',
      '# TYPE atrium_http_request_duration_seconds histogram',
    );
    for (const e of all) {
      let cumulative = 0;
      LATENCY_BUCKETS_MS.forEach((le, i) => {
        cumulative += e.buckets[i] ?? 0;
        out.push(
          `atrium_http_request_duration_seconds_bucket${labels({ method: e.method, route: e.route, le: String(le / 1000) })} ${cumulative}`,
        );
      });
      out.push(`atrium_http_request_duration_seconds_bucket${labels({ method: e.method, route: e.route, le: '+Inf' })} ${e.count}`);
      out.push(`atrium_http_request_duration_seconds_sum${labels({ method: e.method, route: e.route })} ${e.sumMs / 1000}`);
      out.push(`atrium_http_request_duration_seconds_count${labels({ method: e.method, route: e.route })} ${e.count}`);
    }
    out.push('# HELP atrium_http_requests_dropped_total Requests not counted per route: the table of routes was full.');
    out.push('# TYPE atrium_http_requests_dropped_total counter', `atrium_http_requests_dropped_total ${this.dropped}`);
    return `${out.join('\n')}\n`;
  }
}

function toMetric(e: Entry): RouteMetric {
  const target = Math.ceil(e.count * 0.95);
  let seen = 0;
  let p95: number | null = null;
  for (let i = 0; i < LATENCY_BUCKETS_MS.length; i++) {
    seen += e.buckets[i] ?? 0;
    if (seen >= target) {
      p95 = LATENCY_BUCKETS_MS[i] ?? null;
      break;
    }
  }
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    method: e.method,
    route: e.route,
    count: e.count,
    client_errors: e.clientErrors,
    server_errors: e.serverErrors,
    avg_ms: e.count ? round(e.sumMs / e.count) : 0,
    max_ms: round(e.maxMs),
    p95_ms: p95,
  };
}

/** `{a="x",b="y"}` with Prometheus' escapes (backslash, double quote, line feed). */
export function labels(values: Record<string, string>): string {
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  return `{${Object.entries(values)
    .map(([k, v]) => `${k}="${esc(v)}"`)
    .join(',')}}`;
}
