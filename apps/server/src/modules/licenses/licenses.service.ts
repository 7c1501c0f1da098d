import { randomUUID } from 'node:crypto';
import {
  DomainLicenseInfoSchema,
  ERRORS,
  LICENSE_FILE_MAX_BYTES,
  type License,
  type LicenseFeaturesState,
  type LicenseList,
  type LicensePayload,
  type LicensePeriodRow,
  type LicenseReportQuery,
  type LicenseStatus,
  type LicenseUsage,
  type LicenseUsedDay,
  UNLIMITED_PERIOD,
  type UserLicenseInfo,
} from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { groupScopeCondition, scopeOf } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { DbOrTx } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import type { LicenseService } from '../frontend/license.service.js';
import { effectivePeriod } from '../groups/groups.rules.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
import { parseLicenseText, verifyLicenseFile } from './license-file.js';
import { calendarDaysBetween } from './license-state.js';
import type { LicenseRow, LicensesRepository } from './licenses.repository.js';
import { type NewUserLicense, newUserLicense } from './new-user-license.js';

const DAY_MS = 86_400_000;
/** The licence server gets this long to answer (spec core §7: HTTP client default 3 s). */
const CLOUD_TIMEOUT_MS = 3000;
/** How often each instance records usage and sends expiry notices. */
const TICK_MS = 60 * 60 * 1000;
/** Days between two notices of the same licence, per group notification setting. */
const NOTICE_EVERY: Readonly<Record<string, number>> = { everyday: 1, weekly: 7, monthly: 30 };

const need = (actor: Actor, ...codes: string[]) => {
  if (!codes.some((c) => actor.permissions.has(c))) throw prohibited([{ permission: codes[0] }]);
};
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Licences of a project (spec comms §2 §3 §7 §8): signed licence files added from an upload or from
 * the licence server, removed; what is in effect and what is used; the licence reports; and the
 * worker that records usage per day and tells those concerned of licences about to end.
 */
