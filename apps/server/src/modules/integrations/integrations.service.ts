import { randomUUID, X509Certificate } from 'node:crypto';
import {
  type AvailableIntegration,
  type AvailableIntegrationsQuery,
  type AxxonCamera,
  type AxxonMacro,
  type BulkDeleteResult,
  type CreateIntegrationBody,
  INTEGRATION_TRIGGER_EVENTS,
  type Integration,
  type IntegrationAvailability,
  type IntegrationListQuery,
  type IntegrationMacroRule,
  type IntegrationTriggerEvent,
  type ListMeta,
  type UpdateIntegrationBody,
} from '@atrium/contract';
import type { FastifyBaseLogger } from 'fastify';
import { scopeOf } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { SecretBox } from '../../core/auth/secret-box.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { outboundAddresses, type Resolve } from '../../core/outbound.js';
import { AxxonOneClient, AxxonOneError } from './axxon-one.client.js';
import { type IntegrationRow, type IntegrationsRepository, integrationAvailableTo } from './integrations.repository.js';

export interface IntegrationsOptions {
  /** The token secret every instance shares: the Axxon One passwords are sealed under a key from it. */
  secret: string;
  log: FastifyBaseLogger;
  /** The deadline of each gRPC call (ms). */
  deadlineMs?: number;
  /** Hears committed writes of watched tables (the rules cache); absent: rules read at every event batch. */
  onDataChange?: (handler: (table: string | null) => void) => Promise<void>;
  live?: () => boolean;
  /** Macro launches in flight at once per instance; more wait their turn. */
  maxLaunches?: number;
  /** A video system at a loopback, private or special-purpose address allowed (INTEGRATIONS_ALLOW_PRIVATE). */
  allowPrivate?: boolean;
  resolve?: Resolve;
}

interface DeviceEvent {
  projectId: number;
  deviceId: number;
  type: string;
  identifier: string | null;
  data: Record<string, unknown>;
  occurredAt: Date;
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();
const TRIGGERS = new Set<string>(INTEGRATION_TRIGGER_EVENTS);

function certificateInfo(pem: string | null): { subject: string | null; fingerprint: string | null } {
  if (!pem) return { subject: null, fingerprint: null };
  try {
    const c = new X509Certificate(pem);
    return { subject: c.subject.replace(/\n/g, ', '), fingerprint: c.fingerprint256 };
  } catch {
    return { subject: null, fingerprint: null };
  }
}

/**
 * Integrations with Axxon One (spec entities §3, §6, §7, §8; issue 14). Atrium reaches the server over
 * gRPC (axxon-one.client.ts): TLS checked against the uploaded certificate, plain text without one.
 * Device events matching an integration's macro rules launch the macro in the background: the event
 * intake never waits for the video server and never fails because of it.
 */
export class IntegrationsService {
  private readonly secrets: SecretBox;
  private readonly clients = new Map<number, { key: string; client: AxxonOneClient }>();
  private rules = new Map<number, Promise<IntegrationRow[]>>();
  private watching = false;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  /** Launches done and failed by this instance since start (the console's status and the tests read them). */
  readonly stats = { launched: 0, failed: 0 };

  constructor(
    private readonly db: Db,
    private readonly repo: IntegrationsRepository,
    private readonly opts: IntegrationsOptions,
  ) {
    this.secrets = new SecretBox(opts.secret, 'integration passwords');
  }

  /** Starts hearing changes of the integrations table, so macro rules can be kept in memory. */
  async start(): Promise<void> {
    if (!this.opts.onDataChange) return;
    await this.opts.onDataChange((table) => {
      if (table !== null && table !== 'integrations') return;
      this.rules.clear();
      void this.pruneClients().catch((e) => this.opts.log.warn({ err: e }, 'integration clients could not be checked'));
    });
    this.watching = true;
  }

  /** The integrations this instance holds a gRPC channel to. */
  openChannels(): number[] {
    return [...this.clients.keys()];
  }

  /** Closes the channels of integrations deleted (or changed) elsewhere, e.g. by another instance. */
  private async pruneClients(): Promise<void> {
    if (!this.clients.size) return;
    // Only the channels held when the versions were asked: one opened meanwhile (a save on this
    // instance, then a call) is newer than what the answer says, and closing it would fail its call.
    const asked = new Map(this.clients);
    const alive = await this.repo.versions([...asked.keys()]);
    for (const [id, held] of asked) {
      if (this.clients.get(id) !== held) continue;
      const v = alive.get(id);
      if (!v || held.key !== `${iso(v.updatedAt)}|${v.url}`) this.dropClient(id);
    }
  }

