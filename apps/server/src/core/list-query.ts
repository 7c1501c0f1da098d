import { createHash } from 'node:crypto';
import { DATE_RANGE, type FilterRule, INT4_MAX, type ListQuery, VALIDATION_MESSAGES as M } from '@atrium/contract';
import { fillPlaceholders, type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { type Db, type DbOrTx, queryRows } from './db/client.js';
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

/** A number value compared as a bigint (whole and exactly representable); any other as numeric. */
const wholeNumber = (v: unknown): boolean => (typeof v === 'number' || typeof v === 'string') && Number.isSafeInteger(Number(v));

/**
 * Where a rule's value goes: into the statement as a parameter, or, with `values`, into that bag
 * under `name` with a placeholder in the statement (a statement compiled once runs again with other values).
 */
type Param = (value: unknown) => SQL;
const paramInto =
  (values: Record<string, unknown> | undefined, name: string): Param =>
  (value) => {
    if (!values) return sql`${value}`;
    values[name] = value;
    return sql`${sql.placeholder(name)}`;
  };

function ruleSql(rule: FilterRule, f: ListField, where: string, param: Param): SQL {
  const value = coerce(rule, f.type, where);
  const e = f.expr;
  // Explicit casts: the driver then never has to guess a parameter's type. A whole number is a
  // bigint, which an integer column's index can compare with (int = bigint is in its operator
  // family); as numeric, the column would be cast instead and every row read.
  const cast = {
    text: sql`::text`,
    number: wholeNumber(value) ? sql`::bigint` : sql`::numeric`,
    boolean: sql`::boolean`,
    date: sql`::timestamptz`,
    int_array: sql`::int`,
  }[f.type];
  const typed = sql`${param(value)}${cast}`;
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
      return sql`${e} ILIKE ${param(containsPattern(String(value)))}`;
    case 'begins_with':
      if (value === null || f.type !== 'text') throw invalidField(where, `operator ${rule.operator} needs a text field and value`);
      // lower(x) LIKE 'prefix%' can use an index on lower(x) text_pattern_ops; ILIKE cannot.
      return sql`lower(${e}) LIKE ${param(`${escapeLike(String(value).toLowerCase())}%`)}`;
  }
}

/** A whitelisted field by name; names an object inherits (constructor, __proto__, toString…) are not fields. */
const fieldOf = (spec: ListSpec, name: string): ListField | undefined => (Object.hasOwn(spec.fields, name) ? spec.fields[name] : undefined);

/**
 * The WHERE predicate of a list's filters, or undefined when there are none. With `values`, each
 * rule's value is put there (as `f0`, `f1`…) and the predicate has placeholders instead: its text
 * is then the same for every query of the same shape (filterShape).
 */
