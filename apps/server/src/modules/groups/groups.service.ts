import {
  type CreateGroupBody,
  DOMAIN_SEARCH_MIN_LENGTH,
  DOMAIN_TYPE_CODES,
  DomainLicenseInfoSchema,
  type FloorsAndApartmentsSchema,
  GENERATE_MAX_GROUPS,
  type GeneratedGroup,
  type GenerateGroupsBody,
  type Group,
  type GroupListQuery,
  GuestIdentifierLimitsSchema,
  type LicenseInfo,
  type ListMeta,
  NO_LOGIC_ADDRESS_TYPES,
  type SaveGeneratedBody,
  type UpdateGroupBody,
  WhitelabelSettingsSchema,
} from '@atrium/contract';
import type { z } from 'zod';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { type FileStore, MAX_IMAGE_BYTES, storableImage } from '../../core/files.js';
import { withRelations } from '../../core/list-query.js';
import type { GroupAccess, GroupRow, GroupsRepository } from './groups.repository.js';
import {
  countGenerated,
  generateStructure,
  hierarchyError,
  type LicensedGroup,
  licenseIssues,
  nearestLicensed,
  SELF_DOMAIN_FIELD,
  type TypeRef,
} from './groups.rules.js';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

export function toGroup(g: GroupRow): Group {
  const wl = WhitelabelSettingsSchema.parse(g.whitelabelSettings ?? {});
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    parent_id: g.parentId,
    path: g.path,
    domain_type_id: g.domainTypeId,
    domain_type: g.type,
    logic_address: g.logicAddress,
    whitelabel_settings: { ...wl, logo: g.logoPath ? `/api/v0/files/${g.logoPath}` : null },
    apple_wallet_settings: g.appleWalletSettings ?? null,
    guest_identifier_limits: GuestIdentifierLimitsSchema.parse(g.guestIdentifierLimits ?? {}),
    device_status_notify: g.deviceStatusNotify as Group['device_status_notify'],
    is_resident_phonebook_enabled: g.isResidentPhonebookEnabled,
    internal_subnetworks: g.internalSubnetworks,
    license_info: g.licenseVisible ? DomainLicenseInfoSchema.parse(g.licenseInfo ?? {}) : null,
    has_children: g.hasChildren,
    ...(g.users !== undefined ? { users: g.users } : {}),
    ...(g.parent !== undefined ? { parent: g.parent } : {}),
    ...(g.pathNames !== undefined ? { path_names: g.pathNames } : {}),
    created_by: g.createdBy,
    created_at: iso(g.createdAt),
    updated_at: iso(g.updatedAt),
    can_edit: g.editable,
    can_delete: g.deletable,
  };
}

/** The part of the roles service the structure import needs. */
export interface RoleAssigner {
  assertAssignable(actor: Actor, roleId: number): Promise<void>;
  /** Refuses acting on a holder of a role beyond the actor's own (roles.service). */
  assertMayActOnHolder(actor: Actor, roleId: number | null): Promise<void>;
}

const RELATIONS = ['users', 'parent', 'path_names'] as const;

export class GroupsService {
  constructor(
    private readonly db: Db,
    private readonly repo: GroupsRepository,
    private readonly files: FileStore,
    /** Whether the actor may act on a holder of a role (roles.service): moving someone between groups is acting on them. */
    private readonly holders: { assertMayActOnHolder(actor: Actor, roleId: number | null): Promise<void> },
  ) {}

  async list(actor: Actor, q: GroupListQuery): Promise<{ data: Group[]; meta: ListMeta }> {
    if (q.search !== undefined && q.search.length < DOMAIN_SEARCH_MIN_LENGTH) {
      throw invalidField('search', 'min length {length} chars', { length: DOMAIN_SEARCH_MIN_LENGTH });
    }
    const { rows, total } = await this.repo.list(actor, q, withRelations(RELATIONS, q.with));
    return { data: rows.map(toGroup), meta: { total, page: q.page, size: q.size } };
  }

  async tree(actor: Actor) {
    return this.repo.tree(actor);
  }

  async get(actor: Actor, id: number): Promise<Group> {
    return toGroup(await this.visible(actor, id, new Set(['users', 'parent'])));
  }

  async children(actor: Actor, id: number): Promise<Group[]> {
    await this.visible(actor, id);
    return (await this.repo.children(actor, id)).map(toGroup);
  }

