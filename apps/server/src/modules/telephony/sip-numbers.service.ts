import { randomInt } from 'node:crypto';
import {
  type BulkDeleteResult,
  type CallInfo,
  type CreateSipNumberBody,
  DUMMY_PASSWORD,
  deviceModel,
  type ForwardRules,
  forwardRulesHaveNumber,
  isSipPassword,
  type ListMeta,
  type ListQuery,
  VALIDATION_MESSAGES as M,
  SIP_NUMBER_RELATIONS,
  type SipNumber,
  type SipNumberContact,
  TELEPHONY_VALIDATION_MESSAGES as T,
  type UpdateSipNumberBody,
} from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns, userVisible } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows, type Tx } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds, withRelations } from '../../core/list-query.js';
import { devicePredicate } from '../devices/devices.repository.js';
import { callablePredicate, loadCaller } from './call-rules.js';
import { type SipLicense, userLicense } from './sip-license.js';
import { sipNumbers } from './telephony.table.js';

const N = qualifiedColumns(sipNumbers);
export const SIP_NUMBER_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${N.id}`, type: 'number' },
    number: { expr: sql`${N.number}`, type: 'text' },
    name: { expr: sql`${N.name}`, type: 'text' },
    is_active: { expr: sql`${N.isActive}`, type: 'boolean' },
    is_reserved: { expr: sql`${N.isReserved}`, type: 'boolean' },
    user_id: { expr: sql`${N.userId}`, type: 'number' },
    device_id: { expr: sql`${N.deviceId}`, type: 'number' },
    domain_id: { expr: sql`${N.groupId}`, type: 'number' },
    forward_mode: { expr: sql`${N.forwardMode}`, type: 'text' },
    purpose: { expr: sql`${N.purpose}`, type: 'text' },
    created_at: { expr: sql`${N.createdAt}`, type: 'date' },
  },
  defaultSort: 'number',
  tiebreak: sql`${N.id} ASC`,
};

const VIEW_CODES = ['can_view_own_virtual_numbers', 'can_view_all_virtual_numbers', 'can_view_descendant_virtual_numbers'];
const numberTarget: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${N.groupId} AND ${cond})`,
  createdBy: sql`${N.createdBy}`,
};
/** View: the scope of the view codes; a holder of "view own" also sees the numbers given to them. */
export const numberViewPredicate = (actor: Actor): SQL => {
  const own = actor.permissions.has('can_view_own_virtual_numbers') ? sql` OR ${N.userId} = ${actor.userId}` : sql``;
  return sql`(${aclPredicate(actor, 'virtual_numbers', 'view', numberTarget)}${own})`;
};
/** Groups the actor may place a number in: every group with "view all", else their groups and below. */
const groupInReach = (actor: Actor, path: SQL): SQL =>
  actor.permissions.has('can_view_all_virtual_numbers') ? sql`TRUE` : sql`${path} && ${intArray(actor.groupIds)}`;

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** A strong SIP password: 16 letters and digits, at least one digit, one lower- and one upper-case letter. */
export function generateSipPassword(length = 16): string {
  const sets = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
  const all = sets.join('');
  for (;;) {
    const chars = Array.from({ length }, () => all.charAt(randomInt(all.length)));
    const pw = chars.join('');
    if (isSipPassword(pw)) return pw;
  }
}

/**
 * Virtual (SIP) numbers (spec comms §3, §5, §6, §8): who owns a number (a user, a device, a
 * group), its forward mode and rules, the licence counts, and the dialer's contacts.
 */
export class SipNumbersService {
  constructor(
    private readonly db: Db,
    private readonly license: SipLicense,
  ) {}

  private assertView(actor: Actor) {
    if (!VIEW_CODES.some((c) => actor.permissions.has(c))) throw prohibited([{ permission: VIEW_CODES[0] }]);
  }

