import type { AccessMatrixQuery, ListQuery, SyncIdentifier, SyncSchedule } from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns, userVisible } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { containsPattern, filterShape, filtersSql, inPageOrder, type ListSpec, listPage, pageOfIds } from '../../core/list-query.js';
import { devicePredicate } from '../devices/devices.repository.js';
import {
  accessEvents,
  accessRuleDevices,
  accessRuleGroups,
  accessRuleIdentifiers,
  accessRules,
  accessRuleTimeRules,
  accessRuleUsers,
  identifiers,
  timeRules,
} from './access.table.js';

const TR = qualifiedColumns(timeRules);
const AR = qualifiedColumns(accessRules);
const ID = qualifiedColumns(identifiers);
const AE = qualifiedColumns(accessEvents);

export const TIME_RULE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${TR.id}`, type: 'number' },
    name: { expr: sql`${TR.name}`, type: 'text' },
    description: { expr: sql`${TR.description}`, type: 'text' },
    domain_id: { expr: sql`${TR.groupId}`, type: 'number' },
    time_zone: { expr: sql`${TR.timeZone}`, type: 'text' },
    created_at: { expr: sql`${TR.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${TR.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${TR.id} ASC`,
};

export const ACCESS_RULE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${AR.id}`, type: 'number' },
    name: { expr: sql`${AR.name}`, type: 'text' },
    description: { expr: sql`${AR.description}`, type: 'text' },
    prohibition: { expr: sql`${AR.prohibition}`, type: 'boolean' },
    is_shareable: { expr: sql`${AR.isShareable}`, type: 'boolean' },
    available_for_guest: { expr: sql`${AR.availableForGuest}`, type: 'boolean' },
    created_at: { expr: sql`${AR.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${AR.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${AR.id} ASC`,
};

export const IDENTIFIER_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${ID.id}`, type: 'number' },
    name: { expr: sql`${ID.name}`, type: 'text' },
    type: { expr: sql`${ID.type}`, type: 'text' },
    value: { expr: sql`${ID.value}`, type: 'text' },
    owner_id: { expr: sql`${ID.ownerId}`, type: 'number' },
    is_active: { expr: sql`${ID.isActive}`, type: 'boolean' },
    is_revoked: { expr: sql`(${ID.revokedAt} IS NOT NULL)`, type: 'boolean' },
    guest_type: { expr: sql`${ID.guestType}`, type: 'text' },
    created_at: { expr: sql`${ID.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${ID.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${ID.id} ASC`,
};

export const ACCESS_EVENT_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${AE.id}`, type: 'number' },
    occurred_at: { expr: sql`${AE.occurredAt}`, type: 'date' },
    device_id: { expr: sql`${AE.deviceId}`, type: 'number' },
    lock_number: { expr: sql`${AE.lockNumber}`, type: 'number' },
    granted: { expr: sql`${AE.granted}`, type: 'boolean' },
    reason: { expr: sql`${AE.reason}`, type: 'text' },
    value: { expr: sql`${AE.value}`, type: 'text' },
    identifier_id: { expr: sql`${AE.identifierId}`, type: 'number' },
    user_id: { expr: sql`${AE.userId}`, type: 'number' },
  },
  defaultSort: '-occurred_at',
  tiebreak: sql`${AE.id} DESC`,
};

