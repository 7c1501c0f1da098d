import type { ListQuery } from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, groupScopeCondition, intArray, qualifiedColumns, rowInScope, scopeOf } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Database, type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import {
  type Compiled,
  compileStatement,
  containsPattern,
  EXACT_TOTAL_CAP,
  filterShape,
  filtersSql,
  inPageOrder,
  type ListSpec,
  listPage,
  pageOffset,
  pageOfIds,
  plannerEstimate,
  runCompiled,
  sortKeys,
  sortSql,
} from '../../core/list-query.js';
import { deviceEvents, deviceStatus, devices, deviceTasks } from './devices.table.js';
import { copyChunks, EVENT_COLUMNS, STAGED_EVENTS, withoutNul } from './event-copy.js';

const D = qualifiedColumns(devices);

export const DEVICE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${D.id}`, type: 'number' },
    name: { expr: sql`${D.name}`, type: 'text' },
    description: { expr: sql`${D.description}`, type: 'text' },
    type: { expr: sql`${D.type}`, type: 'text' },
    model: { expr: sql`${D.model}`, type: 'text' },
    serial_number: { expr: sql`${D.serialNumber}`, type: 'text' },
    ip_address: { expr: sql`${D.ipAddress}`, type: 'text' },
    protocol: { expr: sql`${D.protocol}`, type: 'text' },
    domain_id: { expr: sql`${D.groupId}`, type: 'number' },
    online: { expr: sql`coalesce((SELECT s.online FROM device_status s WHERE s.device_id = ${D.id}), FALSE)`, type: 'boolean' },
    created_by: { expr: sql`${D.createdBy}`, type: 'number' },
    created_at: { expr: sql`${D.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${D.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${D.id} ASC`,
};

/** A database session's name that says its instance (instances.id) is alive. */
export const INSTANCE_SESSION_PREFIX = 'atrium-instance:';
/** device_status.instance_id of a device declared offline because its instance died. */
const GONE_PREFIX = 'gone:';

/** A device belongs to its one group. */
const target: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${D.groupId} AND ${cond})`,
  createdBy: sql`${D.createdBy}`,
};

export const devicePredicate = (actor: Actor, action: 'view' | 'edit' | 'delete'): SQL => {
  const view = aclPredicate(actor, 'devices', 'view', target);
  return action === 'view' ? view : sql`(${view} AND ${aclPredicate(actor, 'devices', action, target)})`;
};

export type DeviceRow = typeof devices.$inferSelect & {
  online: boolean;
  lastSeenAt: Date | string | null;
  firmware: string | null;
  editable: boolean;
  deletable: boolean;
};

const rowColumns = (actor: Actor) => ({
  ...getTableColumns(devices),
  online: sql<boolean>`coalesce(${deviceStatus.online}, FALSE)`,
  lastSeenAt: sql<string | null>`${deviceStatus.lastSeenAt}`,
  firmware: sql<string | null>`${deviceStatus.firmware}`,
  editable: sql<boolean>`coalesce(${devicePredicate(actor, 'edit')}, FALSE)`,
  deletable: sql<boolean>`coalesce(${devicePredicate(actor, 'delete')}, FALSE)`,
});

/** A device as a list shows it: its secrets only as whether they are set, its project left out. */
export type ListedDevice = Omit<DeviceRow, 'projectId' | 'passwordHash' | 'devicePassword' | 'settings'> & {
  passwordSet: boolean;
  devicePasswordSet: boolean;
  /** The stored settings as PostgreSQL's JSON text (toDevice reads each text once, see listedSettings). */
  settings: string;
};

/**
 * What the list reads of a device: the columns its answer shows, presence, and what decides
 * can_edit/can_delete in memory (the device's group, that group's path when a descendants scope
 * asks for it, its creator) instead of two ACL subqueries per row. The statement's text then does not
 * depend on the caller, so it can be prepared once and reused.
 */
function listedColumns(withPath: boolean) {
  const { projectId: _p, passwordHash: _h, devicePassword: _d, settings: _s, ...shown } = getTableColumns(devices);
  return {
    ...shown,
    settings: sql<string>`${D.settings}::text`,
    passwordSet: sql<boolean>`(${D.passwordHash} IS NOT NULL)`,
    devicePasswordSet: sql<boolean>`(${D.devicePassword} IS NOT NULL)`,
    online: sql<boolean>`coalesce(${deviceStatus.online}, FALSE)`,
    lastSeenAt: sql<string | null>`${deviceStatus.lastSeenAt}`,
    firmware: sql<string | null>`${deviceStatus.firmware}`,
    ...(withPath ? { groupPath: sql<number[] | null>`(SELECT g.path FROM groups g WHERE g.id = ${D.groupId})` } : {}),
  };
}

type ListedRow = Omit<ListedDevice, 'editable' | 'deletable'> & { groupPath?: number[] | null };

/** The actor's scopes for editing and deleting devices, found once for a page's rows. */
const listScopes = (actor: Actor) => ({ edit: scopeOf(actor, 'devices', 'edit'), delete: scopeOf(actor, 'devices', 'delete') });

/** The same rule as devicePredicate(actor, action) for a row the actor may view, decided in memory (core/acl.ts rowInScope). */
const mayOnListed = (actor: Actor, scope: ReturnType<typeof scopeOf>, r: ListedRow, action: 'edit' | 'delete') =>
  rowInScope(actor, scope, { action, groupId: r.groupId, groupPath: r.groupPath ?? [], createdBy: r.createdBy });

/**
 * A row read for the list, completed in place with what the actor may do with it: the rows are the
 * list's own, and a copy of every row of every page was a fair share of the route's garbage. What
 * it carries besides (the group's path, the total) is not in the answer, which toDevice builds key by key.
 */
function listed(actor: Actor, r: ListedRow, scopes: ReturnType<typeof listScopes>): ListedDevice {
  const row = r as ListedRow & Pick<ListedDevice, 'editable' | 'deletable'>;
  row.editable = mayOnListed(actor, scopes.edit, r, 'edit');
  row.deletable = mayOnListed(actor, scopes.delete, r, 'delete');
  return row;
}

/** Whether deciding an action on a listed device needs its group's path (scopes depend on permissions alone). */
const needsPath = (actor: Pick<Actor, 'permissions'>) =>
  ['edit', 'delete'].some((a) => scopeOf(actor as Actor, 'devices', a) === 'descendants');

/** Statements of the whole-project list kept prepared; beyond this many sort orders a statement is sent unnamed. */
const PREPARED_LIST_ORDERS = 64;

export type DeviceBySerial = typeof devices.$inferSelect & { online: boolean; groupPath: number[] };

export type TaskRow = typeof deviceTasks.$inferSelect & { deviceName: string; serialNumber: string };

const T = qualifiedColumns(deviceTasks);
export const TASK_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${T.id}`, type: 'number' },
    device_id: { expr: sql`${T.deviceId}`, type: 'number' },
    type: { expr: sql`${T.type}`, type: 'text' },
    state: { expr: sql`${T.state}`, type: 'text' },
    created_at: { expr: sql`${T.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${T.updatedAt}`, type: 'date' },
  },
  defaultSort: '-id',
  tiebreak: sql`${T.id} DESC`,
};

const E = qualifiedColumns(deviceEvents);
export const EVENT_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${E.id}`, type: 'number' },
    device_id: { expr: sql`${E.deviceId}`, type: 'number' },
    type: { expr: sql`${E.type}`, type: 'text' },
    identifier: { expr: sql`${E.identifier}`, type: 'text' },
    occurred_at: { expr: sql`${E.occurredAt}`, type: 'date' },
    received_at: { expr: sql`${E.receivedAt}`, type: 'date' },
  },
  defaultSort: '-occurred_at',
  tiebreak: sql`${E.id} DESC`,
};

