import { DATE_RANGE, type FilterRule, INT4_MAX, type ListQuery, VALIDATION_MESSAGES as M } from '@atrium/contract';
import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type DbOrTx, queryRows } from './db/client.js';
import { invalidField } from './errors.js';

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

const INT4_MIN = -INT4_MAX - 1;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** An ILIKE pattern matching `text` anywhere, with its own % and _ taken literally. */
export const containsPattern = (text: string): string => `%${escapeLike(text)}%`;

function coerce(rule: FilterRule, type: FieldType, rulePath: string): string | number | boolean | null {
  const v = rule.value;
  const where = `${rulePath}.value`;
  if (v === null) return null;
  switch (type) {
    case 'number':
    case 'int_array': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
      if (!Number.isFinite(n)) throw invalidField(where, M.number);
      // Array members are compared as PostgreSQL integers.
      if (type === 'int_array' && (!Number.isInteger(n) || n < INT4_MIN || n > INT4_MAX))
        throw invalidField(where, M.range, { min: INT4_MIN, max: INT4_MAX });
      return n;
    }
    case 'boolean':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === '1' || v === 1) return true;
      if (v === 'false' || v === '0' || v === 0) return false;
      throw invalidField(where, M.invalid_value, { values: [true, false] });
    case 'date': {
      // Beyond years 1–9999 neither ISO-8601 text nor PostgreSQL can hold the date.
      const text = String(v);
      // Date.parse rolls an impossible day over (2020-02-30 becomes 1 March): the written calendar date must exist.
      const ymd = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
      if (ymd) {
        const [y, m, d] = [Number(ymd[1]), Number(ymd[2]), Number(ymd[3])];
        if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) throw invalidField(where, M.date, { ...DATE_RANGE });
      }
      const date = new Date(Date.parse(text));
      const year = date.getUTCFullYear();
      if (!(year >= 1 && year <= 9999)) throw invalidField(where, M.date, { ...DATE_RANGE });
      return date.toISOString();
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
        throw invalidField(where, `operator ${rule.operator} is not allowed for this field`);
    }
  }
  switch (rule.operator) {
    case 'equals':
      return value === null ? sql`${e} IS NULL` : sql`${e} = ${typed}`;
    case 'not_equals':
      return value === null ? sql`${e} IS NOT NULL` : sql`${e} IS DISTINCT FROM ${typed}`;
    case 'above':
    case 'below':
      if (f.type === 'boolean' || value === null) throw invalidField(where, `operator ${rule.operator} needs a number, a date or a text`);
      return rule.operator === 'above' ? sql`${e} > ${typed}` : sql`${e} < ${typed}`;
    case 'has':
      if (value === null || f.type !== 'text') throw invalidField(where, `operator ${rule.operator} needs a text field and value`);
      return sql`${e} ILIKE ${containsPattern(String(value))}`;
    case 'begins_with':
      if (value === null || f.type !== 'text') throw invalidField(where, `operator ${rule.operator} needs a text field and value`);
      // lower(x) LIKE 'prefix%' can use an index on lower(x) text_pattern_ops; ILIKE cannot.
      return sql`lower(${e}) LIKE ${`${escapeLike(String(value).toLowerCase())}%`}`;
  }
}

/** A whitelisted field by name; names an object inherits (constructor, __proto__, toString…) are not fields. */
const fieldOf = (spec: ListSpec, name: string): ListField | undefined => (Object.hasOwn(spec.fields, name) ? spec.fields[name] : undefined);

/** The WHERE predicate of a list's filters, or undefined when there are none. */
export function filtersSql(spec: ListSpec, query: Pick<ListQuery, 'filters'>): SQL | undefined {
  const rules = query.filters?.rules ?? [];
  if (!rules.length) return undefined;
  const parts = rules.map((rule, i) => {
    const where = `filters.rules.${i}`;
    const f = fieldOf(spec, rule.field);
    if (!f || f.filterable === false) throw invalidField(`${where}.field`, M.invalid_value, { value: rule.field });
    return ruleSql(rule, f, where);
  });
  return sql`(${sql.join(parts, query.filters?.match === 'match_any' ? sql` OR ` : sql` AND `)})`;
}

/** The validated sort keys of a list: each field's expression and direction. */
export function sortKeys(spec: ListSpec, query: Pick<ListQuery, 'sort'>): { expr: SQL; desc: boolean }[] {
  const keys = (query.sort ?? spec.defaultSort).split(',').filter(Boolean);
  const seen = new Set<string>();
  return keys.map((key) => {
    const desc = key.startsWith('-');
    const name = desc ? key.slice(1) : key;
    const f = fieldOf(spec, name);
    if (!f || f.sortable === false) throw invalidField('sort', M.invalid_value, { value: name });
    if (seen.has(name)) throw invalidField('sort', M.unique, { value: name });
    seen.add(name);
    return { expr: f.expr, desc };
  });
}

