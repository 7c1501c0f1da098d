import { MOBILE_PLATFORMS, PUSH_MAX_ATTEMPTS, type PushMessage, type TestPushResult } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Actor } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { backoffMs, DeliveryWorker, postBody } from '../../core/delivery-worker.js';
import { AppError, prohibited } from '../../core/errors.js';
import { outboundTarget, type Resolve } from '../../core/outbound.js';
import { pushLocale, pushText, testPushText } from './push-texts.js';

export interface PushOptions {
  log: FastifyBaseLogger;
  /** How often due pushes are looked for (ms): notifications are written by every instance, so the worker polls. */
  pollMs?: number;
  /** The wait before the second attempt (ms); it doubles with each further one, up to an hour. */
  retryBaseMs?: number;
  /** How long one attempt may take, answer included (ms). */
  timeoutMs?: number;
  /** Pushes in flight at once on this instance. */
  concurrency?: number;
  /** A push server at a loopback, private or special-purpose address allowed (PUSH_ALLOW_PRIVATE). */
  allowPrivate?: boolean;
  resolve?: Resolve;
}

interface Claimed {
  id: number;
  project_id: number;
  user_id: number;
  notification_id: number | null;
  platform: 'ios' | 'android';
  attempts: number;
}

/** What one attempt needs, read when it is made: the settings, the user's language, the notification and the current tokens. */
interface Context {
  push: { is_enabled?: boolean; url?: string | null; token?: string | null } | null;
  locale: string | null;
  identifier_format: string | null;
  type: string | null;
  data: Record<string, unknown> | null;
  tokens: string[] | null;
}

/** Answers kept of a push server (its body is not shown anywhere; its start is enough for the log). */
const BODY_LIMIT = 4096;

/** The tokens a push server says its platform refused: `{ "invalid_tokens": [...] }`. */
function refusedTokens(text: string): string[] | null {
  try {
    const j = JSON.parse(text) as { invalid_tokens?: unknown };
    return Array.isArray(j.invalid_tokens) ? j.invalid_tokens.filter((t): t is string => typeof t === 'string') : null;
  } catch {
    return null;
  }
}

/**
 * Push delivery (issue 14): every notification of a user with apps holding push tokens is also
 * POSTed to the project's push server (general settings, push tab), as PushMessageSchema says, with
 * `Authorization: Bearer <token>`. Deliveries are rows written with the notification
 * (core/push-outbox.ts) and claimed here with SKIP LOCKED under a lease: every instance may run the
 * worker, a restart resumes what was pending, a success is final. Failures are retried with backoff
 * (5xx, 408, 429, 401, 403, no answer); tokens the push server refuses are removed from their apps.
 */
export class PushService {
  private readonly worker: DeliveryWorker<Claimed>;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  /** Counters for tests and System info. */
  readonly stats = { sent: 0, failed: 0, tokensRemoved: 0 };

  constructor(
    private readonly db: Db,
    private readonly opts: PushOptions,
  ) {
    this.retryBaseMs = opts.retryBaseMs ?? 10_000;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.worker = new DeliveryWorker({
      label: 'push deliveries',
      log: opts.log,
      pollMs: opts.pollMs ?? 1000,
      concurrency: opts.concurrency ?? 4,
      claim: (limit) => this.claim(limit),
      nextDue: () => this.nextDue(),
      attempt: (d) => this.attempt(d),
    });
  }

  /** New pushes were queued (with their notifications, core/push-outbox.ts): look now rather than at the next poll. */
  wake(): void {
    this.worker.wake();
  }

  get running(): boolean {
    return this.worker.running;
  }