export function filtersSql(spec: ListSpec, query: Pick<ListQuery, 'filters'>, values?: Record<string, unknown>): SQL | undefined {
  const rules = query.filters?.rules ?? [];
  if (!rules.length) return undefined;
  const parts = rules.map((rule, i) => {
    const where = `filters.rules.${i}`;
    const f = fieldOf(spec, rule.field);
    if (!f || f.filterable === false) throw invalidField(`${where}.field`, M.invalid_value, { value: rule.field });
    return ruleSql(rule, f, where, paramInto(values, `f${i}`));
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

/** What decides the text of a list's filters with placeholders (filtersSql with values): fields, operators, which values are null or whole numbers. */
export const filterShape = (query: Pick<ListQuery, 'filters'>): string =>
  JSON.stringify([
    query.filters?.match ?? null,
    (query.filters?.rules ?? []).map((r) => [r.field, r.operator, r.value === null, wholeNumber(r.value)]),
  ]);

const dialect = new PgDialect();

/** A statement compiled once: its text, and its parameters with placeholders for what each call gives. */
export interface Compiled {
  text: string;
  params: unknown[];
  /** On PostgreSQL, prepared under this name (once per connection) instead of parsed on every call. */
  name?: string;
}

/**
 * Renders a statement once, to be run again and again with runCompiled. `namePrefix`: a prepared
 * statement on PostgreSQL, named after its text, since a connection keeps a prepared statement by
 * name and two texts must never share one (node-postgres never deallocates one: only for statements
 * of few texts whose plan does not depend on their values).
 */
export function compileStatement(query: SQL, namePrefix?: string): Compiled {
  const q = dialect.sqlToQuery(query);
  const name = namePrefix ? `${namePrefix}_${createHash('sha256').update(q.sql).digest('hex').slice(0, 16)}` : undefined;
  return { text: q.sql, params: q.params, ...(name ? { name } : {}) };
}

/**
 * Compiled list statements, per owner (the caller: their permissions and groups are in the text)
 * and shape. A caller is one object for as long as the read cache keeps it (core/read-cache.ts),
 * and a new one once anything it was read from changes; a forgotten caller takes its statements along.
 */
const compiledByOwner = new WeakMap<object, LRUCache<string, Compiled>>();
const STATEMENTS_PER_OWNER = 64;

function compiled(owner: object, key: string, build: () => SQL): Compiled {
  let mine = compiledByOwner.get(owner);
  if (!mine) {
    mine = new LRUCache({ max: STATEMENTS_PER_OWNER });
    compiledByOwner.set(owner, mine);
  }
  let c = mine.get(key);
  if (!c) {
    c = compileStatement(build());
    mine.set(key, c);
  }
  return c;
}

/**
 * Runs a compiled statement with this call's values, straight on the driver (pg's pool, or PGlite):
 * its own type parsing, rows as objects keyed by the statement's column names, none of drizzle's
 * mapping (a fair share of a list call's CPU).
 */
export async function runCompiled<T>(db: Db, c: Compiled, values: Record<string, unknown>): Promise<T[]> {
  const client = (db as unknown as { $client: { query(text: string | pg.QueryConfig, params?: unknown[]): Promise<{ rows: T[] }> } })
    .$client;
  const params = fillPlaceholders(c.params, values);
  const { rows } =
    c.name && client instanceof pg.Pool
      ? await client.query({ name: c.name, text: c.text, values: params })
      : await client.query(c.text, params);
  return rows;
}

/** What a list reads, with placeholders for a call's values (filtersSql's and the list's own). */
export interface ListStatement {
  table: PgTable;
  /** The row's id in `table`. */
  id: SQL;
  where: SQL | undefined;
  /** The answer's columns by name, read from `table` (joined to the page by id) and from `joins`. */
  columns: Record<string, SQL>;
  /** Tables the columns also read, joined to the page's rows only (`LEFT JOIN … ON …`). */
  joins?: SQL;
}

/**
 * One page of a list with its rows and total, in one statement (ARCHITECTURE §12, as pageOfIds):
 * the matching rows' ids and sort keys, at most `cap` + 1 of them, are gathered first; the page is
 * sorted from them and joined to its rows, and the count of that set is the total. Only when more
 * rows match (the total is then the planner's estimate) does a second statement read the page by
 * the sort's order (an index can serve it and stop early), beside the estimate.
 *
 * The statements are compiled once per `owner` and `shape` (what their text depends on beside the
 * owner: sort, filters' shape, relations asked…) and run again with each call's `values`: building
 * and rendering them was most of the call's own CPU.
 */
export async function listPage<R>(
  db: Db,
  opts: {
    owner: object;
    shape: string;
    statement: () => ListStatement;
    spec: ListSpec;
    query: Pick<ListQuery, 'page' | 'size' | 'sort'>;
    values: Record<string, unknown>;
    cap?: number;
  },
): Promise<{ rows: R[]; total: number; estimated: boolean }> {
  const cap = opts.cap ?? EXACT_TOTAL_CAP;
  // Validated on every call, before any compiled statement is used.
  const keys = sortKeys(opts.spec, opts.query);
  const values = { ...opts.values, cap: cap + 1, size: opts.query.size, offset: pageOffset(opts.query) };
  const key = `${opts.shape}|${opts.query.sort ?? ''}|${cap}`;
  let built: ListStatement | undefined;
  const statement = () => {
    built ??= opts.statement();
    return built;
  };
  const keyNames = keys.map((_, i) => sql.raw(`k${i}`));
  const pageOrder = (alias: string, id = 'id') =>
    sql.join([...keys.map((k, i) => direction(sql.raw(`${alias}.k${i}`), k.desc)), sql.raw(`${alias}.${id} ASC`)], sql`, `);
  const columnsOf = (s: ListStatement) =>
    sql.join(
      Object.entries(s.columns).map(([name, expr]) => sql`${expr} AS ${sql.identifier(name)}`),
      sql`, `,
    );
  const rowsOf = (s: ListStatement) =>
    sql`SELECT p.id AS page_id${sql.join(
      keyNames.map((k) => sql`, p.${k}`),
      sql``,
    )}, ${columnsOf(s)} FROM p JOIN ${s.table} ON ${s.id} = p.id${s.joins ? sql` ${s.joins}` : sql``}`;
  const small = compiled(opts.owner, `small|${key}`, () => {
    const s = statement();
    const keyColumns = keys.map((k, i) => sql`, ${k.expr} AS ${keyNames[i]}`);
    return sql`WITH m AS MATERIALIZED (SELECT ${s.id} AS id${sql.join(keyColumns, sql``)} FROM ${s.table} WHERE ${s.where ?? sql`TRUE`} LIMIT ${sql.placeholder('cap')}),
      p AS (SELECT * FROM m ORDER BY ${pageOrder('m')} LIMIT ${sql.placeholder('size')} OFFSET ${sql.placeholder('offset')})
      SELECT t.total, r.* FROM (SELECT count(*)::int AS total FROM m) t LEFT JOIN (${rowsOf(s)}) r ON TRUE ORDER BY ${pageOrder('r', 'page_id')}`;
  });
  const first = await runCompiled<R & { total: number; page_id: number | null }>(db, small, values);
  const total = Number(first[0]?.total ?? 0);
  if (total <= cap) return { rows: first[0]?.page_id == null ? [] : first, total, estimated: false };
  const large = compiled(opts.owner, `large|${key}`, () => {
    const s = statement();
    const keyColumns = keys.map((k, i) => sql`, ${k.expr} AS ${keyNames[i]}`);
    return sql`WITH p AS (SELECT ${s.id} AS id${sql.join(keyColumns, sql``)} FROM ${s.table} WHERE ${s.where ?? sql`TRUE`}
        ORDER BY ${sql.join(sortSql(opts.spec, opts.query), sql`, `)} LIMIT ${sql.placeholder('size')} OFFSET ${sql.placeholder('offset')})
      ${rowsOf(s)} ORDER BY ${pageOrder('p')}`;
  });
  const estimate = compiled(opts.owner, `estimate|${key}`, () => {
    const s = statement();
    return sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${s.table} WHERE ${s.where ?? sql`TRUE`}`;
  });
  const [rows, plan] = await Promise.all([runCompiled<R>(db, large, values), runCompiled<{ 'QUERY PLAN': unknown }>(db, estimate, values)]);
  const raw = plan[0]?.['QUERY PLAN'];
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: { 'Plan Rows': number } }[];
  return { rows, total: Math.max(Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0), cap + 1), estimated: true };
}