  stop(): void {
    for (const { client } of this.clients.values()) client.close();
    this.clients.clear();
  }

  // --- access ------------------------------------------------------------------------------------

  /** Throws unless the actor may create (or move to) an integration of the project (null) or of a group. */
  private async assertScope(actor: Actor, groupId: number | null): Promise<void> {
    const has = (c: string) => actor.permissions.has(c);
    if (groupId === null) {
      if (has('can_change_project_settings')) return;
      throw prohibited([{ permission: 'can_change_project_settings' }]);
    }
    const g = await this.repo.group(actor.projectId, groupId, actor.groupIds);
    if (!g) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [groupId] }]);
    if (has('can_edit_all_domains')) return;
    if (has('can_edit_descendant_domains') && g.below) return;
    if (has('can_manage_self_domain_integrations') && g.mine) return;
    throw prohibited([{ permission: 'can_manage_self_domain_integrations' }]);
  }

  /** Further groups served must each be a group the actor may give integrations to ("groups in my scope"). */
  private async assertDomains(actor: Actor, domains: readonly number[]): Promise<void> {
    const has = (c: string) => actor.permissions.has(c);
    const outside: number[] = [];
    for (const id of new Set(domains)) {
      const g = await this.repo.group(actor.projectId, id, actor.groupIds);
      const ok =
        g &&
        (has('can_edit_all_domains') ||
          (has('can_edit_descendant_domains') && g.below) ||
          (has('can_manage_self_domain_integrations') && g.mine));
      if (!ok) outside.push(id);
    }
    if (outside.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: outside }]);
  }

  /** The row when the actor may read it (or change it): 404 when it is not the project's, 403 when not theirs. */
  private async row(actor: Actor, id: number, change: boolean): Promise<IntegrationRow> {
    const row = await this.repo.byId(actor.projectId, id);
    if (!row) throw notFound();
    if (!(await this.repo.allowed(actor, id, change))) {
      throw prohibited([{ permission: row.groupId === null ? 'can_change_project_settings' : 'can_manage_self_domain_integrations' }]);
    }
    return row;
  }

  /** Rule devices must be the project's and inside the integration's groups ("not allowed for a user or device"). */
  private async checkRules(
    actor: Actor,
    groupId: number | null,
    domains: readonly number[],
    rules: readonly IntegrationMacroRule[],
  ): Promise<void> {
    const ids = [...new Set(rules.flatMap((r) => r.device_ids))];
    const found = await this.repo.devicesInScope(actor.projectId, ids, groupId, domains);
    const missing = ids.filter((id) => !found.some((f) => f.id === id));
    if (missing.length) {
      throw new AppError('invalid_related_entity', [{ field: 'macro_rules.device_ids', entity: 'devices', ids: missing }]);
    }
    const outside = found.filter((f) => !f.inScope).map((f) => f.id);
    if (outside.length)
      throw new AppError('integration_not_allowed', [{ field: 'macro_rules.device_ids', entity: 'devices', ids: outside }]);
  }

  /**
   * Where a connection to `url` (`host:port`) goes: its host resolved once and every address allowed
   * (unless INTEGRATIONS_ALLOW_PRIVATE), the first taken, so that the connection goes to the address
   * checked (a name that answers another address later is not followed: DNS rebinding).
   */
  private async target(url: string): Promise<string> {
    const host = url.slice(0, url.lastIndexOf(':'));
    const found = await outboundAddresses(host, {
      allowPrivate: this.opts.allowPrivate ?? false,
      ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}),
    });
    if (!found.ok) throw new AppError('invalid_data', [{ field: 'axxon_one_settings.url', message: found.message }]);
    return found.addresses[0] as string;
  }

  /** Refuses, when saved, an address inside the site (loopback, private, link-local…) unless allowed. */
  private async assertReachable(url: string): Promise<void> {
    if (!this.opts.allowPrivate) await this.target(url);
  }

  private async assertUrlFree(projectId: number, url: string, self?: number): Promise<void> {
    const other = await this.repo.byUrl(projectId, url);
    if (other && other.id !== self) throw new AppError('integration_url_exists', [{ field: 'axxon_one_settings.url' }]);
  }

  private static certificate(pem: string | undefined): string | undefined {
    if (pem === undefined) return undefined;
    try {
      new X509Certificate(pem);
    } catch {
      throw new AppError('invalid_file', [{ field: 'certificate', message: 'validation.invalid_value' }]);
    }
    return pem;
  }

  // --- views -------------------------------------------------------------------------------------

  private toIntegration(r: IntegrationRow): Integration {
    const cert = certificateInfo(r.certificate);
    return {
      id: r.id,
      type: r.type as Integration['type'],
      name: r.name,
      guid: r.guid,
      domain_id: r.groupId,
      domains: (r.domainIds ?? []).map(Number),
      axxon_one_settings: {
        url: r.url,
        user: r.userName,
        password: null,
        has_password: Boolean(r.passwordSealed),
        has_certificate: Boolean(r.certificate),
        certificate_subject: cert.subject,
        certificate_fingerprint: cert.fingerprint,
      },
      macro_rules: r.macroRules.map((m) => ({
        event: m.event,
        macro_id: m.macro_id,
        macro_name: m.macro_name ?? null,
        device_ids: m.device_ids ?? [],
      })),
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
    };
  }

  /** What the audit keeps: no password, the certificate by its fingerprint. */
  private auditView(r: IntegrationRow) {
    return {
      name: r.name,
      domain_id: r.groupId,
      domains: r.domainIds,
      url: r.url,
      user: r.userName,
      certificate: certificateInfo(r.certificate).fingerprint,
      macro_rules: r.macroRules,
    };
  }

  // --- CRUD --------------------------------------------------------------------------------------

  async list(actor: Actor, q: IntegrationListQuery): Promise<{ data: Integration[]; meta: ListMeta }> {
    const { rows, total, estimated } = await this.repo.list(actor, q);
    return {
      data: rows.map((r) => this.toIntegration(r)),
      meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) },
    };
  }

  async get(actor: Actor, id: number): Promise<Integration> {
    return this.toIntegration(await this.row(actor, id, false));
  }

  async create(ctx: RequestContext, body: CreateIntegrationBody, certificate?: string): Promise<Integration> {
    const groupId = body.domain_id ?? null;
    const domains = [...new Set(body.domains)].filter((d) => d !== groupId);
    await this.assertScope(ctx.actor, groupId);
    await this.assertDomains(ctx.actor, domains);
    await this.checkRules(ctx.actor, groupId, domains, body.macro_rules);
    await this.assertUrlFree(ctx.actor.projectId, body.axxon_one_settings.url);
    await this.assertReachable(body.axxon_one_settings.url);
    const cert = IntegrationsService.certificate(certificate);
    const row = await this.db.transaction(async (tx) => {
      const [r] = await this.repo.insert(tx, {
        projectId: ctx.actor.projectId,
        groupId,
        type: body.type,
        name: body.name,
        guid: randomUUID(),
        url: body.axxon_one_settings.url,
        userName: body.axxon_one_settings.user,
        passwordSealed: this.secrets.seal(body.axxon_one_settings.password),
        certificate: cert ?? null,
        domainIds: domains,
        macroRules: body.macro_rules,
        createdBy: ctx.actor.userId,
      });
      if (!r) throw new Error('integration insert returned nothing');
      await recordAudit(tx, ctx, { entity: 'integration', entityId: r.id, action: 'create', after: this.auditView(r) });
      return r;
    });
    this.rules.clear();
    return this.toIntegration(row);
  }

  async update(ctx: RequestContext, id: number, body: UpdateIntegrationBody, certificate?: string): Promise<Integration> {
    const before = await this.row(ctx.actor, id, true);
    const s = body.axxon_one_settings ?? {};
    const domains = body.domains ? [...new Set(body.domains)].filter((d) => d !== before.groupId) : undefined;
    if (domains) {
      // Groups kept may stay even when out of the actor's scope now; the ones added must be in it.
      await this.assertDomains(
        ctx.actor,
        domains.filter((d) => !before.domainIds.includes(d)),
      );
    }
    if (body.macro_rules || domains) {
      await this.checkRules(ctx.actor, before.groupId, domains ?? before.domainIds, body.macro_rules ?? before.macroRules);
    }
    if (s.url !== undefined) {
      await this.assertUrlFree(ctx.actor.projectId, s.url, id);
      await this.assertReachable(s.url);
    }
    if (certificate !== undefined && s.remove_certificate) {
      throw invalidField('axxon_one_settings.remove_certificate', 'validation.invalid_value');
    }
    const cert = IntegrationsService.certificate(certificate);
    const row = await this.db.transaction(async (tx) => {
      const [r] = await this.repo.update(tx, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(s.url !== undefined ? { url: s.url } : {}),
        ...(s.user !== undefined ? { userName: s.user } : {}),
        // A masked password comes back as null or absent: it stays.
        ...(s.password ? { passwordSealed: this.secrets.seal(s.password) } : {}),
        ...(cert !== undefined ? { certificate: cert } : s.remove_certificate ? { certificate: null } : {}),
        ...(body.macro_rules !== undefined ? { macroRules: body.macro_rules } : {}),
        ...(domains !== undefined ? { domainIds: domains } : {}),
      });
      if (!r) throw notFound();
      await recordAudit(tx, ctx, {
        entity: 'integration',
        entityId: id,
        action: 'update',
        before: this.auditView(before),
        after: { ...this.auditView(r), ...(s.password ? { password_changed: true } : {}) },
      });
      return r;
    });
    this.dropClient(id);
    return this.toIntegration(row);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.row(ctx.actor, id, true);
    await this.db.transaction(async (tx) => {
      await this.repo.delete(tx, id);
      await recordAudit(tx, ctx, { entity: 'integration', entityId: id, action: 'delete', before: this.auditView(before) });
    });
    this.dropClient(id);
  }

  /** POST /integrations/delete: each one deleted, or why not. */
  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  /**
   * GET /integrations/available: the integrations a group's (or a device's group's) devices may use,
   * for the device form. The actor must see devices there (or edit the group).
   */
  async availableFor(actor: Actor, q: AvailableIntegrationsQuery): Promise<AvailableIntegration[]> {
    let groupId: number | null;
    if (q.domain_id !== undefined) groupId = q.domain_id;
    else if (q.device_id !== undefined) {
      const d = await this.repo.deviceGroup(actor.projectId, q.device_id);
      if (!d) throw new AppError('invalid_related_entity', [{ field: 'device_id', entity: 'devices', ids: [q.device_id] }]);
      groupId = d.groupId;
    } else groupId = null;
    const path = groupId === null ? [] : await this.repo.groupPath(actor.projectId, groupId);
    if (!path) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [groupId as number] }]);
    const has = (c: string) => actor.permissions.has(c);
    const devices = scopeOf(actor, 'devices', 'edit') ?? scopeOf(actor, 'devices', 'view');
    const wide = devices === 'all' || has('can_edit_all_domains');
    if (!wide) {
      if (!devices && !has('can_edit_descendant_domains') && !has('can_manage_self_domain_integrations')) {
        throw prohibited([{ permission: 'can_view_devices' }]);
      }
      // Outside the actor's groups only the project's integrations are listed (a device with no group).
      if (path.length && !path.some((g) => actor.groupIds.includes(g))) {
        throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [groupId as number] }]);
      }
    }
    const rows = await this.repo.available(actor.projectId, path);
    return rows.map((r) => ({ id: r.id, type: r.type as AvailableIntegration['type'], name: r.name, domain_id: r.groupId }));
  }

  // --- the Axxon One server ----------------------------------------------------------------------

  private dropClient(id: number): void {
    this.clients.get(id)?.client.close();
    this.clients.delete(id);
    this.rules.clear();
  }

  /**
   * One client per integration, version of its settings and address its name resolves to now (a
   * change opens a new channel); the name is resolved and checked at every use.
   */
  private async client(r: IntegrationRow): Promise<AxxonOneClient> {
    const address = await this.target(r.url);
    const key = `${iso(r.updatedAt)}|${r.url}|${address}`;
    const held = this.clients.get(r.id);
    if (held && held.key === key) return held.client;
    held?.client.close();
    const client = new AxxonOneClient(
      { url: r.url, address, user: r.userName, password: this.secrets.open(r.passwordSealed), certificate: r.certificate },
      this.opts.deadlineMs,
    );
    this.clients.set(r.id, { key, client });
    return client;
  }

  private static fail(e: unknown): never {
    if (e instanceof AxxonOneError) {
      throw new AppError(e.kind === 'unavailable' ? 'integration_unavailable' : 'integration_grpc_error', [{ grpc_status: e.grpcStatus }]);
    }
    throw e;
  }

  /** GET /integrations/{id}/available: reaches the server and signs in, now. */
  async available(actor: Actor, id: number): Promise<IntegrationAvailability> {
    const r = await this.row(actor, id, false);
    const base = { tls: Boolean(r.certificate), checked_at: new Date().toISOString() };
    const client = await this.client(r);
    try {
      // A fresh sign-in, so a changed password on the server shows at once.
      await client.authenticate({ fresh: true });
      return { available: true, code: null, grpc_status: null, ...base };
    } catch (e) {
      if (!(e instanceof AxxonOneError)) throw e;
      this.dropClient(id);
      return {
        available: false,
        code: e.kind === 'unavailable' ? 'integration_unavailable' : 'integration_grpc_error',
        grpc_status: e.grpcStatus,
        ...base,
      };
    }
  }

  /**
   * The cameras picker serves the device form too: who may place devices reads the cameras of an
   * integration available to one of their groups (any of the project's with the all-devices scope).
   */
  async cameras(actor: Actor, id: number): Promise<AxxonCamera[]> {
    const r = await this.row(actor, id, false).catch(async (e) => {
      const devices = scopeOf(actor, 'devices', 'edit') ?? (actor.permissions.has('can_create_devices') ? 'domain' : null);
      if (!devices) throw e;
      const row = await this.repo.byId(actor.projectId, id);
      if (!row) throw e;
      if (devices === 'all') return row;
      for (const g of actor.groupIds) if (await integrationAvailableTo(this.db, actor.projectId, id, g)) return row;
      throw e;
    });
    return (await this.client(r)).cameras().catch((e) => IntegrationsService.fail(e));
  }

  async macros(actor: Actor, id: number): Promise<AxxonMacro[]> {
    const r = await this.row(actor, id, false);
    return (await this.client(r)).macros().catch((e) => IntegrationsService.fail(e));
  }

  /** Launches a macro now, from the console (to try it). */
  async launch(ctx: RequestContext, id: number, macroId: string): Promise<void> {
    const r = await this.row(ctx.actor, id, true);
    await (await this.client(r))
      .launchMacro(macroId, { source: 'atrium', user: ctx.actor.login })
      .catch((e) => IntegrationsService.fail(e));
    await recordAudit(this.db, ctx, { entity: 'integration', entityId: id, action: 'launch_macro', after: { macro_id: macroId } });
  }

  // --- device events -----------------------------------------------------------------------------

  private rulesOf(projectId: number): Promise<IntegrationRow[]> {
    // Without the change feed every batch reads the table again (nothing stale is kept).
    if (!this.watching || !(this.opts.live?.() ?? true)) return this.repo.withRules(projectId);
    let p = this.rules.get(projectId);
    if (!p) {
      p = this.repo.withRules(projectId);
      p.catch(() => this.rules.delete(projectId));
      this.rules.set(projectId, p);
    }
    return p;
  }

  /**
   * Device events just stored: each one matching a macro rule (its event, and its device or the
   * integration's groups) launches the macro. Only the matching is awaited; the gRPC calls run in
   * the background, at most `maxLaunches` at once, and a failure is logged and counted.
   */
  /** Whether a batch of stored events of these types holds any that may launch a macro (devices.onEvents). */
  wantsDeviceEvents(types: readonly string[]): boolean {
    return types.some((t) => TRIGGERS.has(t));
  }

  async onDeviceEvents(events: readonly DeviceEvent[]): Promise<void> {
    const wanted = events.filter((e) => TRIGGERS.has(e.type));
    if (!wanted.length) return;
    const launches: { row: IntegrationRow; macroId: string; e: DeviceEvent }[] = [];
    const byProject = new Map<number, IntegrationRow[]>();
    for (const p of new Set(wanted.map((e) => e.projectId))) byProject.set(p, await this.rulesOf(p));
    const relevant = wanted.filter((e) => byProject.get(e.projectId)?.length);
    if (!relevant.length) return;
    const paths = await this.repo.devicePaths([...new Set(relevant.map((e) => e.deviceId))]);
    for (const e of relevant) {
      for (const row of byProject.get(e.projectId) ?? []) {
        const path = paths.get(e.deviceId) ?? [];
        const inScope = row.groupId === null || path.includes(row.groupId) || (row.domainIds ?? []).some((d) => path.includes(Number(d)));
        for (const rule of row.macroRules) {
          if (rule.event !== (e.type as IntegrationTriggerEvent)) continue;
          const devices = rule.device_ids ?? [];
          if (devices.length ? !devices.includes(e.deviceId) : !inScope) continue;
          launches.push({ row, macroId: rule.macro_id, e });
        }
      }
    }
    for (const l of launches) void this.launchInBackground(l.row, l.macroId, l.e);
  }

  private async launchInBackground(row: IntegrationRow, macroId: string, e: DeviceEvent): Promise<void> {
    const limit = this.opts.maxLaunches ?? 8;
    if (this.inFlight >= limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight++;
    try {
      await (await this.client(row)).launchMacro(macroId, {
        source: 'atrium',
        event: e.type,
        device_id: String(e.deviceId),
        identifier: e.identifier ?? '',
        occurred_at: e.occurredAt.toISOString(),
      });
      this.stats.launched++;
    } catch (err) {
      this.stats.failed++;
      this.opts.log.warn(
        { integration: row.id, macro: macroId, grpc_status: err instanceof AxxonOneError ? err.grpcStatus : undefined },
        'an axxon one macro could not be launched',
      );
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }
}