  async floorsAndApartments(actor: Actor, id: number): Promise<z.infer<typeof FloorsAndApartmentsSchema>> {
    await this.visible(actor, id);
    const rows = await this.repo.floorsAndApartments(id, DOMAIN_TYPE_CODES.floor, DOMAIN_TYPE_CODES.apartment);
    const floors = rows
      .filter((r) => r.code === DOMAIN_TYPE_CODES.floor)
      .map((f) => ({
        id: f.id,
        name: f.name,
        logic_address: f.logic_address,
        apartments: [] as { id: number; name: string; logic_address: number | null }[],
      }));
    const byId = new Map(floors.map((f) => [f.id, f]));
    for (const a of rows.filter((r) => r.code === DOMAIN_TYPE_CODES.apartment)) {
      const floorId = [...a.path].reverse().find((p) => byId.has(p));
      if (floorId !== undefined) byId.get(floorId)?.apartments.push({ id: a.id, name: a.name, logic_address: a.logic_address });
    }
    return floors;
  }

  async visible(actor: Actor, id: number, rel: ReadonlySet<string> = new Set()): Promise<GroupAccess> {
    const g = await this.repo.find(this.db, actor, id, rel);
    if (!g) throw notFound();
    return g;
  }

  private async typeRef(projectId: number, domainTypeId: number | null | undefined): Promise<(TypeRef & { id: number }) | null> {
    if (domainTypeId === null || domainTypeId === undefined) return null;
    const t = await this.repo.domainType(projectId, domainTypeId);
    if (!t) throw new AppError('invalid_related_entity', [{ field: 'domain_type_id', entity: 'domain_types', id: domainTypeId }]);
    return { id: t.id, code: t.code, name: t.name };
  }

  /** May the actor create a group under `parent` (null: a root group)? */
  private assertMayCreate(actor: Actor, parent: GroupAccess | null): void {
    if (!parent) {
      if (!actor.permissions.has('can_create_root_domains')) throw prohibited([{ permission: 'can_create_root_domains' }]);
      return;
    }
    if (actor.permissions.has('can_edit_all_domains') || actor.permissions.has('can_create_root_domains')) return;
    const mine = parent.path.some((p) => actor.groupIds.includes(p));
    if (!actor.permissions.has('can_create_descendant_domains') || !mine) {
      throw prohibited([{ permission: 'can_create_descendant_domains' }]);
    }
  }

  private async parentOf(actor: Actor, parentId: number | null | undefined): Promise<GroupAccess | null> {
    if (parentId === null || parentId === undefined) return null;
    const p = await this.repo.find(this.db, actor, parentId);
    if (!p) throw new AppError('invalid_related_entity', [{ field: 'parent_id', entity: 'domains', id: parentId }]);
    return p;
  }

  private checkAddress(type: TypeRef | null, address: number | null | undefined): void {
    if (address !== null && address !== undefined && type && NO_LOGIC_ADDRESS_TYPES.includes(type.code)) {
      throw invalidField('logic_address', 'logic address must be empty for this domain type', { type: type.name });
    }
  }

  private async checkSiblingAddress(
    projectId: number,
    parentId: number | null,
    typeId: number | null,
    address: number | null,
    exceptId = 0,
  ): Promise<void> {
    if (address === null) return;
    if (await this.repo.siblingAddressTaken(projectId, parentId, typeId, address, exceptId)) {
      throw new AppError('domain_address_exists', [{ field: 'logic_address', logic_address: address }]);
    }
  }

  private checkSubnetworks(list: readonly string[] | undefined): void {
    if (!list) return;
    const seen = new Set<string>();
    for (const s of list) {
      if (seen.has(s)) throw new AppError('subnetwork_address_once', [{ field: 'internal_subnetworks', value: s }]);
      seen.add(s);
    }
  }

