import {
  type BulkDeleteResult,
  type CreateElevatorBody,
  type CreateElevatorRuleBody,
  deviceModel,
  type Elevator,
  type ElevatorRule,
  type ListMeta,
  type ListQuery,
  VALIDATION_MESSAGES as M,
  type UpdateElevatorBody,
  type UpdateElevatorRuleBody,
} from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import type { AccessService } from '../access/access.service.js';
import { devicePredicate } from '../devices/devices.repository.js';
import type { DevicesService } from '../devices/devices.service.js';
import { elevatorControllers, elevatorRuleElevators, elevatorRules, elevatorRuleUsers, elevators } from './elevators.table.js';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
const EL = qualifiedColumns(elevators);
const ER = qualifiedColumns(elevatorRules);

export const ELEVATOR_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${EL.id}`, type: 'number' },
    name: { expr: sql`${EL.name}`, type: 'text' },
    domain_id: { expr: sql`${EL.groupId}`, type: 'number' },
    created_at: { expr: sql`${EL.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${EL.id} ASC`,
};
export const ELEVATOR_RULE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${ER.id}`, type: 'number' },
    name: { expr: sql`${ER.name}`, type: 'text' },
    created_at: { expr: sql`${ER.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${ER.id} ASC`,
};

const elevatorTarget: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${EL.groupId} AND ${cond})`,
  createdBy: sql`${EL.createdBy}`,
};
/** An elevator rule belongs to the groups of its elevators. */
const ruleTarget: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM elevator_rule_elevators x JOIN elevators e ON e.id = x.elevator_id
    JOIN groups g ON g.id = e.group_id WHERE x.rule_id = ${ER.id} AND ${cond})`,
  createdBy: sql`${ER.createdBy}`,
};
const pred = (actor: Actor, resource: string, target: AclTarget, action: 'view' | 'edit' | 'delete'): SQL => {
  const view = aclPredicate(actor, resource, 'view', target);
  return action === 'view' ? view : sql`(${view} AND ${aclPredicate(actor, resource, action, target)})`;
};
const elevatorPred = (actor: Actor, action: 'view' | 'edit' | 'delete') => pred(actor, 'elevators', elevatorTarget, action);
const rulePred = (actor: Actor, action: 'view' | 'edit' | 'delete') => pred(actor, 'elevator_access_rules', ruleTarget, action);

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/**
 * Elevators with their lift controllers and floor maps, calls to a floor, and elevator access rules
 * (spec entities §3, §5, §7, §8). Rules reach the lift controllers as sync grants whose locks are the
 * relay ports of the allowed floors (access.repository elevatorGrants), like any door.
 */
export class ElevatorsService {
  constructor(
    private readonly db: Db,
    private readonly devices: DevicesService,
    private readonly access: AccessService,
  ) {}

  private assertAny(actor: Actor, codes: string[]) {
    if (!codes.some((c) => actor.permissions.has(c))) throw prohibited([{ permission: codes[0] }]);
  }

  // --- elevators -----------------------------------------------------------------------------------

  private select(actor: Actor) {
    return this.db
      .select({
        ...getTableColumns(elevators),
        controllers: sql<
          Elevator['controllers']
        >`coalesce((SELECT jsonb_agg(jsonb_build_object('device_id', c.device_id, 'device_name', d.name,
          'enabled', c.enabled, 'floor_map', c.floor_map, 'settings', c.settings) ORDER BY c.device_id)
          FROM elevator_controllers c LEFT JOIN devices d ON d.id = c.device_id WHERE c.elevator_id = ${EL.id}), '[]'::jsonb)`,
        canView: sql<boolean>`coalesce(${elevatorPred(actor, 'view')}, FALSE)`,
        canEdit: sql<boolean>`coalesce(${elevatorPred(actor, 'edit')}, FALSE)`,
        canDelete: sql<boolean>`coalesce(${elevatorPred(actor, 'delete')}, FALSE)`,
      })
      .from(elevators);
  }

  private toElevator(r: Awaited<ReturnType<ElevatorsService['find']>>): Elevator {
    return {
      id: r.id,
      name: r.name,
      domain_id: r.groupId,
      has_access_mode_controller: r.hasAccessModeController,
      controllers: r.controllers,
      created_by: r.createdBy,
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      can_edit: r.canEdit,
      can_delete: r.canDelete,
    };
  }

