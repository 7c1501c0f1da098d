import type { FilterRule, ListQuery } from '@atrium/contract';
import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type DbOrTx, queryRows } from './db/client.js';
import { AppError } from './errors.js';

export type FieldType = 'text' | 'number' | 'boolean' | 'date' | 'int_array';

export interface ListField {
  /** The SQL expression the field reads. */
  expr: SQL;
  type: FieldType;
  sortable?: boolean;
  filterable?: boolean;
}

/** A resource's whitelist: only these fields may be sorted or filtered; anything else is a 400. */
export interface ListSpec {
  fields: Record<string, ListField>;
  /** Used when the query has no sort; ties are always broken by `tiebreak` so pages are stable. */
  defaultSort: string;
  tiebreak: SQL;
}

const bad = (field: string, message: string) => new AppError('invalid_data', [{ field, message }]);

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function coerce(rule: FilterRule, type: FieldType, where: string): string | number | boolean | null {
  const v = rule.value;
  if (v === null) return null;
  switch (type) {
    case 'number':
    case 'int_array': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
      if (!Number.isFinite(n)) throw bad(where, 'value must be a number');
      if (type === 'int_array' && !Number.isInteger(n)) throw bad(where, 'value must be a whole number');
      return n;
    }
    case 'boolean':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === '1' || v === 1) return true;
      if (v === 'false' || v === '0' || v === 0) return false;
      throw bad(where, 'value must be true or false');
    case 'date': {
      const s = String(v);
      if (Number.isNaN(Date.parse(s))) throw bad(where, 'value must be a date');
      return new Date(s).toISOString();
    }
    default:
      return String(v);
  }
}

function ruleSql(rule: FilterRule, f: ListField, where: string): SQL {
  const value = coerce(rule, f.type, where);
  const e = f.expr;
  // Explicit casts: the driver then never has to guess a parameter's type.
  const cast = { text: sql`::text`, number: sql`::numeric`, boolean: sql`::boolean`, date: sql`::timestamptz`, int_array: sql`::int` }[
    f.type
  ];
  const typed = sql`${value}${cast}`;
  if (f.type === 'int_array') {
    switch (rule.operator) {
      case 'equals':
      case 'has':
        return value === null ? sql`cardinality(${e}) = 0` : sql`${typed} = ANY(${e})`;
      case 'not_equals':
        return value === null ? sql`cardinality(${e}) > 0` : sql`NOT (${typed} = ANY(${e}))`;
      default:
        throw bad(where, `operator ${rule.operator} is not allowed for this field`);
    }
  }
  switch (rule.operator) {
    case 'equals':
      return value === null ? sql`${e} IS NULL` : sql`${e} = ${typed}`;
    case 'not_equals':
      return value === null ? sql`${e} IS NOT NULL` : sql`${e} IS DISTINCT FROM ${typed}`;
    case 'above':
    case 'below':
      if (f.type === 'boolean' || value === null) throw bad(where, `operator ${rule.operator} needs a number, a date or a text`);
      return rule.operator === 'above' ? sql`${e} > ${typed}` : sql`${e} < ${typed}`;
    case 'has':
      if (value === null || f.type !== 'text') throw bad(where, `operator ${rule.operator} needs a text field and value`);
      return sql`${e} ILIKE ${`%${escapeLike(String(value))}%`}`;
    case 'begins_with':
      if (value === null || f.type !== 'text') throw bad(where, `operator ${rule.operator} needs a text field and value`);
      // lower(x) LIKE 'prefix%' can use an index on lower(x) text_pattern_ops; ILIKE cannot.
      return sql`lower(${e}) LIKE ${`${escapeLike(String(value).toLowerCase())}%`}`;
  }
}

