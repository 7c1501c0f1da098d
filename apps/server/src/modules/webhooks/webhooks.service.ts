import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import {
  type CreateWebhookBody,
  type ListMeta,
  type UpdateWebhookBody,
  WEBHOOK_HEADERS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_PING_EVENT,
  WEBHOOK_RESPONSE_BODY_LIMIT,
  type Webhook,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookDeliveryListQuery,
  type WebhookListQuery,
  type WebhookWithSecret,
} from '@atrium/contract';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { intArray, qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { backoffMs, DeliveryWorker, postBody } from '../../core/delivery-worker.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import { outboundAddresses } from '../../core/outbound.js';
import { webhookDeliveries, webhookEndpoints } from './webhooks.table.js';

/** Who may manage webhooks: the project settings administrator (an API key with that permission too). */
export const WEBHOOKS_PERMISSION = 'can_change_project_settings';

export interface WebhooksOptions {
  log: FastifyBaseLogger;
  /** Private, loopback and link-local endpoint addresses allowed (WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Hears committed writes of watched tables (the endpoints cache); absent: nothing cached. */
  onDataChange?: (handler: (table: string | null) => void) => Promise<void>;
  live?: () => boolean;
  /** How often due deliveries are looked for when nothing woke the worker (ms). */
  pollMs?: number;
  /** The wait before the second attempt (ms); it doubles with each further one, up to an hour. */
  retryBaseMs?: number;
  /** How long one attempt may take, answer included (ms). */
  timeoutMs?: number;
  /** Deliveries in flight at once on this instance. */
  concurrency?: number;
  /** Resolves a host name to its addresses (tests put a resolver of their own here). */
  resolve?: (host: string) => Promise<string[]>;
}

interface Endpoint {
  id: number;
  projectId: number;
  eventTypes: string[];
}

interface Claimed {
  id: number;
  endpoint_id: number;
  event_type: string;
  event_id: string;
  payload: unknown;
  attempts: number;
  url: string;
  secret: string;
}

/** An event for the endpoints of a project that asked for its type. */
export interface WebhookEvent {
  projectId: number;
  type: string;
  /** Stable across every instance that hears the event: a delivery is made once per endpoint. */
  id: string;
  data: unknown;
  at?: Date;
}

const E = qualifiedColumns(webhookEndpoints);
const D = qualifiedColumns(webhookDeliveries);

export const WEBHOOK_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${E.id}`, type: 'number' },
    name: { expr: sql`${E.name}`, type: 'text' },
    url: { expr: sql`${E.url}`, type: 'text' },
    enabled: { expr: sql`${E.enabled}`, type: 'boolean' },
    created_at: { expr: sql`${E.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${E.id} ASC`,
};

export const DELIVERY_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${D.id}`, type: 'number' },
    event_type: { expr: sql`${D.eventType}`, type: 'text' },
    status: { expr: sql`${D.status}`, type: 'text' },
    response_status: { expr: sql`${D.responseStatus}`, type: 'number' },
    created_at: { expr: sql`${D.createdAt}`, type: 'date' },
  },
  defaultSort: '-id',
  tiebreak: sql`${D.id} DESC`,
};

const iso = (d: Date | string | null): string | null => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());

