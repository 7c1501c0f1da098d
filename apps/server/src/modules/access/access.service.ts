import { randomBytes } from 'node:crypto';
import {
  ACCESS_REALTIME,
  type AccessEvent,
  type AccessIdentifier,
  type AccessMatrixQuery,
  type AccessMatrixRow,
  type AccessRule,
  type BulkDeleteResult,
  type CreateAccessRuleBody,
  type CreateIdentifierBody,
  type CreateTimeRuleBody,
  DEFAULT_ENTRY,
  decideAccess,
  deviceModel,
  type Explain,
  IDENTIFIER_TYPES,
  type Identifier,
  type IdentifierImportResult,
  type IdentifierType,
  type ListMeta,
  type ListQuery,
  VALIDATION_MESSAGES as M,
  normalizeIdentifierValue,
  type ScheduleSpec,
  type SyncIdentifier,
  scheduleVerdict,
  type TimeRule,
  type UpdateAccessRuleBody,
  type UpdateIdentifierBody,
  type UpdateTimeRuleBody,
} from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { type Audience, intArray } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { type FileStore, MAX_IMAGE_BYTES, storableImage } from '../../core/files.js';
import type { LicenseGuard } from '../../core/license-guard.js';
import type { ProjectInfo } from '../../core/project-info.js';
import type { NewEvent } from '../devices/devices.repository.js';
import type { DevicesService } from '../devices/devices.service.js';
import type { AccessRepository, AccessRuleRow, IdentifierRow, TimeRuleRow } from './access.repository.js';
import { accessRules, identifiers, timeRules } from './access.table.js';
import { GuestAccess } from './guest-access.js';
import { IdentifierImport } from './identifier-import.js';
import { assertUkey2WithinLicense, type Ukey2License } from './ukey2-license.js';

const isIdentifierKind = (kind: unknown): kind is IdentifierType => (IDENTIFIER_TYPES as readonly unknown[]).includes(kind);

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Most bytes of JSON one sync task carries; a larger sync goes as several (the first full, then deltas). */
export const SYNC_TASK_MAX_BYTES = 192 * 1024;

const iso = (d: Date | string | null) => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());

function toTimeRule(r: TimeRuleRow): TimeRule {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    domain_id: r.groupId,
    time_zone: r.timeZone,
    valid_from: r.validFrom,
    valid_to: r.validTo,
    is_all_day: r.isAllDay,
    repeat_mode: r.repeatMode,
    entries: r.entries as TimeRule['entries'],
    exceptions: r.exceptions,
    access_rules: r.accessRules.map(Number),
    created_by: r.createdBy,
    created_at: iso(r.createdAt)!,
    updated_at: iso(r.updatedAt)!,
    can_edit: r.editable,
    can_delete: r.deletable,
  };
}

function toAccessRule(r: AccessRuleRow): AccessRule {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_shareable: r.isShareable,
    prohibition: r.prohibition,
    available_for_guest: r.availableForGuest,
    devices: r.devices.map((d) => ({ id: Number(d.id), lock_number: Number(d.lock_number) })),
    identifiers: r.identifiers.map(Number),
    users: r.users.map(Number),
    domains: r.domains.map(Number),
    time_rules: r.timeRules.map(Number),
    created_by: r.createdBy,
    created_at: iso(r.createdAt)!,
    updated_at: iso(r.updatedAt)!,
    can_edit: r.editable,
    can_delete: r.deletable,
  };
}

function toIdentifier(r: IdentifierRow): Identifier {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_active: r.isActive,
    type: r.type as IdentifierType,
    value: r.value,
    owner_id: r.ownerId,
    owner: r.owner ? { id: Number(r.owner.id), name: r.owner.name, login: r.owner.login } : null,
    period_restrict_active: r.periodRestrictActive,
    period_restrict_from: iso(r.periodFrom),
    period_restrict_to: iso(r.periodTo),
    passes_restrict_active: r.passesRestrictActive,
    passes_restrict_max_count: r.passesMax,
    passes_restrict_passes_count: r.passesCount,
    access_rules: r.accessRules.map(Number),
    guest_type: r.guestType,
    key_message: r.keyMessage,
    photo_url: r.photoPath ? `/api/v0/files/${r.photoPath}` : null,
    is_revoked: r.revokedAt !== null,
    revoked_at: iso(r.revokedAt),
    created_by: r.createdBy,
    created_at: iso(r.createdAt)!,
    updated_at: iso(r.updatedAt)!,
    can_edit: r.editable,
    can_delete: r.deletable,
  };
}

type Publish = (projectId: number, topic: string, event: string, data: unknown, audience: Audience) => Promise<void>;

/** Who hears of identifier use (the `{acs}` notifications). */
export interface AccessNotifier {
  notify(
    projectId: number,
    userId: number,
    n: {
      type: 'user_used_identifier' | 'user_used_revoked_identifier';
      data: Record<string, unknown>;
      significance: 'important' | 'other';
    },
  ): Promise<unknown>;
}

/**
 * Schedules, access rules and identifiers, and what devices must know of them: every change that
 * alters what a door decides queues sync tasks for exactly the devices concerned, in the same
 * transaction as the change (nothing is lost if the process dies), carrying only the identifiers
 * and schedules that changed.
 */
export class AccessService {
  readonly importer: IdentifierImport;
  readonly guests: GuestAccess;
  private readonly publish: Publish | null;

  constructor(
    private readonly db: Db,
    private readonly repo: AccessRepository,
    private readonly devices: DevicesService,
    private readonly notifier: AccessNotifier | null = null,
    opts: {
      dataDir?: string;
      /** Links handed to guests and doors (core/project-info.ts). */
      links: Pick<ProjectInfo, 'link'>;
      publish?: Publish;
      ukey2License?: (projectId: number) => Promise<Ukey2License>;
      /** Whether the server's licence has face ID for guests (none: off). */
      faceIdForGuests?: (projectId: number) => Promise<boolean>;
      /** How long a guest's open with face ID waits for the door (ms). */
      guestFaceWaitMs?: number;
      /** The licence check (core/license-guard.ts): licence plates are identifiers of one type, decided by the request's value. */
      licenseGuard?: Pick<LicenseGuard, 'assert' | 'allows'>;
    },
  ) {
    this.publish = opts.publish ?? null;
    this.licenseGuard = opts.licenseGuard ?? null;
    this.ukey2License = opts.ukey2License ?? (async () => ({ enabled: true, count: null }));
    devices.onEvents(
      (events) => this.onDeviceEvents(events),
      (types) => types.includes('access_granted') || types.includes('access_denied'),
    );
    this.guests = new GuestAccess(db, repo, devices, {
      sync: (tx, ids, devicesBefore) => this.syncIdentifiers(tx, null, ids, devicesBefore),
      get: (actor, id) => this.getIdentifier(actor, id),
      links: opts.links,
      ...(opts.faceIdForGuests ? { faceIdForGuests: opts.faceIdForGuests } : {}),
      ...(opts.guestFaceWaitMs ? { faceWaitMs: opts.guestFaceWaitMs } : {}),
    });
    this.importer = new IdentifierImport(
      db,
      opts.dataDir ?? 'data',
      (tx, ids, devicesBefore) => this.syncIdentifiers(tx, null, ids, devicesBefore),
      (tx, ids) => this.repo.devicesOfIdentifiers(tx, ids),
      this.ukey2License,
      assertUkey2WithinLicense,
      async (actor) => (this.licenseGuard ? this.licenseGuard.allows('license_plate', actor.projectId, actor) : true),
    );
  }