  private select(actor: Actor, rel: ReadonlySet<string>) {
    const userOk = userVisible(actor, sql`ou.id`, sql`ou.created_by`);
    const deviceOk = sql`EXISTS (SELECT 1 FROM devices WHERE devices.id = ${N.deviceId} AND ${devicePredicate(actor, 'view')})`;
    const groupOk = groupInReach(actor, sql`og.path`);
    const view = numberViewPredicate(actor);
    return this.db
      .select({
        ...getTableColumns(sipNumbers),
        userName: sql<string | null>`(SELECT ou.name FROM users ou WHERE ou.id = ${N.userId} AND ${userOk})`,
        deviceRef: sql<{
          id: number;
          name: string;
          type: string;
        } | null>`(SELECT json_build_object('id', devices.id, 'name', devices.name, 'type', devices.type) FROM devices WHERE devices.id = ${N.deviceId} AND ${deviceOk})`,
        groupName: sql<string | null>`(SELECT og.name FROM groups og WHERE og.id = ${N.groupId} AND ${groupOk})`,
        forwardGroup: rel.has('forward_group')
          ? sql<{ id: number; name: string } | null>`(SELECT json_build_object('id', f.id, 'name', f.name) FROM forward_groups f
              WHERE f.id = ${N.forwardGroupId} AND ${aclPredicate(actor, 'forward_rules', 'view', {
                inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = f.group_id AND ${cond})`,
                createdBy: sql`f.created_by`,
              })})`
          : sql<null>`NULL`,
        canView: sql<boolean>`coalesce(${view}, FALSE)`,
        canEdit: sql<boolean>`coalesce(${view} AND ${actor.permissions.has('can_edit_virtual_numbers')}, FALSE)`,
        canDelete: sql<boolean>`coalesce(${view} AND ${actor.permissions.has('can_delete_virtual_numbers')}, FALSE)`,
      })
      .from(sipNumbers);
  }

  private toNumber(r: Awaited<ReturnType<SipNumbersService['find']>>, rel: ReadonlySet<string>): SipNumber {
    return {
      id: r.id,
      number: r.number,
      name: r.name,
      password: DUMMY_PASSWORD,
      is_active: r.isActive,
      is_reserved: r.isReserved,
      user_id: r.userId,
      device_id: r.deviceId,
      domain_id: r.groupId,
      forward_mode: r.forwardMode,
      forward_rules: r.forwardRules,
      forward_group_id: r.forwardGroupId,
      purpose: r.purpose,
      owner_info: r.userName ?? r.deviceRef?.name ?? r.groupName ?? null,
      created_by: r.createdBy,
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      can_edit: r.canEdit,
      can_delete: r.canDelete,
      ...(rel.has('user') ? { user: r.userName !== null && r.userId !== null ? { id: r.userId, name: r.userName } : null } : {}),
      ...(rel.has('device') ? { device: r.deviceRef ? { ...r.deviceRef, id: Number(r.deviceRef.id) } : null } : {}),
      ...(rel.has('domain') ? { domain: r.groupName !== null && r.groupId !== null ? { id: r.groupId, name: r.groupName } : null } : {}),
      ...(rel.has('forward_group') ? { forward_group: r.forwardGroup ? { ...r.forwardGroup, id: Number(r.forwardGroup.id) } : null } : {}),
    };
  }

  private async find(actor: Actor, id: number, rel: ReadonlySet<string> = new Set()) {
    const [r] = await this.select(actor, rel).where(and(eq(sipNumbers.id, id), eq(sipNumbers.projectId, actor.projectId)));
    if (!r?.canView) throw notFound();
    return r;
  }

  async list(
    actor: Actor,
    q: ListQuery & { search?: string | undefined; free?: 'true' | 'false' | undefined },
  ): Promise<{ data: SipNumber[]; meta: ListMeta }> {
    this.assertView(actor);
    await this.license.require(this.db, actor);
    const rel = withRelations(SIP_NUMBER_RELATIONS, q.with);
    const where = and(
      eq(sipNumbers.projectId, actor.projectId),
      filtersSql(SIP_NUMBER_LIST, q),
      numberViewPredicate(actor),
      q.search ? sql`(${N.number} ILIKE ${containsPattern(q.search)} OR ${N.name} ILIKE ${containsPattern(q.search)})` : undefined,
      q.free === 'true' ? sql`${N.userId} IS NULL AND ${N.deviceId} IS NULL` : undefined,
    );
    const page = await pageOfIds(this.db, { table: sipNumbers, id: sql`${N.id}`, where, spec: SIP_NUMBER_LIST, query: q });
    const rows = page.ids.length ? await this.select(actor, rel).where(sql`${N.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toNumber(r, rel)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  async get(actor: Actor, id: number, withList: readonly string[] = []): Promise<SipNumber> {
    this.assertView(actor);
    await this.license.require(this.db, actor);
    const rel = withRelations(SIP_NUMBER_RELATIONS, withList);
    return this.toNumber(await this.find(actor, id, rel), rel);
  }

  /** Related rows, uniqueness and the rules of spec comms §5 and §8 for a number as it will be saved. */
  private async validate(
    tx: DbOrTx,
    actor: Actor,
    v: {
      id: number;
      number: string;
      userId: number | null;
      deviceId: number | null;
      groupId: number | null;
      forwardMode: string;
      forwardRules: ForwardRules;
      forwardGroupId: number | null;
      purpose: string | null;
    },
    changed: { number: boolean; user: boolean; device: boolean; group: boolean; forwardGroup: boolean },
  ) {
    if (v.userId !== null && v.deviceId !== null) throw invalidField('device_id', M.invalid_value);
    if (changed.number) {
      const [taken] = await queryRows<{ id: number }>(tx, sql`SELECT id FROM sip_numbers WHERE number = ${v.number} AND id <> ${v.id}`);
      if (taken) throw new AppError('virtual_number_not_free', [{ field: 'number' }]);
    }
    if (changed.group && v.groupId !== null) {
      const [g] = await queryRows<{ id: number }>(
        tx,
        sql`SELECT g.id FROM groups g WHERE g.id = ${v.groupId} AND g.project_id = ${actor.projectId} AND ${groupInReach(actor, sql`g.path`)}`,
      );
      if (!g) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [v.groupId] }]);
    }
    if (changed.user && v.userId !== null) {
      const [u] = await queryRows<{ id: number }>(
        tx,
        sql`SELECT u.id FROM users u WHERE u.id = ${v.userId} AND u.project_id = ${actor.projectId} AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)}`,
      );
      if (!u) throw new AppError('invalid_related_entity', [{ field: 'user_id', entity: 'users', ids: [v.userId] }]);
    }
    if (changed.device && v.deviceId !== null) {
      const [d] = await queryRows<{ id: number; type: string; model: string; taken: boolean }>(
        tx,
        sql`SELECT devices.id, devices.type, devices.model,
            EXISTS (SELECT 1 FROM sip_numbers x WHERE x.device_id = devices.id AND x.id <> ${v.id}) AS taken
          FROM devices WHERE devices.id = ${v.deviceId} AND devices.project_id = ${actor.projectId} AND ${devicePredicate(actor, 'view')}`,
      );
      if (!d || !deviceModel(d.type, d.model)?.capabilities.sip) {
        throw new AppError('invalid_related_entity', [{ field: 'device_id', entity: 'devices', ids: [v.deviceId] }]);
      }
      if (d.taken) throw new AppError('device_has_virtual_number', [{ field: 'device_id' }]);
    }
    if (v.purpose === 'master_sip_number' && v.userId === null) throw invalidField('purpose', M.invalid_value);
    if (v.purpose === 'group_sip_number') {
      if (v.userId !== null || v.deviceId !== null || v.groupId === null) throw invalidField('purpose', M.invalid_value);
      const [other] = await queryRows<{ id: number }>(
        tx,
        sql`SELECT id FROM sip_numbers WHERE group_id = ${v.groupId} AND purpose = 'group_sip_number' AND id <> ${v.id}`,
      );
      if (other) throw new AppError('group_sip_number_exists', [{ field: 'purpose' }]);
    }
    if (v.forwardMode === 'manual' && !forwardRulesHaveNumber(v.forwardRules)) throw invalidField('forward_rules', T.forward_needs_number);
    if (v.forwardMode === 'picked' && v.forwardGroupId === null) throw invalidField('forward_group_id', M.required);
    if (changed.forwardGroup && v.forwardGroupId !== null) {
      const [f] = await queryRows<{ id: number }>(
        tx,
        sql`SELECT id FROM forward_groups WHERE id = ${v.forwardGroupId} AND project_id = ${actor.projectId}`,
      );
      if (!f)
        throw new AppError('invalid_related_entity', [{ field: 'forward_group_id', entity: 'forward_rules', ids: [v.forwardGroupId] }]);
    }
  }

  /**
   * Spec comms and entities §8: a group's own number is what the door panels of the group dial (its
   * forwards and its residents' phonebook on the devices). It stops being the group's number — made
   * inactive, moved to another group or given another purpose — only once the group's forward rules
   * on the devices are disabled (forward mode "disabled") and the group's phonebook to devices is off.
   */
  private async assertGroupNumberFree(
    before: { purpose: string | null; groupId: number | null; isActive: boolean; forwardMode: string },
    next: { purpose: string | null; groupId: number | null; forwardMode: string },
    active: boolean,
  ) {
    if (before.purpose !== 'group_sip_number' || before.groupId === null || !before.isActive) return;
    const stays = next.purpose === 'group_sip_number' && next.groupId === before.groupId && active;
    if (stays) return;
    if (next.forwardMode !== 'disabled') throw new AppError('group_forward_rules_on_devices', [{ field: 'forward_mode' }]);
    const [g] = await queryRows<{ on: boolean }>(
      this.db,
      sql`SELECT is_resident_phonebook_enabled AS on FROM groups WHERE id = ${before.groupId}`,
    );
    if (g?.on) throw new AppError('group_phonebook_on_devices', [{ field: 'domain_id', ids: [before.groupId] }]);
  }

  /** The per-user licence count (the owner's licence info, spec comms §8). */
  private async assertUserLimit(tx: DbOrTx, userId: number, exceptId: number) {
    const [u] = await queryRows<{ info: unknown; used: number }>(
      tx,
      sql`SELECT license_info AS info, (SELECT count(*)::int FROM sip_numbers WHERE user_id = ${userId} AND id <> ${exceptId}) AS used
        FROM users WHERE id = ${userId}`,
    );
    const limit = userLicense(u?.info).sip.license_count;
    if (limit !== null && Number(u?.used ?? 0) >= limit) throw new AppError('sip_numbers_user_limit', [{ field: 'user_id', limit }]);
  }

  /**
   * Keeps each user's profile (sip_number_id) pointing at their master number, and gives a user
   * with numbers but no master their first number as master.
   */
  private async syncMasters(tx: Tx, userIds: readonly (number | null)[]) {
    const ids = [...new Set(userIds.filter((u): u is number => u !== null))];
    if (!ids.length) return;
    await tx.execute(sql`UPDATE sip_numbers SET purpose = 'master_sip_number' WHERE id IN (
        SELECT min(n.id) FROM sip_numbers n WHERE n.user_id = ANY(${intArray(ids)}) GROUP BY n.user_id
        HAVING bool_and(n.purpose IS DISTINCT FROM 'master_sip_number'))`);
    await tx.execute(sql`UPDATE users u SET profile = u.profile || jsonb_build_object('sip_number_id',
        (SELECT n.id FROM sip_numbers n WHERE n.user_id = u.id AND n.purpose = 'master_sip_number'))
      WHERE u.id = ANY(${intArray(ids)})`);
  }

  async create(ctx: RequestContext, body: CreateSipNumberBody): Promise<SipNumber> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_virtual_numbers')) throw prohibited([{ permission: 'can_create_virtual_numbers' }]);
    if (body.is_reserved && !actor.permissions.has('can_mark_system_virtual_numbers')) {
      throw prohibited([{ field: 'is_reserved', permission: 'can_mark_system_virtual_numbers' }]);
    }
    const lic = await this.license.require(this.db, actor);
    if (lic.limit !== null && lic.used >= lic.limit) throw new AppError('sip_numbers_limit', [{ limit: lic.limit }]);
    const v = {
      id: 0,
      number: body.number,
      userId: body.user_id ?? null,
      deviceId: body.device_id ?? null,
      groupId: body.domain_id,
      forwardMode: body.forward_mode,
      forwardRules: body.forward_rules,
      forwardGroupId: body.forward_group_id ?? null,
      purpose: body.purpose ?? (body.device_id ? 'device_sip_number' : null),
    };
    await this.validate(this.db, actor, v, { number: true, user: true, device: true, group: true, forwardGroup: true });
    const id = await this.db.transaction(async (tx) => {
      if (v.userId !== null) await this.assertUserLimit(tx, v.userId, 0);
      // A new master number takes over from the user's previous one.
      if (v.purpose === 'master_sip_number') {
        await tx.execute(sql`UPDATE sip_numbers SET purpose = NULL WHERE user_id = ${v.userId} AND purpose = 'master_sip_number'`);
      }
      const [r] = await tx
        .insert(sipNumbers)
        .values({
          projectId: actor.projectId,
          number: v.number,
          name: body.name ?? null,
          password: body.password,
          isActive: body.is_active,
          isReserved: body.is_reserved,
          userId: v.userId,
          deviceId: v.deviceId,
          groupId: v.groupId,
          forwardMode: v.forwardMode,
          forwardRules: v.forwardRules,
          forwardGroupId: v.forwardGroupId,
          purpose: v.purpose as SipNumber['purpose'],
          createdBy: actor.userId,
        })
        .returning({ id: sipNumbers.id });
      await this.syncMasters(tx, [v.userId]);
      await recordAudit(tx, ctx, { entity: 'sip_number', entityId: r!.id, action: 'create', after: { ...body, password: undefined } });
      return r!.id;
    });
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateSipNumberBody): Promise<SipNumber> {
    const { actor } = ctx;
    const before = await this.find(actor, id);
    if (!before.canEdit) throw prohibited([{ permission: 'can_edit_virtual_numbers' }]);
    const lic = await this.license.require(this.db, actor);
    if (lic.overLimit) throw new AppError('sip_numbers_limit', [{ limit: lic.limit }]);
    if (body.is_active !== undefined && body.is_active !== before.isActive && !actor.permissions.has('can_activate_virtual_numbers')) {
      throw prohibited([{ field: 'is_active', permission: 'can_activate_virtual_numbers' }]);
    }
    if (
      body.is_reserved !== undefined &&
      body.is_reserved !== before.isReserved &&
      !actor.permissions.has('can_mark_system_virtual_numbers')
    ) {
      throw prohibited([{ field: 'is_reserved', permission: 'can_mark_system_virtual_numbers' }]);
    }
    const pick = <K, T>(given: K | undefined, was: T): K | T => (given === undefined ? was : given);
    const deviceId = pick(body.device_id, before.deviceId);
    const v = {
      id,
      number: pick(body.number, before.number),
      userId: pick(body.user_id, before.userId),
      deviceId,
      groupId: pick(body.domain_id, before.groupId),
      forwardMode: pick(body.forward_mode, before.forwardMode),
      forwardRules: pick(body.forward_rules, before.forwardRules),
      forwardGroupId: pick(body.forward_group_id, before.forwardGroupId),
      purpose: pick(body.purpose, deviceId !== null && before.deviceId === null ? 'device_sip_number' : before.purpose) as string | null,
    };
    if (v.deviceId === null && v.purpose === 'device_sip_number') v.purpose = null;
    await this.assertGroupNumberFree(before, v, body.is_active ?? before.isActive);
    await this.validate(this.db, actor, v, {
      number: v.number !== before.number,
      user: v.userId !== before.userId,
      device: v.deviceId !== before.deviceId,
      group: v.groupId !== before.groupId,
      forwardGroup: v.forwardGroupId !== before.forwardGroupId,
    });
    await this.db.transaction(async (tx) => {
      if (v.userId !== null && v.userId !== before.userId) await this.assertUserLimit(tx, v.userId, id);
      if (v.purpose === 'master_sip_number' && (before.purpose !== 'master_sip_number' || v.userId !== before.userId)) {
        await tx.execute(
          sql`UPDATE sip_numbers SET purpose = NULL WHERE user_id = ${v.userId} AND purpose = 'master_sip_number' AND id <> ${id}`,
        );
      }
      await tx
        .update(sipNumbers)
        .set({
          number: v.number,
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.password ? { password: body.password } : {}),
          ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
          ...(body.is_reserved !== undefined ? { isReserved: body.is_reserved } : {}),
          userId: v.userId,
          deviceId: v.deviceId,
          groupId: v.groupId,
          forwardMode: v.forwardMode as SipNumber['forward_mode'],
          forwardRules: v.forwardRules,
          forwardGroupId: v.forwardGroupId,
          purpose: v.purpose as SipNumber['purpose'],
          updatedAt: new Date(),
        })
        .where(eq(sipNumbers.id, id));
      await this.syncMasters(tx, [before.userId, v.userId]);
      await recordAudit(tx, ctx, {
        entity: 'sip_number',
        entityId: id,
        action: 'update',
        before: this.toNumber(before, new Set()),
        after: { ...body, password: undefined },
      });
    });
    return this.get(actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const { actor } = ctx;
    const before = await this.find(actor, id);
    if (!before.canDelete) throw prohibited([{ permission: 'can_delete_virtual_numbers' }]);
    // Deleting stays possible when SIP is off only because of the count (spec comms §6).
    const lic = await this.license.state(this.db, actor);
    if (!lic.enabled) throw new AppError('sip_disabled', [{ feature: 'sip' }]);
    if (before.purpose === 'group_sip_number') throw new AppError('cannot_delete_group_number');
    // A deleted user's former master number is a spare one now.
    if (before.purpose === 'master_sip_number' && before.userId !== null) throw new AppError('cannot_delete_master_number');
    await this.db.transaction(async (tx) => {
      await tx.delete(sipNumbers).where(eq(sipNumbers.id, id));
      await this.syncMasters(tx, [before.userId]);
      await recordAudit(tx, ctx, { entity: 'sip_number', entityId: id, action: 'delete', before: this.toNumber(before, new Set()) });
    });
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  /** A free number (the next after the highest short number, from 1000) and a strong password. */
  async generate(actor: Actor): Promise<{ number: string; password: string }> {
    if (!actor.permissions.has('can_create_virtual_numbers')) throw prohibited([{ permission: 'can_create_virtual_numbers' }]);
    await this.license.require(this.db, actor);
    const [r] = await queryRows<{ next: string }>(
      this.db,
      sql`SELECT (greatest(999, coalesce(max(number::bigint), 0)) + 1)::text AS next FROM sip_numbers WHERE number ~ '^[0-9]{1,9}$'`,
    );
    return { number: r?.next ?? '1000', password: generateSipPassword() };
  }

  /** The caller's master number (their dialer number), or null. */
  async masterNumber(db: DbOrTx, userId: number): Promise<{ id: number; number: string; password: string; isActive: boolean } | null> {
    const [r] = await queryRows<{ id: number; number: string; password: string; is_active: boolean }>(
      db,
      sql`SELECT id, number, password, is_active FROM sip_numbers WHERE user_id = ${userId} AND purpose = 'master_sip_number'`,
    );
    return r ? { id: Number(r.id), number: r.number, password: r.password, isActive: r.is_active } : null;
  }

  /** The dialer's contacts: every number the caller's master number may call (spec comms §6), the caller's own excluded. */
  async contacts(actor: Actor): Promise<SipNumberContact[]> {
    await this.license.require(this.db, actor);
    const mine = await this.masterNumber(this.db, actor.userId);
    if (!mine) return [];
    const caller = await loadCaller(this.db, mine.number);
    if (!caller) return [];
    const rows = await queryRows<{
      id: number;
      number: string;
      name: string | null;
      user_id: number | null;
      user_name: string | null;
      user_description: string | null;
      device_id: number | null;
      device_name: string | null;
      device_type: string | null;
      group_id: number | null;
      group_name: string | null;
    }>(
      this.db,
      sql`SELECT n.id, n.number, n.name, u.id AS user_id, u.name AS user_name, u.description AS user_description,
          d.id AS device_id, d.name AS device_name, d.type AS device_type, g.id AS group_id, g.name AS group_name
        FROM sip_numbers n
        LEFT JOIN users u ON u.id = n.user_id
        LEFT JOIN devices d ON d.id = n.device_id
        LEFT JOIN groups g ON g.id = coalesce(d.group_id, n.group_id)
        WHERE ${callablePredicate(caller)} AND (n.user_id IS NULL OR n.user_id <> ${actor.userId})
        ORDER BY coalesce(u.name, d.name, n.name, n.number), n.number
        LIMIT 5000`,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      number: r.number,
      name: r.name,
      user: r.user_id !== null ? { id: Number(r.user_id), name: r.user_name ?? '' } : null,
      device: r.device_id !== null ? { id: Number(r.device_id), name: r.device_name ?? '', type: r.device_type ?? '' } : null,
      domain: r.group_id !== null ? { id: Number(r.group_id), name: r.group_name ?? '' } : null,
      description: r.user_description ?? (r.device_id !== null ? r.group_name : null),
      owner_info: r.user_name ?? r.device_name ?? r.group_name,
    }));
  }

  /** Who stands behind a number, for the number's viewers and for anyone the number may call or be called by. */
  async callInfo(actor: Actor, id: number): Promise<CallInfo> {
    await this.license.require(this.db, actor);
    const [r] = await queryRows<{ number: string; viewable: boolean }>(
      this.db,
      sql`SELECT n.number, coalesce(${numberViewPredicate(actor)}, FALSE) AS viewable FROM sip_numbers n
        JOIN sip_numbers ON sip_numbers.id = n.id WHERE n.id = ${id} AND n.project_id = ${actor.projectId}`,
    );
    if (!r) throw notFound();
    if (!r.viewable) {
      // A party of a call sees who is calling: a number the caller's master number may reach, or one that may reach it.
      const mine = await this.masterNumber(this.db, actor.userId);
      const me = mine ? await loadCaller(this.db, mine.number) : null;
      const them = await loadCaller(this.db, r.number);
      const reach = async (from: NonNullable<typeof me>, toId: number) =>
        (await queryRows<{ ok: boolean }>(this.db, sql`SELECT ${callablePredicate(from)} AS ok FROM sip_numbers n WHERE n.id = ${toId}`))[0]
          ?.ok === true;
      const ok = (me && (await reach(me, id))) || (me && them && (await reach(them, me.id)));
      if (!ok) throw notFound();
    }
    return callInfoOf(this.db, r.number);
  }
}

