import type { ListQuery } from '@atrium/contract';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { qualifiedColumns } from '../../core/acl.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { filtersSql, inPageOrder, type ListSpec, pageOfIds, sortKeys, sortSql } from '../../core/list-query.js';
import { users } from '../users/users.table.js';
import { auditEvents } from './audit.table.js';

const A = qualifiedColumns(auditEvents);

/** Who, what, when, which request: the filters of the audit list; only time and id sort (both indexed, never null). */
export const AUDIT_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${A.id}`, type: 'number' },
    created_at: { expr: sql`${A.createdAt}`, type: 'date' },
    user_id: { expr: sql`${A.userId}`, type: 'number', sortable: false },
    api_key_id: { expr: sql`${A.apiKeyId}`, type: 'number', sortable: false },
    entity: { expr: sql`${A.entity}`, type: 'text', sortable: false },
    entity_id: { expr: sql`${A.entityId}`, type: 'text', sortable: false },
    action: { expr: sql`${A.action}`, type: 'text', sortable: false },
    request_id: { expr: sql`${A.requestId}`, type: 'text', sortable: false },
  },
  defaultSort: '-created_at',
  // Ascending as pageOfIds breaks ties: rows of one transaction (one time) read in the order written.
  tiebreak: sql`${A.id} ASC`,
};

/** The SQL type a sort key's text form is cast back to (keyset paging of the download). */
const KEY_TYPES: Record<string, string> = { created_at: 'timestamptz', id: 'bigint' };

export interface AuditRow {
  id: number;
  createdAt: Date | string;
  userId: number | null;
  userName: string | null;
  userLogin: string | null;
  apiKeyId: number | null;
  apiKeyName: string | null;
  apiKeyPrefix: string | null;
  entity: string;
  entityId: string | null;
  action: string;
  before: unknown;
  after: unknown;
  ip: string | null;
  requestId: string | null;
}

// Audit ids are bigserial: compared as bigint, never squeezed into int4.
const bigintArray = (ids: readonly number[]) =>
  sql`ARRAY[${sql.join(
    ids.map((i) => sql`${i}`),
    sql`, `,
  )}]::bigint[]`;

/** The audit log of one project: read only (rows are written by core/audit.ts with each change). */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  private select<X extends Record<string, SQL>>(extra: X = {} as X) {
    return (
      this.db
        .select({
          ...extra,
          id: auditEvents.id,
          createdAt: auditEvents.createdAt,
          userId: auditEvents.userId,
          userName: users.name,
          userLogin: users.login,
          // API keys (issue 14): the key a change was made with, while it exists.
          apiKeyId: auditEvents.apiKeyId,
          apiKeyName: sql<string | null>`(SELECT k.name FROM api_keys k WHERE k.id = ${A.apiKeyId})`,
          apiKeyPrefix: sql<string | null>`(SELECT k.prefix FROM api_keys k WHERE k.id = ${A.apiKeyId})`,
          entity: auditEvents.entity,
          entityId: auditEvents.entityId,
          action: auditEvents.action,
          before: auditEvents.before,
          after: auditEvents.after,
          ip: auditEvents.ip,
          requestId: auditEvents.requestId,
        })
        .from(auditEvents)
        // A person of the same project only: the row's author, whatever their groups (audit is project-wide).
        .leftJoin(users, and(eq(users.id, auditEvents.userId), eq(users.projectId, auditEvents.projectId)))
    );
  }

  private where(projectId: number, q: Pick<ListQuery, 'filters'>): SQL | undefined {
    return and(eq(auditEvents.projectId, projectId), filtersSql(AUDIT_LIST, q));
  }

  async page(projectId: number, q: ListQuery): Promise<{ rows: AuditRow[]; total: number; estimated: boolean }> {
    const page = await pageOfIds(this.db, {
      table: auditEvents,
      id: sql`${A.id}`,
      where: this.where(projectId, q),
      spec: AUDIT_LIST,
      query: q,
    });
    const rows = page.ids.length ? await this.select().where(sql`${A.id} = ANY(${bigintArray(page.ids)})`) : [];
    return { rows: inPageOrder(page.ids, rows as AuditRow[]), total: page.total, estimated: page.estimated };
  }

  async find(projectId: number, id: number): Promise<AuditRow | undefined> {
    const [r] = await this.select().where(and(eq(auditEvents.id, id), eq(auditEvents.projectId, projectId)));
    return r as AuditRow | undefined;
  }

  /**
   * The rows in the list's order, `size` at a time, for a streamed download. Every sort key is never
   * null (time, id) and the id breaks ties, so each page starts after the last row of the one before:
   * a download of millions of rows never re-reads what it skipped. Rows written after the download
   * began are left out, so pages cannot shift under it.
   */
  async *pages(projectId: number, q: Pick<ListQuery, 'filters' | 'sort'>, size = 1000): AsyncGenerator<AuditRow[]> {
    const order = sortSql(AUDIT_LIST, q);
    const names = (q.sort ?? AUDIT_LIST.defaultSort)
      .split(',')
      .filter(Boolean)
      .map((k) => k.replace(/^-/, ''));
    // The tiebreak (id, ascending) closes the order unless id is already a key.
    const keys = [
      ...sortKeys(AUDIT_LIST, q).map((k, i) => ({ ...k, type: KEY_TYPES[names[i] ?? ''] ?? 'text', name: names[i] })),
      ...(names.includes('id') ? [] : [{ expr: sql`${A.id}`, desc: false, type: 'bigint', name: 'id' }]),
    ];
    const [top] = await queryRows<{ max: number | null }>(
      this.db,
      sql`SELECT max(id) AS max FROM audit_events WHERE project_id = ${projectId}`,
    );
    const where = and(this.where(projectId, q), sql`${A.id} <= ${Number(top?.max ?? 0)}`);
    const extra = Object.fromEntries(keys.map((k, i) => [`k${i}`, sql<string>`(${k.expr})::text`]));
    let after: string[] | null = null;
    for (;;) {
      // (k0 after v0) OR (k0 = v0 AND k1 after v1) OR …
      const next = after
        ? sql`(${sql.join(
            keys.map((k, i) => {
              const cast = (j: number) => sql`CAST(${(after as string[])[j]} AS ${sql.raw(keys[j]!.type)})`;
              const equal = keys.slice(0, i).map((e, j) => sql`${e.expr} = ${cast(j)}`);
              const beyond = sql`${k.expr} ${sql.raw(k.desc ? '<' : '>')} ${cast(i)}`;
              return sql`(${sql.join([...equal, beyond], sql` AND `)})`;
            }),
            sql` OR `,
          )})`
        : undefined;
      const rows = (await this.select(extra)
        .where(and(where, next))
        .orderBy(...order)
        .limit(size)) as (AuditRow & Record<string, unknown>)[];
      const last = rows.at(-1);
      if (last) after = keys.map((_, i) => String(last[`k${i}`]));
      if (rows.length) yield rows.map((r) => stripKeys(r, keys.length));
      if (rows.length < size) return;
    }
  }
}

const stripKeys = (r: AuditRow & Record<string, unknown>, n: number): AuditRow => {
  const out = { ...r };
  for (let i = 0; i < n; i++) delete out[`k${i}`];
  return out;
};