/** The signature of a delivery: `v1=` and the hex HMAC-SHA256 of `<timestamp>.<body>` keyed by the endpoint's secret. */
export const signWebhook = (secret: string, timestamp: number, body: string): string =>
  `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * Webhooks (issue 14): endpoints of a project, the events they chose turned into delivery rows, and
 * a worker that posts them, signed, retrying with exponential backoff. Deliveries are rows claimed
 * with SKIP LOCKED under a lease, so every instance may run the worker and a restart resumes what
 * was pending. Events are only written down on their paths (device events, presence, calls, audit),
 * never sent there.
 */
export class WebhooksService {
  private endpoints: Map<number, Endpoint[]> | undefined;
  /** Until when `endpoints` may be used: until told of a change while the feed is heard, a second otherwise. */
  private endpointsUntil = 0;
  private endpointsGeneration = 0;
  private readonly worker: DeliveryWorker<Claimed>;
  private heard = false;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  /** Counters for tests and System info. */
  readonly stats = { sent: 0, failed: 0, enqueueErrors: 0 };

  constructor(
    private readonly db: Db,
    private readonly opts: WebhooksOptions,
  ) {
    this.retryBaseMs = opts.retryBaseMs ?? 10_000;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.worker = new DeliveryWorker({
      label: 'webhook deliveries',
      log: opts.log,
      pollMs: opts.pollMs ?? 2000,
      concurrency: opts.concurrency ?? 4,
      claim: (limit) => this.claim(limit),
      nextDue: () => this.nextDue(),
      attempt: (d) => this.attempt(d),
    });
  }

  // --- endpoints ---------------------------------------------------------------------------------

  private assertManager(actor: Actor): void {
    if (!actor.permissions.has(WEBHOOKS_PERMISSION)) throw prohibited([{ permission: WEBHOOKS_PERMISSION }]);
  }

  /** Refuses an address inside the site (loopback, private, link-local) unless allowed: a webhook must not reach Atrium's own network. */
  async assertReachable(url: string): Promise<void> {
    if (this.opts.allowPrivate) return;
    await this.target(url);
  }

  /**
   * The one address a delivery to `url` connects to: the name is resolved once, every address it
   * has must be outside the site (unless allowed), and the connection goes to that very address.
   * Resolving again when connecting would let a name that answered a public address to the check
   * answer a private one to the connection (DNS rebinding).
   */
  private async target(url: string): Promise<{ address: string; family: 4 | 6 }> {
    const found = await outboundAddresses(new URL(url).hostname, {
      allowPrivate: this.opts.allowPrivate,
      ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}),
    });
    if (!found.ok) throw new AppError('invalid_data', [{ field: 'url', message: found.message }]);
    const { addresses } = found;
    const address = addresses[0] as string;
    return { address, family: isIP(address) as 4 | 6 };
  }

  private select() {
    return this.db
      .select({
        id: webhookEndpoints.id,
        name: webhookEndpoints.name,
        url: webhookEndpoints.url,
        eventTypes: webhookEndpoints.eventTypes,
        enabled: webhookEndpoints.enabled,
        createdAt: webhookEndpoints.createdAt,
        updatedAt: webhookEndpoints.updatedAt,
        lastStatus: sql<
          string | null
        >`(SELECT d.status FROM webhook_deliveries d WHERE d.endpoint_id = ${E.id} ORDER BY d.id DESC LIMIT 1)`,
      })
      .from(webhookEndpoints);
  }

  private toWebhook(r: Awaited<ReturnType<WebhooksService['select']>>[number]): Webhook {
    return {
      id: r.id,
      name: r.name,
      url: r.url,
      event_types: r.eventTypes,
      enabled: r.enabled,
      last_delivery_status: (r.lastStatus as Webhook['last_delivery_status']) ?? null,
      created_at: iso(r.createdAt) as string,
      updated_at: iso(r.updatedAt) as string,
    };
  }

  async list(actor: Actor, q: WebhookListQuery): Promise<{ data: Webhook[]; meta: ListMeta }> {
    this.assertManager(actor);
    const where = and(
      eq(webhookEndpoints.projectId, actor.projectId),
      filtersSql(WEBHOOK_LIST, q),
      q.search ? sql`(${E.name} ILIKE ${containsPattern(q.search)} OR ${E.url} ILIKE ${containsPattern(q.search)})` : undefined,
    );
    const page = await pageOfIds(this.db, { table: webhookEndpoints, id: sql`${E.id}`, where, spec: WEBHOOK_LIST, query: q });
    const rows = page.ids.length ? await this.select().where(sql`${E.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toWebhook(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  private async find(actor: Actor, id: number) {
    const [r] = await this.select().where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.projectId, actor.projectId)));
    if (!r) throw notFound();
    return r;
  }

  async get(actor: Actor, id: number): Promise<Webhook> {
    this.assertManager(actor);
    return this.toWebhook(await this.find(actor, id));
  }

  async create(ctx: RequestContext, body: CreateWebhookBody): Promise<WebhookWithSecret> {
    this.assertManager(ctx.actor);
    await this.assertReachable(body.url);
    const secret = newSecret();
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(webhookEndpoints)
        .values({
          projectId: ctx.actor.projectId,
          name: body.name,
          url: body.url,
          secret,
          eventTypes: body.event_types,
          enabled: body.enabled,
          createdBy: ctx.actor.userId,
        })
        .returning({ id: webhookEndpoints.id });
      await recordAudit(tx, ctx, { entity: 'webhook', entityId: r!.id, action: 'create', after: body });
      return r!.id;
    });
    this.forgetEndpoints();
    return { ...(await this.get(ctx.actor, id)), secret };
  }

  async update(ctx: RequestContext, id: number, body: UpdateWebhookBody): Promise<Webhook> {
    this.assertManager(ctx.actor);
    const before = await this.find(ctx.actor, id);
    if (body.url !== undefined) await this.assertReachable(body.url);
    await this.db.transaction(async (tx) => {
      await tx
        .update(webhookEndpoints)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.event_types !== undefined ? { eventTypes: body.event_types } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
          updatedAt: new Date(),
        })
        .where(eq(webhookEndpoints.id, id));
      await recordAudit(tx, ctx, { entity: 'webhook', entityId: id, action: 'update', before: this.toWebhook(before), after: body });
    });
    this.forgetEndpoints();
    if (body.enabled) this.wake();
    return this.get(ctx.actor, id);
  }

  /** A new signing secret, shown this once; the old one stops signing at once. */
  async rotateSecret(ctx: RequestContext, id: number): Promise<WebhookWithSecret> {
    this.assertManager(ctx.actor);
    await this.find(ctx.actor, id);
    const secret = newSecret();
    await this.db.transaction(async (tx) => {
      await tx.update(webhookEndpoints).set({ secret, updatedAt: new Date() }).where(eq(webhookEndpoints.id, id));
      await recordAudit(tx, ctx, { entity: 'webhook', entityId: id, action: 'rotate_secret' });
    });
    return { ...(await this.get(ctx.actor, id)), secret };
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    this.assertManager(ctx.actor);
    const before = await this.find(ctx.actor, id);
    await this.db.transaction(async (tx) => {
      await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
      await recordAudit(tx, ctx, { entity: 'webhook', entityId: id, action: 'delete', before: this.toWebhook(before) });
    });
    this.forgetEndpoints();
  }

  // --- delivery log ------------------------------------------------------------------------------

  private toDelivery(r: typeof webhookDeliveries.$inferSelect): WebhookDelivery {
    return {
      id: r.id,
      endpoint_id: r.endpointId,
      event_type: r.eventType,
      event_id: r.eventId,
      status: r.status as WebhookDelivery['status'],
      attempts: r.attempts,
      next_attempt_at: r.status === 'pending' ? iso(r.nextAttemptAt) : null,
      last_attempt_at: iso(r.lastAttemptAt),
      response_status: r.responseStatus,
      response_body: r.responseBody,
      error: r.error,
      duration_ms: r.durationMs,
      created_at: iso(r.createdAt) as string,
    };
  }

  async deliveries(actor: Actor, id: number, q: WebhookDeliveryListQuery): Promise<{ data: WebhookDelivery[]; meta: ListMeta }> {
    this.assertManager(actor);
    await this.find(actor, id);
    const where = and(eq(webhookDeliveries.endpointId, id), filtersSql(DELIVERY_LIST, q));
    const page = await pageOfIds(this.db, { table: webhookDeliveries, id: sql`${D.id}`, where, spec: DELIVERY_LIST, query: q });
    const rows = page.ids.length
      ? await this.db
          .select()
          .from(webhookDeliveries)
          .where(sql`${D.id} = ANY(${intArray(page.ids)}::bigint[])`)
      : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toDelivery(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  private async findDelivery(actor: Actor, id: number, deliveryId: number) {
    this.assertManager(actor);
    await this.find(actor, id);
    const [r] = await this.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, id)));
    if (!r) throw notFound();
    return r;
  }

  async delivery(actor: Actor, id: number, deliveryId: number): Promise<WebhookDeliveryDetail> {
    const r = await this.findDelivery(actor, id, deliveryId);
    const attempts = await queryRows<{
      attempt: number;
      response_status: number | null;
      response_body: string | null;
      error: string | null;
      duration_ms: number;
      at: Date | string;
    }>(
      this.db,
      sql`SELECT attempt, response_status, response_body, error, duration_ms, at FROM webhook_attempts WHERE delivery_id = ${deliveryId} ORDER BY id`,
    );
    return {
      ...this.toDelivery(r),
      payload: r.payload,
      attempt_log: attempts.map((a) => ({ ...a, at: iso(a.at) as string })),
    };
  }

  /** Sends a delivery again now, with a fresh round of attempts; the same event id, so receivers can tell. */
  async redeliver(ctx: RequestContext, id: number, deliveryId: number): Promise<WebhookDelivery> {
    const r = await this.findDelivery(ctx.actor, id, deliveryId);
    if (r.status === 'delivering') throw new AppError('cannot_perform_action', [{ message: 'the delivery is being sent' }]);
    await this.db.transaction(async (tx) => {
      await tx
        .update(webhookDeliveries)
        .set({ status: 'pending', attempts: 0, nextAttemptAt: new Date(), leaseUntil: null })
        .where(eq(webhookDeliveries.id, deliveryId));
      await recordAudit(tx, ctx, { entity: 'webhook', entityId: id, action: 'redeliver', after: { delivery: deliveryId } });
    });
    // Read before the worker is woken: the answer is the delivery as queued, not a send already under way.
    const queued = this.toDelivery(await this.findDelivery(ctx.actor, id, deliveryId));
    this.wake();
    return queued;
  }

  /** A test event to this endpoint now (even a disabled one), logged like any other. */
  async ping(ctx: RequestContext, id: number): Promise<WebhookDelivery> {
    this.assertManager(ctx.actor);
    const e = await this.find(ctx.actor, id);
    const eventId = randomUUID();
    const payload = this.envelope({
      projectId: ctx.actor.projectId,
      type: WEBHOOK_PING_EVENT,
      id: eventId,
      data: { webhook_id: e.id, name: e.name },
    });
    const [row] = await this.db
      .insert(webhookDeliveries)
      .values({ endpointId: e.id, projectId: ctx.actor.projectId, eventType: WEBHOOK_PING_EVENT, eventId, payload })
      .returning();
    this.wake();
    return this.toDelivery(row!);
  }

  private forgetEndpoints(): void {
    this.endpoints = undefined;
    this.endpointsGeneration++;
  }

  // --- events in ---------------------------------------------------------------------------------

  private envelope(e: WebhookEvent) {
    return { id: e.id, type: e.type, project_id: e.projectId, created_at: (e.at ?? new Date()).toISOString(), data: e.data };
  }

  /** The enabled endpoints of every project, kept while the change feed is heard (a second when it is not). */
  private async endpointsOf(projectId: number): Promise<Endpoint[]> {
    return (await this.allEndpoints()).get(projectId) ?? [];
  }

  /** The enabled endpoints by project (see endpointsOf). */
  private async allEndpoints(): Promise<Map<number, Endpoint[]>> {
    let all = this.endpoints && Date.now() < this.endpointsUntil ? this.endpoints : undefined;
    if (!all) {
      const generation = this.endpointsGeneration;
      const rows = await this.db
        .select({ id: webhookEndpoints.id, projectId: webhookEndpoints.projectId, eventTypes: webhookEndpoints.eventTypes })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.enabled, true));
      all = new Map();
      for (const r of rows) all.set(r.projectId, [...(all.get(r.projectId) ?? []), r]);
      // A change heard while reading: this answer may predate it, so it is used once and not kept.
      if (generation !== this.endpointsGeneration) return all;
      this.endpoints = all;
      this.endpointsUntil = this.opts.live?.() ? Number.POSITIVE_INFINITY : Date.now() + 1000;
    }
    return all;
  }

  /**
   * Whether any enabled endpoint of any project asked for one of these device event types
   * (`device.<type>`): a batch of stored events none asked for is not read (devices.onEvents).
   */
  async wantsDeviceEvents(types: readonly string[]): Promise<boolean> {
    const all = await this.allEndpoints();
    for (const list of all.values()) for (const ep of list) if (types.some((t) => ep.eventTypes.includes(`device.${t}`))) return true;
    return false;
  }

  /** Whether any endpoint of the project asked for a type matching `test` (spares building payloads nobody wants). */
  async wants(projectId: number, test: (type: string) => boolean): Promise<boolean> {
    return (await this.endpointsOf(projectId)).some((e) => e.eventTypes.some(test));
  }

  /**
   * Writes deliveries of events for the endpoints that chose their types. Errors are counted and
   * logged, never thrown: the path that produced the events must not fail because of webhooks.
   */
  async enqueue(events: readonly WebhookEvent[]): Promise<void> {
    try {
      const rows: (typeof webhookDeliveries.$inferInsert)[] = [];
      for (const ev of events) {
        for (const ep of await this.endpointsOf(ev.projectId)) {
          if (!ep.eventTypes.includes(ev.type)) continue;
          rows.push({ endpointId: ep.id, projectId: ev.projectId, eventType: ev.type, eventId: ev.id, payload: this.envelope(ev) });
        }
      }
      if (!rows.length) return;
      await this.db.insert(webhookDeliveries).values(rows).onConflictDoNothing();
      this.wake();
    } catch (e) {
      this.stats.enqueueErrors++;
      this.opts.log.error({ err: e }, 'webhook deliveries not written');
    }
  }

  /** Device events (access granted or denied, door opened, alarms…), once stored. */
  async onDeviceEvents(
    events: readonly {
      projectId: number;
      deviceId: number;
      type: string;
      identifier: string | null;
      data: Record<string, unknown>;
      occurredAt: Date;
    }[],
  ): Promise<void> {
    // The event types each project's endpoints chose, asked once per project (a batch holds thousands of events).
    const chosen = new Map<number, Set<string>>();
    const wanted: (typeof events)[number][] = [];
    for (const e of events) {
      let types = chosen.get(e.projectId);
      if (!types) {
        types = new Set((await this.endpointsOf(e.projectId)).flatMap((ep) => ep.eventTypes));
        chosen.set(e.projectId, types);
      }
      if (types.has(`device.${e.type}`)) wanted.push(e);
    }
    if (!wanted.length) return;
    const names = await queryRows<{ id: number; name: string }>(
      this.db,
      sql`SELECT id, name FROM devices WHERE id = ANY(${intArray([...new Set(wanted.map((e) => e.deviceId))])})`,
    );
    const nameOf = new Map(names.map((n) => [Number(n.id), n.name]));
    await this.enqueue(
      wanted.map((e) => ({
        projectId: e.projectId,
        type: `device.${e.type}`,
        id: randomUUID(),
        at: e.occurredAt,
        data: {
          device_id: e.deviceId,
          device_name: nameOf.get(e.deviceId) ?? null,
          identifier: e.identifier,
          data: e.data,
          occurred_at: e.occurredAt.toISOString(),
        },
      })),
    );
  }

  /**
   * What realtime publishes and webhooks also tell: a device going online or offline (published
   * only by the instance whose write changed the status) and a call that ended (published once per
   * party: the call's id makes one delivery of it).
   */
  async onPublish(projectId: number, topic: string, event: string, data: unknown, _audience?: unknown): Promise<void> {
    try {
      await this.fromPublish(projectId, topic, event, data);
    } catch (e) {
      this.stats.enqueueErrors++;
      this.opts.log.error({ err: e }, 'webhook event not read');
    }
  }

  private async fromPublish(projectId: number, topic: string, event: string, data: unknown): Promise<void> {
    const d = (data ?? {}) as Record<string, unknown>;
    if (topic === 'devices' && event === 'DeviceStatusChanged' && typeof d.online === 'boolean') {
      const type = d.online ? 'device.online' : 'device.offline';
      if (!(await this.wants(projectId, (t) => t === type))) return;
      await this.enqueue([{ projectId, type, id: randomUUID(), data: { device_id: d.id, online: d.online } }]);
      return;
    }
    if (event === 'CallUpdated' && d.status === 'destroyed' && d.id !== undefined) {
      if (!(await this.wants(projectId, (t) => t === 'call.ended'))) return;
      await this.enqueue([{ projectId, type: 'call.ended', id: `call-${String(d.id)}-ended`, data: d }]);
    }
  }

  /** After a write request was answered: the audit events it recorded, for endpoints that chose their entities. */
  async afterRequest(projectId: number, requestId: string): Promise<void> {
    try {
      if (!(await this.wants(projectId, (t) => t.startsWith('audit.')))) return;
      const rows = await queryRows<{
        id: number;
        entity: string;
        entity_id: string | null;
        action: string;
        user_id: number | null;
        api_key_id: number | null;
        before: unknown;
        after: unknown;
        created_at: Date | string;
      }>(
        this.db,
        sql`SELECT id, entity, entity_id, action, user_id, api_key_id, before, after, created_at FROM audit_events
          WHERE project_id = ${projectId} AND request_id = ${requestId} ORDER BY id`,
      );
      await this.enqueue(
        rows.map((r) => ({
          projectId,
          type: `audit.${r.entity}`,
          id: `audit-${r.id}`,
          at: new Date(r.created_at),
          data: {
            entity: r.entity,
            entity_id: r.entity_id,
            action: r.action,
            user_id: r.user_id,
            api_key_id: r.api_key_id,
            before: r.before,
            after: r.after,
          },
        })),
      );
    } catch (e) {
      this.stats.enqueueErrors++;
      this.opts.log.error({ err: e }, 'webhook audit events not read');
    }
  }

  // --- the worker --------------------------------------------------------------------------------

  get running(): boolean {
    return this.worker.running;
  }

  async start(): Promise<void> {
    if (this.worker.running) return;
    if (!this.heard) {
      this.heard = true;
      await this.opts.onDataChange?.((table) => {
        if (table === null || table === 'webhook_endpoints') this.forgetEndpoints();
      });
    }
    this.worker.start();
  }

  /** Stops taking work and waits for the attempts in flight; their rows are final or pending again. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** New work on this instance: look now rather than at the next poll. */
  private wake(): void {
    this.worker.wake();
  }

  /**
   * Takes due deliveries: pending ones whose time has come and claims whose lease ran out (their
   * instance stopped mid-attempt). The lease outlasts an attempt's time-out.
   */
  private async claim(limit: number): Promise<Claimed[]> {
    const lease = this.timeoutMs + 30_000;
    return queryRows<Claimed>(
      this.db,
      sql`UPDATE webhook_deliveries d SET status = 'delivering', lease_until = now() + ${`${lease} milliseconds`}::interval
        FROM webhook_endpoints e
        WHERE d.id IN (
          SELECT d2.id FROM webhook_deliveries d2 JOIN webhook_endpoints e2 ON e2.id = d2.endpoint_id
          WHERE ((d2.status = 'pending' AND d2.next_attempt_at <= now()) OR (d2.status = 'delivering' AND d2.lease_until < now()))
            AND (e2.enabled OR d2.event_type = ${WEBHOOK_PING_EVENT})
          ORDER BY d2.next_attempt_at, d2.id LIMIT ${limit} FOR UPDATE OF d2 SKIP LOCKED)
          AND e.id = d.endpoint_id
        RETURNING d.id, d.endpoint_id, d.event_type, d.event_id, d.payload, d.attempts, e.url, e.secret`,
    );
  }

  /** Milliseconds until the earliest delivery `claim` would take falls due; null when none waits. */
  private async nextDue(): Promise<number | null> {
    const [r] = await queryRows<{ ms: number | null }>(
      this.db,
      sql`SELECT (extract(epoch FROM min(CASE WHEN d.status = 'pending' THEN d.next_attempt_at ELSE d.lease_until END) - now()) * 1000)::float8 AS ms
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status IN ('pending', 'delivering') AND (e.enabled OR d.event_type = ${WEBHOOK_PING_EVENT})`,
    );
    return r?.ms ?? null;
  }

  private async attempt(d: Claimed): Promise<void> {
    const started = Date.now();
    const body = JSON.stringify(d.payload);
    const timestamp = Math.floor(started / 1000);
    let status: number | null = null;
    let text: string | null = null;
    let error: string | null = null;
    try {
      const pinned = await this.target(d.url).catch(() => {
        throw new Error('the address is private or cannot be resolved');
      });
      const res = await postBody(d.url, body, {
        pinned,
        timeoutMs: this.timeoutMs,
        bodyLimit: WEBHOOK_RESPONSE_BODY_LIMIT,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Atrium-Webhooks/1',
          [WEBHOOK_HEADERS.event]: d.event_type,
          [WEBHOOK_HEADERS.delivery]: d.event_id,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: signWebhook(d.secret, timestamp, body),
        },
      });
      status = res.status;
      text = res.text;
    } catch (e) {
      error = e instanceof Error ? (e.name === 'TimeoutError' ? 'timed out' : e.message).slice(0, 500) : 'failed';
    }
    const ok = status !== null && status >= 200 && status < 300;
    const attempts = d.attempts + 1;
    const final = ok || attempts >= WEBHOOK_MAX_ATTEMPTS;
    const delay = backoffMs(this.retryBaseMs, attempts);
    const durationMs = Date.now() - started;
    try {
      await this.db.transaction(async (tx) => {
        await tx
          .update(webhookDeliveries)
          .set({
            status: ok ? 'succeeded' : final ? 'failed' : 'pending',
            attempts,
            nextAttemptAt: new Date(Date.now() + (final ? 0 : delay)),
            leaseUntil: null,
            lastAttemptAt: new Date(started),
            responseStatus: status,
            responseBody: text,
            error,
            durationMs,
          })
          .where(eq(webhookDeliveries.id, d.id));
        await tx.execute(sql`INSERT INTO webhook_attempts (delivery_id, attempt, response_status, response_body, error, duration_ms, at)
          VALUES (${d.id}, (SELECT count(*) + 1 FROM webhook_attempts WHERE delivery_id = ${d.id}), ${status}, ${text}, ${error}, ${durationMs}, ${new Date(started)})`);
      });
      if (ok) this.stats.sent++;
      else if (final) this.stats.failed++;
    } catch (e) {
      // The lease runs out and another attempt is made: a receiver may see the event twice, and drops it by its id.
      this.opts.log.error({ err: e }, 'webhook attempt not recorded');
    }
  }
}