  private readonly licenseGuard: Pick<LicenseGuard, 'assert' | 'allows'> | null;

  /** A licence plate is written (made, or kept by an edit) only while plates are licensed. */
  private async assertPlatesLicensed(actor: Actor, type: IdentifierType): Promise<void> {
    if (type === 'license_plate' && this.licenseGuard) await this.licenseGuard.assert(actor, 'license_plate');
  }

  /**
   * The UKEY2 licence, read before a transaction that may add UKEY2 keys: read inside it, on the
   * embedded database's single connection, it would wait for the transaction that waits for it.
   */
  private readonly ukey2License: (projectId: number) => Promise<Ukey2License>;

  async importIdentifiers(ctx: RequestContext, upload: string, id: string): Promise<IdentifierImportResult> {
    const result = await this.importer.attempt(ctx, upload, id);
    await this.devices.dispatch();
    return result;
  }

  async continueImport(ctx: RequestContext, id: string, action: 'skip' | 'replace' | 'cancel'): Promise<IdentifierImportResult> {
    const result = await this.importer.continue(ctx, id, action);
    await this.devices.dispatch();
    return result;
  }

  /** Identifiers page after page for the export (the import's columns: an export imports back). */
  identifierPages(actor: Actor, q: ListQuery & { search?: string | undefined; onlyGuest?: '0' | '1' | undefined }) {
    if (!actor.permissions.has('can_export_identifiers')) throw prohibited([{ permission: 'can_export_identifiers' }]);
    const repo = this.repo;
    return (async function* () {
      for (let page = 1; ; page++) {
        const { rows } = await repo.listIdentifiers(actor, { ...q, page, size: 1000 });
        if (rows.length) yield rows.map(toIdentifier);
        if (rows.length < 1000) return;
      }
    })();
  }

  // --- permissions -------------------------------------------------------------------------------

  private assertAny(actor: Actor, codes: string[]) {
    if (!codes.some((c) => actor.permissions.has(c))) throw prohibited([{ permission: codes[0] }]);
  }