// PostgreSQL's default null placement (last ascending, first descending), so btree indexes serve the order.
const direction = (expr: SQL, desc: boolean) => (desc ? sql`${expr} DESC` : sql`${expr} ASC`);

/** The ORDER BY list of a list's sort, always ending with the tiebreak. */
export function sortSql(spec: ListSpec, query: Pick<ListQuery, 'sort'>): SQL[] {
  return [...sortKeys(spec, query).map((k) => direction(k.expr, k.desc)), spec.tiebreak];
}

/** Checks `with` against the relations a resource offers. */
export function withRelations<T extends string>(allowed: readonly T[], requested: readonly string[]): Set<T> {
  for (const r of requested) if (!allowed.includes(r as T)) throw invalidField('with', M.invalid_value, { value: r });
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
 * The ids of one page and the total, adapting to how many rows match (ARCHITECTURE §12):
 * - first, the matching rows' ids and sort keys are gathered, at most EXACT_TOTAL_CAP + 1 of them,
 *   and the page is sorted from that set: for a selective filter or a branch this is one cheap
 *   query with an exact total, and the planner cannot gamble on walking a sort index past
 *   thousands of non-matching rows;
 * - when more rows match than that, the page is the ids alone, ordered and limited (an index can
 *   serve it and stop early, matches being dense), and the total is the planner's estimate.
 * The caller then loads only the page's rows with their columns and relations.
 */
export async function pageOfIds(
  db: DbOrTx,
  opts: { table: PgTable; id: SQL; where: SQL | undefined; spec: ListSpec; query: Pick<ListQuery, 'page' | 'size' | 'sort'>; cap?: number },
): Promise<PageOfIds> {
  const cap = opts.cap ?? EXACT_TOTAL_CAP;
  const where = opts.where ?? sql`TRUE`;
  const keys = sortKeys(opts.spec, opts.query);
  const keyColumns = keys.map((k, i) => sql`, ${k.expr} AS ${sql.raw(`k${i}`)}`);
  const keyOrder = keys.map((k, i) => direction(sql.raw(`m.k${i}`), k.desc));
  const small = await queryRows<{ id: number; total: number }>(
    db,
    sql`WITH m AS MATERIALIZED (SELECT ${opts.id} AS id${sql.join(keyColumns, sql``)} FROM ${opts.table} WHERE ${where} LIMIT ${cap + 1})
      SELECT m.id, (SELECT count(*) FROM m)::int AS total FROM m
      ORDER BY ${sql.join([...keyOrder, sql`m.id ASC`], sql`, `)} LIMIT ${opts.query.size} OFFSET ${pageOffset(opts.query)}`,
  );
  const counted = small[0]?.total;
  if (counted !== undefined && counted <= cap) return { ids: small.map((r) => Number(r.id)), total: counted, estimated: false };
  if (counted === undefined) {
    // An empty page: past the end, or nothing matches. Count (capped) to tell which.
    const [c] = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${opts.table} WHERE ${where} LIMIT ${cap + 1}) capped`,
    );
    const n = Number(c?.n ?? 0);
    if (n <= cap) return { ids: [], total: n, estimated: false };
  }
  const [page, estimate] = await Promise.all([
    queryRows<{ id: number }>(
      db,
      sql`SELECT ${opts.id} AS id FROM ${opts.table} WHERE ${where} ORDER BY ${sql.join(sortSql(opts.spec, opts.query), sql`, `)} LIMIT ${opts.query.size} OFFSET ${pageOffset(opts.query)}`,
    ),
    plannerEstimate(db, sql`SELECT 1 FROM ${opts.table} WHERE ${where}`),
  ]);
  return { ids: page.map((r) => Number(r.id)), total: Math.max(estimate, cap + 1), estimated: true };
}

/** The planner's estimate of how many rows `query` answers (EXPLAIN, nothing run). */
export async function plannerEstimate(db: DbOrTx, query: SQL): Promise<number> {
  const plan = await queryRows<{ 'QUERY PLAN': unknown }>(db, sql`EXPLAIN (FORMAT JSON) ${query}`);
  const raw = plan[0]?.['QUERY PLAN'];
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: { 'Plan Rows': number } }[];
  return Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0);
}

/** Orders rows loaded by id in the order of the page's ids. */
export function inPageOrder<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