/** The owner of a number as a call shows it: the user's name and address, or the device's name and its group. */
/** The call info of a number (its owner's name and address) as one json value, for use inside a statement. */
export function callInfoSql(number: string): SQL {
  return sql`coalesce((SELECT json_build_object('user', coalesce(u.name, d.name, n.name),
      'address', coalesce(u.profile->>'address', (SELECT string_agg(pg.name, ' / ' ORDER BY array_position(g.path, pg.id))
        FROM groups g JOIN groups pg ON pg.id = ANY(g.path) WHERE g.id = coalesce(d.group_id, n.group_id))))
    FROM sip_numbers n LEFT JOIN users u ON u.id = n.user_id LEFT JOIN devices d ON d.id = n.device_id
    WHERE n.number = ${number}), json_build_object('user', NULL, 'address', NULL))`;
}

export async function callInfoOf(db: DbOrTx, number: string): Promise<CallInfo> {
  const [r] = await queryRows<{ info: CallInfo }>(db, sql`SELECT ${callInfoSql(number)} AS info`);
  return { user: r?.info.user ?? null, address: r?.info.address ?? null };
}

/**
 * Makes a number the user's master number (the user form's `profile.sip_number_id`), or clears the
 * master with null. The number must be free or already the user's, and not a device's or a system one.
 */
