import { networkInterfaces } from 'node:os';
import {
  type BulkDeleteResult,
  type CreateForwardGroupBody,
  type CreateSipTrunkBody,
  DUMMY_PASSWORD,
  type ForwardGroup,
  type ListMeta,
  type ListQuery,
  VALIDATION_MESSAGES as M,
  type SipTrunk,
  type UpdateForwardGroupBody,
  type UpdateSipTrunkBody,
  unmaskPassword,
} from '@atrium/contract';
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds, withRelations } from '../../core/list-query.js';
import { parseUri } from '../../sip/address.js';
import { canonicalAddress, hostAddresses, inNetwork } from '../../sip/local-address.js';
import type { SipLicense } from './sip-license.js';
import { forwardGroups, sipTrunkGroups, sipTrunks } from './telephony.table.js';

const F = qualifiedColumns(forwardGroups);
const S = qualifiedColumns(sipTrunks);
export const FORWARD_GROUP_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${F.id}`, type: 'number' },
    name: { expr: sql`${F.name}`, type: 'text' },
    domain_id: { expr: sql`${F.groupId}`, type: 'number' },
    created_at: { expr: sql`${F.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${F.id} ASC`,
};
export const SIP_TRUNK_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${S.id}`, type: 'number' },
    name: { expr: sql`${S.name}`, type: 'text' },
    outgoing_number: { expr: sql`${S.outgoingNumber}`, type: 'text' },
    termination_uri: { expr: sql`${S.terminationUri}`, type: 'text' },
    created_at: { expr: sql`${S.createdAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${S.id} ASC`,
};

