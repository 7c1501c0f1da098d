import { PERMISSION_CODES } from '@atrium/contract';
import { type SQL, sql } from 'drizzle-orm';
import { intArray } from '../../core/acl.js';
import { type DbOrTx, queryRows } from '../../core/db/client.js';

/**
 * The call rules of spec comms §6 (call all, own group, descendants, panel, receive like a
 * concierge), decided from the caller number's owner. The dialer's contacts and the SIP proxy's
 * routing read the same predicate, so a contact shown is a call allowed, and no other.
 */
export interface Caller {
  id: number;
  projectId: number;
  number: string;
  userId: number | null;
  deviceId: number | null;
  /** The owner's name (the user's, the device's), else the number's own name. */
  name: string | null;
  /** The owner's permissions (a user's role); empty for devices and spare numbers. */
  permissions: ReadonlySet<string>;
  /** The groups the owner belongs to: a user's groups, a device's group, else the number's group. */
  groupIds: number[];
  /** Those groups and every ancestor of them. */
  lineage: number[];
}

interface CallerRow {
  id: number;
  project_id: number;
  number: string;
  user_id: number | null;
  device_id: number | null;
  name: string | null;
  builtin: boolean | null;
  permissions: string[] | null;
  group_ids: number[] | null;
  lineage: number[] | null;
}

/** Active numbers only: an inactive or reserved number calls nobody. */
export async function loadCaller(db: DbOrTx, number: string): Promise<Caller | null> {
  return (await loadCallers(db, [number])).get(number) ?? null;
}

/** loadCaller for several numbers in one query: the active ones found, by number. */
export async function loadCallers(db: DbOrTx, numbers: string[]): Promise<Map<string, Caller>> {
  if (numbers.length === 0) return new Map();
  const rows = await queryRows<CallerRow>(
    db,
    sql`SELECT n.id, n.project_id, n.number, n.user_id, n.device_id,
        coalesce(u.name, d.name, n.name) AS name, r.is_builtin AS builtin, r.permissions,
        CASE WHEN n.user_id IS NOT NULL THEN (SELECT array_agg(ug.group_id) FROM user_groups ug WHERE ug.user_id = n.user_id)
             WHEN n.device_id IS NOT NULL THEN ARRAY[d.group_id]
             ELSE ARRAY[n.group_id] END AS group_ids,
        CASE WHEN n.user_id IS NOT NULL THEN (SELECT array_agg(DISTINCT a) FROM user_groups ug JOIN groups g ON g.id = ug.group_id, unnest(g.path) a WHERE ug.user_id = n.user_id)
             WHEN n.device_id IS NOT NULL THEN (SELECT g.path FROM groups g WHERE g.id = d.group_id)
             ELSE (SELECT g.path FROM groups g WHERE g.id = n.group_id) END AS lineage
      FROM sip_numbers n
      LEFT JOIN users u ON u.id = n.user_id
      LEFT JOIN roles r ON r.id = u.role_id
      LEFT JOIN devices d ON d.id = n.device_id
      WHERE n.number IN ${numbers} AND n.is_active AND NOT n.is_reserved`,
  );
  const ids = (a: number[] | null) => (a ?? []).filter((x) => x !== null).map(Number);
  return new Map(
    rows.map((r) => [
      r.number,
      {
        id: Number(r.id),
        projectId: Number(r.project_id),
        number: r.number,
        userId: r.user_id === null ? null : Number(r.user_id),
        deviceId: r.device_id === null ? null : Number(r.device_id),
        name: r.name,
        permissions: new Set(r.user_id === null ? [] : r.builtin ? PERMISSION_CODES : (r.permissions ?? [])),
        groupIds: ids(r.group_ids),
        lineage: ids(r.lineage),
      },
    ]),
  );
}

/**
 * "The owner of number row `n` belongs to a group g for which `cond` holds" (g aliased `g`): a
 * user's groups, a device's group, else the number's own group.
 */
export function ownerInGroups(n: string, cond: SQL): SQL {
  const a = sql.raw(n);
  return sql`(CASE WHEN ${a}.user_id IS NOT NULL
      THEN EXISTS (SELECT 1 FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ${a}.user_id AND ${cond})
    WHEN ${a}.device_id IS NOT NULL
      THEN EXISTS (SELECT 1 FROM devices dv JOIN groups g ON g.id = dv.group_id WHERE dv.id = ${a}.device_id AND ${cond})
    ELSE EXISTS (SELECT 1 FROM groups g WHERE g.id = ${a}.group_id AND ${cond}) END)`;
}

/** "Number row `n` belongs to a user who receives calls like a concierge." */
export function ownerIsConcierge(n: string): SQL {
  const a = sql.raw(n);
  return sql`EXISTS (SELECT 1 FROM users cu JOIN roles cr ON cr.id = cu.role_id WHERE cu.id = ${a}.user_id
    AND (cr.is_builtin OR 'can_receive_calls_as_concierge' = ANY(cr.permissions)))`;
}

/**
 * Which numbers (rows of sip_numbers aliased `n`) the caller may call:
 * - a user: everyone with call all; their groups with own group; their groups and below with
 *   descendants; panels (device numbers) only with call panel, within their groups and below (or
 *   anywhere with call all); and any concierge whose groups hold the caller's groups;
 * - a device (a panel) or a spare number: numbers of its group, below it and above it, never
 *   another panel.
 * Inactive and reserved numbers, and the caller's own number, are never callable.
 */
export function callablePredicate(caller: Caller, n = 'n'): SQL {
  const a = sql.raw(n);
  const base = sql`${a}.project_id = ${caller.projectId} AND ${a}.is_active AND NOT ${a}.is_reserved AND ${a}.id <> ${caller.id}`;
  const mine = intArray(caller.groupIds);
  const lineage = intArray(caller.lineage);
  const isPanel = sql`${a}.device_id IS NOT NULL`;
  if (caller.userId === null) {
    return sql`(${base} AND NOT ${isPanel} AND ${ownerInGroups(n, sql`(g.path && ${mine} OR g.id = ANY(${lineage}))`)})`;
  }
  const p = caller.permissions;
  const toPanel = p.has('can_call_panel') ? (p.has('can_call_all') ? sql`TRUE` : ownerInGroups(n, sql`g.path && ${mine}`)) : sql`FALSE`;
  const rules: SQL[] = [];
  if (p.has('can_call_all')) rules.push(sql`TRUE`);
  if (p.has('can_call_own_group')) rules.push(ownerInGroups(n, sql`g.id = ANY(${mine})`));
  if (p.has('can_call_descendants')) rules.push(ownerInGroups(n, sql`g.path && ${mine}`));
  // A concierge receives the calls of their groups and below: the caller sits in one of them.
  rules.push(sql`(${ownerIsConcierge(n)} AND ${ownerInGroups(n, sql`g.id = ANY(${lineage})`)})`);
  return sql`(${base} AND CASE WHEN ${isPanel} THEN ${toPanel} ELSE (${sql.join(rules, sql` OR `)}) END)`;
}
