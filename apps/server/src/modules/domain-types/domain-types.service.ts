import type { CreateDomainTypeBodySchema, DomainType, ListMeta, ListQuery, UpdateDomainTypeBodySchema } from '@atrium/contract';
import type { z } from 'zod';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { withRelations } from '../../core/list-query.js';
import type { DomainTypeRow, DomainTypesRepository } from './domain-types.repository.js';

const toDomainType = (t: DomainTypeRow): DomainType => ({
  id: t.id,
  type: t.type,
  name: t.name,
  domain_id: t.domainId,
  ...(t.domains ? { domains: t.domains } : {}),
});

/** Everyone signed in reads the catalogue (group forms need it); changing it is a project setting. */
export class DomainTypesService {
  constructor(
    private readonly db: Db,
    private readonly repo: DomainTypesRepository,
  ) {}

  private assertMayChange(actor: Actor): void {
    if (!actor.permissions.has('can_change_project_settings')) throw prohibited([{ permission: 'can_change_project_settings' }]);
  }

  async list(actor: Actor, q: ListQuery): Promise<{ data: DomainType[]; meta: ListMeta }> {
    const rel = withRelations(['domains'] as const, q.with);
    const { rows, total } = await this.repo.list(actor, q, rel.has('domains'));
    return { data: rows.map(toDomainType), meta: { total, page: q.page, size: q.size } };
  }

  async get(actor: Actor, id: number): Promise<DomainType> {
    const t = await this.repo.find(actor.projectId, id, actor);
    if (!t) throw notFound();
    return toDomainType(t);
  }

  private async check(actor: Actor, v: { type?: number | undefined; domain_id?: number | null | undefined }, exceptId = 0) {
    if (v.type !== undefined && (await this.repo.codeTaken(actor.projectId, v.type, exceptId))) {
      throw new AppError('value_not_unique', [{ field: 'type', message: 'value must be unique' }]);
    }
    if (v.domain_id && !(await this.repo.groupExists(actor.projectId, v.domain_id))) {
      throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', id: v.domain_id }]);
    }
  }

  async create(ctx: RequestContext, body: z.infer<typeof CreateDomainTypeBodySchema>): Promise<DomainType> {
    this.assertMayChange(ctx.actor);
    await this.check(ctx.actor, body);
    const id = await this.db.transaction(async (tx) => {
      const typeId = await this.repo.insert(tx, {
        projectId: ctx.actor.projectId,
        type: body.type,
        name: body.name,
        domainId: body.domain_id ?? null,
      });
      await recordAudit(tx, ctx, { entity: 'domain_type', entityId: typeId, action: 'create', after: body });
      return typeId;
    });
    return this.get(ctx.actor, id);
  }

  async update(ctx: RequestContext, id: number, body: z.infer<typeof UpdateDomainTypeBodySchema>): Promise<DomainType> {
    this.assertMayChange(ctx.actor);
    const before = await this.repo.find(ctx.actor.projectId, id);
    if (!before) throw notFound();
    // The hierarchy rules speak of type codes: a type in use keeps its code.
    if (body.type !== undefined && body.type !== before.type && (before.domains?.length ?? 0) > 0) {
      throw new AppError('cannot_perform_action', [{ field: 'type', message: 'the type of groups in use cannot change' }]);
    }
    await this.check(ctx.actor, body, id);
    const changes = {
      ...(body.type !== undefined ? { type: body.type } : {}),
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.domain_id !== undefined ? { domainId: body.domain_id } : {}),
    };
    await this.db.transaction(async (tx) => {
      // An empty PATCH changes nothing but is still a call someone made: audited like any other.
      if (Object.keys(changes).length) await this.repo.update(tx, id, changes);
      await recordAudit(tx, ctx, { entity: 'domain_type', entityId: id, action: 'update', before: toDomainType(before), after: body });
    });
    return this.get(ctx.actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    this.assertMayChange(ctx.actor);
    const before = await this.repo.find(ctx.actor.projectId, id);
    if (!before) throw notFound();
    const used = await this.repo.usedBy(id);
    if (used > 0) throw new AppError('cannot_perform_action', [{ message: 'the domain type is used by groups', groups_count: used }]);
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, ctx, { entity: 'domain_type', entityId: id, action: 'delete', before: toDomainType(before) });
      await this.repo.delete(tx, id);
    });
  }
}