const timeRuleTarget: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${TR.groupId} AND ${cond})`,
  createdBy: sql`${TR.createdBy}`,
};
/** A rule belongs to its groups; a rule of no group to its creator's groups (it is theirs to keep). */
const accessRuleTarget: AclTarget = {
  inGroups: (
    cond,
  ) => sql`(EXISTS (SELECT 1 FROM access_rule_groups arg JOIN groups g ON g.id = arg.group_id WHERE arg.rule_id = ${AR.id} AND ${cond})
    OR (NOT EXISTS (SELECT 1 FROM access_rule_groups arg WHERE arg.rule_id = ${AR.id})
      AND EXISTS (SELECT 1 FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ${AR.createdBy} AND ${cond})))`,
  createdBy: sql`${AR.createdBy}`,
};

export const timeRulePredicate = (actor: Actor, action: 'view' | 'edit' | 'delete'): SQL => {
  const view = aclPredicate(actor, 'time_rules', 'view', timeRuleTarget);
  return action === 'view' ? view : sql`(${view} AND ${aclPredicate(actor, 'time_rules', action, timeRuleTarget)})`;
};
export const accessRulePredicate = (actor: Actor, action: 'view' | 'edit' | 'delete'): SQL => {
  const view = aclPredicate(actor, 'access_rules', 'view', accessRuleTarget);
  return action === 'view' ? view : sql`(${view} AND ${aclPredicate(actor, 'access_rules', action, accessRuleTarget)})`;
};
/**
 * Rules a person may give a guest: available for guests, not prohibitions, and of a group of theirs,
 * above theirs (the building of their flat) or below; every such rule with "view all".
 */
export const guestRulePredicate = (actor: Actor): SQL =>
  sql`(${AR.availableForGuest} AND NOT ${AR.prohibition} AND (${actor.permissions.has('can_view_all_access_rules')}
    OR EXISTS (SELECT 1 FROM access_rule_groups arg JOIN groups g ON g.id = arg.group_id WHERE arg.rule_id = ${AR.id}
      AND (g.path && ${intArray(actor.groupIds)} OR g.id IN (SELECT unnest(m.path) FROM groups m WHERE m.id = ANY(${intArray(actor.groupIds)}))))))`;

/** Identifiers: all of the project with "view all"; else those one created or owns. */
export const identifierPredicate = (actor: Actor): SQL =>
  actor.permissions.has('can_view_all_identifiers')
    ? sql`TRUE`
    : sql`coalesce(${ID.createdBy} = ${actor.userId} OR ${ID.ownerId} = ${actor.userId}, FALSE)`;

const flags = (view: SQL, edit: SQL, del: SQL) => ({
  canView: sql<boolean>`coalesce(${view}, FALSE)`,
  editable: sql<boolean>`coalesce(${edit}, FALSE)`,
  deletable: sql<boolean>`coalesce(${del}, FALSE)`,
});

export type TimeRuleRow = typeof timeRules.$inferSelect & {
  accessRules: number[];
  canView: boolean;
  editable: boolean;
  deletable: boolean;
};
export type AccessRuleRow = typeof accessRules.$inferSelect & {
  devices: { id: number; lock_number: number }[];
  identifiers: number[];
  users: number[];
  domains: number[];
  timeRules: number[];
  canView: boolean;
  editable: boolean;
  deletable: boolean;
};
export type IdentifierRow = typeof identifiers.$inferSelect & {
  accessRules: number[];
  owner: { id: number; name: string; login: string } | null;
  canView: boolean;
  editable: boolean;
  deletable: boolean;
};

/** What one identifier must look like on one device, and which schedules it needs there. */
export interface DeviceSyncPart {
  identifiers: SyncIdentifier[];
  scheduleIds: number[];
}

/** What an identifiers list reads of each row: the columns toIdentifier shows (not the guest key, nor the pass limit's start), its rules, owner, and what the caller may do. */
function identifierListColumns(actor: Actor): Record<string, SQL> {
  const { projectId: _p, guestKey: _k, passesSince: _s, ...shown } = getTableColumns(identifiers);
  return {
    ...Object.fromEntries(Object.entries(shown).map(([name, column]) => [name, sql`${column}`])),
    accessRules: sql`coalesce((SELECT array_agg(x.rule_id ORDER BY x.rule_id) FROM access_rule_identifiers x WHERE x.identifier_id = ${ID.id}), '{}')`,
    owner: sql`(SELECT jsonb_build_object('id', u.id, 'name', u.name, 'login', u.login) FROM users u WHERE u.id = ${ID.ownerId})`,
    editable: sql`coalesce((${identifierPredicate(actor)} AND ${actor.permissions.has('can_edit_identifiers')}), FALSE)`,
    deletable: sql`coalesce((${identifierPredicate(actor)} AND ${actor.permissions.has('can_delete_identifiers')}), FALSE)`,
  };
}

/** What an access events list shows of each event, with its device's, identifier's and user's names. */
const ACCESS_EVENT_COLUMNS: Record<string, SQL> = {
  id: sql`${AE.id}`,
  occurred_at: sql`${AE.occurredAt}`,
  device_id: sql`${AE.deviceId}`,
  device_name: sql`d.name`,
  lock_number: sql`${AE.lockNumber}`,
  granted: sql`${AE.granted}`,
  reason: sql`${AE.reason}`,
  value: sql`${AE.value}`,
  identifier_id: sql`${AE.identifierId}`,
  identifier_name: sql`i.name`,
  // A refused card no identifier matched keeps the kind the device reported, so its number reads as any card's.
  identifier_type: sql`coalesce(i.type, ${AE.kind})`,
  user_id: sql`${AE.userId}`,
  user_name: sql`u.name`,
  rule_id: sql`${AE.ruleId}`,
  direction: sql`${AE.direction}`,
};

export class AccessRepository {
  constructor(private readonly db: Db) {}

  // --- schedules ---------------------------------------------------------------------------------

  private timeRuleSelect(actor: Actor) {
    return this.db
      .select({
        ...getTableColumns(timeRules),
        accessRules: sql<
          number[]
        >`coalesce((SELECT array_agg(x.rule_id ORDER BY x.rule_id) FROM access_rule_time_rules x WHERE x.time_rule_id = ${TR.id}), '{}')`,
        ...flags(timeRulePredicate(actor, 'view'), timeRulePredicate(actor, 'edit'), timeRulePredicate(actor, 'delete')),
      })
      .from(timeRules);
  }

  async listTimeRules(actor: Actor, q: ListQuery & { search?: string | undefined }) {
    const where = and(
      eq(timeRules.projectId, actor.projectId),
      filtersSql(TIME_RULE_LIST, q),
      timeRulePredicate(actor, 'view'),
      q.search ? sql`${TR.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: timeRules, id: sql`${TR.id}`, where, spec: TIME_RULE_LIST, query: q });
    const rows = page.ids.length ? await this.timeRuleSelect(actor).where(sql`${TR.id} = ANY(${intArray(page.ids)})`) : [];
    return { rows: inPageOrder(page.ids, rows as TimeRuleRow[]), total: page.total, estimated: page.estimated };
  }

  async timeRule(actor: Actor, id: number): Promise<TimeRuleRow | undefined> {
    const [r] = await this.timeRuleSelect(actor).where(and(eq(timeRules.id, id), eq(timeRules.projectId, actor.projectId)));
    return r as TimeRuleRow | undefined;
  }

  // --- access rules ------------------------------------------------------------------------------

  private accessRuleSelect(actor: Actor) {
    const list = (table: string, col: string) =>
      sql<
        number[]
      >`coalesce((SELECT array_agg(x.${sql.raw(col)} ORDER BY x.${sql.raw(col)}) FROM ${sql.raw(table)} x WHERE x.rule_id = ${AR.id}), '{}')`;
    return this.db
      .select({
        ...getTableColumns(accessRules),
        devices: sql<
          { id: number; lock_number: number }[]
        >`coalesce((SELECT jsonb_agg(jsonb_build_object('id', x.device_id, 'lock_number', x.lock_number) ORDER BY x.device_id, x.lock_number) FROM access_rule_devices x WHERE x.rule_id = ${AR.id}), '[]'::jsonb)`,
        identifiers: list('access_rule_identifiers', 'identifier_id'),
        users: list('access_rule_users', 'user_id'),
        domains: list('access_rule_groups', 'group_id'),
        timeRules: list('access_rule_time_rules', 'time_rule_id'),
        ...flags(accessRulePredicate(actor, 'view'), accessRulePredicate(actor, 'edit'), accessRulePredicate(actor, 'delete')),
      })
      .from(accessRules);
  }

  async listAccessRules(actor: Actor, q: ListQuery & { search?: string | undefined }, onlyGuest = false) {
    const where = and(
      eq(accessRules.projectId, actor.projectId),
      filtersSql(ACCESS_RULE_LIST, q),
      onlyGuest ? guestRulePredicate(actor) : accessRulePredicate(actor, 'view'),
      q.search ? sql`${AR.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: accessRules, id: sql`${AR.id}`, where, spec: ACCESS_RULE_LIST, query: q });
    const rows = page.ids.length ? await this.accessRuleSelect(actor).where(sql`${AR.id} = ANY(${intArray(page.ids)})`) : [];
    return { rows: inPageOrder(page.ids, rows as AccessRuleRow[]), total: page.total, estimated: page.estimated };
  }

  async accessRule(actor: Actor, id: number): Promise<AccessRuleRow | undefined> {
    const [r] = await this.accessRuleSelect(actor).where(and(eq(accessRules.id, id), eq(accessRules.projectId, actor.projectId)));
    return r as AccessRuleRow | undefined;
  }

  async setRuleLinks(
    tx: DbOrTx,
    ruleId: number,
    links: {
      devices?: { id: number; lock_number: number }[] | undefined;
      identifiers?: number[] | undefined;
      users?: number[] | undefined;
      domains?: number[] | undefined;
      timeRules?: number[] | undefined;
    },
  ): Promise<void> {
    if (links.devices) {
      await tx.delete(accessRuleDevices).where(eq(accessRuleDevices.ruleId, ruleId));
      const unique = [...new Map(links.devices.map((d) => [`${d.id}:${d.lock_number}`, d])).values()];
      if (unique.length)
        await tx.insert(accessRuleDevices).values(unique.map((d) => ({ ruleId, deviceId: d.id, lockNumber: d.lock_number })));
    }
    const simple = async (
      table: typeof accessRuleIdentifiers | typeof accessRuleUsers | typeof accessRuleGroups | typeof accessRuleTimeRules,
      ids: number[] | undefined,
      row: (id: number) => Record<string, number>,
    ) => {
      if (!ids) return;
      await tx.delete(table).where(eq(table.ruleId, ruleId));
      const unique = [...new Set(ids)];
      if (unique.length) await tx.insert(table).values(unique.map(row) as never);
    };
    await simple(accessRuleIdentifiers, links.identifiers, (id) => ({ ruleId, identifierId: id }));
    await simple(accessRuleUsers, links.users, (id) => ({ ruleId, userId: id }));
    await simple(accessRuleGroups, links.domains, (id) => ({ ruleId, groupId: id }));
    await simple(accessRuleTimeRules, links.timeRules, (id) => ({ ruleId, timeRuleId: id }));
  }

  /** Links a time rule or an identifier to access rules from its own side (replacing the set). */
  async setRulesOf(tx: DbOrTx, kind: 'time_rule' | 'identifier', id: number, ruleIds: number[]): Promise<void> {
    const unique = [...new Set(ruleIds)];
    if (kind === 'time_rule') {
      await tx.delete(accessRuleTimeRules).where(eq(accessRuleTimeRules.timeRuleId, id));
      if (unique.length) await tx.insert(accessRuleTimeRules).values(unique.map((ruleId) => ({ ruleId, timeRuleId: id })));
    } else {
      await tx.delete(accessRuleIdentifiers).where(eq(accessRuleIdentifiers.identifierId, id));
      if (unique.length) await tx.insert(accessRuleIdentifiers).values(unique.map((ruleId) => ({ ruleId, identifierId: id })));
    }
  }

  // --- identifiers -------------------------------------------------------------------------------

  private identifierSelect(actor: Actor) {
    const edit = sql`(${identifierPredicate(actor)} AND ${actor.permissions.has('can_edit_identifiers')})`;
    const del = sql`(${identifierPredicate(actor)} AND ${actor.permissions.has('can_delete_identifiers')})`;
    return this.db
      .select({
        ...getTableColumns(identifiers),
        accessRules: sql<
          number[]
        >`coalesce((SELECT array_agg(x.rule_id ORDER BY x.rule_id) FROM access_rule_identifiers x WHERE x.identifier_id = ${ID.id}), '{}')`,
        owner: sql<{
          id: number;
          name: string;
          login: string;
        } | null>`(SELECT jsonb_build_object('id', u.id, 'name', u.name, 'login', u.login) FROM users u WHERE u.id = ${ID.ownerId})`,
        ...flags(identifierPredicate(actor), edit, del),
      })
      .from(identifiers);
  }

  async listIdentifiers(
    actor: Actor,
    q: ListQuery & { search?: string | undefined; onlyGuest?: '0' | '1' | undefined; onlyType?: string | undefined },
  ): Promise<{ rows: IdentifierRow[]; total: number; estimated: boolean }> {
    // A call's values go beside the statement, which is compiled once per caller and shape (core/list-query.ts listPage).
    const values: Record<string, unknown> = {};
    const filters = filtersSql(IDENTIFIER_LIST, q, values);
    if (q.onlyType) values.onlyType = q.onlyType;
    if (q.search) values.search = containsPattern(q.search);
    const guests = q.onlyGuest === '1';
    const page = await listPage<IdentifierRow>(this.db, {
      owner: actor,
      shape: JSON.stringify(['identifiers', filterShape(q), !!q.onlyType, guests, !!q.search]),
      spec: IDENTIFIER_LIST,
      query: q,
      values,
      statement: () => {
        const search = sql.placeholder('search');
        return {
          table: identifiers,
          id: sql`${ID.id}`,
          where: and(
            eq(identifiers.projectId, actor.projectId),
            q.onlyType ? sql`${ID.type} = ${sql.placeholder('onlyType')}::text` : undefined,
            filters,
            identifierPredicate(actor),
            guests ? sql`${ID.guestType} IS NOT NULL` : undefined,
            q.search
              ? sql`(${ID.name} ILIKE ${search}::text OR ${ID.value} ILIKE ${search}::text
                  OR ${ID.ownerId} IN (SELECT u.id FROM users u WHERE u.project_id = ${actor.projectId} AND u.name ILIKE ${search}::text))`
              : undefined,
          ),
          columns: identifierListColumns(actor),
        };
      },
    });
    return { rows: page.rows, total: page.total, estimated: page.estimated };
  }

  async identifier(actor: Actor, id: number): Promise<IdentifierRow | undefined> {
    const [r] = await this.identifierSelect(actor).where(and(eq(identifiers.id, id), eq(identifiers.projectId, actor.projectId)));
    return r as IdentifierRow | undefined;
  }

  async identifierTaken(projectId: number, type: string, value: string, exceptId = 0): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT id FROM identifiers WHERE project_id = ${projectId} AND type = ${type} AND value = ${value} AND id <> ${exceptId} LIMIT 1`,
    );
    return rows.length > 0;
  }

  // --- what the actor may link -------------------------------------------------------------------

  /** The ids among `ids` the actor may link (sees): the rest are refused as invalid related entities. */
  async visibleIds(
    actor: Actor,
    kind: 'devices' | 'users' | 'domains' | 'identifiers' | 'time_rules' | 'access_rules' | 'guest_rules',
    ids: number[],
  ) {
    if (!ids.length) return new Set<number>();
    const list = intArray(ids);
    const p = actor.projectId;
    const q: Record<typeof kind | 'guest_rules', SQL> = {
      guest_rules: sql`SELECT access_rules.id FROM access_rules WHERE access_rules.project_id = ${p} AND access_rules.id = ANY(${list}) AND ${guestRulePredicate(actor)}`,
      devices: sql`SELECT devices.id FROM devices WHERE devices.project_id = ${p} AND devices.id = ANY(${list}) AND ${devicePredicate(actor, 'view')}`,
      users: sql`SELECT u.id FROM users u WHERE u.project_id = ${p} AND u.id = ANY(${list}) AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)}`,
      domains: sql`SELECT g.id FROM groups g WHERE g.project_id = ${p} AND g.id = ANY(${list}) AND (${actor.permissions.has('can_view_all_access_rules') || actor.permissions.has('can_edit_all_domains')} OR g.path && ${intArray(actor.groupIds)})`,
      identifiers: sql`SELECT identifiers.id FROM identifiers WHERE identifiers.project_id = ${p} AND identifiers.id = ANY(${list}) AND ${identifierPredicate(actor)}`,
      time_rules: sql`SELECT time_rules.id FROM time_rules WHERE time_rules.project_id = ${p} AND time_rules.id = ANY(${list}) AND ${timeRulePredicate(actor, 'view')}`,
      access_rules: sql`SELECT access_rules.id FROM access_rules WHERE access_rules.project_id = ${p} AND access_rules.id = ANY(${list}) AND ${accessRulePredicate(actor, 'view')}`,
    };
    return new Set((await queryRows<{ id: number }>(this.db, q[kind])).map((r) => Number(r.id)));
  }

  /** Locks each device has, by its model (for "lock number in range"). */
  async deviceModels(ids: number[]): Promise<Map<number, { type: string; model: string }>> {
    if (!ids.length) return new Map();
    const rows = await queryRows<{ id: number; type: string; model: string }>(
      this.db,
      sql`SELECT id, type, model FROM devices WHERE id = ANY(${intArray(ids)})`,
    );
    return new Map(rows.map((r) => [Number(r.id), { type: r.type, model: r.model }]));
  }

  // --- sync: what each device must hold ----------------------------------------------------------

  /**
   * The devices that hold (or should hold) any of these identifiers, through any rule: through the
   * rule's identifiers, its users' identifiers, or the identifiers of the members of its groups and
   * their subgroups.
   */
  async devicesOfIdentifiers(db: DbOrTx, identifierIds: number[]): Promise<number[]> {
    if (!identifierIds.length) return [];
    const rows = await queryRows<{ device_id: number }>(
      db,
      sql`SELECT rd.device_id FROM access_rule_devices rd
          JOIN (${ruleIdentifiers(sql`i.id = ANY(${intArray(identifierIds)})`)}) ri ON ri.rule_id = rd.rule_id
        UNION SELECT ec.device_id FROM (${elevatorGrants(sql`i.id = ANY(${intArray(identifierIds)})`)}) eg
          JOIN elevator_controllers ec ON ec.device_id = eg.device_id`,
    );
    return rows.map((r) => Number(r.device_id));
  }

  async devicesOfRules(db: DbOrTx, ruleIds: number[]): Promise<number[]> {
    if (!ruleIds.length) return [];
    const rows = await queryRows<{ device_id: number }>(
      db,
      sql`SELECT DISTINCT device_id FROM access_rule_devices WHERE rule_id = ANY(${intArray(ruleIds)})`,
    );
    return rows.map((r) => Number(r.device_id));
  }

  async rulesOfTimeRule(db: DbOrTx, timeRuleId: number): Promise<number[]> {
    const rows = await queryRows<{ rule_id: number }>(
      db,
      sql`SELECT rule_id FROM access_rule_time_rules WHERE time_rule_id = ${timeRuleId}`,
    );
    return rows.map((r) => Number(r.rule_id));
  }

  /** Identifiers of a user (owned), for rule changes of users and group membership. */
  async identifiersOfUsers(db: DbOrTx, userIds: number[]): Promise<number[]> {
    if (!userIds.length) return [];
    const rows = await queryRows<{ id: number }>(db, sql`SELECT id FROM identifiers WHERE owner_id = ANY(${intArray(userIds)})`);
    return rows.map((r) => Number(r.id));
  }

  /**
   * What devices must hold: per device, each identifier (active) with the grants of every rule that
   * brings it there (locks, schedules, prohibition), limited to `identifierIds` when given.
   */
  async syncParts(db: DbOrTx, deviceIds: number[], identifierIds: number[] | null): Promise<Map<number, DeviceSyncPart>> {
    const out = new Map<number, DeviceSyncPart>(deviceIds.map((d) => [d, { identifiers: [], scheduleIds: [] }]));
    if (!deviceIds.length) return out;
    const only = identifierIds ? sql`i.id = ANY(${intArray(identifierIds)})` : sql`TRUE`;
    const rows = await queryRows<{
      device_id: number;
      identifier_id: number;
      rule_id: number;
      prohibition: boolean;
      locks: number[];
      schedule_ids: number[];
    }>(
      db,
      sql`SELECT rd.device_id, ri.identifier_id, r.id AS rule_id, r.prohibition,
          array_agg(DISTINCT rd.lock_number) AS locks,
          coalesce((SELECT array_agg(t.time_rule_id ORDER BY t.time_rule_id) FROM access_rule_time_rules t WHERE t.rule_id = r.id), '{}') AS schedule_ids
        FROM access_rule_devices rd
        JOIN access_rules r ON r.id = rd.rule_id
        JOIN (${ruleIdentifiers(only)}) ri ON ri.rule_id = r.id
        WHERE rd.device_id = ANY(${intArray(deviceIds)})
        GROUP BY rd.device_id, ri.identifier_id, r.id, r.prohibition`,
    );
    // Lift controllers: an elevator access rule's floors are the relay ports that serve them.
    const lift = await queryRows<{ device_id: number; identifier_id: number; rule_id: number; locks: number[] }>(
      db,
      sql`SELECT eg.device_id, eg.identifier_id, eg.rule_id, eg.locks FROM (${elevatorGrants(only)}) eg
        WHERE eg.device_id = ANY(${intArray(deviceIds)}) AND cardinality(eg.locks) > 0`,
    );
    for (const r of lift) {
      rows.push({
        device_id: r.device_id,
        identifier_id: r.identifier_id,
        rule_id: -Number(r.rule_id),
        prohibition: false,
        locks: r.locks,
        schedule_ids: [],
      });
    }
    if (!rows.length) return out;
    const idRows = await queryRows<{
      id: number;
      value: string;
      type: string;
      is_active: boolean;
      revoked: boolean;
      period_restrict_active: boolean;
      period_restrict_from: string | null;
      period_restrict_to: string | null;
      exhausted: boolean;
    }>(
      db,
      sql`SELECT id, value, type, is_active, revoked_at IS NOT NULL AS revoked, period_restrict_active,
          period_restrict_from, period_restrict_to,
          (passes_restrict_active AND passes_restrict_passes_count >= passes_restrict_max_count) AS exhausted
        FROM identifiers WHERE id = ANY(${intArray([...new Set(rows.map((r) => Number(r.identifier_id)))])})`,
    );
    const byId = new Map(idRows.map((r) => [Number(r.id), r]));
    const perDevice = new Map<number, Map<number, SyncIdentifier>>();
    for (const r of rows) {
      const i = byId.get(Number(r.identifier_id));
      // An inactive identifier is not on any device (the device answers `unknown`).
      if (!i?.is_active) continue;
      const dev = Number(r.device_id);
      let map = perDevice.get(dev);
      if (!map) {
        map = new Map();
        perDevice.set(dev, map);
      }
      let entry = map.get(i.id);
      if (!entry) {
        const iso = (v: string | null) => (v ? new Date(v).toISOString() : null);
        entry = {
          id: Number(i.id),
          value: i.value,
          kind: i.type,
          grants: [],
          ...(i.revoked ? { revoked: true } : {}),
          ...(i.exhausted ? { exhausted: true } : {}),
          ...(i.period_restrict_active ? { valid_from: iso(i.period_restrict_from), valid_to: iso(i.period_restrict_to) } : {}),
        };
        map.set(i.id, entry);
      }
      const ruleId = Number(r.rule_id);
      (entry.grants as { rule_id?: number; elevator_rule_id?: number; locks: number[]; schedule_ids: number[]; deny?: boolean }[]).push({
        // Elevator access rules come as negative ids from the query above.
        ...(ruleId > 0 ? { rule_id: ruleId } : { elevator_rule_id: -ruleId }),
        locks: r.locks.map(Number).sort((a, b) => a - b),
        schedule_ids: r.schedule_ids.map(Number),
        ...(r.prohibition ? { deny: true } : {}),
      });
    }
    for (const [dev, map] of perDevice) {
      const part = out.get(dev) ?? { identifiers: [], scheduleIds: [] };
      part.identifiers = [...map.values()].sort((a, b) => a.id - b.id);
      part.scheduleIds = [...new Set(part.identifiers.flatMap((i) => (i.grants ?? []).flatMap((g) => g.schedule_ids)))].sort(
        (a, b) => a - b,
      );
      out.set(dev, part);
    }
    return out;
  }

  /** Schedules as devices decide them. */
  async syncSchedules(db: DbOrTx, ids: number[]): Promise<SyncSchedule[]> {
    if (!ids.length) return [];
    const rows = await db
      .select()
      .from(timeRules)
      .where(sql`${TR.id} = ANY(${intArray(ids)})`);
    return rows.map(toSyncSchedule);
  }

  /** Devices that take sync tasks (not on protocol none), among these. */
  async syncableDevices(db: DbOrTx, ids: number[]): Promise<number[]> {
    if (!ids.length) return [];
    const rows = await queryRows<{ id: number }>(db, sql`SELECT id FROM devices WHERE id = ANY(${intArray(ids)}) AND protocol <> 'none'`);
    return rows.map((r) => Number(r.id));
  }

  // --- access events -----------------------------------------------------------------------------

  /** The identifiers these values are, per project (a value may exist under several types: the kind decides). */
  async identifiersByValue(projectId: number, values: string[]) {
    if (!values.length) return [];
    return queryRows<{
      id: number;
      value: string;
      type: string;
      owner_id: number | null;
      created_by: number | null;
      name: string;
      passes_restrict_active: boolean;
      passes_restrict_since: string | null;
    }>(
      this.db,
      sql`SELECT id, value, type, owner_id, created_by, name, passes_restrict_active, passes_restrict_since FROM identifiers
        WHERE project_id = ${projectId} AND value IN (${sql.join(
          values.map((v) => sql`${v}`),
          sql`, `,
        )})`,
    );
  }

  async insertAccessEvents(rows: (typeof accessEvents.$inferInsert)[]): Promise<void> {
    if (rows.length) await this.db.insert(accessEvents).values(rows);
  }

  /** Counts passes of limited identifiers; answers those whose limit was reached just now. */
  async countPasses(counts: Map<number, number>): Promise<number[]> {
    if (!counts.size) return [];
    const ids = [...counts.keys()];
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`UPDATE identifiers i SET passes_restrict_passes_count = i.passes_restrict_passes_count + x.n, updated_at = now()
        FROM unnest(${intArray(ids)}, ${intArray(ids.map((id) => counts.get(id) ?? 0))}) AS x(id, n)
        WHERE i.id = x.id AND i.passes_restrict_active
          AND i.passes_restrict_passes_count < i.passes_restrict_max_count
          AND i.passes_restrict_passes_count + x.n >= i.passes_restrict_max_count
        RETURNING i.id`,
    );
    // Those not reaching the limit are counted too.
    await this.db.execute(
      sql`UPDATE identifiers i SET passes_restrict_passes_count = i.passes_restrict_passes_count + x.n
        FROM unnest(${intArray(ids)}, ${intArray(ids.map((id) => counts.get(id) ?? 0))}) AS x(id, n)
        WHERE i.id = x.id AND i.passes_restrict_active AND i.id <> ALL(${intArray(rows.map((r) => Number(r.id)))})`,
    );
    return rows.map((r) => Number(r.id));
  }

  async listAccessEvents(actor: Actor, q: ListQuery): Promise<{ rows: Record<string, unknown>[]; total: number; estimated: boolean }> {
    // A call's values go beside the statement, which is compiled once per caller and shape (core/list-query.ts listPage).
    const values: Record<string, unknown> = {};
    const filters = filtersSql(ACCESS_EVENT_LIST, q, values);
    return listPage<Record<string, unknown>>(this.db, {
      owner: actor,
      shape: JSON.stringify(['access_events', filterShape(q)]),
      spec: ACCESS_EVENT_LIST,
      query: q,
      values,
      statement: () => ({
        table: accessEvents,
        id: sql`${AE.id}`,
        where: and(
          eq(accessEvents.projectId, actor.projectId),
          filters,
          sql`${AE.deviceId} IN (SELECT devices.id FROM devices WHERE devices.project_id = ${actor.projectId} AND ${devicePredicate(actor, 'view')})`,
        ),
        columns: ACCESS_EVENT_COLUMNS,
        joins: sql`LEFT JOIN devices d ON d.id = ${AE.deviceId} LEFT JOIN identifiers i ON i.id = ${AE.identifierId} LEFT JOIN users u ON u.id = ${AE.userId}`,
      }),
    });
  }

  // --- the access matrix -------------------------------------------------------------------------

  /**
   * Who can open what, and when: each active, unrevoked identifier with each lock an access rule
   * gives it (through the identifier, its owner or its owner's groups), the rule's schedules, and
   * whether the rule prohibits. Only devices the caller may see. One page and the total (exact up to
   * 10,000 rows, then "at least").
   */
  async accessMatrix(actor: Actor, q: AccessMatrixQuery, page: { limit: number; offset: number }, withTotal = true) {
    const p = actor.projectId;
    const filters = [
      q.user_id ? sql`i.owner_id = ${q.user_id}` : undefined,
      q.device_id ? sql`d.id = ${q.device_id}` : undefined,
      q.identifier_id ? sql`i.id = ${q.identifier_id}` : undefined,
      q.rule_id ? sql`r.id = ${q.rule_id}` : undefined,
      q.search
        ? sql`(i.name ILIKE ${containsPattern(q.search)} OR u.name ILIKE ${containsPattern(q.search)} OR d.name ILIKE ${containsPattern(q.search)} OR r.name ILIKE ${containsPattern(q.search)})`
        : undefined,
    ].filter((f): f is SQL => f !== undefined);
    const reachable = sql`i.project_id = ${p} AND i.is_active AND i.revoked_at IS NULL`;
    const from = (extra: SQL[]) => {
      const where = [...filters, ...extra];
      return sql`FROM (${ruleIdentifiers(reachable)}) reach
      JOIN access_rules r ON r.id = reach.rule_id AND r.project_id = ${p}
      JOIN identifiers i ON i.id = reach.identifier_id
      JOIN access_rule_devices rd ON rd.rule_id = r.id
      JOIN devices ON devices.id = rd.device_id AND ${devicePredicate(actor, 'view')}
      JOIN devices d ON d.id = devices.id
      LEFT JOIN users u ON u.id = i.owner_id
      ${where.length ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``}`;
    };
    const sortKey = q.sort.replace(/^-/, '') as 'user_name' | 'device_name' | 'rule_name';
    const dir = sql.raw(q.sort.startsWith('-') ? 'DESC NULLS LAST' : 'ASC NULLS LAST');
    // Each order first groups the lines of one person's identifier, one door or one rule (the "pivot"),
    // then orders within it; the pivot is what the fast paging below counts.
    const order = {
      user_name: sql`u.name ${dir}, i.id, d.id, rd.lock_number, r.id`,
      device_name: sql`d.name ${dir}, d.id, i.id, rd.lock_number, r.id`,
      rule_name: sql`r.name ${dir}, r.id, i.id, d.id, rd.lock_number`,
    }[sortKey];
    const select = (extra: SQL[], limit: number, offset: number) =>
      queryRows<{
        user_id: number | null;
        user_name: string | null;
        identifier_id: number;
        identifier_name: string;
        identifier_type: string;
        device_id: number;
        device_name: string;
        lock_number: number;
        rule_id: number;
        rule_name: string;
        prohibition: boolean;
        schedules: { id: number; name: string }[];
      }>(
        this.db,
        sql`SELECT i.owner_id AS user_id, u.name AS user_name, i.id AS identifier_id, i.name AS identifier_name, i.type AS identifier_type,
          d.id AS device_id, d.name AS device_name, rd.lock_number, r.id AS rule_id, r.name AS rule_name, r.prohibition,
          coalesce((SELECT jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name) ORDER BY t.name, t.id)
            FROM access_rule_time_rules x JOIN time_rules t ON t.id = x.time_rule_id WHERE x.rule_id = r.id), '[]'::jsonb) AS schedules
        ${from(extra)}
        ORDER BY ${order}
        LIMIT ${limit} OFFSET ${offset}`,
      );
    let rows: Awaited<ReturnType<typeof select>>;
    let total = 0;
    let estimated = false;
    if (filters.length) {
      // A filter narrows the matrix to one person, door, rule or a search: one query pages it.
      rows = await select([], page.limit, page.offset);
      if (withTotal) {
        const [c] = await queryRows<{ n: number }>(this.db, sql`SELECT count(*)::int AS n FROM (SELECT 1 ${from([])} LIMIT 10001) x`);
        total = Number(c?.n ?? 0);
        estimated = total > 10_000;
      }
    } else {
      // The whole matrix may hold millions of lines (10,000 people × 1,000 doors): ordering all of them
      // for one page is out of the question. Lines per pivot are counted from two small sets — which
      // identifiers each rule reaches, and which doors and locks of each rule the caller sees — and a
      // running sum finds the few pivots that hold the page; only their lines are then read. The total
      // is exact.
      const ri = sql`SELECT rule_id, identifier_id FROM (${ruleIdentifiers(reachable)}) x`;
      const rd = sql`SELECT rd.rule_id, rd.device_id, count(*)::bigint AS locks FROM access_rule_devices rd
        JOIN access_rules r ON r.id = rd.rule_id AND r.project_id = ${p}
        JOIN devices ON devices.id = rd.device_id AND ${devicePredicate(actor, 'view')}
        GROUP BY rd.rule_id, rd.device_id`;
      const pivot = {
        user_name: sql`SELECT i.id AS k, u.name AS sort_name, sum(rl.lines)::bigint AS lines
          FROM ri JOIN (SELECT rule_id, sum(locks) AS lines FROM rd GROUP BY rule_id) rl ON rl.rule_id = ri.rule_id
          JOIN identifiers i ON i.id = ri.identifier_id LEFT JOIN users u ON u.id = i.owner_id GROUP BY i.id, u.name`,
        device_name: sql`SELECT d.id AS k, d.name AS sort_name, sum(rd.locks * rc.n)::bigint AS lines
          FROM rd JOIN (SELECT rule_id, count(*) AS n FROM ri GROUP BY rule_id) rc ON rc.rule_id = rd.rule_id
          JOIN devices d ON d.id = rd.device_id GROUP BY d.id, d.name`,
        rule_name: sql`SELECT r.id AS k, r.name AS sort_name, sum(rd.locks)::bigint * max(rc.n) AS lines
          FROM rd JOIN (SELECT rule_id, count(*) AS n FROM ri GROUP BY rule_id) rc ON rc.rule_id = rd.rule_id
          JOIN access_rules r ON r.id = rd.rule_id GROUP BY r.id, r.name`,
      }[sortKey];
      const end = page.offset + page.limit;
      const spans = await queryRows<{ k: number; before: string; total: string }>(
        this.db,
        sql`WITH ri AS (${ri}), rd AS (${rd}), pv AS (${pivot}),
          cum AS (SELECT k, lines, sum(lines) OVER (ORDER BY sort_name ${dir}, k ROWS UNBOUNDED PRECEDING) - lines AS before FROM pv WHERE lines > 0)
        SELECT k, before, (SELECT coalesce(sum(lines), 0) FROM pv) AS total FROM cum
        WHERE before < ${end} AND before + lines > ${page.offset}
        UNION ALL SELECT NULL, NULL, (SELECT coalesce(sum(lines), 0) FROM pv)
        ORDER BY before NULLS LAST`,
      );
      total = Number(spans[0]?.total ?? 0);
      const keys = spans.filter((x) => x.k !== null).map((x) => Number(x.k));
      if (keys.length) {
        const pivotColumn = { user_name: sql`i.id`, device_name: sql`d.id`, rule_name: sql`r.id` }[sortKey];
        rows = await select([sql`${pivotColumn} = ANY(${intArray(keys)})`], page.limit, page.offset - Number(spans[0]?.before ?? 0));
      } else rows = [];
    }
    return {
      rows: rows.map((r) => ({
        ...r,
        user_id: r.user_id === null ? null : Number(r.user_id),
        identifier_id: Number(r.identifier_id),
        device_id: Number(r.device_id),
        lock_number: Number(r.lock_number),
        rule_id: Number(r.rule_id),
        schedules: r.schedules.map((x) => ({ id: Number(x.id), name: x.name })),
      })),
      total,
      estimated,
    };
  }

  /** Access events of the caller's devices, page after page from the newest (downloads). */
  async *accessEventPages(actor: Actor, q: Pick<ListQuery, 'filters' | 'sort'>, size = 1000) {
    for (let page = 1; ; page++) {
      const { rows } = await this.listAccessEvents(actor, { ...q, page, size, with: [] } as ListQuery);
      if (rows.length) yield rows;
      if (rows.length < size) return;
    }
  }
}