  private async assertLinks(
    actor: Actor,
    links: Partial<Record<'devices' | 'users' | 'domains' | 'identifiers' | 'time_rules' | 'access_rules', number[] | undefined>>,
  ) {
    for (const [kind, ids] of Object.entries(links) as [keyof typeof links, number[] | undefined][]) {
      if (!ids?.length) continue;
      const unique = [...new Set(ids)];
      const ok = await this.repo.visibleIds(actor, kind, unique);
      const bad = unique.filter((id) => !ok.has(id));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: kind, entity: kind, ids: bad }]);
    }
  }

  /** The users among `ids` the actor may see (other areas link users through it). */
  visibleUsers(actor: Actor, ids: number[]): Promise<Set<number>> {
    return this.repo.visibleIds(actor, 'users', [...new Set(ids)]);
  }

  /** The access rules among `ids` the actor may see (amenities link rules through it). */
  visibleRules(actor: Actor, ids: number[]): Promise<Set<number>> {
    return this.repo.visibleIds(actor, 'access_rules', [...new Set(ids)]);
  }

  // --- schedules ---------------------------------------------------------------------------------

  async listTimeRules(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: TimeRule[]; meta: ListMeta }> {
    this.assertAny(actor, ['can_view_time_rules', 'can_view_all_time_rules']);
    const { rows, total, estimated } = await this.repo.listTimeRules(actor, q);
    return { data: rows.map(toTimeRule), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  private async visibleTimeRule(actor: Actor, id: number, action: 'view' | 'edit' | 'delete' = 'view') {
    const r = await this.repo.timeRule(actor, id);
    if (!r?.canView) throw notFound();
    if (action === 'edit' && !r.editable) throw prohibited([{ permission: 'can_edit_time_rules' }]);
    if (action === 'delete' && !r.deletable) throw prohibited([{ permission: 'can_delete_time_rules' }]);
    return r;
  }

  async getTimeRule(actor: Actor, id: number): Promise<TimeRule> {
    return toTimeRule(await this.visibleTimeRule(actor, id));
  }

  async createTimeRule(ctx: RequestContext, body: CreateTimeRuleBody): Promise<TimeRule> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_time_rules')) throw prohibited([{ permission: 'can_create_time_rules' }]);
    await this.assertLinks(actor, { domains: [body.domain_id], access_rules: body.access_rules });
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(timeRules)
        .values({
          projectId: actor.projectId,
          groupId: body.domain_id,
          name: body.name,
          description: body.description ?? null,
          timeZone: body.time_zone ?? 'UTC',
          validFrom: body.valid_from ?? null,
          validTo: body.valid_to ?? null,
          isAllDay: body.is_all_day ?? false,
          repeatMode: body.repeat_mode ?? 'weekly',
          entries: body.entries ?? [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], ...DEFAULT_ENTRY }],
          exceptions: body.exceptions ?? [],
          createdBy: actor.userId,
        })
        .returning({ id: timeRules.id });
      const id = row!.id;
      if (body.access_rules?.length)
        await this.relinkRules(tx, actor, body.access_rules, () => this.repo.setRulesOf(tx, 'time_rule', id, body.access_rules ?? []));
      await recordAudit(tx, ctx, { entity: 'time_rule', entityId: id, action: 'create', after: body });
      return id;
    });
    await this.devices.dispatch();
    return this.getTimeRule(actor, id);
  }

  async updateTimeRule(ctx: RequestContext, id: number, body: UpdateTimeRuleBody): Promise<TimeRule> {
    const { actor } = ctx;
    const before = await this.visibleTimeRule(actor, id, 'edit');
    await this.assertLinks(actor, { domains: body.domain_id ? [body.domain_id] : undefined, access_rules: body.access_rules });
    const from = body.valid_from !== undefined ? body.valid_from : before.validFrom;
    const to = body.valid_to !== undefined ? body.valid_to : before.validTo;
    if (from && to && from > to) throw invalidField('valid_to', M.invalid_value);
    await this.db.transaction(async (tx) => {
      await tx
        .update(timeRules)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.domain_id !== undefined ? { groupId: body.domain_id } : {}),
          ...(body.time_zone !== undefined ? { timeZone: body.time_zone } : {}),
          ...(body.valid_from !== undefined ? { validFrom: body.valid_from } : {}),
          ...(body.valid_to !== undefined ? { validTo: body.valid_to } : {}),
          ...(body.is_all_day !== undefined ? { isAllDay: body.is_all_day } : {}),
          ...(body.repeat_mode !== undefined ? { repeatMode: body.repeat_mode } : {}),
          ...(body.entries !== undefined ? { entries: body.entries } : {}),
          ...(body.exceptions !== undefined ? { exceptions: body.exceptions } : {}),
          updatedAt: new Date(),
        })
        .where(sql`${timeRules.id} = ${id}`);
      if (body.access_rules) {
        await this.relinkRules(tx, actor, [...new Set([...before.accessRules.map(Number), ...body.access_rules])], () =>
          this.repo.setRulesOf(tx, 'time_rule', id, body.access_rules ?? []),
        );
      }
      // The schedule itself changed: every device of a rule using it gets it again.
      const devices = await this.repo.devicesOfRules(tx, await this.repo.rulesOfTimeRule(tx, id));
      await this.queueSync(tx, actor, devices, { identifierIds: [], scheduleIds: [id] });
      await recordAudit(tx, ctx, { entity: 'time_rule', entityId: id, action: 'update', before: toTimeRule(before), after: body });
    });
    await this.devices.dispatch();
    return this.getTimeRule(actor, id);
  }

  async deleteTimeRule(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visibleTimeRule(ctx.actor, id, 'delete');
    await this.db.transaction(async (tx) => {
      await this.relinkRules(tx, ctx.actor, before.accessRules.map(Number), () =>
        tx
          .delete(timeRules)
          .where(sql`${timeRules.id} = ${id}`)
          .then(() => undefined),
      );
      await recordAudit(tx, ctx, { entity: 'time_rule', entityId: id, action: 'delete', before: toTimeRule(before) });
    });
    await this.devices.dispatch();
  }

  bulkDeleteTimeRules(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.deleteTimeRule(ctx, id));
  }

  // --- access rules ------------------------------------------------------------------------------

  async listAccessRules(actor: Actor, q: ListQuery & { search?: string | undefined }, onlyGuest = false) {
    if (onlyGuest) this.assertAny(actor, ['can_create_guest_identifiers', 'can_view_access_rules', 'can_view_all_access_rules']);
    else this.assertAny(actor, ['can_view_access_rules', 'can_view_all_access_rules']);
    const { rows, total, estimated } = await this.repo.listAccessRules(actor, q, onlyGuest);
    return { data: rows.map(toAccessRule), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  private async visibleRule(actor: Actor, id: number, action: 'view' | 'edit' | 'delete' = 'view') {
    const r = await this.repo.accessRule(actor, id);
    if (!r?.canView) throw notFound();
    if (action === 'edit' && !r.editable) throw prohibited([{ permission: 'can_edit_access_rules' }]);
    if (action === 'delete' && !r.deletable) throw prohibited([{ permission: 'can_delete_access_rules' }]);
    return r;
  }

  async getAccessRule(actor: Actor, id: number): Promise<AccessRule> {
    return toAccessRule(await this.visibleRule(actor, id));
  }

  /** Lock numbers within what each device's model has (a device of no locks takes lock 1: its one output). */
  private async assertLocks(devices: { id: number; lock_number: number }[]) {
    const models = await this.repo.deviceModels([...new Set(devices.map((d) => d.id))]);
    for (const [i, d] of devices.entries()) {
      const m = models.get(d.id);
      const locks = Math.max(1, (m && deviceModel(m.type, m.model)?.capabilities.locks) || 1);
      if (d.lock_number > locks) throw invalidField(`devices.${i}.lock_number`, M.max_value, { max: locks });
    }
  }

  async createAccessRule(ctx: RequestContext, body: CreateAccessRuleBody): Promise<AccessRule> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_access_rules')) throw prohibited([{ permission: 'can_create_access_rules' }]);
    await this.assertLinks(actor, {
      devices: body.devices.map((d) => d.id),
      identifiers: body.identifiers,
      users: body.users,
      domains: body.domains,
      time_rules: body.time_rules,
    });
    await this.assertLocks(body.devices);
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(accessRules)
        .values({
          projectId: actor.projectId,
          name: body.name,
          description: body.description ?? null,
          isShareable: body.is_shareable ?? false,
          prohibition: body.prohibition ?? false,
          availableForGuest: body.available_for_guest ?? false,
          createdBy: actor.userId,
        })
        .returning({ id: accessRules.id });
      const ruleId = row!.id;
      await this.relinkRules(tx, actor, [ruleId], () =>
        this.repo.setRuleLinks(tx, ruleId, {
          devices: body.devices,
          identifiers: body.identifiers,
          users: body.users,
          domains: body.domains,
          timeRules: body.time_rules,
        }),
      );
      await recordAudit(tx, ctx, { entity: 'access_rule', entityId: ruleId, action: 'create', after: body });
      return ruleId;
    });
    await this.devices.dispatch();
    return this.getAccessRule(actor, id);
  }

  async updateAccessRule(ctx: RequestContext, id: number, body: UpdateAccessRuleBody): Promise<AccessRule> {
    const { actor } = ctx;
    const before = await this.visibleRule(actor, id, 'edit');
    await this.assertLinks(actor, {
      devices: body.devices?.map((d) => d.id),
      identifiers: body.identifiers,
      users: body.users,
      domains: body.domains,
      time_rules: body.time_rules,
    });
    if (body.devices) await this.assertLocks(body.devices);
    await this.db.transaction(async (tx) => {
      await this.relinkRules(tx, actor, [id], async () => {
        await tx
          .update(accessRules)
          .set({
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(body.is_shareable !== undefined ? { isShareable: body.is_shareable } : {}),
            ...(body.prohibition !== undefined ? { prohibition: body.prohibition } : {}),
            ...(body.available_for_guest !== undefined ? { availableForGuest: body.available_for_guest } : {}),
            updatedAt: new Date(),
          })
          .where(sql`${accessRules.id} = ${id}`);
        await this.repo.setRuleLinks(tx, id, {
          devices: body.devices,
          identifiers: body.identifiers,
          users: body.users,
          domains: body.domains,
          timeRules: body.time_rules,
        });
      });
      await recordAudit(tx, ctx, { entity: 'access_rule', entityId: id, action: 'update', before: toAccessRule(before), after: body });
    });
    await this.devices.dispatch();
    return this.getAccessRule(actor, id);
  }

  async deleteAccessRule(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visibleRule(ctx.actor, id, 'delete');
    await this.db.transaction(async (tx) => {
      await this.relinkRules(tx, ctx.actor, [id], () =>
        tx
          .delete(accessRules)
          .where(sql`${accessRules.id} = ${id}`)
          .then(() => undefined),
      );
      await recordAudit(tx, ctx, { entity: 'access_rule', entityId: id, action: 'delete', before: toAccessRule(before) });
    });
    await this.devices.dispatch();
  }

  bulkDeleteAccessRules(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.deleteAccessRule(ctx, id));
  }

  /**
   * Runs a change to some access rules and syncs what it altered: the identifiers those rules reach
   * before or after, to the devices they cover before or after (a device no longer covered is told
   * to drop what it may no longer open).
   */
  private async relinkRules(tx: Tx, actor: Actor, ruleIds: number[], change: () => Promise<void>): Promise<void> {
    const reach = async () => {
      const devices = await this.repo.devicesOfRules(tx, ruleIds);
      const rows = ruleIds.length
        ? await queryRows<{ identifier_id: number }>(tx, sql`SELECT DISTINCT identifier_id FROM (${ruleIdentifiersOf(ruleIds)}) x`)
        : [];
      return { devices, identifiers: rows.map((r) => Number(r.identifier_id)) };
    };
    const before = await reach();
    await change();
    const after = await reach();
    await this.queueSync(tx, actor, [...new Set([...before.devices, ...after.devices])], {
      identifierIds: [...new Set([...before.identifiers, ...after.identifiers])],
      scheduleIds: null,
    });
  }

  // --- identifiers -------------------------------------------------------------------------------

  /** UKEY2 keys of the project, view-only (spec entities §2), for those who may view them. */
  async listUkey2(actor: Actor, q: ListQuery & { search?: string | undefined }) {
    if (!actor.permissions.has('can_view_ukey2')) throw prohibited([{ permission: 'can_view_ukey2' }]);
    const viewer = { ...actor, permissions: new Set(['can_view_all_identifiers']) };
    const { rows, total, estimated } = await this.repo.listIdentifiers(viewer, { ...q, onlyType: 'ukey2' });
    return { data: rows.map(toIdentifier), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  async getUkey2(actor: Actor, id: number): Promise<Identifier> {
    if (!actor.permissions.has('can_view_ukey2')) throw prohibited([{ permission: 'can_view_ukey2' }]);
    const r = await this.repo.identifier({ ...actor, permissions: new Set(['can_view_all_identifiers']) }, id);
    if (r?.type !== 'ukey2') throw notFound();
    return toIdentifier(r);
  }

  async listIdentifiers(actor: Actor, q: ListQuery & { search?: string | undefined; onlyGuest?: '0' | '1' | undefined }) {
    const { rows, total, estimated } = await this.repo.listIdentifiers(actor, q);
    return { data: rows.map(toIdentifier), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  private async visibleIdentifier(actor: Actor, id: number, action: 'view' | 'edit' | 'delete' = 'view') {
    const r = await this.repo.identifier(actor, id);
    if (!r?.canView) throw notFound();
    if (action === 'edit' && !r.editable) throw prohibited([{ permission: 'can_edit_identifiers' }]);
    if (action === 'delete' && !r.deletable) throw prohibited([{ permission: 'can_delete_identifiers' }]);
    return r;
  }

  async getIdentifier(actor: Actor, id: number): Promise<Identifier> {
    return toIdentifier(await this.visibleIdentifier(actor, id));
  }

  private value(type: IdentifierType, raw: string): string {
    const v = normalizeIdentifierValue(type, raw);
    if (v === null) throw invalidField('value', M.invalid_value, { type });
    return v;
  }

  private async assertValueFree(projectId: number, type: string, value: string, exceptId = 0) {
    if (await this.repo.identifierTaken(projectId, type, value, exceptId))
      throw new AppError('identifier_exists', [{ field: 'value', message: M.unique }]);
  }

  async createIdentifier(ctx: RequestContext, body: CreateIdentifierBody): Promise<Identifier> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_identifiers')) throw prohibited([{ permission: 'can_create_identifiers' }]);
    const type = body.type ?? 'card';
    await this.assertPlatesLicensed(actor, type);
    const value = this.value(type, body.value);
    await this.assertLinks(actor, { users: body.owner_id ? [body.owner_id] : undefined, access_rules: body.access_rules });
    await this.assertValueFree(actor.projectId, type, value);
    const ukey2 = type === 'ukey2' ? await this.ukey2License(actor.projectId) : null;
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(identifiers)
        .values({
          projectId: actor.projectId,
          name: body.name,
          description: body.description ?? null,
          isActive: body.is_active ?? true,
          type,
          value,
          ownerId: body.owner_id ?? null,
          periodRestrictActive: body.period_restrict_active ?? false,
          periodFrom: body.period_restrict_from ? new Date(body.period_restrict_from) : null,
          periodTo: body.period_restrict_to ? new Date(body.period_restrict_to) : null,
          passesRestrictActive: body.passes_restrict_active ?? false,
          passesMax: body.passes_restrict_active ? (body.passes_restrict_max_count ?? 0) : 0,
          passesSince: body.passes_restrict_active ? new Date() : null,
          createdBy: actor.userId,
        })
        .returning({ id: identifiers.id });
      const identifierId = row!.id;
      if (ukey2) await assertUkey2WithinLicense(tx, actor.projectId, ukey2);
      if (body.access_rules?.length) await this.repo.setRulesOf(tx, 'identifier', identifierId, body.access_rules);
      await this.syncIdentifiers(tx, actor, [identifierId], []);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: identifierId, action: 'create', after: { ...body, value } });
      return identifierId;
    });
    await this.devices.dispatch();
    return this.getIdentifier(actor, id);
  }

  async updateIdentifier(ctx: RequestContext, id: number, body: UpdateIdentifierBody): Promise<Identifier> {
    const { actor } = ctx;
    const before = await this.visibleIdentifier(actor, id, 'edit');
    const type = (body.type ?? before.type) as IdentifierType;
    await this.assertPlatesLicensed(actor, type);
    const value = body.value !== undefined || body.type !== undefined ? this.value(type, body.value ?? before.value) : before.value;
    await this.assertLinks(actor, { users: body.owner_id ? [body.owner_id] : undefined, access_rules: body.access_rules });
    if (value !== before.value || type !== before.type) await this.assertValueFree(actor.projectId, type, value, id);
    const from = body.period_restrict_from !== undefined ? body.period_restrict_from : iso(before.periodFrom);
    const to = body.period_restrict_to !== undefined ? body.period_restrict_to : iso(before.periodTo);
    if (from && to && Date.parse(from) >= Date.parse(to)) throw invalidField('period_restrict_to', M.invalid_value);
    // A key that becomes UKEY2, or a UKEY2 key that changes hands, is counted again.
    const ukey2 =
      type === 'ukey2' && (before.type !== 'ukey2' || body.owner_id !== undefined) ? await this.ukey2License(actor.projectId) : null;
    await this.db.transaction(async (tx) => {
      const devicesBefore = await this.repo.devicesOfIdentifiers(tx, [id]);
      const limitChanged = body.passes_restrict_active !== undefined || body.passes_restrict_max_count !== undefined;
      await tx
        .update(identifiers)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
          type,
          value,
          ...(body.owner_id !== undefined ? { ownerId: body.owner_id } : {}),
          ...(body.period_restrict_active !== undefined ? { periodRestrictActive: body.period_restrict_active } : {}),
          ...(body.period_restrict_from !== undefined
            ? { periodFrom: body.period_restrict_from ? new Date(body.period_restrict_from) : null }
            : {}),
          ...(body.period_restrict_to !== undefined
            ? { periodTo: body.period_restrict_to ? new Date(body.period_restrict_to) : null }
            : {}),
          ...(body.passes_restrict_active !== undefined ? { passesRestrictActive: body.passes_restrict_active } : {}),
          ...(body.passes_restrict_max_count !== undefined ? { passesMax: body.passes_restrict_max_count } : {}),
          // A new limit counts passes from now on.
          ...(limitChanged ? { passesCount: 0, passesSince: new Date() } : {}),
          updatedAt: new Date(),
        })
        .where(sql`${identifiers.id} = ${id}`);
      if (ukey2) await assertUkey2WithinLicense(tx, actor.projectId, ukey2);
      if (body.access_rules) await this.repo.setRulesOf(tx, 'identifier', id, body.access_rules);
      await this.syncIdentifiers(tx, actor, [id], devicesBefore);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'update', before: toIdentifier(before), after: body });
    });
    await this.devices.dispatch();
    return this.getIdentifier(actor, id);
  }

  /** Sets the identifier's photo (a JPEG, PNG or WebP of at most 5 MB); the previous one is removed. */
  async setIdentifierPhoto(ctx: RequestContext, id: number, image: Buffer, files: FileStore): Promise<Identifier> {
    const before = await this.visibleIdentifier(ctx.actor, id, 'edit');
    if (image.length > MAX_IMAGE_BYTES) throw new AppError('payload_too_large');
    const { ext, data } = await storableImage(image);
    const key = await files.put('identifiers', ext, data);
    await this.db.transaction(async (tx) => {
      await tx.update(identifiers).set({ photoPath: key, updatedAt: new Date() }).where(sql`${identifiers.id} = ${id}`);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'photo', after: { photo: key } });
    });
    await files.remove(before.photoPath);
    return this.getIdentifier(ctx.actor, id);
  }

  /** The identifier's value as a QR code (PNG), for those who may see the identifier. */
  async identifierQr(actor: Actor, id: number): Promise<Buffer> {
    const i = await this.visibleIdentifier(actor, id);
    const { default: QRCode } = await import('qrcode');
    return QRCode.toBuffer(i.value, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 512 });
  }

  async revokeIdentifier(ctx: RequestContext, id: number): Promise<Identifier> {
    const { actor } = ctx;
    const before = await this.visibleIdentifier(actor, id, 'edit');
    if (!before.revokedAt) {
      await this.db.transaction(async (tx) => {
        await tx.update(identifiers).set({ revokedAt: new Date(), updatedAt: new Date() }).where(sql`${identifiers.id} = ${id}`);
        await this.syncIdentifiers(tx, actor, [id], []);
        await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'revoke' });
      });
      await this.devices.dispatch();
    }
    return this.getIdentifier(actor, id);
  }

  async deleteIdentifier(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visibleIdentifier(ctx.actor, id, 'delete');
    await this.db.transaction(async (tx) => {
      const devicesBefore = await this.repo.devicesOfIdentifiers(tx, [id]);
      await tx.delete(identifiers).where(sql`${identifiers.id} = ${id}`);
      await this.syncIdentifiers(tx, ctx.actor, [id], devicesBefore);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'delete', before: toIdentifier(before) });
    });
    await this.devices.dispatch();
  }

  bulkDeleteIdentifiers(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.deleteIdentifier(ctx, id));
  }

  /**
   * Runs a change to users' groups (or their deletion) and syncs their identifiers to the devices
   * that held them before or should hold them after (users.service calls this).
   */
  async aroundUsers(tx: Tx, userIds: number[], change: () => Promise<void>): Promise<void> {
    const ids = await this.repo.identifiersOfUsers(tx, userIds);
    const devicesBefore = await this.repo.devicesOfIdentifiers(tx, ids);
    await change();
    await this.syncIdentifiers(tx, null, ids, devicesBefore);
  }

  /**
   * An identifier another area issues and keeps (an amenity reservation's QR, issue 13): a QR of no
   * owner that opens `ruleIds` only, from `validFrom` to `validTo`, revoked when `revoked`; written
   * and synced to the devices concerned in the caller's transaction (`id` null: a new one).
   */
  async issueIdentifierInTx(
    tx: Tx,
    v: {
      id: number | null;
      projectId: number;
      name: string;
      ruleIds: number[];
      validFrom: Date;
      validTo: Date;
      revoked: boolean;
      createdBy: number | null;
    },
  ): Promise<{ id: number; value: string }> {
    const devicesBefore = v.id === null ? [] : await this.repo.devicesOfIdentifiers(tx, [v.id]);
    const period = { periodRestrictActive: true, periodFrom: v.validFrom, periodTo: v.validTo };
    const [row] =
      v.id === null
        ? await tx
            .insert(identifiers)
            .values({
              projectId: v.projectId,
              name: v.name,
              type: 'qr',
              value: `R${randomBytes(12).toString('hex').toUpperCase()}`,
              ownerId: null,
              ...period,
              revokedAt: v.revoked ? new Date() : null,
              createdBy: v.createdBy,
            })
            .returning({ id: identifiers.id, value: identifiers.value })
        : await tx
            .update(identifiers)
            .set({
              ...period,
              revokedAt: v.revoked ? sql`coalesce(${identifiers.revokedAt}, now())` : null,
              updatedAt: new Date(),
            })
            .where(sql`${identifiers.id} = ${v.id} AND ${identifiers.projectId} = ${v.projectId}`)
            .returning({ id: identifiers.id, value: identifiers.value });
    if (!row) throw notFound();
    await this.repo.setRulesOf(tx, 'identifier', row.id, v.ruleIds);
    await this.syncIdentifiers(tx, null, [row.id], devicesBefore);
    return row;
  }

  /** Syncs changed identifiers to the devices that hold them now or held them before the change. */
  private async syncIdentifiers(tx: Tx, actor: Actor | null, ids: number[], devicesBefore: number[]): Promise<void> {
    const after = await this.repo.devicesOfIdentifiers(tx, ids);
    await this.queueSync(tx, actor, [...new Set([...devicesBefore, ...after])], { identifierIds: ids, scheduleIds: null });
  }

  // --- sync --------------------------------------------------------------------------------------

  /**
   * Queues sync tasks: for each device, the given identifiers as it must hold them now (those it may
   * no longer hold in `removed`), with the schedules they need, or the given schedules alone.
   * `identifierIds` null: everything the device must hold (a full sync).
   */
  async queueSync(
    tx: Tx,
    actor: Actor | null,
    deviceIds: number[],
    what: { identifierIds: number[] | null; scheduleIds: number[] | null },
  ): Promise<number> {
    const devices = await this.repo.syncableDevices(tx, deviceIds);
    if (!devices.length) return 0;
    const tasks: { deviceId: number; type: 'sync'; payload: Record<string, unknown> }[] = [];
    const parts = what.identifierIds && what.identifierIds.length === 0 ? null : await this.repo.syncParts(tx, devices, what.identifierIds);
    const scheduleCache = new Map<number, unknown>();
    const schedules = async (ids: number[]) => {
      const missing = ids.filter((id) => !scheduleCache.has(id));
      for (const s of await this.repo.syncSchedules(tx, missing)) scheduleCache.set(s.id, s);
      return ids.map((id) => scheduleCache.get(id)).filter((s) => s !== undefined);
    };
    for (const deviceId of devices) {
      const part = parts?.get(deviceId) ?? { identifiers: [], scheduleIds: [] };
      const full = what.identifierIds === null;
      const held = new Set(part.identifiers.map((i) => i.id));
      const removed = full ? [] : (what.identifierIds ?? []).filter((id) => !held.has(id));
      const scheduleIds = [...new Set([...part.scheduleIds, ...(what.scheduleIds ?? [])])];
      for (const payload of splitSync(full, part.identifiers, await schedules(scheduleIds), removed)) {
        tasks.push({ deviceId, type: 'sync', payload });
      }
    }
    return this.devices.queueInTx(tx, tasks, actor?.userId ?? null);
  }

  /** A full sync of devices (what they must hold, replacing anything else). */
  async fullSync(ctx: RequestContext, deviceIds: number[]): Promise<number> {
    const n = await this.db.transaction((tx) => this.queueSync(tx, ctx.actor, deviceIds, { identifierIds: null, scheduleIds: null }));
    await this.devices.dispatch();
    return n;
  }

  // --- events from devices -----------------------------------------------------------------------

  /**
   * Access decisions devices reported (access_granted / access_denied events), stored as access
   * events with the identifier and its owner; passes counted (a limit reached is synced at once);
   * the owner told of the use, and of a revoked identifier's use.
   */
  async onDeviceEvents(events: readonly NewEvent[]): Promise<void> {
    const decisions = events.filter((e) => e.type === 'access_granted' || e.type === 'access_denied');
    if (!decisions.length) return;
    const byProject = new Map<number, NewEvent[]>();
    for (const e of decisions) byProject.set(e.projectId, [...(byProject.get(e.projectId) ?? []), e]);
    for (const [projectId, list] of byProject) {
      const values = [...new Set(list.map((e) => e.identifier).filter((v): v is string => !!v))];
      const found = await this.repo.identifiersByValue(projectId, values);
      const pick = (value: string | null, kind: unknown) => {
        if (!value) return undefined;
        const all = found.filter((i) => i.value === value);
        return all.find((i) => i.type === kind) ?? all[0];
      };
      const passes = new Map<number, number>();
      const rows = list.map((e) => {
        const i = pick(e.identifier, e.data.kind);
        const granted = e.type === 'access_granted';
        // A pass counts against a limit set before the server heard of it (the server's clock: a
        // device's may be wrong).
        const since = i?.passes_restrict_since ? new Date(i.passes_restrict_since) : null;
        const heard = e.receivedAt ?? e.occurredAt;
        if (granted && i?.passes_restrict_active && (!since || heard >= since))
          passes.set(Number(i.id), (passes.get(Number(i.id)) ?? 0) + 1);
        return {
          projectId,
          deviceId: e.deviceId,
          lockNumber: Number(e.data.lock ?? 1) || 1,
          granted,
          reason: granted ? null : String(e.data.reason ?? 'unknown'),
          value: e.identifier,
          // What the reader took it for, kept so a number no identifier has still reads as card numbers do.
          kind: isIdentifierKind(e.data.kind) ? e.data.kind : (i?.type ?? null),
          identifierId: i ? Number(i.id) : null,
          userId: i?.owner_id ?? null,
          ruleId: typeof e.data.rule_id === 'number' ? e.data.rule_id : null,
          direction: typeof e.data.direction === 'string' ? e.data.direction : null,
          occurredAt: e.occurredAt,
        };
      });
      await this.repo.insertAccessEvents(rows);
      // Consoles showing access events hear of new ones: those who may see the device and the events.
      if (this.publish) {
        const devices = await queryRows<{ id: number; group_id: number | null; path: number[] | null; created_by: number | null }>(
          this.db,
          sql`SELECT d.id, d.group_id, (SELECT g.path FROM groups g WHERE g.id = d.group_id) AS path, d.created_by
            FROM devices d WHERE d.id = ANY(${intArray([...new Set(rows.map((r) => r.deviceId))])})`,
        );
        for (const d of devices) {
          await this.publish(
            projectId,
            ACCESS_REALTIME.eventsTopic,
            ACCESS_REALTIME.events.decision,
            { device_id: Number(d.id), count: rows.filter((r) => r.deviceId === Number(d.id)).length },
            {
              resource: 'devices',
              action: 'view',
              groupId: d.group_id,
              groupPath: (d.path ?? []).map(Number),
              createdBy: d.created_by,
              permission: 'can_view_access_control_events',
            },
          ).catch(() => undefined);
        }
      }
      const exhausted = await this.repo.countPasses(passes);
      if (exhausted.length) {
        await this.db.transaction((tx) => this.syncIdentifiers(tx, null, exhausted, []));
        await this.devices.dispatch();
      }
      // The notification's words (spec core §3): who, which identifier (type and number), where.
      const named = rows.filter((r) => r.identifierId !== null);
      const names = named.length
        ? await queryRows<{ kind: string; id: number; name: string }>(
            this.db,
            sql`SELECT 'device' AS kind, d.id, d.name FROM devices d WHERE d.id = ANY(${intArray(named.map((r) => r.deviceId))})
              UNION ALL SELECT 'user', u.id, u.name FROM users u WHERE u.id = ANY(${intArray(named.map((r) => r.userId ?? 0))})`,
          )
        : [];
      const nameOf = (kind: string, id: number | null) => names.find((n) => n.kind === kind && Number(n.id) === id)?.name ?? null;
      for (const r of rows) {
        const i = r.identifierId ? found.find((x) => Number(x.id) === r.identifierId) : undefined;
        if (!i) continue;
        const revoked = !r.granted && r.reason === 'revoked';
        const to = new Set([i.owner_id, ...(revoked ? [i.created_by] : [])].filter((u): u is number => u !== null));
        for (const userId of to) {
          await this.notifier
            ?.notify(projectId, userId, {
              type: revoked ? 'user_used_revoked_identifier' : 'user_used_identifier',
              data: {
                user: nameOf('user', r.userId) ?? i.name,
                identifier_type: i.type,
                identifier_number: i.value,
                identifier: i.name,
                identifier_id: r.identifierId,
                device: nameOf('device', r.deviceId),
                device_id: r.deviceId,
                granted: r.granted,
                reason: r.reason,
              },
              significance: revoked ? 'important' : 'other',
            })
            .catch(() => undefined);
        }
      }
    }
  }

  async listAccessEvents(actor: Actor, q: ListQuery): Promise<{ data: AccessEvent[]; meta: ListMeta }> {
    if (!actor.permissions.has('can_view_access_control_events')) throw prohibited([{ permission: 'can_view_access_control_events' }]);
    const { rows, total, estimated } = await this.repo.listAccessEvents(actor, q);
    return {
      data: await this.mapEvents(rows),
      meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) },
    };
  }

  private async mapEvents(rows: readonly Record<string, unknown>[]): Promise<AccessEvent[]> {
    return rows.map((e) => {
      return {
        id: Number(e.id),
        occurred_at: iso(e.occurred_at as string)!,
        device_id: Number(e.device_id),
        device_name: (e.device_name as string | null) ?? null,
        lock_number: Number(e.lock_number),
        granted: Boolean(e.granted),
        reason: (e.reason as string | null) ?? null,
        value: (e.value as string | null) ?? null,
        identifier_id: e.identifier_id === null ? null : Number(e.identifier_id),
        identifier_name: (e.identifier_name as string | null) ?? null,
        identifier_type: (e.identifier_type as AccessEvent['identifier_type']) ?? null,
        user_id: e.user_id === null ? null : Number(e.user_id),
        user_name: (e.user_name as string | null) ?? null,
        rule_id: e.rule_id === null ? null : Number(e.rule_id),
        direction: (e.direction as string | null) ?? null,
      };
    });
  }

  /** Access events page after page, for a download. */
  accessEventPages(actor: Actor, q: Pick<ListQuery, 'filters' | 'sort'>): AsyncGenerator<AccessEvent[]> {
    if (!actor.permissions.has('can_view_access_control_events')) throw prohibited([{ permission: 'can_view_access_control_events' }]);
    const pages = this.repo.accessEventPages(actor, q);
    const self = this;
    return (async function* () {
      for await (const rows of pages) yield (await self.mapEvents(rows)) as AccessEvent[];
    })();
  }

  // --- the access matrix -------------------------------------------------------------------------

  async accessMatrix(actor: Actor, q: AccessMatrixQuery): Promise<{ data: AccessMatrixRow[]; meta: ListMeta }> {
    if (!actor.permissions.has('can_view_access_matrix')) throw prohibited([{ permission: 'can_view_access_matrix' }]);
    const { rows, total, estimated } = await this.repo.accessMatrix(actor, q, { limit: q.size, offset: (q.page - 1) * q.size });
    return { data: rows, meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  accessMatrixPages(actor: Actor, q: Omit<AccessMatrixQuery, 'page' | 'size'>): AsyncGenerator<AccessMatrixRow[]> {
    if (!actor.permissions.has('can_view_access_matrix')) throw prohibited([{ permission: 'can_view_access_matrix' }]);
    const repo = this.repo;
    return (async function* () {
      for (let offset = 0; ; offset += 1000) {
        const { rows } = await repo.accessMatrix(actor, { ...q, page: 1, size: 1000 }, { limit: 1000, offset }, false);
        if (rows.length) yield rows;
        if (rows.length < 1000) return;
      }
    })();
  }

  // --- "why was I refused?" ------------------------------------------------------------------------

  /**
   * Explains what the door decides for an identifier (or each identifier of a person) at a lock and
   * an instant, step by step, with the very evaluation devices run (contract access.ts).
   */
  async explain(
    actor: Actor,
    q: { identifier_id?: number | undefined; user_id?: number | undefined; device_id: number; lock: number; at?: string | undefined },
  ): Promise<Explain> {
    this.assertAny(actor, ['can_view_access_rules', 'can_view_all_access_rules', 'can_view_access_control_events']);
    const at = q.at ? new Date(q.at) : new Date();
    const [device] = await queryRows<{ id: number; name: string; can_view: boolean; pending: number }>(
      this.db,
      sql`SELECT d.id, d.name, ${(await this.repo.visibleIds(actor, 'devices', [q.device_id])).has(q.device_id)} AS can_view,
          (SELECT count(*)::int FROM device_tasks t WHERE t.device_id = d.id AND t.type = 'sync' AND t.state IN ('new', 'waiting', 'queued', 'started')) AS pending
        FROM devices d WHERE d.id = ${q.device_id} AND d.project_id = ${actor.projectId}`,
    );
    if (!device?.can_view) throw notFound();
    let ids: number[];
    if (q.identifier_id !== undefined) {
      if (!(await this.repo.visibleIds(actor, 'identifiers', [q.identifier_id])).has(q.identifier_id)) throw notFound();
      ids = [q.identifier_id];
    } else {
      const userId = q.user_id as number;
      if (!(await this.repo.visibleIds(actor, 'users', [userId])).has(userId)) throw notFound();
      ids = await this.repo.identifiersOfUsers(this.db, [userId]);
    }
    const parts = (await this.repo.syncParts(this.db, [device.id], ids)).get(device.id) ?? { identifiers: [], scheduleIds: [] };
    const specs = new Map(
      (await this.repo.syncSchedules(this.db, parts.scheduleIds)).map((s) => [s.id, s as ScheduleSpec & { id: number }]),
    );
    const rows = ids.length
      ? await queryRows<{ id: number; name: string; value: string; type: string; is_active: boolean; revoked: boolean }>(
          this.db,
          sql`SELECT id, name, value, type, is_active, revoked_at IS NOT NULL AS revoked FROM identifiers WHERE id = ANY(ARRAY[${sql.join(
            ids.map((x) => sql`${x}`),
            sql`, `,
          )}]::int[])`,
        )
      : [];
    const decide = (id: number) => {
      const row = rows.find((r) => Number(r.id) === id);
      const synced = parts.identifiers.find((i) => i.id === id) as AccessIdentifier | undefined;
      // An identifier that is inactive, or not on this device at all, is unknown to the door.
      return { row, synced, decision: decideAccess(synced, (sid) => specs.get(sid), q.lock, at) };
    };
    const results = ids.map((id) => ({ id, ...decide(id) }));
    const main = results.find((r) => r.decision.granted) ?? results[0];
    const lockName = { id: device.id, name: device.name, lock: q.lock };
    if (!main) {
      return {
        granted: false,
        reason: 'unknown',
        at: at.toISOString(),
        identifier: null,
        device: lockName,
        steps: [{ step: 'identifier', ok: false, detail: { count: 0 } }],
        others: [],
      };
    }
    const { row, synced, decision } = main;
    const steps: Explain['steps'] = [];
    const add = (step: Explain['steps'][number]['step'], ok: boolean, detail: Record<string, unknown> = {}) =>
      steps.push({ step, ok, detail });
    add('identifier', Boolean(row), { id: main.id });
    if (row) {
      add('active', row.is_active);
      add('revoked', !row.revoked);
      const s = synced as SyncIdentifier | undefined;
      const inPeriod = !s || ((!s.valid_from || new Date(s.valid_from) <= at) && (!s.valid_to || new Date(s.valid_to) > at));
      add('period', inPeriod, { from: s?.valid_from ?? null, to: s?.valid_to ?? null });
      add('passes', !s?.exhausted);
      add('device', Boolean(synced), { rules: (synced?.grants ?? []).map((g) => g.rule_id) });
      const onLock = (synced?.grants ?? []).filter((g) => g.locks.length === 0 || g.locks.includes(q.lock));
      add(
        'rules',
        onLock.some((g) => !g.deny),
        { rules: onLock.filter((g) => !g.deny).map((g) => g.rule_id) },
      );
      const denies = onLock.filter((g) => g.deny);
      add('prohibition', decision.granted || decision.reason !== 'prohibited', { rules: denies.map((g) => g.rule_id) });
      const schedules = [...new Set(onLock.flatMap((g) => g.schedule_ids))].map((sid) => {
        const spec = specs.get(sid);
        return { id: sid, ...(spec ? scheduleVerdict(spec, at) : { open: false, by: 'missing' }) };
      });
      add('schedule', decision.granted || decision.reason !== 'schedule', { schedules });
    }
    add('sync', device.pending === 0, { pending: device.pending });
    return {
      granted: decision.granted,
      reason: decision.granted ? null : decision.reason,
      at: at.toISOString(),
      identifier: row ? { id: Number(row.id), name: row.name, value: row.value, type: row.type } : null,
      device: lockName,
      steps,
      others: results.map((r) => ({
        identifier_id: r.id,
        granted: r.decision.granted,
        reason: r.decision.granted ? null : r.decision.reason,
      })),
    };
  }
}

/** (identifier_id) of everything these rules reach. */
function ruleIdentifiersOf(ruleIds: number[]) {
  const list = sql`ARRAY[${sql.join(
    ruleIds.map((x) => sql`${x}`),
    sql`, `,
  )}]::int[]`;
  return sql`SELECT x.identifier_id FROM access_rule_identifiers x WHERE x.rule_id = ANY(${list})
    UNION SELECT i.id FROM access_rule_users x JOIN identifiers i ON i.owner_id = x.user_id WHERE x.rule_id = ANY(${list})
    UNION SELECT i.id FROM access_rule_groups x JOIN groups g ON g.path @> ARRAY[x.group_id]
      JOIN user_groups ug ON ug.group_id = g.id JOIN identifiers i ON i.owner_id = ug.user_id WHERE x.rule_id = ANY(${list})`;
}

/**
 * Sync payloads no larger than SYNC_TASK_MAX_BYTES: the first carries the mode asked for (a full
 * sync replaces what the device holds), the others are deltas that add to it, in order.
 */
export function splitSync(full: boolean, ids: SyncIdentifier[], schedules: unknown[], removed: number[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let current: { identifiers: SyncIdentifier[]; size: number } = { identifiers: [], size: 0 };
  const base = JSON.stringify({ mode: 'delta', schedules, removed: { identifiers: removed } }).length + 64;
  const flush = () => {
    const first = out.length === 0;
    out.push({
      mode: first && full ? 'full' : 'delta',
      identifiers: current.identifiers,
      schedules: first ? schedules : [],
      ...(first && removed.length ? { removed: { identifiers: removed } } : {}),
    });
    current = { identifiers: [], size: 0 };
  };
  for (const i of ids) {
    const size = JSON.stringify(i).length + 1;
    if (current.identifiers.length && (out.length === 0 ? base : 64) + current.size + size > SYNC_TASK_MAX_BYTES) flush();
    current.identifiers.push(i);
    current.size += size;
  }
  if (current.identifiers.length || out.length === 0) flush();
  return out;
}