/** Event sort fields that are never null, with the SQL type their text form casts back to (keyset paging). */
const KEYSET_FIELDS: Record<string, string | undefined> = {
  id: 'bigint',
  device_id: 'bigint',
  type: 'text',
  occurred_at: 'timestamptz',
  received_at: 'timestamptz',
};

export interface EventRow {
  id: number;
  deviceId: number;
  deviceName: string;
  type: string;
  identifier: string | null;
  data: Record<string, unknown>;
  occurredAt: Date | string;
  receivedAt: Date | string;
}

export interface NewEvent {
  projectId: number;
  deviceId: number;
  type: string;
  identifier: string | null;
  /** The device's own id of the event: stored once per device whatever how often it is sent. */
  eventId?: string | null;
  data: Record<string, unknown>;
  occurredAt: Date;
  /** When the server heard of it (a device's clock may be wrong, or a test's). */
  receivedAt?: Date;
}

export interface ClaimedTask {
  id: number;
  serial: string;
  type: string;
  payload: Record<string, unknown>;
  projectId: number;
  deviceId: number;
  /** The device's group, its path and creator: who may hear of the task (core/acl.ts RowAudience). */
  groupId: number | null;
  groupPath: number[];
  createdBy: number | null;
}

/** What a claimed task answers: the task, its device and who may see the device. */
const CLAIMED = sql`t.id, d.serial_number AS serial, t.type, t.payload, t.project_id AS "projectId", t.device_id AS "deviceId",
  d.group_id AS "groupId", (SELECT g.path FROM groups g WHERE g.id = d.group_id) AS "groupPath", d.created_by AS "createdBy"`;

/** States in which a task still waits for its device. */
const OPEN = sql`('new', 'waiting', 'queued', 'started')`;

/** A device as its own messages need it (bySerials). */
export interface DeviceOfSerial {
  id: number;
  projectId: number;
  serialNumber: string;
  type: string;
  model: string;
  passwordHash: string | null;
  protocol: string;
  groupId: number | null;
  groupPath: number[];
  createdBy: number | null;
}

export class DevicesRepository {
  /**
   * `copyFrom`: the database's COPY FROM STDIN (PostgreSQL), used for event floods; absent → INSERT.
   * `copyPipelined`: whether, right now, COPYs handed over before the previous one settled are stored
   * in order (Database.copyPipelined, which turns false if the COPY thread fails).
   */
  constructor(
    private readonly db: Db,
    private readonly copyFrom?: Database['copyFrom'],
    private readonly copyPipelined: () => boolean = () => false,
  ) {}

  // --- devices -----------------------------------------------------------------------------------

  async list(
    actor: Actor,
    q: ListQuery & { search?: string | undefined },
  ): Promise<{ rows: ListedDevice[]; total: number; estimated: boolean }> {
    // A call's values go beside the statement, which is compiled once per caller and shape (core/list-query.ts listPage).
    const values: Record<string, unknown> = {};
    const filters = filtersSql(DEVICE_LIST, q, values);
    const scope = scopeOf(actor, 'devices', 'view');
    if (!filters && !q.search && scope === 'all') return this.wholeProjectPage(actor, q);
    if (q.search) values.search = containsPattern(q.search);
    const withPath = needsPath(actor);
    const page = await listPage<ListedRow>(this.db, {
      owner: actor,
      shape: JSON.stringify(['devices', filterShape(q), !!q.search]),
      spec: DEVICE_LIST,
      query: q,
      values,
      statement: () => ({
        table: devices,
        id: sql`${D.id}`,
        where: this.listWhere(actor, scope, filters, !!q.search),
        columns: Object.fromEntries(Object.entries(listedColumns(withPath)).map(([name, column]) => [name, sql`${column}`])),
        joins: sql`LEFT JOIN ${deviceStatus} ON ${deviceStatus.deviceId} = ${D.id}`,
      }),
    });
    const scopes = listScopes(actor);
    return { rows: page.rows.map((r) => listed(actor, r, scopes)), total: page.total, estimated: page.estimated };
  }

  /** The filtered or scoped list's WHERE, with placeholders for the call's values (`search`, the filters'). */
  private listWhere(actor: Actor, scope: ReturnType<typeof scopeOf>, filters: SQL | undefined, search: boolean): SQL | undefined {
    const conds: (SQL | undefined)[] = [eq(devices.projectId, actor.projectId), filters];
    if (scope === 'domain' || scope === 'descendants') {
      // Visible ids gathered by index: the groups in scope, then their devices, plus what I created.
      conds.push(sql`(${D.groupId} IN (SELECT g.id FROM groups g WHERE g.project_id = ${actor.projectId} AND ${groupScopeCondition(actor, scope)})
        OR ${D.createdBy} = ${actor.userId})`);
    } else if (scope !== 'all') {
      conds.push(devicePredicate(actor, 'view'));
    }
    if (search) {
      const p = sql.placeholder('search');
      conds.push(sql`(${D.name} ILIKE ${p} OR ${D.serialNumber} ILIKE ${p} OR ${D.description} ILIKE ${p} OR ${D.ipAddress} ILIKE ${p})`);
    }
    return and(...conds);
  }

  private readonly listStatements = new Map<string, Compiled>();