/**
 * (rule_id, identifier_id) for every identifier an access rule reaches, limited by `cond` on the
 * identifier (aliased `i`): named in the rule, owned by a user named in it, or owned by a member of
 * one of its groups or of a group below.
 */
function ruleIdentifiers(cond: SQL): SQL {
  return sql`SELECT x.rule_id, i.id AS identifier_id FROM access_rule_identifiers x JOIN identifiers i ON i.id = x.identifier_id WHERE ${cond}
    UNION SELECT x.rule_id, i.id FROM access_rule_users x JOIN identifiers i ON i.owner_id = x.user_id WHERE ${cond}
    UNION SELECT x.rule_id, i.id FROM access_rule_groups x
      JOIN groups g ON g.path @> ARRAY[x.group_id]
      JOIN user_groups ug ON ug.group_id = g.id
      JOIN identifiers i ON i.owner_id = ug.user_id WHERE ${cond}`;
}

/**
 * (device_id, identifier_id, rule_id, locks) for every lift controller an elevator access rule
 * reaches: the identifiers (limited by `cond` on `i`) of its users whose elevator access is not
 * disabled, on each enabled controller of its elevators, with the relay ports of the allowed floors.
 */
export function elevatorGrants(cond: SQL): SQL {
  return sql`SELECT ec.device_id, i.id AS identifier_id, er.rule_id,
      coalesce((SELECT array_agg(DISTINCT p.port ORDER BY p.port) FROM jsonb_array_elements(ec.floor_map) f,
        LATERAL (SELECT (jsonb_array_elements_text(f->'ports'))::int AS port) p
        WHERE (f->>'floor')::int = ANY(er.floors)), '{}') AS locks
    FROM elevator_rule_elevators er
    JOIN elevator_controllers ec ON ec.elevator_id = er.elevator_id AND ec.enabled
    JOIN elevator_rule_users eu ON eu.rule_id = er.rule_id
    JOIN users u ON u.id = eu.user_id AND NOT u.elevator_access_disabled
    JOIN identifiers i ON i.owner_id = u.id
    WHERE ${cond}`;
}

export function toSyncSchedule(r: typeof timeRules.$inferSelect): SyncSchedule {
  return {
    id: r.id,
    time_zone: r.timeZone,
    valid_from: r.validFrom,
    valid_to: r.validTo,
    is_all_day: r.isAllDay,
    entries: r.entries as SyncSchedule['entries'],
    exceptions: r.exceptions,
  };
}