/** The WHERE predicate of a list's filters, or undefined when there are none. */
export function filtersSql(spec: ListSpec, query: Pick<ListQuery, 'filters'>): SQL | undefined {
  const rules = query.filters?.rules ?? [];
  if (!rules.length) return undefined;
  const parts = rules.map((rule, i) => {
    const where = `filters.rules.${i}`;
    const f = spec.fields[rule.field];
    if (!f || f.filterable === false) throw bad(`${where}.field`, `field ${rule.field} cannot be filtered`);
    return ruleSql(rule, f, where);
  });
  return sql`(${sql.join(parts, query.filters?.match === 'match_any' ? sql` OR ` : sql` AND `)})`;
}

/** The ORDER BY list of a list's sort, always ending with the tiebreak. */
export function sortSql(spec: ListSpec, query: Pick<ListQuery, 'sort'>): SQL[] {
  const keys = (query.sort ?? spec.defaultSort).split(',').filter(Boolean);
  const seen = new Set<string>();
  const order = keys.map((key) => {
    const desc = key.startsWith('-');
    const name = desc ? key.slice(1) : key;
    const f = spec.fields[name];
    if (!f || f.sortable === false) throw bad('sort', `field ${name} cannot be sorted`);
    if (seen.has(name)) throw bad('sort', `field ${name} is sorted twice`);
    seen.add(name);
    // PostgreSQL's default null placement (last ascending, first descending), so btree indexes serve the order.
    return desc ? sql`${f.expr} DESC` : sql`${f.expr} ASC`;
  });
  order.push(spec.tiebreak);
  return order;
}

/** Checks `with` against the relations a resource offers. */
export function withRelations<T extends string>(allowed: readonly T[], requested: readonly string[]): Set<T> {
  for (const r of requested) if (!allowed.includes(r as T)) throw bad('with', `relation ${r} is not available`);
  return new Set(requested as T[]);
}

export const pageOffset = (q: Pick<ListQuery, 'page' | 'size'>) => (q.page - 1) * q.size;

/** Above this many matching rows a list's total is the planner's estimate, not an exact count. */
export const EXACT_TOTAL_CAP = 10_000;

export interface PageOfIds {
  ids: number[];
  total: number;
  /** True when `total` is an estimate (more than EXACT_TOTAL_CAP rows match). */
  estimated: boolean;
}

/**
 * The ids of one page and the total, as two cheap queries instead of one expensive one:
 * - the page is the ids alone, ordered and limited, so the planner can walk an index and stop;
 *   the caller then loads only those rows' columns and relations;
 * - the total counts at most EXACT_TOTAL_CAP + 1 matching rows; beyond that it is the planner's
 *   estimate (ARCHITECTURE §12: a count over hundreds of thousands of rows costs tens of ms).
 */
export async function pageOfIds(
  db: DbOrTx,
  opts: { table: PgTable; id: SQL; where: SQL | undefined; orderBy: SQL[]; query: Pick<ListQuery, 'page' | 'size'>; cap?: number },
): Promise<PageOfIds> {
  const cap = opts.cap ?? EXACT_TOTAL_CAP;
  const where = opts.where ?? sql`TRUE`;
  const [page, counted] = await Promise.all([
    queryRows<{ id: number }>(
      db,
      sql`SELECT ${opts.id} AS id FROM ${opts.table} WHERE ${where} ORDER BY ${sql.join(opts.orderBy, sql`, `)} LIMIT ${opts.query.size} OFFSET ${pageOffset(opts.query)}`,
    ),
    queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${opts.table} WHERE ${where} LIMIT ${cap + 1}) capped`),
  ]);
  const ids = page.map((r) => Number(r.id));
  const n = Number(counted[0]?.n ?? 0);
  if (n <= cap) return { ids, total: n, estimated: false };
  const plan = await queryRows<{ 'QUERY PLAN': unknown }>(db, sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${opts.table} WHERE ${where}`);
  const raw = plan[0]?.['QUERY PLAN'];
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: { 'Plan Rows': number } }[];
  const estimate = Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0);
  return { ids, total: Math.max(estimate, cap + 1), estimated: true };
}

/** Orders rows loaded by id in the order of the page's ids. */
export function inPageOrder<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