  /**
   * A page of every device of the project, for a caller who sees them all, in ONE statement: the
   * page's rows with the columns the answer shows, and the total counted up to EXACT_TOTAL_CAP + 1.
   * Every device of the project matches, so walking the sort's index (devices_project_name for the
   * name) stops after the page; the gathered-ids plan of pageOfIds, which guards selective filters
   * against such a walk, would read and sort every device for each page. Measured on 10,000
   * devices (docs/decisions.md, "The devices list in one prepared statement").
   */
  private async wholeProjectPage(actor: Actor, q: ListQuery): Promise<{ rows: ListedDevice[]; total: number; estimated: boolean }> {
    const withPath = needsPath(actor);
    const key = `${q.sort ?? ''}|${withPath}`;
    let statement = this.listStatements.get(key);
    if (!statement) {
      // The sort is checked (and a bad one refused) before anything is prepared.
      const order = sortSql(DEVICE_LIST, q);
      const named = this.listStatements.size < PREPARED_LIST_ORDERS;
      statement = compileStatement(this.wholeProjectQuery(order, withPath), named ? 'atrium_devices_list' : undefined);
      if (named) this.listStatements.set(key, statement);
    }
    const found = await runCompiled<ListedRow & { total: number }>(this.db, statement, {
      projectId: actor.projectId,
      cap: EXACT_TOTAL_CAP + 1,
      size: q.size,
      offset: pageOffset(q),
    });
    let total = found[0]?.total;
    if (total === undefined) {
      // An empty page: past the end, or no device at all. Count (capped) to tell the total.
      const [c] = await queryRows<{ n: number }>(
        this.db,
        sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM devices WHERE project_id = ${actor.projectId} LIMIT ${EXACT_TOTAL_CAP + 1}) capped`,
      );
      total = Number(c?.n ?? 0);
    }
    const scopes = listScopes(actor);
    const rows = found.map((r) => listed(actor, r, scopes));
    if (total <= EXACT_TOTAL_CAP) return { rows, total, estimated: false };
    const estimate = await plannerEstimate(this.db, sql`SELECT 1 FROM devices WHERE project_id = ${actor.projectId}`);
    return { rows, total: Math.max(estimate, EXACT_TOTAL_CAP + 1), estimated: true };
  }

  /**
   * Placeholders: projectId, cap (EXACT_TOTAL_CAP + 1), size, offset. The page's ids come first, from
   * the sort's index alone; only those rows are then read, joined and projected (an OFFSET deep in
   * the list would otherwise read, join and project every row it skips).
   */
  private wholeProjectQuery(order: SQL[], withPath: boolean): SQL {
    const projectId = sql.placeholder('projectId');
    const pageIds = sql`SELECT ${D.id} FROM ${devices} WHERE ${D.projectId} = ${projectId}
      ORDER BY ${sql.join(order, sql`, `)} LIMIT ${sql.placeholder('size')} OFFSET ${sql.placeholder('offset')}`;
    // Each column named as ListedRow names it: the driver's rows are the list's rows.
    const columns = Object.entries(listedColumns(withPath)).map(([name, column]) => sql`${column} AS ${sql.identifier(name)}`);
    return sql`SELECT ${sql.join(columns, sql`, `)},
        (SELECT count(*) FROM (SELECT 1 FROM devices c WHERE c.project_id = ${projectId} LIMIT ${sql.placeholder('cap')}) n)::int AS total
      FROM ${devices} LEFT JOIN ${deviceStatus} ON ${deviceStatus.deviceId} = ${D.id}
      WHERE ${D.projectId} = ${projectId} AND ${D.id} IN (${pageIds})
      ORDER BY ${sql.join(order, sql`, `)}`;
  }

  /**
   * The text of the statement a whole-project page sends, with its parameters (a placeholder's
   * name where the page fills one in): what the devices benchmark gives pgbench as its baseline.
   */
  listStatementText(sort: string | undefined, caller: Pick<Actor, 'permissions'>): { sql: string; params: unknown[] } {
    const c = compileStatement(this.wholeProjectQuery(sortSql(DEVICE_LIST, { sort }), needsPath(caller)));
    return { sql: c.text, params: c.params };
  }

  /** A device of the actor's project with what the actor may do with it; canView false when out of scope. */
  async find(db: DbOrTx, actor: Actor, id: number, lock = false): Promise<(DeviceRow & { canView: boolean }) | undefined> {
    if (lock) await db.execute(sql`SELECT 1 FROM devices WHERE id = ${id} FOR UPDATE`);
    const [row] = await db
      .select({ ...rowColumns(actor), canView: sql<boolean>`coalesce(${devicePredicate(actor, 'view')}, FALSE)` })
      .from(devices)
      .leftJoin(deviceStatus, eq(deviceStatus.deviceId, devices.id))
      .where(and(eq(devices.projectId, actor.projectId), eq(devices.id, id)));
    return row as (DeviceRow & { canView: boolean }) | undefined;
  }

  async raw(actor: Actor, type: string | undefined) {
    return this.db
      .select({ id: devices.id, name: devices.name, description: devices.description, type: devices.type, model: devices.model })
      .from(devices)
      .where(and(eq(devices.projectId, actor.projectId), devicePredicate(actor, 'view'), type ? eq(devices.type, type) : undefined))
      .orderBy(devices.name, devices.id)
      .limit(10_000);
  }

  async serialTaken(serial: string, exceptId = 0): Promise<boolean> {
    const r = await queryRows(this.db, sql`SELECT 1 FROM devices WHERE serial_number = ${serial} AND id <> ${exceptId}`);
    return r.length > 0;
  }

  /** The ids among `ids` of groups the actor may place devices in (the project's groups within `scope`). */
  async groupsInScope(actor: Actor, scope: 'all' | 'domain' | 'descendants', ids: readonly number[]): Promise<Set<number>> {
    const cond = scope === 'all' ? sql`TRUE` : groupScopeCondition(actor, scope);
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT g.id FROM groups g WHERE g.project_id = ${actor.projectId} AND g.id = ANY(${intArray(ids)}) AND ${cond}`,
    );
    return new Set(rows.map((r) => Number(r.id)));
  }

  async insert(tx: DbOrTx, values: typeof devices.$inferInsert): Promise<number> {
    const [r] = await tx.insert(devices).values(values).returning({ id: devices.id });
    return r!.id;
  }

