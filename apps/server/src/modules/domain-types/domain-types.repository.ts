import type { ListQuery } from '@atrium/contract';
import { and, eq, sql } from 'drizzle-orm';
import { groupVisible, qualifiedColumns } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { filtersSql, type ListSpec, pageOffset, sortSql } from '../../core/list-query.js';
import { domainTypes, groups } from '../groups/groups.table.js';

const DT = qualifiedColumns(domainTypes);

export const DOMAIN_TYPE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${DT.id}`, type: 'number' },
    type: { expr: sql`${DT.type}`, type: 'number' },
    name: { expr: sql`${DT.name}`, type: 'text' },
    domain_id: { expr: sql`${DT.domainId}`, type: 'number' },
  },
  defaultSort: 'type',
  tiebreak: sql`${DT.id} ASC`,
};

export type DomainTypeRow = typeof domainTypes.$inferSelect & { domains?: number[] };

const domainIds = sql<number[]>`ARRAY(SELECT g.id FROM groups g WHERE g.domain_type_id = ${DT.id} ORDER BY g.id)`;
/** The groups of a type the caller may see: a relation never names a group outside the scope. */
const visibleDomainIds = (actor: Actor) =>
  sql<number[]>`ARRAY(SELECT g.id FROM groups g WHERE g.domain_type_id = ${DT.id} AND ${groupVisible(actor, sql`g.path`)} ORDER BY g.id)`;

/** Domain types are the project's catalogue of group kinds (Complex, Building, Entrance, …). */
export class DomainTypesRepository {
  constructor(private readonly db: Db) {}

  async list(actor: Actor, q: ListQuery, withDomains: boolean): Promise<{ rows: DomainTypeRow[]; total: number }> {
    const where = and(eq(domainTypes.projectId, actor.projectId), filtersSql(DOMAIN_TYPE_LIST, q));
    const rows = await this.db
      .select({ t: domainTypes, total: sql<number>`(count(*) OVER ())::int`, ...(withDomains ? { domains: visibleDomainIds(actor) } : {}) })
      .from(domainTypes)
      .where(where)
      .orderBy(...sortSql(DOMAIN_TYPE_LIST, q))
      .limit(q.size)
      .offset(pageOffset(q));
    let total = rows[0]?.total ?? 0;
    if (!rows.length && q.page > 1) {
      const [c] = await this.db.select({ n: sql<number>`count(*)::int` }).from(domainTypes).where(where);
      total = c?.n ?? 0;
    }
    return { rows: rows.map((r) => ({ ...r.t, ...(r.domains ? { domains: r.domains } : {}) })), total };
  }

  /** A domain type; its `domains` are all the project's groups of the type, or those `visibleTo` may see. */
  async find(projectId: number, id: number, visibleTo?: Actor): Promise<DomainTypeRow | undefined> {
    const [r] = await this.db
      .select({ t: domainTypes, domains: visibleTo ? visibleDomainIds(visibleTo) : domainIds })
      .from(domainTypes)
      .where(and(eq(domainTypes.projectId, projectId), eq(domainTypes.id, id)));
    return r ? { ...r.t, domains: r.domains } : undefined;
  }

  async codeTaken(projectId: number, code: number, exceptId = 0): Promise<boolean> {
    const [r] = await this.db
      .select({ id: domainTypes.id })
      .from(domainTypes)
      .where(and(eq(domainTypes.projectId, projectId), eq(domainTypes.type, code), sql`${DT.id} <> ${exceptId}`));
    return !!r;
  }

  async groupExists(projectId: number, id: number): Promise<boolean> {
    const [r] = await this.db
      .select({ id: groups.id })
      .from(groups)
      .where(and(eq(groups.projectId, projectId), eq(groups.id, id)));
    return !!r;
  }

  async usedBy(id: number): Promise<number> {
    const [r] = await this.db.select({ n: sql<number>`count(*)::int` }).from(groups).where(eq(groups.domainTypeId, id));
    return r?.n ?? 0;
  }

  async insert(tx: DbOrTx, v: typeof domainTypes.$inferInsert): Promise<number> {
    const [r] = await tx.insert(domainTypes).values(v).returning({ id: domainTypes.id });
    if (!r) throw new Error('domain type insert returned nothing');
    return r.id;
  }

  async update(tx: DbOrTx, id: number, v: Partial<typeof domainTypes.$inferInsert>): Promise<void> {
    await tx.update(domainTypes).set(v).where(eq(domainTypes.id, id));
  }

  async delete(tx: DbOrTx, id: number): Promise<void> {
    await tx.delete(domainTypes).where(eq(domainTypes.id, id));
  }
}