  start(): void {
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /**
   * A test push now, with the saved push settings, to the administrator's own apps (one message per
   * platform), or, without any, one message without tokens: the push server is reached and takes the
   * token. Nothing is stored; the push server's answer says how it went.
   */
  async test(actor: Actor): Promise<TestPushResult> {
    if (!actor.permissions.has('can_change_project_settings')) throw prohibited([{ permission: 'can_change_project_settings' }]);
    const [c] = await queryRows<{ push: Context['push']; locale: string | null; apps: { platform: string; token: string }[] | null }>(
      this.db,
      sql`SELECT (SELECT settings -> 'push_server' FROM projects WHERE id = ${actor.projectId}) AS push,
                 (SELECT locale FROM users WHERE id = ${actor.userId}) AS locale,
                 (SELECT jsonb_agg(jsonb_build_object('platform', platform, 'token', push_token) ORDER BY id) FROM mobile_clients
                   WHERE user_id = ${actor.userId} AND project_id = ${actor.projectId} AND push_token IS NOT NULL) AS apps`,
    );
    const push = c?.push;
    if (!push?.is_enabled || !push.url) throw new AppError('push_not_configured');
    const target = await this.target(push.url);
    if (!target.ok) throw new AppError('invalid_data', [{ field: 'url', message: target.message }]);
    const locale = pushLocale(c?.locale);
    const apps = c?.apps ?? [];
    const platforms = MOBILE_PLATFORMS.filter((p) => apps.some((a) => a.platform === p));
    let status = 0;
    for (const platform of platforms.length ? platforms : (['android'] as const)) {
      const message: PushMessage = {
        tokens: apps.filter((a) => a.platform === platform).map((a) => a.token),
        platform,
        ...testPushText(locale),
        data: { type: 'test', id: 0 },
        locale,
      };
      try {
        const res = await postBody(push.url, JSON.stringify(message), {
          pinned: target.pinned,
          timeoutMs: this.timeoutMs,
          bodyLimit: BODY_LIMIT,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Atrium-Push/1',
            ...(push.token ? { authorization: `Bearer ${push.token}` } : {}),
          },
        });
        status = res.status;
      } catch (e) {
        const error = e instanceof Error && e.name === 'TimeoutError' ? 'timed out' : 'not reached';
        throw new AppError('test_push_failed', [{ error }]);
      }
      if (status < 200 || status >= 300) throw new AppError('test_push_failed', [{ status }]);
    }
    return { status, tokens: apps.length };
  }