  async update(tx: DbOrTx, id: number, values: Partial<typeof devices.$inferInsert>): Promise<void> {
    await tx
      .update(devices)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(devices.id, id));
  }

  async remove(tx: DbOrTx, id: number): Promise<void> {
    await tx.delete(devices).where(eq(devices.id, id));
  }

  async allSerials(): Promise<string[]> {
    return (await this.db.select({ s: devices.serialNumber }).from(devices)).map((r) => r.s);
  }

  /** A device by its serial number, on any project: the broker knows devices only by serial. */
  /** Just which device and project a serial number is (the events path asks this for every new sender). */
  async idOfSerial(serial: string): Promise<{ id: number; projectId: number } | undefined> {
    return (await this.idsOfSerials([serial])).get(serial);
  }

  /** The same for many serial numbers in one query (the events path resolves its new senders in batches). */
  async idsOfSerials(serials: readonly string[]): Promise<Map<string, { id: number; projectId: number }>> {
    const found = new Map<string, { id: number; projectId: number }>();
    if (!serials.length) return found;
    const rows = await queryRows<{ id: number; project_id: number; serial_number: string }>(
      this.db,
      // The list as one JSON parameter: any characters, one statement whatever its length.
      sql`SELECT id, project_id, serial_number FROM devices
        WHERE serial_number IN (SELECT jsonb_array_elements_text(${JSON.stringify(serials)}::jsonb))`,
    );
    for (const r of rows) found.set(r.serial_number, { id: Number(r.id), projectId: Number(r.project_id) });
    return found;
  }

  async bySerial(serial: string): Promise<DeviceBySerial | undefined> {
    const [r] = await this.db
      .select({
        ...getTableColumns(devices),
        online: sql<boolean>`coalesce(${deviceStatus.online}, FALSE)`,
        groupPath: sql<number[]>`(SELECT g.path FROM groups g WHERE g.id = ${devices.groupId})`,
      })
      .from(devices)
      .leftJoin(deviceStatus, eq(deviceStatus.deviceId, devices.id))
      .where(eq(devices.serialNumber, serial));
    return r ? { ...r, groupPath: (r.groupPath ?? []).map(Number) } : undefined;
  }

  /**
   * Records what a device said of itself and answers whether its online state changed. Every
   * instance hears a device's status: the row lock makes exactly one of them see the change (and
   * tell people about it), whatever the order in which they arrive.
   */
  async setPresence(
    deviceId: number,
    v: { online: boolean; firmware?: string | null; capabilities?: Record<string, unknown> | null },
  ): Promise<{ changed: boolean }> {
    await this.db.insert(deviceStatus).values({ deviceId, online: false }).onConflictDoNothing();
    const extra = [
      ...(v.firmware !== undefined ? [sql`firmware = ${v.firmware}`] : []),
      ...(v.capabilities !== undefined
        ? [sql`capabilities = ${v.capabilities === null ? null : JSON.stringify(v.capabilities)}::jsonb`]
        : []),
    ];
    const rows = await queryRows<{ was: boolean }>(
      this.db,
      sql`UPDATE device_status s SET online = ${v.online}, last_seen_at = now()${sql.join(
        extra.map((e) => sql`, ${e}`),
        sql``,
      )}
        FROM (SELECT device_id, online AS was FROM device_status WHERE device_id = ${deviceId} FOR UPDATE) p
        WHERE s.device_id = p.device_id
        RETURNING p.was`,
    );
    return { changed: rows[0] !== undefined && rows[0].was !== v.online };
  }

  /** When devices were last heard from: one statement for a whole flush of the gateway. */
  async touchLastSeen(seen: ReadonlyMap<string, Date>): Promise<void> {
    if (!seen.size) return;
    const serials = [...seen.keys()];
    const times = serials.map((s) => seen.get(s)!.toISOString());
    await this.db.execute(
      sql`UPDATE device_status s SET last_seen_at = GREATEST(s.last_seen_at, x.at)
        FROM devices d, unnest(${sql`ARRAY[${sql.join(
          serials.map((x) => sql`${x}`),
          sql`, `,
        )}]::text[]`}, ${sql`ARRAY[${sql.join(
          times.map((x) => sql`${x}`),
          sql`, `,
        )}]::timestamptz[]`}) AS x(serial, at)
        WHERE d.serial_number = x.serial AND s.device_id = d.id`,
    );
  }

  async syncErrors(deviceId: number): Promise<{ entity: string; id: number; message: string }[] | null> {
    const [r] = await this.db.select({ e: deviceStatus.syncErrors }).from(deviceStatus).where(eq(deviceStatus.deviceId, deviceId));
    return r?.e ?? null;
  }

  async setSyncErrors(deviceId: number, errors: { entity: string; id: number; message: string }[]): Promise<void> {
    await this.db
      .insert(deviceStatus)
      .values({ deviceId, syncErrors: errors })
      .onConflictDoUpdate({ target: deviceStatus.deviceId, set: { syncErrors: errors } });
  }

  /**
   * Users to tell about a device (its group's device_status_notify with the flag set), with what
   * the message names: the device, its group.
   */
  async notifyTargets(deviceId: number, flag: 'notify_about_offline_device' | 'notify_about_device_task_failed') {
    return queryRows<{ user_id: number; device: string; group: string }>(
      this.db,
      sql`SELECT DISTINCT (n->>'user_id')::int AS user_id, d.name AS device, g.name AS group
        FROM devices d JOIN groups g ON g.id = d.group_id, jsonb_array_elements(g.device_status_notify) n
        WHERE d.id = ${deviceId} AND (n->>${flag})::boolean IS TRUE
          AND EXISTS (SELECT 1 FROM users u WHERE u.id = (n->>'user_id')::int AND u.project_id = d.project_id)`,
    );
  }

  /** What a notice about a device names: the device, its serial number and its group. */
  async label(deviceId: number): Promise<{ device: string; serial_number: string; group: string } | undefined> {
    const [row] = await queryRows<{ device: string; serial_number: string; group: string }>(
      this.db,
      sql`SELECT d.name AS device, d.serial_number, coalesce(g.name, '') AS group
        FROM devices d LEFT JOIN groups g ON g.id = d.group_id WHERE d.id = ${deviceId}`,
    );
    return row;
  }

  // --- tasks -------------------------------------------------------------------------------------

  async insertTask(
    tx: DbOrTx,
    v: { projectId: number; deviceId: number; type: string; payload: Record<string, unknown>; createdBy: number | null },
  ): Promise<number> {
    const [r] = await tx.insert(deviceTasks).values(v).returning({ id: deviceTasks.id });
    return r!.id;
  }

  /**
   * Queues tasks for many devices in one statement (a sync fan-out): waiting for devices that are
   * offline, new for the others; devices on protocol none are skipped, and so are devices on http,
   * which nothing serves yet (their tasks would wait forever). Answers how many were queued.
   */
  async insertTasks(
    tx: DbOrTx,
    tasks: readonly { deviceId: number; type: string; payload: Record<string, unknown> }[],
    createdBy: number | null,
  ): Promise<number> {
    return (await this.insertTaskIds(tx, tasks, createdBy)).length;
  }

  /** As insertTasks, answering the ids of the tasks queued, in the order given (devices not on mqtt left out). */
  async insertTaskIds(
    tx: DbOrTx,
    tasks: readonly { deviceId: number; type: string; payload: Record<string, unknown> }[],
    createdBy: number | null,
  ): Promise<number[]> {
    if (!tasks.length) return [];
    const json = JSON.stringify(tasks.map((t, i) => ({ n: i, device_id: t.deviceId, type: t.type, payload: t.payload })));
    const rows = await queryRows<{ id: number }>(
      tx,
      sql`INSERT INTO device_tasks (project_id, device_id, type, payload, state, created_by)
        SELECT d.project_id, d.id, x.type, x.payload, CASE WHEN coalesce(s.online, FALSE) THEN 'new' ELSE 'waiting' END, ${createdBy}
        FROM jsonb_to_recordset(${json}::jsonb) AS x(n int, device_id int, type text, payload jsonb)
        JOIN devices d ON d.id = x.device_id AND d.protocol = 'mqtt'
        LEFT JOIN device_status s ON s.device_id = d.id
        ORDER BY x.n
        RETURNING id`,
    );
    return rows.map((r) => Number(r.id));
  }

  /** A task's state and error, whoever asks (the caller already knows the task is theirs). */
  async taskOutcome(id: number): Promise<{ state: string; error: string | null } | undefined> {
    const [r] = await queryRows<{ state: string; error: string | null }>(
      this.db,
      sql`SELECT state, error FROM device_tasks WHERE id = ${id}`,
    );
    return r;
  }

  /** Stops a task that no device has started yet (its caller gave up waiting); answers whether it did. */
  async stopUnstarted(id: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`UPDATE device_tasks SET state = 'stopped', finished_at = now(), updated_at = now()
        WHERE id = ${id} AND state IN ('new', 'waiting', 'queued') RETURNING id`,
    );
    return rows.length > 0;
  }

  // --- broker settings sendings ------------------------------------------------------------------

  /** The devices broker settings go to: the project's devices on mqtt that were initialised (they sign in). */
  async brokerTargets(tx: DbOrTx, projectId: number): Promise<number[]> {
    const rows = await queryRows<{ id: number }>(
      tx,
      sql`SELECT id FROM devices WHERE project_id = ${projectId} AND protocol = 'mqtt' AND password_hash IS NOT NULL ORDER BY id`,
    );
    return rows.map((r) => Number(r.id));
  }

  /**
   * Stops the project's broker_settings tasks no device has started yet: a newer sending carries
   * the settings in force, and an older one arriving after it would undo it.
   */
  async supersedeBrokerTasks(tx: DbOrTx, projectId: number): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      tx,
      sql`UPDATE device_tasks SET state = 'stopped', error = 'superseded', finished_at = now(), updated_at = now()
        WHERE project_id = ${projectId} AND type = 'broker_settings' AND state IN ('new', 'waiting', 'queued') RETURNING id`,
    );
    return rows.length;
  }

  async insertBrokerSend(tx: DbOrTx, v: { projectId: number; userId: number | null; taskIds: number[]; deadline: Date }): Promise<number> {
    const [r] = await queryRows<{ id: number }>(
      tx,
      sql`INSERT INTO device_broker_sends (project_id, user_id, task_ids, deadline)
        VALUES (${v.projectId}, ${v.userId}, ${intArray(v.taskIds)}, ${v.deadline.toISOString()}::timestamptz) RETURNING id`,
    );
    return Number(r!.id);
  }

  /**
   * Concludes the sendings whose outcome is known (every task ended) or whose deadline passed, each
   * once across instances (the row's update decides), answering them with each task's outcome.
   */
  async concludeBrokerSends(): Promise<
    {
      id: number;
      projectId: number;
      userId: number | null;
      taskIds: number[];
      tasks: { id: number; device_id: number; name: string; serial_number: string; state: string; error: string | null }[];
    }[]
  > {
    const rows = await queryRows<{ id: number; project_id: number; user_id: number | null; task_ids: number[] }>(
      this.db,
      sql`UPDATE device_broker_sends s SET concluded_at = now()
        WHERE s.concluded_at IS NULL
          AND (s.deadline <= now() OR NOT EXISTS (
            SELECT 1 FROM device_tasks t WHERE t.id = ANY(s.task_ids) AND t.state NOT IN ('completed', 'error', 'stopped')))
        RETURNING s.id, s.project_id, s.user_id, s.task_ids`,
    );
    const out = [];
    for (const r of rows) {
      const taskIds = (r.task_ids ?? []).map(Number);
      const tasks = taskIds.length
        ? await queryRows<{ id: number; device_id: number; name: string; serial_number: string; state: string; error: string | null }>(
            this.db,
            sql`SELECT t.id, t.device_id, d.name, d.serial_number, t.state, t.error
              FROM device_tasks t JOIN devices d ON d.id = t.device_id WHERE t.id = ANY(${intArray(taskIds)}) ORDER BY d.name, t.id`,
          )
        : [];
      out.push({
        id: Number(r.id),
        projectId: Number(r.project_id),
        userId: r.user_id === null ? null : Number(r.user_id),
        taskIds,
        tasks: tasks.map((t) => ({ ...t, id: Number(t.id), device_id: Number(t.device_id) })),
      });
    }
    return out;
  }

  private taskSelect(db: DbOrTx) {
    return db
      .select({ ...getTableColumns(deviceTasks), deviceName: devices.name, serialNumber: devices.serialNumber })
      .from(deviceTasks)
      .innerJoin(devices, eq(devices.id, deviceTasks.deviceId));
  }

  async task(db: DbOrTx, actor: Actor, id: number): Promise<TaskRow | undefined> {
    const [r] = await this.taskSelect(db).where(
      and(eq(deviceTasks.projectId, actor.projectId), eq(deviceTasks.id, id), devicePredicate(actor, 'view')),
    );
    return r as TaskRow | undefined;
  }

  async tasks(actor: Actor, q: ListQuery): Promise<{ rows: TaskRow[]; total: number; estimated: boolean }> {
    const where = and(
      eq(deviceTasks.projectId, actor.projectId),
      filtersSql(TASK_LIST, q),
      sql`${T.deviceId} IN (SELECT ${D.id} FROM devices WHERE ${D.projectId} = ${actor.projectId} AND ${devicePredicate(actor, 'view')})`,
    );
    const page = await pageOfIds(this.db, { table: deviceTasks, id: sql`${T.id}`, where, spec: TASK_LIST, query: q });
    const rows = page.ids.length ? await this.taskSelect(this.db).where(sql`${T.id} = ANY(${intArray(page.ids)})`) : [];
    return { rows: inPageOrder(page.ids, rows as TaskRow[]), total: page.total, estimated: page.estimated };
  }

  async setTask(db: DbOrTx, id: number, values: Partial<typeof deviceTasks.$inferInsert>): Promise<void> {
    await db
      .update(deviceTasks)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(deviceTasks.id, id));
  }

  /** Moves a task to the end of its device's queue (restart). */
  async requeueTask(db: DbOrTx, id: number): Promise<void> {
    await db.execute(sql`UPDATE device_tasks SET state = 'new', error = NULL, sent_at = NULL, started_at = NULL, finished_at = NULL,
      seq = nextval('device_task_seq'), updated_at = now() WHERE id = ${id}`);
  }

  async removeTask(db: DbOrTx, id: number): Promise<void> {
    await db.delete(deviceTasks).where(eq(deviceTasks.id, id));
  }

  /**
   * Claims the next task of each online device whose queue has nothing in flight, at most `limit`,
   * and marks them queued. Rows are locked with SKIP LOCKED, so instances sharing the database never
   * claim the same task; a device's later tasks wait until its head task is done, so each device
   * runs its tasks one at a time, in order. With `deviceId`, only the head task of that device (or
   * of each of those devices).
   */
  async claim(deviceId: number | readonly number[] | null, limit: number): Promise<ClaimedTask[]> {
    const only =
      deviceId === null
        ? sql``
        : typeof deviceId === 'number'
          ? sql`AND t.device_id = ${deviceId}`
          : sql`AND t.device_id = ANY(${intArray(deviceId)})`;
    // One statement, locking and claiming together (as reclaimStale): the sweep looks every few
    // seconds on every instance, and mostly finds nothing.
    return queryRows<ClaimedTask>(
      this.db,
      sql`WITH ready AS MATERIALIZED (SELECT t.id FROM device_tasks t
          JOIN device_status s ON s.device_id = t.device_id AND s.online
          JOIN devices d ON d.id = t.device_id AND d.protocol <> 'none'
          WHERE t.state IN ('new', 'waiting') ${only}
            AND t.seq = (SELECT min(o.seq) FROM device_tasks o WHERE o.device_id = t.device_id AND o.state IN ${OPEN})
          ORDER BY t.seq LIMIT ${limit} FOR UPDATE OF t SKIP LOCKED)
        UPDATE device_tasks t SET state = 'queued', sent_at = now(), updated_at = now(), attempts = t.attempts + 1
          FROM devices d, ready WHERE d.id = t.device_id AND t.id = ready.id AND t.state IN ('new', 'waiting')
          RETURNING ${CLAIMED}`,
    );
  }

  /**
   * Queued or started tasks whose lease ran out without a word from the device (the instance that
   * sent them died, or the message was lost): claimed again, once, by whichever instance sees them.
   */
  async reclaimStale(leaseSeconds: number, limit: number): Promise<ClaimedTask[]> {
    // One statement, locking and claiming together: every instance runs this every few seconds, idle
    // or not, and a transaction around a look that mostly finds nothing made it three statements.
    return queryRows<ClaimedTask>(
      this.db,
      sql`WITH stale AS MATERIALIZED (SELECT t.id FROM device_tasks t JOIN device_status s ON s.device_id = t.device_id AND s.online
          WHERE t.state = 'queued' AND t.sent_at < now() - make_interval(secs => ${leaseSeconds})
          ORDER BY t.seq LIMIT ${limit} FOR UPDATE OF t SKIP LOCKED)
        UPDATE device_tasks t SET sent_at = now(), updated_at = now(), attempts = t.attempts + 1
          FROM devices d, stale WHERE d.id = t.device_id AND t.id = stale.id
          RETURNING ${CLAIMED}`,
    );
  }

  /** A device went offline (or several did): what was handed to it waits for it to come back. */
  async parkInFlight(db: DbOrTx, deviceId: number | readonly number[]): Promise<void> {
    const which = typeof deviceId === 'number' ? sql`device_id = ${deviceId}` : sql`device_id = ANY(${intArray(deviceId)})`;
    await db.execute(sql`UPDATE device_tasks SET state = 'waiting', updated_at = now()
      WHERE ${which} AND state IN ('new', 'queued', 'started')`);
  }

  /**
   * Open tasks of devices on http end as errors with `reason`: no HTTP endpoint serves devices yet, so
   * they would otherwise wait forever. Answers the tasks ended, with their devices (for the consoles).
   */
  async failUnservedTasks(reason: string): Promise<{ id: number; project_id: number; device_id: number; type: string }[]> {
    return queryRows(
      this.db,
      sql`UPDATE device_tasks t SET state = 'error', error = ${reason}, finished_at = now(), updated_at = now()
        FROM devices d WHERE d.id = t.device_id AND d.protocol = 'http' AND t.state IN ${OPEN}
        RETURNING t.id, t.project_id, t.device_id, t.type`,
    );
  }

  /** Open tasks of a device end as stopped (protocol none). */
  async stopOpen(db: DbOrTx, deviceId: number): Promise<void> {
    await db.execute(sql`UPDATE device_tasks SET state = 'stopped', finished_at = now(), updated_at = now()
      WHERE device_id = ${deviceId} AND state IN ${OPEN}`);
  }

  /**
   * Applies a device's report on a task, only along an allowed transition: a replayed or late
   * result for a finished task changes nothing. Answers the task's new state, or null when ignored.
   */
  async advance(deviceId: number, taskId: number, state: 'started' | 'completed' | 'error', error: string | null) {
    const from = state === 'started' ? sql`('queued')` : sql`('queued', 'started')`;
    const rows = await queryRows<{ id: number; state: string; project_id: number; type: string; device_id: number }>(
      this.db,
      sql`UPDATE device_tasks SET state = ${state}, error = ${state === 'error' ? (error ?? 'error') : null}, updated_at = now(),
        started_at = CASE WHEN ${state} = 'started' THEN now() ELSE started_at END,
        finished_at = CASE WHEN ${state} <> 'started' THEN now() ELSE finished_at END
        WHERE id = ${taskId} AND device_id = ${deviceId} AND state IN ${from}
        RETURNING id, state, project_id, type, device_id`,
    );
    return rows[0] ?? null;
  }

  /** The remote-control task of a session, with its device. */
  /**
   * As `advance` for the reports of many devices in one statement (at most one report per task: the
   * caller keeps a task's later reports for the next call). Answers the tasks that moved.
   */
  async advanceMany(
    reports: readonly { deviceId: number; taskId: number; state: 'started' | 'completed' | 'error'; error: string | null }[],
  ) {
    if (!reports.length) return [];
    const json = JSON.stringify(
      reports.map((r) => ({
        task_id: r.taskId,
        device_id: r.deviceId,
        state: r.state,
        error: r.state === 'error' ? (r.error ?? 'error') : null,
      })),
    );
    return queryRows<{ id: number; state: string; project_id: number; type: string; device_id: number }>(
      this.db,
      sql`UPDATE device_tasks t SET state = x.state, error = x.error, updated_at = now(),
        started_at = CASE WHEN x.state = 'started' THEN now() ELSE t.started_at END,
        finished_at = CASE WHEN x.state <> 'started' THEN now() ELSE t.finished_at END
        FROM jsonb_to_recordset(${json}::jsonb) AS x(task_id int, device_id int, state text, error text)
        WHERE t.id = x.task_id AND t.device_id = x.device_id
          AND (t.state = 'queued' OR (x.state <> 'started' AND t.state = 'started'))
        RETURNING t.id, t.state, t.project_id, t.type, t.device_id`,
    );
  }

  /** Whether this is a sync task of this device still waiting for its result (a sync acknowledgement counts only for one). */
  async isPendingSync(deviceId: number, taskId: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT id FROM device_tasks WHERE id = ${taskId} AND device_id = ${deviceId} AND type = 'sync' AND state IN ('queued', 'started')`,
    );
    return rows.length > 0;
  }

  /** The devices among these with a full sync not finished yet (waiting, or on its way). */
  async withOpenFullSync(db: DbOrTx, deviceIds: readonly number[]): Promise<Set<number>> {
    if (!deviceIds.length) return new Set();
    const rows = await queryRows<{ device_id: number }>(
      db,
      sql`SELECT DISTINCT device_id FROM device_tasks WHERE device_id = ANY(${intArray(deviceIds)}) AND state IN ${OPEN}
        AND type = 'sync' AND payload->>'mode' = 'full'`,
    );
    return new Set(rows.map((r) => Number(r.device_id)));
  }

  /**
   * Stops the delta syncs of these devices not handed over yet: a full sync queued after them in the
   * same transaction carries what they would (their changes committed before it was built).
   */
  async supersedeDeltas(db: DbOrTx, deviceIds: readonly number[]): Promise<void> {
    await db.execute(sql`UPDATE device_tasks SET state = 'stopped', error = 'superseded by a full sync', finished_at = now(), updated_at = now()
      WHERE device_id = ANY(${intArray(deviceIds)}) AND state IN ('new', 'waiting') AND type = 'sync' AND payload->>'mode' = 'delta'`);
  }

  /** What a device's messages need, for many serial numbers in one query: id, project, password and the audience of its news. */
  async bySerials(serials: readonly string[]): Promise<Map<string, DeviceOfSerial>> {
    const found = new Map<string, DeviceOfSerial>();
    if (!serials.length) return found;
    const rows = await queryRows<{
      id: number;
      project_id: number;
      serial_number: string;
      type: string;
      model: string;
      password_hash: string | null;
      protocol: string;
      group_id: number | null;
      group_path: number[] | null;
      created_by: number | null;
    }>(
      this.db,
      sql`SELECT d.id, d.project_id, d.serial_number, d.type, d.model, d.password_hash, d.protocol, d.group_id, d.created_by,
          (SELECT g.path FROM groups g WHERE g.id = d.group_id) AS group_path
        FROM devices d WHERE d.serial_number IN (SELECT jsonb_array_elements_text(${JSON.stringify(serials)}::jsonb))`,
    );
    for (const r of rows) {
      found.set(r.serial_number, {
        id: Number(r.id),
        projectId: Number(r.project_id),
        serialNumber: r.serial_number,
        type: r.type,
        model: r.model,
        passwordHash: r.password_hash,
        protocol: r.protocol,
        groupId: r.group_id === null ? null : Number(r.group_id),
        groupPath: (r.group_path ?? []).map(Number),
        createdBy: r.created_by === null ? null : Number(r.created_by),
      });
    }
    return found;
  }

  /**
   * As `setPresence` for many devices in one statement each (at most one report per device). Answers
   * the devices whose online state changed: the row locks tell exactly one instance of each change.
   */
  async setPresenceMany(
    reports: readonly { deviceId: number; online: boolean; firmware?: string | null; capabilities?: Record<string, unknown> | null }[],
    /** The instance whose gateway heard the reports: an online device is its to judge from then on. */
    instanceId: string | null = null,
  ): Promise<Set<number>> {
    const changed = new Set<number>();
    if (!reports.length) return changed;
    const json = JSON.stringify(
      reports.map((r) => ({
        device_id: r.deviceId,
        online: r.online,
        set_firmware: r.firmware !== undefined,
        firmware: r.firmware ?? null,
        set_capabilities: r.capabilities !== undefined,
        capabilities: r.capabilities ?? null,
      })),
    );
    await this.db.execute(
      sql`INSERT INTO device_status (device_id, online)
        SELECT x.device_id, FALSE FROM jsonb_to_recordset(${json}::jsonb) AS x(device_id int)
        ORDER BY x.device_id ON CONFLICT DO NOTHING`,
    );
    const rows = await queryRows<{ device_id: number; was: boolean; online: boolean }>(
      this.db,
      sql`UPDATE device_status s SET online = x.online, last_seen_at = now(),
          instance_id = CASE WHEN x.online THEN coalesce(${instanceId}::text, s.instance_id) ELSE s.instance_id END,
          firmware = CASE WHEN x.set_firmware THEN x.firmware ELSE s.firmware END,
          capabilities = CASE WHEN x.set_capabilities THEN x.capabilities ELSE s.capabilities END
        FROM jsonb_to_recordset(${json}::jsonb) AS x(device_id int, online boolean, set_firmware boolean, firmware text,
            set_capabilities boolean, capabilities jsonb),
          (SELECT device_id, online AS was FROM device_status
            WHERE device_id IN (SELECT (e->>'device_id')::int FROM jsonb_array_elements(${json}::jsonb) e)
            ORDER BY device_id FOR UPDATE) p
        WHERE s.device_id = x.device_id AND p.device_id = x.device_id
        RETURNING s.device_id, p.was, s.online`,
    );
    for (const r of rows) if (r.was !== r.online) changed.add(Number(r.device_id));
    return changed;
  }

  /**
   * One look of the liveness check, in one statement (it runs every few seconds on every instance,
   * idle or not): `orphans`, online devices whose instance is not alive (no fresh row in
   * `instances`, or, with `sessions`, no database session of its own: a killed process loses it at
   * once), other than `me`'s; and `taken`, devices another instance declared offline while `me`
   * seemed dead (offlineOrphans marks them `gone:` and its id), which `me` may still hear.
   */
  async livenessLook(me: string, sessions: boolean, goneMs: number, limit = 5000) {
    const alive = sessions
      ? sql`EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = ${INSTANCE_SESSION_PREFIX} || s.instance_id)`
      : sql`TRUE`;
    const rows = await queryRows<{ taken: boolean; device_id: number; serial: string; instance_id: string | null }>(
      this.db,
      sql`(SELECT FALSE AS taken, s.device_id, d.serial_number AS serial, s.instance_id FROM device_status s JOIN devices d ON d.id = s.device_id
          WHERE s.online AND s.instance_id IS DISTINCT FROM ${me}
            AND NOT (EXISTS (SELECT 1 FROM instances i WHERE i.id = s.instance_id
                AND i.seen_at > now() - make_interval(secs => ${goneMs / 1000})) AND ${alive})
          ORDER BY s.device_id LIMIT ${limit})
        UNION ALL
        (SELECT TRUE, s.device_id, d.serial_number, s.instance_id FROM device_status s JOIN devices d ON d.id = s.device_id
          WHERE NOT s.online AND s.instance_id = ${GONE_PREFIX + me} LIMIT ${limit})`,
    );
    return { orphans: rows.filter((r) => !r.taken), taken: rows.filter((r) => r.taken) };
  }

  /** Takes over devices still held by `from` (a dead instance) that `me`'s gateway hears. */
  async takeOver(deviceIds: readonly number[], from: string | null, me: string): Promise<void> {
    if (!deviceIds.length) return;
    await this.db.execute(
      sql`UPDATE device_status SET instance_id = ${me}
        WHERE device_id IN (${sql.join(
          deviceIds.map((id) => sql`${id}`),
          sql`, `,
        )}) AND instance_id IS NOT DISTINCT FROM ${from}::text`,
    );
  }

  /**
   * Declares offline the devices still held by `from` (a dead instance), marked as taken from it;
   * answers those whose state this statement changed (one instance of many tells people).
   */
  async offlineOrphans(deviceIds: readonly number[], from: string | null): Promise<Set<number>> {
    const changed = new Set<number>();
    if (!deviceIds.length) return changed;
    const rows = await queryRows<{ device_id: number }>(
      this.db,
      sql`UPDATE device_status s SET online = FALSE, instance_id = ${GONE_PREFIX} || coalesce(s.instance_id, '')
        FROM (SELECT device_id FROM device_status WHERE device_id IN (${sql.join(
          deviceIds.map((id) => sql`${id}`),
          sql`, `,
        )}) ORDER BY device_id FOR UPDATE) p
        WHERE s.device_id = p.device_id AND s.online AND s.instance_id IS NOT DISTINCT FROM ${from}::text
        RETURNING s.device_id`,
    );
    for (const r of rows) changed.add(Number(r.device_id));
    return changed;
  }

  async remoteSession(projectId: number, session: string) {
    const [r] = await queryRows<{ id: number; device_id: number; created_by: number | null; expires_at: string }>(
      this.db,
      sql`SELECT id, device_id, created_by, payload->>'expires_at' AS expires_at FROM device_tasks
        WHERE project_id = ${projectId} AND type = 'remote_control' AND payload->>'session' = ${session}`,
    );
    return r;
  }

  /** The remote-control sessions of a device that have not run out, with who opened each. */
  async liveRemoteSessions(deviceId: number) {
    return queryRows<{ session: string; created_by: number | null }>(
      this.db,
      sql`SELECT payload->>'session' AS session, created_by FROM device_tasks
        WHERE device_id = ${deviceId} AND type = 'remote_control' AND (payload->>'expires_at')::timestamptz > now()`,
    );
  }

  /** A remote-control session of a device by its id, with who opened it. */
  async deviceSession(deviceId: number, session: string) {
    const [r] = await queryRows<{ id: number; created_by: number | null; expires_at: string }>(
      this.db,
      sql`SELECT id, created_by, payload->>'expires_at' AS expires_at FROM device_tasks
        WHERE device_id = ${deviceId} AND type = 'remote_control' AND payload->>'session' = ${session}`,
    );
    return r;
  }

  async extendRemoteSession(db: DbOrTx, taskId: number, expiresAt: string): Promise<void> {
    await db.execute(
      sql`UPDATE device_tasks SET payload = jsonb_set(payload, '{expires_at}', to_jsonb(${expiresAt}::text)), updated_at = now() WHERE id = ${taskId}`,
    );
  }

  /** The serial numbers among `serials` that are devices of this server already. */
  async knownSerials(serials: readonly string[]): Promise<Set<string>> {
    if (!serials.length) return new Set();
    const rows = await queryRows<{ s: string }>(
      this.db,
      sql`SELECT serial_number AS s FROM devices WHERE serial_number IN (${sql.join(
        serials.map((x) => sql`${x}`),
        sql`, `,
      )})`,
    );
    return new Set(rows.map((r) => r.s));
  }

  /** A device of the project by serial number, as the actor sees it. */
  async findBySerial(actor: Actor, serial: string) {
    const [r] = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT id FROM devices WHERE project_id = ${actor.projectId} AND serial_number = ${serial}`,
    );
    return r ? this.find(this.db, actor, Number(r.id)) : undefined;
  }

  // --- events ------------------------------------------------------------------------------------

  /** Whether events go in by COPY (PostgreSQL): a batch may then be far larger than one statement's parameter. */
  get copiesEvents(): boolean {
    return this.copyFrom !== undefined;
  }

  /** Whether a batch of events may be handed over before the previous one is stored (they are stored in order). */
  get pipelinesEvents(): boolean {
    return this.copyFrom !== undefined && this.copyPipelined();
  }

  /**
   * Stores a batch of events, those of an event id already stored for their device (a re-sent event)
   * and those of a device deleted meanwhile left out; resolves once committed. On PostgreSQL by COPY
   * FROM STDIN (the cheapest way in: no statement to plan, no JSON parameter to take apart) into a
   * temporary staging table, moved on in the same transaction by one INSERT … ON CONFLICT DO NOTHING
   * (COPY itself cannot skip a row). Elsewhere (PGlite, which has no COPY over its wire) in one
   * statement with one parameter whatever its size (the rows as a JSON array).
   */
  async insertEvents(rows: readonly NewEvent[]): Promise<void> {
    if (!rows.length) return;
    if (this.copyFrom) {
      await this.copyFrom(`COPY device_events_in (${EVENT_COLUMNS}) FROM STDIN`, copyChunks(rows), STAGED_EVENTS);
      return;
    }
    const json = withoutNul(
      JSON.stringify(
        rows.map((r) => ({
          project_id: r.projectId,
          device_id: r.deviceId,
          type: r.type,
          identifier: r.identifier,
          event_id: r.eventId ?? null,
          data: r.data,
          occurred_at: r.occurredAt.toISOString(),
          received_at: (r.receivedAt ?? new Date()).toISOString(),
        })),
      ),
    );
    await this.db.execute(sql`INSERT INTO device_events (project_id, device_id, type, identifier, event_id, data, occurred_at, received_at)
      SELECT u.project_id, u.device_id, u.type, u.identifier, u.event_id, u.data, u.occurred_at, u.received_at
      FROM jsonb_to_recordset(${json}::jsonb)
        AS u(project_id int, device_id int, type text, identifier text, event_id text, data jsonb, occurred_at timestamptz, received_at timestamptz)
      WHERE EXISTS (SELECT 1 FROM devices d WHERE d.id = u.device_id)
      ON CONFLICT DO NOTHING`);
  }

  private eventsWhere(actor: Actor, q: Pick<ListQuery, 'filters'> & { devices?: readonly number[] }): SQL | undefined {
    return and(
      eq(deviceEvents.projectId, actor.projectId),
      filtersSql(EVENT_LIST, q),
      q.devices ? sql`${E.deviceId} = ANY(${intArray([...q.devices])})` : undefined,
      sql`${E.deviceId} IN (SELECT ${D.id} FROM devices WHERE ${D.projectId} = ${actor.projectId} AND ${devicePredicate(actor, 'view')})`,
    );
  }

  private eventSelect() {
    return this.eventSelectWith({});
  }

  private eventSelectWith<X extends Record<string, SQL>>(extra: X) {
    return this.db
      .select({
        ...extra,
        id: deviceEvents.id,
        deviceId: deviceEvents.deviceId,
        deviceName: devices.name,
        type: deviceEvents.type,
        identifier: deviceEvents.identifier,
        data: deviceEvents.data,
        occurredAt: deviceEvents.occurredAt,
        receivedAt: deviceEvents.receivedAt,
      })
      .from(deviceEvents)
      .innerJoin(devices, eq(devices.id, deviceEvents.deviceId));
  }

  async events(
    actor: Actor,
    q: ListQuery & { devices?: readonly number[] },
  ): Promise<{ rows: EventRow[]; total: number; estimated: boolean }> {
    const where = this.eventsWhere(actor, q);
    const page = await pageOfIds(this.db, { table: deviceEvents, id: sql`${E.id}`, where, spec: EVENT_LIST, query: q });
    const rows = page.ids.length
      ? await this.eventSelect().where(
          sql`${E.id} = ANY(${sql`ARRAY[${sql.join(
            page.ids.map((i) => sql`${i}`),
            sql`, `,
          )}]::bigint[]`})`,
        )
      : [];
    return { rows: inPageOrder(page.ids, rows as EventRow[]), total: page.total, estimated: page.estimated };
  }

  /** Events in the list's order, one page of `size` at a time, for a streamed download. */
  async *eventPages(
    actor: Actor,
    q: Pick<ListQuery, 'filters' | 'sort'> & { devices?: readonly number[] },
    size = 1000,
  ): AsyncGenerator<EventRow[]> {
    const order = sortSql(EVENT_LIST, q);
    // The events stored when the download began: later arrivals would shift the pages under it.
    const [top] = await queryRows<{ max: number | null }>(
      this.db,
      sql`SELECT max(id) AS max FROM device_events WHERE project_id = ${actor.projectId}`,
    );
    const where = and(this.eventsWhere(actor, q), sql`${E.id} <= ${Number(top?.max ?? 0)}`);
    // Sorted by one key that is never null (the default: time, newest first): each page starts after
    // the last row of the one before, so a download of millions of events never re-reads what it
    // skipped. Other orders page by offset.
    const keys = sortKeys(EVENT_LIST, q);
    const key = keys.length === 1 ? KEYSET_FIELDS[(q.sort ?? EVENT_LIST.defaultSort).replace(/^-/, '')] : undefined;
    let after: { k: string; id: number } | null = null;
    for (let page = 1; ; page++) {
      let rows: (EventRow & { sortKey?: string })[];
      if (key && keys[0]) {
        const { expr, desc } = keys[0];
        const cast = (v: string) => sql`CAST(${v} AS ${sql.raw(key)})`;
        const next = after
          ? sql`(${expr} ${sql.raw(desc ? '<' : '>')} ${cast(after.k)} OR (${expr} = ${cast(after.k)} AND ${E.id} < ${after.id}))`
          : sql`TRUE`;
        rows = (await this.eventSelectWith({ sortKey: sql<string>`(${expr})::text` })
          .where(and(where, next))
          .orderBy(...order)
          .limit(size)) as (EventRow & { sortKey: string })[];
        const last = rows.at(-1);
        if (last) after = { k: last.sortKey as string, id: Number(last.id) };
      } else {
        rows = (await this.eventSelect()
          .where(where)
          .orderBy(...order)
          .limit(size)
          .offset(pageOffset({ page, size }))) as EventRow[];
      }
      if (rows.length) yield rows.map(({ sortKey: _k, ...r }) => r);
      if (rows.length < size) return;
    }
  }
}