export class LicensesService {
  private timer: NodeJS.Timeout | undefined;
  private instance: Promise<string> | undefined;
  /** When this instance last recorded each project's usage of the day (the report records it at most once a minute). */
  private readonly recorded = new Map<number, number>();
  private first: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly repo: LicensesRepository,
    private readonly licenses: LicenseService,
    private readonly notifications: Pick<NotificationsService, 'notify'>,
    private readonly opts: { serverUrl?: string | undefined; log?: { warn: (o: object, m: string) => void } } = {},
  ) {}

  /** The deployment's instance id (made once, shared by every instance through the database). */
  instanceId(): Promise<string> {
    if (!this.instance) {
      this.instance = this.repo.instanceId(() => randomUUID());
      this.instance.catch(() => {
        this.instance = undefined;
      });
    }
    return this.instance;
  }

  private toLicense(r: LicenseRow, verdict: { status: LicenseStatus; days: number | null } | undefined): License {
    const p = r.file.license as LicensePayload;
    return {
      id: r.id,
      license_id: r.licenseId,
      customer: String(p.customer ?? ''),
      source: r.source === 'cloud' ? 'cloud' : 'file',
      instance_id: p.instance_id ?? null,
      project_uid: p.project_uid ?? null,
      issued_at: String(p.issued_at ?? ''),
      period: { from: r.periodFrom, to: r.periodTo },
      grace_days: Number(p.grace_days ?? 0),
      features: p.features,
      status: verdict?.status ?? 'disabled',
      days: verdict?.days ?? null,
      created_by: r.createdBy,
      created_at: r.createdAt.toISOString(),
    };
  }

  async list(actor: Actor): Promise<LicenseList> {
    need(actor, 'can_view_licenses', 'can_manage_licenses');
    const [rows, state] = await Promise.all([this.repo.rows(actor.projectId), this.licenses.state(actor.projectId)]);
    return { active_ids: state.activeIds, items: rows.map((r) => this.toLicense(r, state.verdicts.get(r.id))).reverse() };
  }

  async get(actor: Actor, id: number): Promise<License> {
    need(actor, 'can_view_licenses', 'can_manage_licenses');
    const row = await this.repo.byId(actor.projectId, id);
    if (!row) throw notFound();
    const state = await this.licenses.state(actor.projectId);
    return this.toLicense(row, state.verdicts.get(row.id));
  }

  async features(actor: Actor): Promise<LicenseFeaturesState> {
    need(actor, 'can_view_licenses', 'can_manage_licenses');
    const [state, project, instanceId] = await Promise.all([
      this.licenses.state(actor.projectId),
      this.repo.project(actor.projectId),
      this.instanceId(),
    ]);
    return {
      features: state.features,
      source: state.source,
      warnings: state.warnings,
      expires_at: state.expiresAt,
      instance_id: instanceId,
      project_uid: project?.uid ?? '',
      cloud_enabled: Boolean(this.opts.serverUrl),
      development_server: this.licenses.development,
    };
  }

  async usage(actor: Actor): Promise<LicenseUsage> {
    need(actor, 'can_view_licenses', 'can_manage_licenses');
    const [state, used, apps] = await Promise.all([
      this.licenses.state(actor.projectId),
      this.repo.usage(actor.projectId),
      this.repo.mobileClients(actor.projectId),
    ]);
    const restrictors = await this.licenses.restrictors(actor.projectId, used);
    const f = state.features;
    return {
      sip_numbers_used: used.sip,
      // Apps in use (registered mobile clients, issue 14); the restrictors weigh the apps handed out to users.
      mobile_app_used: apps,
      ukey2_used: used.ukey2,
      limits: { sip: f.sip.license_count, mobile_app: f.mobile_app.license_count, ukey2: f.ukey2.license_count },
      restrictors,
    };
  }

  /** Adds a licence file uploaded by a person (its bytes as sent). */
  async addFile(ctx: RequestContext, bytes: Buffer): Promise<License> {
    need(ctx.actor, 'can_manage_licenses');
    if (bytes.length > LICENSE_FILE_MAX_BYTES) throw new AppError('license_invalid_file', [{ max_bytes: LICENSE_FILE_MAX_BYTES }]);
    return this.install(ctx, parseLicenseText(bytes.toString('utf8')), 'file');
  }

  /** Fetches this project's licence from the licence server and adds it. */
  async addFromCloud(ctx: RequestContext, key: string | undefined): Promise<License> {
    need(ctx.actor, 'can_manage_licenses');
    if (!this.opts.serverUrl) throw new AppError('license_server_not_configured');
    const [project, instanceId] = await Promise.all([this.repo.project(ctx.actor.projectId), this.instanceId()]);
    let res: Response;
    try {
      res = await fetch(
        new URL('v1/licenses/activate', this.opts.serverUrl.endsWith('/') ? this.opts.serverUrl : `${this.opts.serverUrl}/`),
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ instance_id: instanceId, project_uid: project?.uid, ...(key ? { key } : {}) }),
          signal: AbortSignal.timeout(CLOUD_TIMEOUT_MS),
          redirect: 'error',
        },
      );
    } catch (e) {
      this.opts.log?.warn({ err: (e as Error).message }, 'licence server not reached');
      throw new AppError('license_server_not_responding');
    }
    if (res.status === 404) throw new AppError('license_not_found_for_project');
    if (res.status === 409) throw new AppError('license_instance_registered');
    if (!res.ok) throw new AppError('license_server_not_responding', [{ status: res.status }]);
    const text = await res.text().catch(() => '');
    if (Buffer.byteLength(text) > LICENSE_FILE_MAX_BYTES) throw new AppError('license_invalid_file');
    return this.install(ctx, parseLicenseText(text), 'cloud');
  }

  private async install(ctx: RequestContext, raw: unknown, source: 'file' | 'cloud'): Promise<License> {
    const { actor } = ctx;
    const payload = verifyLicenseFile(raw, this.licenses.key);
    const [project, instanceId] = await Promise.all([this.repo.project(actor.projectId), this.instanceId()]);
    if (payload.instance_id !== null && payload.instance_id !== instanceId) {
      throw new AppError('license_cannot_be_applied', [{ field: 'instance_id', expected: instanceId }]);
    }
    if (payload.project_uid !== null && payload.project_uid !== project?.uid) {
      throw new AppError('license_cannot_be_applied', [{ field: 'project_uid', expected: project?.uid ?? null }]);
    }
    if (payload.period.to < Math.floor(Date.now() / 1000)) throw new AppError('license_expired', [{ to: payload.period.to }]);
    const row = await this.repo.transaction(async (tx) => {
      const created = await this.repo.insert(tx, {
        projectId: actor.projectId,
        licenseId: payload.id,
        source,
        file: raw as LicenseRow['file'],
        periodFrom: payload.period.from,
        periodTo: payload.period.to,
        createdBy: actor.userId,
      });
      if (!created) throw new AppError('license_already_installed', [{ license_id: payload.id }]);
      await recordAudit(tx, ctx, {
        entity: 'license',
        entityId: created.id,
        action: 'create',
        after: { license_id: payload.id, customer: payload.customer, source, period: payload.period, features: payload.features },
      });
      return created;
    });
    await this.changed(actor.projectId);
    const state = await this.licenses.state(actor.projectId);
    return this.toLicense(row, state.verdicts.get(row.id));
  }

  async remove(ctx: RequestContext, id: number): Promise<void> {
    need(ctx.actor, 'can_manage_licenses');
    await this.repo.transaction(async (tx) => {
      const gone = await this.repo.remove(tx, ctx.actor.projectId, id);
      if (!gone) throw notFound();
      await recordAudit(tx, ctx, {
        entity: 'license',
        entityId: id,
        action: 'delete',
        before: { license_id: gone.licenseId, source: gone.source },
      });
    });
    await this.changed(ctx.actor.projectId);
  }

  /**
   * The mobile-app count of the project's licence, for a write of users' licence info: read before
   * the write, checked after it inside its transaction (modules/users calls it), so a breach writes
   * nothing. Writers of one project take turns on an advisory lock.
   */
  async mobileAppCheck(projectId: number): Promise<(tx: DbOrTx) => Promise<void>> {
    const { features } = await this.licenses.state(projectId);
    const limit = features.mobile_app.license_count;
    return async (tx) => {
      if (limit === null) return;
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('atrium.mobile_app'), ${projectId})`);
      const used = (await this.repo.usage(projectId, tx)).mobileApp;
      if (used > limit) {
        const message = 'exceeding the maximum mobile apps in the project';
        throw new AppError('mobile_app_limit_project', [{ field: 'license_info', message, params: { max_count: limit, used } }]);
      }
    };
  }

  /**
   * The basic licence of a user an administrator makes (modules/users reads it before the write;
   * null: the project gives none). The count check after the write refuses the user, as it does a
   * licence sent with the user, when the project's mobile apps cannot hold it (mobile_app_limit_project).
   */
  async basicLicense(projectId: number): Promise<Partial<UserLicenseInfo> | null> {
    const [stored, state] = await Promise.all([this.repo.newUserLicenseSettings(this.repo.db, projectId), this.licenses.state(projectId)]);
    return newUserLicense(stored, null, state.features, Date.now())?.info ?? null;
  }

  /**
   * The licence of a self-registered client of `clientType` (modules/registration, inside its
   * transaction, before the account is written): the client type's licence, else the basic one. When
   * the project's mobile apps cannot hold it the account is made without a licence and `refused` says
   * why: the person registering cannot free licences, an administrator can give one later.
   */
  async selfRegisteredLicense(
    tx: DbOrTx,
    projectId: number,
    clientType: string,
  ): Promise<{ info: Partial<UserLicenseInfo> | null; source: NewUserLicense['source'] | null; refused: Record<string, unknown> | null }> {
    const now = Date.now();
    // Inside the registration's transaction: every read goes through it (PGlite has one connection).
    const stored = await this.repo.newUserLicenseSettings(tx, projectId);
    const state = await this.licenses.state(projectId, now, tx);
    const grant = newUserLicense(stored, clientType, state.features, now);
    if (!grant) return { info: null, source: null, refused: null };
    const limit = state.features.mobile_app.license_count;
    const need = grant.info.mobile_app?.license_count ?? 0;
    if (need > 0 && limit !== null) {
      // The same turn-taking as mobileAppCheck: two registrations cannot both take the last apps.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('atrium.mobile_app'), ${projectId})`);
      const used = (await this.repo.usage(projectId, tx, now)).mobileApp;
      if (used + need > limit) {
        const refused = {
          code: 'mobile_app_limit_project',
          message: ERRORS.mobile_app_limit_project.message,
          max_count: limit,
          used,
          need,
        };
        return { info: null, source: grant.source, refused };
      }
    }
    return { info: grant.info, source: grant.source, refused: null };
  }

  /** After a change: every reader sees the new licence, and the group rules read its counts. */
  private async changed(projectId: number): Promise<void> {
    this.licenses.invalidate(projectId);
    this.recorded.delete(projectId);
    await this.syncProject(projectId);
  }

  private async syncProject(projectId: number, now = Date.now()): Promise<void> {
    const state = await this.licenses.state(projectId, now);
    await this.repo.setProjectLicense(projectId, state.source === 'development' ? null : state.features);
  }

  // --- reports -------------------------------------------------------------------------------

  private range(q: LicenseReportQuery, now = Date.now()): { from: string; to: string } {
    const to = q.to ?? isoDay(now);
    const from = q.from ?? isoDay(Date.parse(to) - 29 * DAY_MS);
    return { from, to };
  }

  /** Today's usage of the project, counted now and kept for the report. */
  async recordUsage(projectId: number, now = Date.now()): Promise<void> {
    this.recorded.set(projectId, Date.now());
    const [state, used, apps] = await Promise.all([
      this.licenses.state(projectId, now),
      this.repo.usage(projectId, undefined, now),
      this.repo.mobileClients(projectId),
    ]);
    const f = state.features;
    await this.repo.recordUsage({
      projectId,
      day: isoDay(now),
      sipNumbersUsed: used.sip,
      mobileAppUsed: apps,
      ukey2Used: used.ukey2,
      sipLimit: f.sip.license_count,
      mobileAppLimit: f.mobile_app.license_count,
      ukey2Limit: f.ukey2.license_count,
    });
  }

  async reportUsed(actor: Actor, q: LicenseReportQuery): Promise<LicenseUsedDay[]> {
    need(actor, 'can_view_licenses_used_report');
    const { from, to } = this.range(q);
    const today = isoDay(Date.now());
    const last = this.recorded.get(actor.projectId) ?? 0;
    if (from <= today && today <= to && Date.now() - last > 60_000) await this.recordUsage(actor.projectId);
    const rows = await this.repo.usageDays(actor.projectId, from, to);
    return rows.map((r) => ({
      day: r.day,
      sip_numbers_used: r.sipNumbersUsed,
      mobile_app_used: r.mobileAppUsed,
      ukey2_used: r.ukey2Used,
      sip_limit: r.sipLimit,
      mobile_app_limit: r.mobileAppLimit,
      ukey2_limit: r.ukey2Limit,
    }));
  }

  /**
   * The licence periods overlapping the range: the project's licences, and the licences of the
   * groups whose licences the actor may view (their scope of can_view_*_domain_licenses).
   */
  async reportPeriod(actor: Actor, q: LicenseReportQuery): Promise<LicensePeriodRow[]> {
    need(actor, 'can_view_licenses_used_report');
    const { from, to } = this.range(q);
    const fromS = Math.floor(Date.parse(from) / 1000);
    const toS = Math.floor(Date.parse(to) / 1000) + 86_399;
    const overlaps = (p: { from: number; to: number }) => p.from <= toS && fromS <= p.to;
    const nowS = Math.floor(Date.now() / 1000);
    const [rows, state] = await Promise.all([this.repo.rows(actor.projectId), this.licenses.state(actor.projectId)]);
    const out: LicensePeriodRow[] = rows
      .map((r) => this.toLicense(r, state.verdicts.get(r.id)))
      .filter((l) => overlaps(l.period))
      .map((l) => ({ kind: 'project', id: l.id, name: l.customer, type: 'license', ...l.period, quantity: null, status: l.status }));
    const scope = scopeOf(actor, 'domain_licenses', 'view');
    if (scope && scope !== 'own') {
      const visible = scope === 'all' ? sql`TRUE` : groupScopeCondition(actor, scope);
      for (const g of await this.repo.licensedGroups(actor.projectId, visible)) {
        const info = DomainLicenseInfoSchema.safeParse(g.info);
        if (!info.success) continue;
        for (const l of info.data.licenses) {
          const period = effectivePeriod(l);
          if (!overlaps(period)) continue;
          const status: LicenseStatus = !l.is_active
            ? 'disabled'
            : nowS < period.from
              ? 'pending'
              : nowS > period.to
                ? 'expired'
                : period.to < UNLIMITED_PERIOD.to && calendarDaysBetween(nowS, period.to) <= info.data.notifications.notify_before
                  ? 'ending'
                  : 'active';
          out.push({ kind: 'group', id: g.id, name: g.name, type: l.type, ...period, quantity: l.quantity, status });
        }
      }
    }
    return out;
  }

  // --- the worker -----------------------------------------------------------------------------

  /**
   * One round for every project: usage of the day recorded, the counts the group rules read kept in
   * step, and notices of licences about to end sent (each at most as often as asked; several
   * instances claim each notice in the database, so it goes out once).
   */
  async tick(now = Date.now()): Promise<void> {
    for (const { id } of await this.repo.projectIds()) {
      await this.recordUsage(id, now);
      await this.syncProject(id, now);
      await this.noticeProject(id, now);
      await this.noticeGroups(id, now);
    }
  }

  private async send(
    projectId: number,
    subject: string,
    everyDays: number,
    group: { id: number; path: number[] } | null,
    data: Record<string, unknown>,
    now: number,
  ) {
    if (!(await this.repo.claimNotice(projectId, subject, isoDay(now), everyDays))) return;
    for (const userId of await this.repo.recipients(projectId, group)) {
      await this.notifications.notify(projectId, userId, {
        type: 'system',
        significance: 'important',
        icon: 'license',
        data,
        popupAction: { code: 'goto:page', params: { page: '/licenses' } },
      });
    }
  }

  private async noticeProject(projectId: number, now: number): Promise<void> {
    const state = await this.licenses.state(projectId, now);
    const id = state.activeIds[0];
    if (id === undefined || (state.warnings.status !== 'will_expire' && state.warnings.status !== 'already_expired')) return;
    await this.send(
      projectId,
      `project:${id}`,
      1,
      null,
      {
        event: 'license_expiring',
        name: 'A licence ends soon',
        kind: 'license_expiring',
        scope: 'project',
        status: state.warnings.status,
        days: state.warnings.days,
        expires_at: state.expiresAt,
      },
      now,
    );
  }

  /** Group licences ending within their group's notify_before days, per the group's notification setting. */
  private async noticeGroups(projectId: number, now: number): Promise<void> {
    const nowS = Math.floor(now / 1000);
    for (const g of await this.repo.licensedGroups(projectId)) {
      const info = DomainLicenseInfoSchema.safeParse(g.info);
      if (!info.success) continue;
      const { notifications } = info.data;
      const every = NOTICE_EVERY[notifications.period];
      if (!notifications.is_active || every === undefined) continue;
      for (const l of info.data.licenses) {
        const period = effectivePeriod(l);
        if (!l.is_active || period.to >= UNLIMITED_PERIOD.to || nowS > period.to || nowS < period.from) continue;
        const days = calendarDaysBetween(nowS, period.to);
        if (days > notifications.notify_before) continue;
        const data = {
          event: 'license_expiring',
          name: 'A licence ends soon',
          kind: 'license_expiring',
          scope: 'group',
          group: { id: g.id, name: g.name },
          type: l.type,
          days,
          expires_at: new Date(period.to * 1000).toISOString(),
        };
        await this.send(projectId, `group:${g.id}:${l.type}`, every, { id: g.id, path: g.path }, data, now);
      }
    }
  }

  start(): void {
    if (this.timer) return;
    const run = () => {
      this.ticking = this.tick().catch((e) => this.opts.log?.warn({ err: (e as Error).message }, 'licence worker round failed'));
    };
    this.timer = setInterval(run, TICK_MS);
    this.timer.unref();
    // The first round a little after the start, not in the way of the start itself.
    this.first = setTimeout(run, 5000);
    this.first.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.first) clearTimeout(this.first);
    this.timer = undefined;
    await this.ticking;
  }
}