export async function assignMasterNumber(tx: Tx, projectId: number, userId: number, numberId: number | null): Promise<void> {
  if (numberId !== null) {
    const [n] = await queryRows<{ user_id: number | null }>(
      tx,
      sql`SELECT user_id FROM sip_numbers WHERE id = ${numberId} AND project_id = ${projectId} AND device_id IS NULL
        AND NOT is_reserved AND (user_id IS NULL OR user_id = ${userId}) AND purpose IS DISTINCT FROM 'group_sip_number'`,
    );
    if (!n) throw new AppError('invalid_related_entity', [{ field: 'profile.sip_number_id', entity: 'sip_numbers', ids: [numberId] }]);
    if (n.user_id === null) {
      const [u] = await queryRows<{ info: unknown; used: number }>(
        tx,
        sql`SELECT license_info AS info, (SELECT count(*)::int FROM sip_numbers WHERE user_id = ${userId}) AS used FROM users WHERE id = ${userId}`,
      );
      const limit = userLicense(u?.info).sip.license_count;
      if (limit !== null && Number(u?.used ?? 0) >= limit)
        throw new AppError('sip_numbers_user_limit', [{ field: 'profile.sip_number_id', limit }]);
    }
  }
  await tx.execute(
    sql`UPDATE sip_numbers SET purpose = NULL, updated_at = now() WHERE user_id = ${userId} AND purpose = 'master_sip_number'`,
  );
  if (numberId !== null) {
    await tx.execute(
      sql`UPDATE sip_numbers SET user_id = ${userId}, purpose = 'master_sip_number', updated_at = now() WHERE id = ${numberId}`,
    );
  }
  await tx.execute(sql`UPDATE users SET profile = profile || jsonb_build_object('sip_number_id', ${numberId}::int) WHERE id = ${userId}`);
}