const groupTarget: AclTarget = {
  inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${F.groupId} AND ${cond})`,
  createdBy: sql`${F.createdBy}`,
};
const trunkTarget: AclTarget = {
  inGroups: (cond) =>
    sql`EXISTS (SELECT 1 FROM sip_trunk_groups x JOIN groups g ON g.id = x.group_id WHERE x.trunk_id = ${S.id} AND ${cond})`,
  createdBy: sql`${S.createdBy}`,
};
const pred = (actor: Actor, resource: string, target: AclTarget, action: 'view' | 'edit' | 'delete'): SQL => {
  const view = aclPredicate(actor, resource, 'view', target);
  return action === 'view' ? view : sql`(${view} AND ${aclPredicate(actor, resource, action, target)})`;
};
const groupPred = (actor: Actor, action: 'view' | 'edit' | 'delete') => pred(actor, 'forward_rules', groupTarget, action);
const trunkPred = (actor: Actor, action: 'view' | 'edit' | 'delete') => pred(actor, 'sip_trunks', trunkTarget, action);
const TRUNK_VIEW = ['can_view_all_sip_trunks', 'can_view_domain_sip_trunks', 'can_view_descendants_sip_trunks', 'can_view_own_sip_trunks'];

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/**
 * Whether a SIP URI reaches this very server: its host is (or resolves to) one of the server's
 * addresses — loopback, an unspecified address, any interface's, the public URL's host — however it
 * is spelt, and its port (5060, 5061 over TLS, when it names none) is one of the server's SIP ports.
 * A trunk there would send Atrium's outside calls back into Atrium.
 */
export async function pointsAtServer(uri: string, serverHosts: string[], sipPorts: number[]): Promise<boolean> {
  const parsed = parseUri(uri);
  if (!parsed) return false;
  const tls = parsed.scheme === 'sips' || parsed.params.get('transport')?.toLowerCase() === 'tls';
  if (!sipPorts.includes(parsed.port ?? (tls ? 5061 : 5060))) return false;
  const ours = new Set(['::1', '0.0.0.0', '::']);
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) ours.add(canonicalAddress(a.address) ?? a.address);
  for (const host of serverHosts) for (const a of await hostAddresses(host)) ours.add(a);
  const addresses = await hostAddresses(parsed.host);
  return addresses.some((a) => ours.has(a) || inNetwork(a, '127.0.0.0/8'));
}

/** The hosts this server is known by: its public URL's host and its SIP public host. */
export function serverHosts(publicUrl: string, sipPublicHost?: string): string[] {
  const out: string[] = sipPublicHost ? [sipPublicHost] : [];
  try {
    out.push(new URL(publicUrl).hostname);
  } catch {
    // A malformed PUBLIC_URL is refused at start; nothing to add here.
  }
  return out;
}

/** Forward rule groups (/forward-rules) and SIP trunks (/sip-trunks), spec comms §3, §5, §6, §8. */
export class ForwardRulesService {
  /**
   * `hosts`: the names and addresses this server is known by (serverHosts); `sipPorts`: the SIP
   * ports it listens on or is configured for, read at each check (the SIP tab can change them).
   */
  constructor(
    private readonly db: Db,
    private readonly license: SipLicense,
    private readonly hosts: string[],
    private readonly sipPorts: () => number[],
  ) {}

  // --- forward rule groups ------------------------------------------------------------------

  private selectGroup(actor: Actor, withDomain: boolean) {
    return this.db
      .select({
        ...getTableColumns(forwardGroups),
        domainName: withDomain
          ? sql<string | null>`(SELECT g.name FROM groups g WHERE g.id = ${F.groupId}
              AND (${actor.permissions.has('can_view_all_forward_rules')} OR g.path && ${intArray(actor.groupIds)}))`
          : sql<null>`NULL`,
        canView: sql<boolean>`coalesce(${groupPred(actor, 'view')}, FALSE)`,
        canEdit: sql<boolean>`coalesce(${groupPred(actor, 'edit')}, FALSE)`,
        canDelete: sql<boolean>`coalesce(${groupPred(actor, 'delete')}, FALSE)`,
      })
      .from(forwardGroups);
  }

  private toGroup(r: Awaited<ReturnType<ForwardRulesService['findGroup']>>, withDomain: boolean): ForwardGroup {
    return {
      id: r.id,
      name: r.name,
      domain_id: r.groupId,
      params: { ...r.params, trunk_id: r.params.trunk_id ?? null },
      forward_rules: r.forwardRules,
      created_by: r.createdBy,
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      can_edit: r.canEdit,
      can_delete: r.canDelete,
      ...(withDomain ? { domain: r.domainName !== null && r.groupId !== null ? { id: r.groupId, name: r.domainName } : null } : {}),
    };
  }

  private assertGroupView(actor: Actor) {
    if (!actor.permissions.has('can_view_forward_rules') && !actor.permissions.has('can_view_all_forward_rules')) {
      throw prohibited([{ permission: 'can_view_forward_rules' }]);
    }
  }

  private async findGroup(actor: Actor, id: number, withDomain = false) {
    const [r] = await this.selectGroup(actor, withDomain).where(
      and(eq(forwardGroups.id, id), eq(forwardGroups.projectId, actor.projectId)),
    );
    if (!r?.canView) throw notFound();
    return r;
  }

  async listGroups(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: ForwardGroup[]; meta: ListMeta }> {
    this.assertGroupView(actor);
    await this.license.require(this.db, actor);
    const rel = withRelations(['domain'] as const, q.with);
    const where = and(
      eq(forwardGroups.projectId, actor.projectId),
      filtersSql(FORWARD_GROUP_LIST, q),
      groupPred(actor, 'view'),
      q.search ? sql`${F.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: forwardGroups, id: sql`${F.id}`, where, spec: FORWARD_GROUP_LIST, query: q });
    const rows = page.ids.length ? await this.selectGroup(actor, rel.has('domain')).where(sql`${F.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toGroup(r, rel.has('domain'))),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  async getGroup(actor: Actor, id: number, withList: readonly string[] = []): Promise<ForwardGroup> {
    this.assertGroupView(actor);
    await this.license.require(this.db, actor);
    const rel = withRelations(['domain'] as const, withList);
    return this.toGroup(await this.findGroup(actor, id, rel.has('domain')), rel.has('domain'));
  }

  private async validateGroup(
    actor: Actor,
    body: { domain_id?: number | undefined; params?: CreateForwardGroupBody['params'] | undefined },
    trunkIdWas: number | null,
  ) {
    if (body.domain_id !== undefined) {
      const [g] = await queryRows<{ id: number }>(
        this.db,
        sql`SELECT g.id FROM groups g WHERE g.id = ${body.domain_id} AND g.project_id = ${actor.projectId}
          AND (${actor.permissions.has('can_view_all_forward_rules')} OR g.path && ${intArray(actor.groupIds)})`,
      );
      if (!g) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [body.domain_id] }]);
    }
    if (!body.params) return;
    const known = await queryRows<{ number: string }>(
      this.db,
      sql`SELECT number FROM sip_numbers WHERE project_id = ${actor.projectId} AND number = ANY(${`{${body.params.numbers.join(',')}}`}::text[])`,
    );
    const have = new Set(known.map((k) => k.number));
    const bad = body.params.numbers.filter((n) => !have.has(n));
    if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'params.numbers', entity: 'sip_numbers', values: bad }]);
    if (body.params.trunk_numbers.length && body.params.trunk_id === null) throw invalidField('params.trunk_id', M.required);
    if (body.params.trunk_id !== null && body.params.trunk_id !== trunkIdWas) {
      const [t] = await queryRows<{ id: number }>(
        this.db,
        sql`SELECT ${S.id} AS id FROM sip_trunks WHERE ${S.id} = ${body.params.trunk_id} AND ${S.projectId} = ${actor.projectId} AND ${trunkPred(actor, 'view')}`,
      );
      if (!t)
        throw new AppError('invalid_related_entity', [{ field: 'params.trunk_id', entity: 'sip_trunks', ids: [body.params.trunk_id] }]);
    }
  }

  async createGroup(ctx: RequestContext, body: CreateForwardGroupBody): Promise<ForwardGroup> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_forward_rules')) throw prohibited([{ permission: 'can_create_forward_rules' }]);
    await this.license.require(this.db, actor);
    await this.validateGroup(actor, body, null);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(forwardGroups)
        .values({
          projectId: actor.projectId,
          groupId: body.domain_id,
          name: body.name,
          params: body.params,
          forwardRules: body.forward_rules,
          createdBy: actor.userId,
        })
        .returning({ id: forwardGroups.id });
      await recordAudit(tx, ctx, { entity: 'forward_rule', entityId: r!.id, action: 'create', after: body });
      return r!.id;
    });
    return this.getGroup(actor, id);
  }

  async updateGroup(ctx: RequestContext, id: number, body: UpdateForwardGroupBody): Promise<ForwardGroup> {
    const { actor } = ctx;
    const before = await this.findGroup(actor, id);
    if (!before.canEdit) throw prohibited([{ permission: 'can_edit_forward_rules' }]);
    await this.license.require(this.db, actor);
    await this.validateGroup(actor, body, before.params.trunk_id ?? null);
    await this.db.transaction(async (tx) => {
      await tx
        .update(forwardGroups)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.domain_id !== undefined ? { groupId: body.domain_id } : {}),
          ...(body.params !== undefined ? { params: body.params } : {}),
          ...(body.forward_rules !== undefined ? { forwardRules: body.forward_rules } : {}),
          updatedAt: new Date(),
        })
        .where(eq(forwardGroups.id, id));
      await recordAudit(tx, ctx, {
        entity: 'forward_rule',
        entityId: id,
        action: 'update',
        before: this.toGroup(before, false),
        after: body,
      });
    });
    return this.getGroup(actor, id);
  }

  async deleteGroup(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.findGroup(ctx.actor, id);
    if (!before.canDelete) throw prohibited([{ permission: 'can_delete_forward_rules' }]);
    await this.db.transaction(async (tx) => {
      // Numbers that picked this group forward nothing any more.
      await tx.execute(sql`UPDATE sip_numbers SET forward_mode = 'disabled', updated_at = now() WHERE forward_group_id = ${id}`);
      await tx.delete(forwardGroups).where(eq(forwardGroups.id, id));
      await recordAudit(tx, ctx, { entity: 'forward_rule', entityId: id, action: 'delete', before: this.toGroup(before, false) });
    });
  }

  bulkDeleteGroups(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.deleteGroup(ctx, id));
  }

  // --- SIP trunks ---------------------------------------------------------------------------

  private selectTrunk(actor: Actor) {
    return this.db
      .select({
        ...getTableColumns(sipTrunks),
        domains: sql<
          number[]
        >`coalesce((SELECT array_agg(x.group_id ORDER BY x.group_id) FROM sip_trunk_groups x WHERE x.trunk_id = ${S.id}), '{}')`,
        canView: sql<boolean>`coalesce(${trunkPred(actor, 'view')}, FALSE)`,
        canEdit: sql<boolean>`coalesce(${trunkPred(actor, 'edit')}, FALSE)`,
        canDelete: sql<boolean>`coalesce(${trunkPred(actor, 'delete')}, FALSE)`,
      })
      .from(sipTrunks);
  }

  private toTrunk(r: Awaited<ReturnType<ForwardRulesService['findTrunk']>>): SipTrunk {
    return {
      id: r.id,
      name: r.name,
      outgoing_number: r.outgoingNumber,
      termination_uri: r.terminationUri,
      login: r.login,
      password: r.password ? DUMMY_PASSWORD : '',
      domains: r.domains.map(Number),
      created_by: r.createdBy,
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      can_edit: r.canEdit,
      can_delete: r.canDelete,
    };
  }

  private async assertTrunks(actor: Actor) {
    if (!TRUNK_VIEW.some((c) => actor.permissions.has(c)) && !actor.permissions.has('can_create_sip_trunks')) {
      throw prohibited([{ permission: TRUNK_VIEW[0] }]);
    }
    await this.license.require(this.db, actor, 'sip_trunks');
  }

  private async findTrunk(actor: Actor, id: number) {
    const [r] = await this.selectTrunk(actor).where(and(eq(sipTrunks.id, id), eq(sipTrunks.projectId, actor.projectId)));
    if (!r?.canView) throw notFound();
    return r;
  }

  async listTrunks(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: SipTrunk[]; meta: ListMeta }> {
    await this.assertTrunks(actor);
    withRelations([] as const, q.with);
    const where = and(
      eq(sipTrunks.projectId, actor.projectId),
      filtersSql(SIP_TRUNK_LIST, q),
      trunkPred(actor, 'view'),
      q.search ? sql`(${S.name} ILIKE ${containsPattern(q.search)} OR ${S.outgoingNumber} ILIKE ${containsPattern(q.search)})` : undefined,
    );
    const page = await pageOfIds(this.db, { table: sipTrunks, id: sql`${S.id}`, where, spec: SIP_TRUNK_LIST, query: q });
    const rows = page.ids.length ? await this.selectTrunk(actor).where(sql`${S.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toTrunk(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  async getTrunk(actor: Actor, id: number): Promise<SipTrunk> {
    await this.assertTrunks(actor);
    return this.toTrunk(await this.findTrunk(actor, id));
  }

  private async validateTrunk(actor: Actor, body: { termination_uri?: string | undefined; domains?: number[] | undefined }) {
    if (body.termination_uri !== undefined && (await pointsAtServer(body.termination_uri, this.hosts, this.sipPorts()))) {
      throw new AppError('sip_trunk_uri_is_server', [{ field: 'termination_uri' }]);
    }
    if (body.domains) {
      const ids = [...new Set(body.domains)];
      const found = await queryRows<{ id: number }>(
        this.db,
        sql`SELECT g.id FROM groups g WHERE g.id = ANY(${intArray(ids)}) AND g.project_id = ${actor.projectId}
          AND (${actor.permissions.has('can_view_all_sip_trunks')} OR g.path && ${intArray(actor.groupIds)})`,
      );
      const ok = new Set(found.map((f) => Number(f.id)));
      const bad = ids.filter((i) => !ok.has(i));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: bad }]);
    }
  }

  private async setTrunkGroups(tx: DbOrTx, trunkId: number, domains: number[]) {
    await tx.delete(sipTrunkGroups).where(eq(sipTrunkGroups.trunkId, trunkId));
    await tx.insert(sipTrunkGroups).values([...new Set(domains)].map((groupId) => ({ trunkId, groupId })));
  }

  async createTrunk(ctx: RequestContext, body: CreateSipTrunkBody): Promise<SipTrunk> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_sip_trunks')) throw prohibited([{ permission: 'can_create_sip_trunks' }]);
    await this.license.require(this.db, actor, 'sip_trunks');
    await this.validateTrunk(actor, body);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(sipTrunks)
        .values({
          projectId: actor.projectId,
          name: body.name,
          outgoingNumber: body.outgoing_number,
          terminationUri: body.termination_uri,
          login: body.login ?? null,
          password: unmaskPassword(body.password),
          createdBy: actor.userId,
        })
        .returning({ id: sipTrunks.id });
      await this.setTrunkGroups(tx, r!.id, body.domains);
      await recordAudit(tx, ctx, { entity: 'sip_trunk', entityId: r!.id, action: 'create', after: { ...body, password: undefined } });
      return r!.id;
    });
    return this.getTrunk(actor, id);
  }

  async updateTrunk(ctx: RequestContext, id: number, body: UpdateSipTrunkBody): Promise<SipTrunk> {
    const { actor } = ctx;
    await this.assertTrunks(actor);
    const before = await this.findTrunk(actor, id);
    if (!before.canEdit) throw prohibited([{ permission: 'can_edit_all_sip_trunks' }]);
    await this.validateTrunk(actor, body);
    const password = unmaskPassword(body.password);
    await this.db.transaction(async (tx) => {
      await tx
        .update(sipTrunks)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.outgoing_number !== undefined ? { outgoingNumber: body.outgoing_number } : {}),
          ...(body.termination_uri !== undefined ? { terminationUri: body.termination_uri } : {}),
          ...(body.login !== undefined ? { login: body.login } : {}),
          ...(password !== null ? { password } : {}),
          updatedAt: new Date(),
        })
        .where(eq(sipTrunks.id, id));
      if (body.domains) await this.setTrunkGroups(tx, id, body.domains);
      await recordAudit(tx, ctx, {
        entity: 'sip_trunk',
        entityId: id,
        action: 'update',
        before: this.toTrunk(before),
        after: { ...body, password: undefined },
      });
    });
    return this.getTrunk(actor, id);
  }

  async deleteTrunk(ctx: RequestContext, id: number): Promise<void> {
    await this.assertTrunks(ctx.actor);
    const before = await this.findTrunk(ctx.actor, id);
    if (!before.canDelete) throw prohibited([{ permission: 'can_delete_all_sip_trunks' }]);
    await this.db.transaction(async (tx) => {
      await tx.delete(sipTrunks).where(eq(sipTrunks.id, id));
      await recordAudit(tx, ctx, { entity: 'sip_trunk', entityId: id, action: 'delete', before: this.toTrunk(before) });
    });
  }

  bulkDeleteTrunks(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.deleteTrunk(ctx, id));
  }
}