  private target(url: string) {
    return outboundTarget(url, {
      allowPrivate: this.opts.allowPrivate ?? false,
      ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}),
    });
  }

  /** Due pushes: pending ones whose time has come and claims whose lease ran out (their instance stopped mid-attempt). */
  private claim(limit: number): Promise<Claimed[]> {
    const lease = this.timeoutMs + 30_000;
    return queryRows<Claimed>(
      this.db,
      sql`UPDATE push_deliveries d SET status = 'delivering', lease_until = now() + ${`${lease} milliseconds`}::interval
        WHERE d.id IN (
          SELECT d2.id FROM push_deliveries d2
          WHERE (d2.status = 'pending' AND d2.next_attempt_at <= now()) OR (d2.status = 'delivering' AND d2.lease_until < now())
          ORDER BY d2.next_attempt_at, d2.id LIMIT ${limit} FOR UPDATE OF d2 SKIP LOCKED)
        RETURNING d.id, d.project_id, d.user_id, d.notification_id, d.platform, d.attempts`,
    );
  }

  /** Milliseconds until the earliest push `claim` would take falls due; null when none waits. */
  private async nextDue(): Promise<number | null> {
    const [r] = await queryRows<{ ms: number | null }>(
      this.db,
      sql`SELECT (extract(epoch FROM min(CASE WHEN status = 'pending' THEN next_attempt_at ELSE lease_until END) - now()) * 1000)::float8 AS ms
        FROM push_deliveries WHERE status IN ('pending', 'delivering')`,
    );
    return r?.ms ?? null;
  }

  private async context(d: Claimed): Promise<Context> {
    const [c] = await queryRows<Context>(
      this.db,
      sql`SELECT (SELECT settings -> 'push_server' FROM projects WHERE id = ${d.project_id}) AS push,
                 (SELECT locale FROM users WHERE id = ${d.user_id}) AS locale,
                 (SELECT profile ->> 'identifier_format' FROM users WHERE id = ${d.user_id}) AS identifier_format,
                 n.type, n.data,
                 (SELECT array_agg(mc.push_token ORDER BY mc.id) FROM mobile_clients mc
                   WHERE mc.user_id = ${d.user_id} AND mc.project_id = ${d.project_id} AND mc.platform = ${d.platform}
                     AND mc.push_token IS NOT NULL) AS tokens
            FROM (SELECT 1) one LEFT JOIN notifications n ON n.id = ${d.notification_id}`,
    );
    return c ?? { push: null, locale: null, identifier_format: null, type: null, data: null, tokens: null };
  }

  private async finish(
    d: Claimed,
    v: {
      status: 'succeeded' | 'failed' | 'pending';
      attempts: number;
      delayMs?: number;
      responseStatus?: number | null;
      error?: string | null;
    },
  ): Promise<void> {
    await this.db.execute(sql`UPDATE push_deliveries SET status = ${v.status}, attempts = ${v.attempts},
        next_attempt_at = now() + ${`${Math.round(v.delayMs ?? 0)} milliseconds`}::interval, lease_until = NULL,
        last_attempt_at = now(), response_status = ${v.responseStatus ?? null}, error = ${v.error ?? null}
      WHERE id = ${d.id}`);
  }

  private async attempt(d: Claimed): Promise<void> {
    try {
      const c = await this.context(d);
      const tokens = c.tokens ?? [];
      // Turned off, or nothing left to reach, since it was written: nothing is sent.
      if (!c.push?.is_enabled || !c.push.url)
        return await this.finish(d, { status: 'failed', attempts: d.attempts, error: 'push is disabled' });
      if (!tokens.length || !c.type) return await this.finish(d, { status: 'failed', attempts: d.attempts, error: 'no push tokens' });
      const locale = pushLocale(c.locale);
      const message: PushMessage = {
        tokens,
        platform: d.platform,
        ...pushText(c.type, c.data ?? {}, locale, c.identifier_format === 'hex' ? 'hex' : 'dec'),
        data: { type: c.type, id: Number(d.notification_id) },
        locale,
      };
      let status: number | null = null;
      let text = '';
      let error: string | null = null;
      try {
        // Resolved at each attempt and connected to that address: a name that now points inside the
        // site is refused (and tried again later, as an unreachable server is).
        const target = await this.target(c.push.url);
        if (!target.ok) throw new Error(target.message);
        const res = await postBody(c.push.url, JSON.stringify(message), {
          pinned: target.pinned,
          timeoutMs: this.timeoutMs,
          bodyLimit: BODY_LIMIT,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Atrium-Push/1',
            ...(c.push.token ? { authorization: `Bearer ${c.push.token}` } : {}),
          },
        });
        status = res.status;
        text = res.text;
      } catch (e) {
        error = e instanceof Error ? (e.name === 'TimeoutError' ? 'timed out' : e.message).slice(0, 500) : 'failed';
      }
      const refused = status !== null && (status === 410 || (status >= 200 && status < 300)) ? refusedTokens(text) : null;
      const gone = status === 410 ? (refused ?? tokens) : (refused ?? []);
      if (gone.length)
        await this.removeTokens(
          d,
          gone.filter((t) => tokens.includes(t)),
        );
      const attempts = d.attempts + 1;
      if (status !== null && status >= 200 && status < 300) {
        this.stats.sent++;
        return await this.finish(d, { status: 'succeeded', attempts, responseStatus: status });
      }
      const retryable = status === null || status >= 500 || [401, 403, 408, 429].includes(status);
      if (!retryable || attempts >= PUSH_MAX_ATTEMPTS) {
        this.stats.failed++;
        const why = status === 410 ? 'push tokens refused' : (error ?? `push server answered ${status}`);
        return await this.finish(d, { status: 'failed', attempts, responseStatus: status, error: why });
      }
      await this.finish(d, {
        status: 'pending',
        attempts,
        delayMs: backoffMs(this.retryBaseMs, attempts),
        responseStatus: status,
        error: error ?? `push server answered ${status}`,
      });
    } catch (e) {
      // The lease runs out and another attempt is made.
      this.opts.log.error({ err: e }, 'push attempt not recorded');
    }
  }

  private async removeTokens(d: Claimed, gone: string[]): Promise<void> {
    if (!gone.length) return;
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`UPDATE mobile_clients SET push_token = NULL, updated_at = now()
        WHERE user_id = ${d.user_id} AND project_id = ${d.project_id} AND push_token = ANY(${sql`ARRAY[${sql.join(
          gone.map((t) => sql`${t}`),
          sql`, `,
        )}]::text[]`})
        RETURNING id`,
    );
    this.stats.tokensRemoved += rows.length;
    this.opts.log.info({ user: d.user_id, removed: rows.length }, 'push: refused tokens removed');
  }
}