  private async find(actor: Actor, id: number) {
    const [r] = await this.select(actor).where(and(eq(elevators.id, id), eq(elevators.projectId, actor.projectId)));
    if (!r?.canView) throw notFound();
    return r;
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: Elevator[]; meta: ListMeta }> {
    this.assertAny(actor, ['can_view_elevators', 'can_view_all_elevators']);
    const where = and(
      eq(elevators.projectId, actor.projectId),
      filtersSql(ELEVATOR_LIST, q),
      elevatorPred(actor, 'view'),
      q.search ? sql`${EL.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: elevators, id: sql`${EL.id}`, where, spec: ELEVATOR_LIST, query: q });
    const rows = page.ids.length ? await this.select(actor).where(sql`${EL.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toElevator(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  async get(actor: Actor, id: number): Promise<Elevator> {
    this.assertAny(actor, ['can_view_elevators', 'can_view_all_elevators']);
    return this.toElevator(await this.find(actor, id));
  }

  /** The rules of spec entities §5 and §8 for a group and its controllers. */
  private async validate(
    actor: Actor,
    tx: Tx | Db,
    body: { domain_id?: number | undefined; controllers?: CreateElevatorBody['controllers'] | undefined },
    elevatorId = 0,
  ) {
    if (body.domain_id !== undefined) {
      const [g] = await queryRows<{ id: number }>(
        tx,
        sql`SELECT g.id FROM groups g WHERE g.id = ${body.domain_id} AND g.project_id = ${actor.projectId}
          AND (${actor.permissions.has('can_view_all_elevators')} OR g.path && ${intArray(actor.groupIds)})`,
      );
      if (!g) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [body.domain_id] }]);
    }
    if (!body.controllers) return;
    const ids = body.controllers.map((c) => c.device_id);
    if (new Set(ids).size !== ids.length) throw invalidField('controllers', M.unique);
    const found = await queryRows<{ id: number; type: string; model: string; elevator_id: number | null }>(
      tx,
      sql`SELECT devices.id, devices.type, devices.model, (SELECT c.elevator_id FROM elevator_controllers c WHERE c.device_id = devices.id) AS elevator_id
        FROM devices WHERE devices.project_id = ${actor.projectId} AND devices.id = ANY(${intArray(ids)}) AND ${devicePredicate(actor, 'view')}`,
    );
    const byId = new Map(found.map((d) => [Number(d.id), d]));
    for (const [i, c] of body.controllers.entries()) {
      const d = byId.get(c.device_id);
      if (d?.type !== 'liftcontroller')
        throw new AppError('invalid_related_entity', [{ field: `controllers.${i}.device_id`, entity: 'devices', ids: [c.device_id] }]);
      if (d.elevator_id !== null && Number(d.elevator_id) !== elevatorId) {
        throw new AppError('elevator_controller_linked', [
          { field: `controllers.${i}.device_id`, message: 'elevator controller already linked' },
        ]);
      }
      const relays = deviceModel(d.type, d.model)?.capabilities.lift_relays ?? 0;
      const floors = new Set<number>();
      for (const [j, f] of c.floor_map.entries()) {
        const at = `controllers.${i}.floor_map.${j}`;
        if (floors.has(f.floor)) throw invalidField(`${at}.floor`, M.unique);
        floors.add(f.floor);
        for (const p of f.ports) if (p > relays) throw invalidField(`${at}.ports`, M.max_value, { max: relays });
        if (f.is_public && f.is_panel_floor)
          throw invalidField(`${at}.is_panel_floor`, 'a floor cannot be both public and the panel floor');
        if (f.is_panel_floor && f.apartments.length) throw invalidField(`${at}.apartments`, 'no apartments on the panel floor');
      }
      if (floors.size > relays) throw invalidField(`controllers.${i}.floor_map`, M.max_items, { max: relays });
    }
  }

  private async setControllers(tx: Tx, elevatorId: number, controllers: CreateElevatorBody['controllers']) {
    await tx.delete(elevatorControllers).where(eq(elevatorControllers.elevatorId, elevatorId));
    await tx
      .insert(elevatorControllers)
      .values(
        controllers.map((c) => ({ elevatorId, deviceId: c.device_id, enabled: c.enabled, floorMap: c.floor_map, settings: c.settings })),
      );
  }

  /** Identifiers of the users of every rule of these elevators, and the elevators' controllers: what a change re-syncs. */
  private async reach(tx: Tx, elevatorIds: number[], ruleIds: number[] = []) {
    const rows = await queryRows<{ device_id: number | null; identifier_id: number | null }>(
      tx,
      sql`SELECT c.device_id, NULL::int AS identifier_id FROM elevator_controllers c
          WHERE c.elevator_id = ANY(${intArray(elevatorIds)})
            OR c.elevator_id IN (SELECT x.elevator_id FROM elevator_rule_elevators x WHERE x.rule_id = ANY(${intArray(ruleIds)}))
        UNION SELECT NULL, i.id FROM identifiers i JOIN elevator_rule_users u ON u.user_id = i.owner_id
          WHERE u.rule_id = ANY(${intArray(ruleIds)})
            OR u.rule_id IN (SELECT x.rule_id FROM elevator_rule_elevators x WHERE x.elevator_id = ANY(${intArray(elevatorIds)}))`,
    );
    return {
      devices: rows.filter((r) => r.device_id !== null).map((r) => Number(r.device_id)),
      identifiers: rows.filter((r) => r.identifier_id !== null).map((r) => Number(r.identifier_id)),
    };
  }

  /** Runs a change and syncs what it altered on the lift controllers concerned, before and after. */
  private async resyncAround(tx: Tx, actor: Actor, elevatorIds: number[], ruleIds: number[], change: () => Promise<void>) {
    const before = await this.reach(tx, elevatorIds, ruleIds);
    await change();
    const after = await this.reach(tx, elevatorIds, ruleIds);
    await this.access.queueSync(tx, actor, [...new Set([...before.devices, ...after.devices])], {
      identifierIds: [...new Set([...before.identifiers, ...after.identifiers])],
      scheduleIds: null,
    });
  }

  async create(ctx: RequestContext, body: CreateElevatorBody): Promise<Elevator> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_elevators')) throw prohibited([{ permission: 'can_create_elevators' }]);
    await this.validate(actor, this.db, body);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(elevators)
        .values({
          projectId: actor.projectId,
          groupId: body.domain_id,
          name: body.name,
          hasAccessModeController: body.has_access_mode_controller ?? false,
          createdBy: actor.userId,
        })
        .returning({ id: elevators.id });
      await this.setControllers(tx, r!.id, body.controllers);
      await recordAudit(tx, ctx, { entity: 'elevator', entityId: r!.id, action: 'create', after: body });
      return r!.id;
    });
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateElevatorBody): Promise<Elevator> {
    const { actor } = ctx;
    const before = await this.find(actor, id);
    if (!before.canEdit) throw prohibited([{ permission: 'can_edit_elevators' }]);
    await this.validate(actor, this.db, body, id);
    await this.db.transaction(async (tx) => {
      await this.resyncAround(tx, actor, [id], [], async () => {
        await tx
          .update(elevators)
          .set({
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.domain_id !== undefined ? { groupId: body.domain_id } : {}),
            ...(body.has_access_mode_controller !== undefined ? { hasAccessModeController: body.has_access_mode_controller } : {}),
            updatedAt: new Date(),
          })
          .where(eq(elevators.id, id));
        if (body.controllers) await this.setControllers(tx, id, body.controllers);
      });
      await recordAudit(tx, ctx, { entity: 'elevator', entityId: id, action: 'update', before: this.toElevator(before), after: body });
    });
    await this.devices.dispatch();
    return this.get(actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.find(ctx.actor, id);
    if (!before.canDelete) throw prohibited([{ permission: 'can_delete_elevators' }]);
    await this.db.transaction(async (tx) => {
      await this.resyncAround(tx, ctx.actor, [id], [], () =>
        tx
          .delete(elevators)
          .where(eq(elevators.id, id))
          .then(() => undefined),
      );
      await recordAudit(tx, ctx, { entity: 'elevator', entityId: id, action: 'delete', before: this.toElevator(before) });
    });
    await this.devices.dispatch();
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  /** Floors of an elevator (all, or with mode=access those an access rule may grant: not the panel floor, not public). */
  async floors(actor: Actor, id: number, mode: 'all' | 'access') {
    const e = await this.get(actor, id);
    const floors = new Map<
      number,
      { floor: number; name: string | null; is_public: boolean; is_panel_floor: boolean; apartments: string[] }
    >();
    for (const c of e.controllers) {
      for (const f of c.floor_map) {
        if (mode === 'access' && (f.is_public || f.is_panel_floor)) continue;
        const known = floors.get(f.floor);
        floors.set(f.floor, {
          floor: f.floor,
          name: f.name ?? known?.name ?? null,
          is_public: f.is_public,
          is_panel_floor: f.is_panel_floor,
          apartments: [...new Set([...(known?.apartments ?? []), ...f.apartments])],
        });
      }
    }
    return [...floors.values()].sort((a, b) => a.floor - b.floor);
  }

  /** Calls the lift to a floor (or an apartment's floor): a call task to each enabled controller serving it. */
  async call(ctx: RequestContext, id: number, body: { floor: number; apartment?: string | undefined; direction: 'up' | 'down' }) {
    const e = await this.get(ctx.actor, id);
    if (!e.can_edit && !ctx.actor.permissions.has('can_view_elevators') && !ctx.actor.permissions.has('can_view_all_elevators')) {
      throw prohibited([{ permission: 'can_view_elevators' }]);
    }
    const tasks: { deviceId: number; type: 'call_elevator'; payload: Record<string, unknown> }[] = [];
    for (const c of e.controllers) {
      if (!c.enabled) continue;
      const f = c.floor_map.find((x) => x.floor === body.floor && (!body.apartment || x.apartments.includes(body.apartment)));
      if (f)
        tasks.push({
          deviceId: c.device_id,
          type: 'call_elevator',
          payload: {
            floor: body.floor,
            ports: f.ports,
            direction: body.direction,
            ...(body.apartment ? { apartment: body.apartment } : {}),
          },
        });
    }
    if (!tasks.length) throw invalidField(body.apartment ? 'apartment' : 'floor', M.invalid_value);
    const queued = await this.db.transaction(async (tx) => {
      const n = await this.devices.queueInTx(tx, tasks, ctx.actor.userId);
      await recordAudit(tx, ctx, { entity: 'elevator', entityId: id, action: 'call', after: body });
      return n;
    });
    await this.devices.dispatch();
    return { queued };
  }

  // --- elevator access rules -----------------------------------------------------------------------

  private selectRule(actor: Actor) {
    return this.db
      .select({
        ...getTableColumns(elevatorRules),
        users: sql<
          number[]
        >`coalesce((SELECT array_agg(x.user_id ORDER BY x.user_id) FROM elevator_rule_users x WHERE x.rule_id = ${ER.id}), '{}')`,
        elevators: sql<
          { id: number; floors: number[] }[]
        >`coalesce((SELECT jsonb_agg(jsonb_build_object('id', x.elevator_id, 'floors', x.floors) ORDER BY x.elevator_id)
          FROM elevator_rule_elevators x WHERE x.rule_id = ${ER.id}), '[]'::jsonb)`,
        canView: sql<boolean>`coalesce(${rulePred(actor, 'view')}, FALSE)`,
        canEdit: sql<boolean>`coalesce(${rulePred(actor, 'edit')}, FALSE)`,
        canDelete: sql<boolean>`coalesce(${rulePred(actor, 'delete')}, FALSE)`,
      })
      .from(elevatorRules);
  }

  private toRule(r: Awaited<ReturnType<ElevatorsService['findRule']>>): ElevatorRule {
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      users: r.users.map(Number),
      elevators: r.elevators.map((e) => ({ id: Number(e.id), floors: e.floors.map(Number) })),
      created_by: r.createdBy,
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      can_edit: r.canEdit,
      can_delete: r.canDelete,
    };
  }

  private async findRule(actor: Actor, id: number) {
    this.assertAny(actor, ['can_view_elevator_access_rules', 'can_view_all_elevator_access_rules']);
    const [r] = await this.selectRule(actor).where(and(eq(elevatorRules.id, id), eq(elevatorRules.projectId, actor.projectId)));
    if (!r?.canView) throw notFound();
    return r;
  }

  async listRules(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: ElevatorRule[]; meta: ListMeta }> {
    this.assertAny(actor, ['can_view_elevator_access_rules', 'can_view_all_elevator_access_rules']);
    const where = and(
      eq(elevatorRules.projectId, actor.projectId),
      filtersSql(ELEVATOR_RULE_LIST, q),
      rulePred(actor, 'view'),
      q.search ? sql`${ER.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: elevatorRules, id: sql`${ER.id}`, where, spec: ELEVATOR_RULE_LIST, query: q });
    const rows = page.ids.length ? await this.selectRule(actor).where(sql`${ER.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toRule(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  async getRule(actor: Actor, id: number): Promise<ElevatorRule> {
    return this.toRule(await this.findRule(actor, id));
  }

  /** Users the caller sees; elevators the caller sees, each floor one an access rule may grant. */
  private async validateRule(
    actor: Actor,
    body: { users?: number[] | undefined; elevators?: { id: number; floors: number[] }[] | undefined },
  ) {
    if (body.users) {
      const ok = await this.access.visibleUsers(actor, body.users);
      const bad = [...new Set(body.users)].filter((u) => !ok.has(u));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'users', entity: 'users', ids: bad }]);
    }
    for (const [i, e] of (body.elevators ?? []).entries()) {
      let floors: { floor: number }[];
      try {
        floors = await this.floors(actor, e.id, 'access');
      } catch {
        throw new AppError('invalid_related_entity', [{ field: `elevators.${i}.id`, entity: 'elevators', ids: [e.id] }]);
      }
      const known = new Set(floors.map((f) => f.floor));
      const bad = e.floors.filter((f) => !known.has(f));
      if (bad.length) throw invalidField(`elevators.${i}.floors`, M.invalid_value, { floors: bad });
    }
  }

  private async setRuleLinks(
    tx: Tx,
    ruleId: number,
    body: { users?: number[] | undefined; elevators?: { id: number; floors: number[] }[] | undefined },
  ) {
    if (body.users) {
      await tx.delete(elevatorRuleUsers).where(eq(elevatorRuleUsers.ruleId, ruleId));
      await tx.insert(elevatorRuleUsers).values([...new Set(body.users)].map((userId) => ({ ruleId, userId })));
    }
    if (body.elevators) {
      await tx.delete(elevatorRuleElevators).where(eq(elevatorRuleElevators.ruleId, ruleId));
      const unique = [...new Map(body.elevators.map((e) => [e.id, e])).values()];
      await tx
        .insert(elevatorRuleElevators)
        .values(unique.map((e) => ({ ruleId, elevatorId: e.id, floors: [...new Set(e.floors)].sort((a, b) => a - b) })));
    }
  }

  async createRule(ctx: RequestContext, body: CreateElevatorRuleBody): Promise<ElevatorRule> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_elevator_access_rules')) throw prohibited([{ permission: 'can_create_elevator_access_rules' }]);
    await this.validateRule(actor, body);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(elevatorRules)
        .values({ projectId: actor.projectId, name: body.name, description: body.description ?? null, createdBy: actor.userId })
        .returning({ id: elevatorRules.id });
      await this.resyncAround(tx, actor, [], [r!.id], () => this.setRuleLinks(tx, r!.id, body));
      await recordAudit(tx, ctx, { entity: 'elevator_access_rule', entityId: r!.id, action: 'create', after: body });
      return r!.id;
    });
    await this.devices.dispatch();
    return this.getRule(actor, id);
  }

  async updateRule(ctx: RequestContext, id: number, body: UpdateElevatorRuleBody): Promise<ElevatorRule> {
    const { actor } = ctx;
    const before = await this.findRule(actor, id);
    if (!before.canEdit) throw prohibited([{ permission: 'can_edit_elevator_access_rules' }]);
    await this.validateRule(actor, body);
    await this.db.transaction(async (tx) => {
      await this.resyncAround(tx, actor, [], [id], async () => {
        await tx
          .update(elevatorRules)
          .set({
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
            updatedAt: new Date(),
          })
          .where(eq(elevatorRules.id, id));
        await this.setRuleLinks(tx, id, body);
      });
      await recordAudit(tx, ctx, {
        entity: 'elevator_access_rule',
        entityId: id,
        action: 'update',
        before: this.toRule(before),
        after: body,
      });
    });
    await this.devices.dispatch();
    return this.getRule(actor, id);
  }

  async deleteRule(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.findRule(ctx.actor, id);
    if (!before.canDelete) throw prohibited([{ permission: 'can_delete_elevator_access_rules' }]);
    await this.db.transaction(async (tx) => {
      // The rule's reach is read before it goes; after, nothing of it remains to grant.
      const reach = await this.reach(tx, [], [id]);
      await tx.delete(elevatorRules).where(eq(elevatorRules.id, id));
      await this.access.queueSync(tx, ctx.actor, reach.devices, { identifierIds: reach.identifiers, scheduleIds: null });
      await recordAudit(tx, ctx, { entity: 'elevator_access_rule', entityId: id, action: 'delete', before: this.toRule(before) });
    });
    await this.devices.dispatch();
  }

  bulkDeleteRules(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.deleteRule(ctx, id));
  }

  /** Device ids of the caller's elevators' controllers (elevator events are theirs). */
  async controllerIds(actor: Actor): Promise<number[]> {
    this.assertAny(actor, ['can_view_elevators', 'can_view_all_elevators']);
    const rows = await queryRows<{ device_id: number }>(
      this.db,
      sql`SELECT c.device_id FROM elevator_controllers c JOIN elevators ON elevators.id = c.elevator_id
        WHERE elevators.project_id = ${actor.projectId} AND ${elevatorPred(actor, 'view')}`,
    );
    return rows.map((r) => Number(r.device_id));
  }
}