  /**
   * Users added to the notification list must be users the actor may see; one outside the scope is
   * answered exactly like a missing one. Entries already stored are kept as they are.
   */
  private async checkNotify(actor: Actor, list: { user_id: number }[] | undefined, stored: unknown = []): Promise<void> {
    if (!list?.length) return;
    const kept = new Set((Array.isArray(stored) ? stored : []).map((n: { user_id?: unknown }) => n?.user_id));
    const ids = [...new Set(list.map((n) => n.user_id))].filter((i) => !kept.has(i));
    const found = await this.repo.visibleUsers(actor, ids);
    const bad = ids.filter((i) => !found.has(i));
    if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'device_status_notify', entity: 'users', ids: bad }]);
  }

  private async checkUsers(actor: Actor, ids: readonly number[]): Promise<void> {
    const ok = await this.repo.editableUsers(actor, ids);
    const bad = ids.filter((i) => !ok.has(i));
    if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'users', entity: 'users', ids: bad }]);
    for (const [id, roleId] of ok) if (id !== actor.userId) await this.holders.assertMayActOnHolder(actor, roleId);
  }

  /** Licence info consistency against parent, siblings, children and the project (spec entities §8). */
  private async checkLicenses(
    projectId: number,
    id: number,
    path: readonly number[],
    info: z.infer<typeof DomainLicenseInfoSchema> | null,
  ) {
    const all = (await this.repo.licensed(projectId)).filter((r) => r.id !== id);
    const licensed = new Set(all.map((r) => r.id));
    const ancestors = path.slice(0, -1).filter((p) => licensed.has(p));
    const parentId = ancestors[ancestors.length - 1] ?? null;
    const parentRow = parentId === null ? null : (all.find((r) => r.id === parentId) ?? null);
    const toLicensed = (r: { id: number; info: unknown }): LicensedGroup => ({ id: r.id, info: DomainLicenseInfoSchema.parse(r.info) });
    const siblings =
      parentId === null
        ? all.filter((r) => !r.path.slice(0, -1).some((a) => licensed.has(a)) && !r.path.includes(id))
        : nearestLicensed(parentId, all).filter((r) => !r.path.includes(id));
    const children = nearestLicensed(id, all);
    const project = parentId === null ? ((await this.repo.projectLicense(projectId)) as LicenseInfo | null) : null;
    const issues = licenseIssues({
      info,
      parent: parentRow ? toLicensed(parentRow) : null,
      siblings: siblings.map(toLicensed),
      children: children.map(toLicensed),
      project,
    });
    if (issues.length) throw new AppError('license_consistency', issues);
  }

  async create(ctx: RequestContext, body: CreateGroupBody): Promise<Group> {
    const { actor } = ctx;
    const parent = await this.parentOf(actor, body.parent_id);
    this.assertMayCreate(actor, parent);
    const type = await this.typeRef(actor.projectId, body.domain_type_id);
    const parentType = parent ? await this.typeRef(actor.projectId, parent.domainTypeId) : null;
    const err = hierarchyError(type, parentType, !parent);
    if (err) throw err;
    this.checkAddress(type, body.logic_address);
    await this.checkSiblingAddress(actor.projectId, parent?.id ?? null, type?.id ?? null, body.logic_address ?? null);
    this.checkSubnetworks(body.internal_subnetworks);
    await this.checkNotify(actor, body.device_status_notify);
    if (body.users?.length) await this.checkUsers(actor, body.users);
    if (body.license_info && !actor.permissions.has('can_edit_all_domain_license_counts')) {
      if (!parent?.canEditLicense) throw prohibited([{ field: 'license_info', permission: 'can_edit_descendant_domain_license_counts' }]);
    }
    // The new group has no id yet and no children: 0 stands for it.
    if (body.license_info)
      await this.checkLicenses(actor.projectId, 0, [...(parent?.path ?? []), 0], DomainLicenseInfoSchema.parse(body.license_info));
    const id = await this.db.transaction(async (tx) => {
      const groupId = await this.repo.insert(
        tx,
        {
          projectId: actor.projectId,
          parentId: parent?.id ?? null,
          domainTypeId: type?.id ?? null,
          name: body.name,
          description: body.description ?? null,
          logicAddress: body.logic_address ?? null,
          whitelabelSettings: body.whitelabel_settings ? { ...body.whitelabel_settings, logo: null } : null,
          appleWalletSettings: body.apple_wallet_settings ?? null,
          guestIdentifierLimits: body.guest_identifier_limits ?? null,
          deviceStatusNotify: body.device_status_notify ?? [],
          isResidentPhonebookEnabled: body.is_resident_phonebook_enabled ?? false,
          internalSubnetworks: body.internal_subnetworks ?? [],
          licenseInfo: body.license_info ?? null,
          createdBy: actor.userId,
        },
        parent?.path ?? [],
      );
      if (body.users?.length) await this.repo.attachUsers(tx, groupId, body.users);
      await recordAudit(tx, ctx, { entity: 'group', entityId: groupId, action: 'create', after: body });
      return groupId;
    });
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateGroupBody): Promise<Group> {
    const { actor } = ctx;
    const g = await this.visible(actor, id, new Set(['users']));
    const fields = Object.keys(body).filter((k) => body[k as keyof UpdateGroupBody] !== undefined);
    if (!g.canEdit) {
      const member = actor.groupIds.includes(id);
      const denied = fields.filter((f) => {
        if (f === 'license_info') return false;
        const key = SELF_DOMAIN_FIELD[f];
        return !member || !key || !actor.permissions.has(`can_manage_self_domain_${key}`);
      });
      if (denied.length || !fields.length) throw prohibited(denied.map((field) => ({ field })));
    }
    if (body.license_info !== undefined && !g.canEditLicense) {
      throw prohibited([{ field: 'license_info', permission: 'can_edit_descendant_domain_license_counts' }]);
    }

    let parent: GroupAccess | null = null;
    const moving = body.parent_id !== undefined && body.parent_id !== g.parentId;
    if (body.parent_id !== undefined && body.parent_id !== null) parent = await this.parentOf(actor, body.parent_id);
    else if (body.parent_id === undefined && g.parentId !== null) parent = (await this.repo.find(this.db, actor, g.parentId)) ?? null;
    if (moving) {
      if (parent?.path.includes(id)) throw invalidField('parent_id', 'a group cannot be moved below itself');
      this.assertMayCreate(actor, parent);
    }
    const parentId = moving ? (parent?.id ?? null) : g.parentId;
    const typeId = body.domain_type_id !== undefined ? body.domain_type_id : g.domainTypeId;
    const type = await this.typeRef(actor.projectId, typeId);
    if (moving || body.domain_type_id !== undefined) {
      // A parent the actor cannot see keeps its type out of the check only when the group stays where it is.
      const parentType = parent ? await this.typeRef(actor.projectId, parent.domainTypeId) : null;
      const err = hierarchyError(type, parentType, parentId === null);
      if (err && (moving || parentId === null || parent)) throw err;
    }
    if (body.domain_type_id !== undefined && body.domain_type_id !== g.domainTypeId && type) {
      if ((await this.repo.descendantTypeCodes(id)).includes(type.code)) {
        throw new AppError('child_contains_type', [{ type: type.name }]);
      }
      for (const child of await this.repo.childTypes(id)) {
        const err = hierarchyError({ code: child.code, name: child.name }, type, false);
        if (err) throw err;
      }
    }
    const address = body.logic_address !== undefined ? body.logic_address : g.logicAddress;
    this.checkAddress(type, address);
    if (moving || body.logic_address !== undefined || body.domain_type_id !== undefined) {
      await this.checkSiblingAddress(actor.projectId, parentId, type?.id ?? null, address, id);
    }
    this.checkSubnetworks(body.internal_subnetworks);
    await this.checkNotify(actor, body.device_status_notify, g.deviceStatusNotify);
    let addUsers: number[] = [];
    let removeUsers: number[] = [];
    if (body.users) {
      const current = g.users ?? [];
      addUsers = body.users.filter((u) => !current.includes(u));
      removeUsers = current.filter((u) => !body.users?.includes(u));
      await this.checkUsers(actor, [...addUsers, ...removeUsers]);
      if (removeUsers.includes(actor.userId) && (actor.groupIds.length === 1 || this.isTopGroupOf(actor, g))) {
        throw new AppError('cannot_remove_only_group', [{ field: 'users', id: actor.userId }]);
      }
    }
    if (body.license_info !== undefined || moving) {
      const info = body.license_info !== undefined ? body.license_info : g.licenseInfo;
      const newPath = moving ? [...(parent?.path ?? []), id] : g.path;
      await this.checkLicenses(actor.projectId, id, newPath, info ? DomainLicenseInfoSchema.parse(info) : null);
    }
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.domain_type_id !== undefined ? { domainTypeId: body.domain_type_id } : {}),
        ...(body.logic_address !== undefined ? { logicAddress: body.logic_address } : {}),
        ...(body.whitelabel_settings !== undefined
          ? { whitelabelSettings: { ...(g.whitelabelSettings ?? {}), ...body.whitelabel_settings, logo: null } }
          : {}),
        ...(body.apple_wallet_settings !== undefined ? { appleWalletSettings: body.apple_wallet_settings } : {}),
        ...(body.guest_identifier_limits !== undefined ? { guestIdentifierLimits: body.guest_identifier_limits } : {}),
        ...(body.device_status_notify !== undefined ? { deviceStatusNotify: body.device_status_notify } : {}),
        ...(body.is_resident_phonebook_enabled !== undefined ? { isResidentPhonebookEnabled: body.is_resident_phonebook_enabled } : {}),
        ...(body.internal_subnetworks !== undefined ? { internalSubnetworks: body.internal_subnetworks } : {}),
        ...(body.license_info !== undefined ? { licenseInfo: body.license_info } : {}),
        ...(moving ? { parentId } : {}),
      });
      if (moving) await this.repo.move(tx, id, g.path, parent?.path ?? []);
      await this.repo.attachUsers(tx, id, addUsers);
      await this.repo.detachUsers(tx, id, removeUsers);
      await recordAudit(tx, ctx, { entity: 'group', entityId: id, action: 'update', before: auditView(g), after: body });
    });
    return this.get(actor, id);
  }

  /** A group is top-level for the actor when none of their other groups is above it. */
  private isTopGroupOf(actor: Actor, g: GroupRow): boolean {
    return !g.path.slice(0, -1).some((a) => actor.groupIds.includes(a));
  }

  /**
   * What deleting a group would take with it, for the confirmation: its subgroups (deleted with it),
   * and the users and devices that must first be moved (the delete is refused while any remain).
   */
  async deleteImpact(actor: Actor, id: number): Promise<{ subgroups: number; users: number; devices: number }> {
    const g = await this.visible(actor, id);
    if (!g.canDelete) throw prohibited();
    return {
      subgroups: await this.repo.subgroupsInSubtree(id),
      users: await this.repo.usersInSubtree(id),
      devices: await this.repo.devicesInSubtree(id),
    };
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const { actor } = ctx;
    const g = await this.visible(actor, id);
    if (!g.canDelete) throw prohibited();
    if (actor.groupIds.length === 1 && actor.groupIds[0] === id) throw new AppError('cannot_delete_only_group', [{ id }]);
    const users = await this.repo.usersInSubtree(id);
    if (users > 0) throw new AppError('users_must_be_moved', [{ id, users_count: users }]);
    const devices = await this.repo.devicesInSubtree(id);
    if (devices > 0) throw new AppError('devices_must_be_moved', [{ id, devices_count: devices }]);
    const logos = await this.repo.subtreeLogos(id);
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, ctx, { entity: 'group', entityId: id, action: 'delete', before: auditView(g) });
      await this.repo.deleteSubtree(tx, id);
    });
    for (const logo of logos) await this.files.remove(logo);
  }

  private async editableWhiteLabel(actor: Actor, id: number): Promise<GroupAccess> {
    const g = await this.visible(actor, id);
    if (!g.canEdit && !(actor.groupIds.includes(id) && actor.permissions.has('can_manage_self_domain_white_label'))) throw prohibited();
    return g;
  }

  async setLogo(ctx: RequestContext, id: number, image: Buffer): Promise<Group> {
    const g = await this.editableWhiteLabel(ctx.actor, id);
    if (image.length > MAX_IMAGE_BYTES) throw new AppError('payload_too_large');
    const { ext, data } = await storableImage(image);
    const key = await this.files.put('logos', ext, data);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, { logoPath: key });
      await recordAudit(tx, ctx, { entity: 'group', entityId: id, action: 'logo', after: { logo: key } });
    });
    await this.files.remove(g.logoPath);
    return this.get(ctx.actor, id);
  }

  async removeLogo(ctx: RequestContext, id: number): Promise<Group> {
    const g = await this.editableWhiteLabel(ctx.actor, id);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, { logoPath: null });
      await recordAudit(tx, ctx, { entity: 'group', entityId: id, action: 'logo', before: { logo: g.logoPath } });
    });
    await this.files.remove(g.logoPath);
    return this.get(ctx.actor, id);
  }

  // --- generate ---------------------------------------------------------------------------------

  private async generationTarget(actor: Actor, parentId: number | null) {
    const parent = await this.parentOf(actor, parentId);
    this.assertMayCreate(actor, parent);
    const types = await this.repo.domainTypes(actor.projectId);
    return { parent, types: new Map(types.map((t) => [t.id, { id: t.id, code: t.code, name: t.name }])) };
  }

  async generate(actor: Actor, body: GenerateGroupsBody): Promise<{ parent_id: number | null; total: number; domains: GeneratedGroup[] }> {
    const parentId = body.root_level_only && body.parent_id === null ? null : body.parent_id;
    if (parentId === null && !body.root_level_only) throw invalidField('parent_id', 'field is required');
    const { types } = await this.generationTarget(actor, parentId);
    body.domains.forEach((level, i) => {
      if (!types.has(level.id))
        throw new AppError('invalid_related_entity', [{ field: `domains.${i}.id`, entity: 'domain_types', id: level.id }]);
    });
    const levels = body.root_level_only ? body.domains.slice(0, 1) : body.domains;
    const total = levels.reduce((acc, l) => ({ per: acc.per * l.count, sum: acc.sum + acc.per * l.count }), { per: 1, sum: 0 }).sum;
    if (total > GENERATE_MAX_GROUPS) throw invalidField('domains', 'value in {min}-{max}', { min: 1, max: GENERATE_MAX_GROUPS, total });
    const noAddress = new Set([...types.values()].filter((t) => NO_LOGIC_ADDRESS_TYPES.includes(t.code)).map((t) => t.id));
    const domains = generateStructure(body, noAddress);
    return { parent_id: parentId, total: countGenerated(domains), domains };
  }

  async saveGenerated(ctx: RequestContext, body: SaveGeneratedBody): Promise<{ created: number; ids: number[] }> {
    const { actor } = ctx;
    const { parent, types } = await this.generationTarget(actor, body.parent_id);
    const total = countGenerated(body.domains);
    if (total > GENERATE_MAX_GROUPS) throw invalidField('domains', 'value in {min}-{max}', { min: 1, max: GENERATE_MAX_GROUPS, total });
    const parentType = parent ? await this.typeRef(actor.projectId, parent.domainTypeId) : null;
    // Validate the whole tree before writing anything.
    const validate = (nodes: readonly GeneratedGroup[], up: TypeRef | null, isRoot: boolean, where: string) => {
      const seen = new Set<string>();
      nodes.forEach((n, i) => {
        const t = types.get(n.domain_type_id);
        if (!t) throw new AppError('invalid_related_entity', [{ field: `${where}.${i}.domain_type_id`, entity: 'domain_types' }]);
        const err = hierarchyError(t, up, isRoot);
        if (err) throw err;
        this.checkAddress(t, n.logic_address);
        if (n.logic_address !== null) {
          const key = `${n.domain_type_id}:${n.logic_address}`;
          if (seen.has(key))
            throw new AppError('domain_address_exists', [{ field: `${where}.${i}.logic_address`, logic_address: n.logic_address }]);
          seen.add(key);
        }
        validate(n.children, t, false, `${where}.${i}.children`);
      });
    };
    validate(body.domains, parentType, !parent, 'domains');
    for (const n of body.domains) {
      await this.checkSiblingAddress(actor.projectId, parent?.id ?? null, n.domain_type_id, n.logic_address);
    }
    const ids = await this.db.transaction(async (tx) => {
      const created: number[] = [];
      let level: { parentId: number | null; nodes: readonly GeneratedGroup[] }[] = [{ parentId: parent?.id ?? null, nodes: body.domains }];
      while (level.length) {
        const rows = level.flatMap(({ parentId, nodes }) =>
          nodes.map((n) => ({
            projectId: actor.projectId,
            parentId,
            domainTypeId: n.domain_type_id,
            name: n.name,
            logicAddress: n.logic_address,
            createdBy: actor.userId,
          })),
        );
        const flat = level.flatMap(({ nodes }) => nodes);
        const newIds: number[] = [];
        for (let i = 0; i < rows.length; i += 1000) newIds.push(...(await this.repo.insertMany(tx, rows.slice(i, i + 1000))));
        created.push(...newIds);
        level = flat.map((n, i) => ({ parentId: newIds[i] as number, nodes: n.children })).filter((l) => l.nodes.length);
      }
      await recordAudit(tx, ctx, { entity: 'group', entityId: parent?.id ?? null, action: 'generate', after: { created: created.length } });
      return created;
    });
    return { created: ids.length, ids };
  }
}

const auditView = (g: GroupRow) => ({
  name: g.name,
  parent_id: g.parentId,
  domain_type_id: g.domainTypeId,
  logic_address: g.logicAddress,
  license_info: g.licenseInfo,
});
