import {
  APP_CHANGES_TOPIC,
  type CreateRoleBody,
  type ListMeta,
  type ListQuery,
  PERMISSION_CODES,
  REALTIME_EVENTS,
  type Role,
  type RoleBulkDeleteResult,
  scopeCodes,
  topics,
  type UpdateRoleBody,
  type UserRoleChanged,
} from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { withRelations } from '../../core/list-query.js';
import type { RealtimeHub } from '../../core/realtime.js';
import type { RoleRow, RolesRepository } from './roles.repository.js';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

export function toRole(r: RoleRow): Role {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    created_by_user: r.createdBy && r.creatorName !== null ? { id: r.createdBy, name: r.creatorName } : null,
    // The built-in role holds every permission, including ones added after it was made.
    permissions: r.isBuiltin ? [...PERMISSION_CODES] : r.permissions,
    available_roles: r.available,
    is_builtin: r.isBuiltin,
    two_factor_required: r.twoFactorRequired,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
    ...(r.usersCount !== undefined ? { users_count: r.usersCount } : {}),
    can_edit: r.editable,
    can_delete: r.deletable,
  };
}

const anyScope = (actor: Actor, action: string) => Object.values(scopeCodes('roles', action)).some((c) => actor.permissions.has(c));

export class RolesService {
  constructor(
    private readonly db: Db,
    private readonly repo: RolesRepository,
    private readonly realtime: RealtimeHub,
  ) {}

  async list(actor: Actor, q: ListQuery): Promise<{ data: Role[]; meta: ListMeta }> {
    if (!anyScope(actor, 'view')) throw prohibited([{ permission: 'can_view_roles' }]);
    const rel = withRelations(['users_count'] as const, q.with);
    const { rows, total } = await this.repo.list(actor, q, rel.has('users_count'));
    return { data: rows.map(toRole), meta: { total, page: q.page, size: q.size } };
  }

  async get(actor: Actor, id: number): Promise<Role> {
    const r = await this.repo.find(actor, id);
    if (!r?.canView) throw notFound();
    return toRole(r);
  }

  /** The roles the actor may assign to users: every role for the built-in role, else their own and its available roles. */
  async assignable(actor: Actor): Promise<{ id: number; name: string; permissions: string[]; isBuiltin: boolean }[]> {
    const own = actor.roleId ? (await this.repo.byIds(actor.projectId, [actor.roleId]))[0] : undefined;
    if (!own) return [];
    if (own.isBuiltin) return this.repo.all(actor.projectId);
    const available = await this.repo.availableOf(own.id);
    return [own, ...available.filter((r) => r.id !== own.id)];
  }

  async available(actor: Actor): Promise<{ id: number; name: string }[]> {
    return (await this.assignable(actor)).map(({ id, name }) => ({ id, name }));
  }

  /** Refuses a role the actor may not give to a user (spec: available_roles limits which roles a holder may assign). */
  async assertAssignable(actor: Actor, roleId: number): Promise<void> {
    const ok = (await this.assignable(actor)).find((r) => r.id === roleId);
    if (!ok) throw new AppError('invalid_related_entity', [{ field: 'role', entity: 'roles', id: roleId }]);
    this.assertWithinOwn(actor, ok.isBuiltin ? PERMISSION_CODES : ok.permissions, 'role');
  }

  /**
   * May the actor act on a user holding this role (password, e-mail, role, groups, flags, delete,
   * registration link)? Only when the role is one the actor may assign and grants nothing the actor
   * lacks, unless the actor holds the grant-beyond-own permission. A user without a role is anyone's.
   */
  async assertMayActOnHolder(actor: Actor, roleId: number | null): Promise<void> {
    if (roleId === null || actor.permissions.has('can_grant_more_permissions')) return;
    const role = (await this.assignable(actor)).find((r) => r.id === roleId);
    const codes = role ? (role.isBuiltin ? PERMISSION_CODES : role.permissions) : null;
    if (!codes || codes.some((c) => !actor.permissions.has(c))) {
      throw prohibited([{ field: 'role', message: 'the user holds a role with more permissions than your own' }]);
    }
  }

  /** A holder cannot grant more than they have unless they hold the grant-beyond-own permission. */
  private assertWithinOwn(actor: Actor, codes: readonly string[], field: string): void {
    if (actor.permissions.has('can_grant_more_permissions')) return;
    const beyond = codes.filter((c) => !actor.permissions.has(c));
    if (beyond.length) throw prohibited([{ field, message: 'cannot grant more permissions than your own', codes: beyond }]);
  }

  private async checkAvailable(actor: Actor, ids: readonly number[]): Promise<number[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return unique;
    const found = await this.repo.byIds(actor.projectId, unique);
    const missing = unique.filter((id) => !found.some((r) => r.id === id));
    if (missing.length) throw new AppError('invalid_related_entity', [{ field: 'available_roles', entity: 'roles', ids: missing }]);
    const assignable = new Set((await this.assignable(actor)).map((r) => r.id));
    const notMine = unique.filter((id) => !assignable.has(id));
    if (notMine.length && !actor.permissions.has('can_grant_more_permissions')) {
      throw prohibited([{ field: 'available_roles', message: 'cannot grant more permissions than your own', ids: notMine }]);
    }
    return unique;
  }

  async create(ctx: RequestContext, body: CreateRoleBody): Promise<Role> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_roles')) throw prohibited([{ permission: 'can_create_roles' }]);
    const permissions = [...new Set(body.permissions)];
    this.assertWithinOwn(actor, permissions, 'permissions');
    const available = await this.checkAvailable(actor, body.available_roles);
    const id = await this.db.transaction(async (tx) => {
      const roleId = await this.repo.insert(tx, {
        projectId: actor.projectId,
        name: body.name,
        description: body.description ?? null,
        permissions,
        twoFactorRequired: body.two_factor_required,
        createdBy: actor.userId,
      });
      await this.repo.setAvailable(tx, roleId, available);
      await recordAudit(tx, ctx, { entity: 'role', entityId: roleId, action: 'create', after: { ...body, permissions } });
      return roleId;
    });
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateRoleBody): Promise<Role> {
    const { actor } = ctx;
    const before = await this.repo.find(actor, id);
    if (!before?.canView) throw notFound();
    if (!before.canEdit) throw prohibited();
    if (before.isBuiltin && (body.permissions || body.available_roles)) {
      throw new AppError('cannot_perform_action', [{ field: 'permissions', message: 'the built-in role holds every permission' }]);
    }
    let permissions: string[] | undefined;
    if (body.permissions) {
      permissions = [...new Set(body.permissions)];
      const added = permissions.filter((c) => !before.permissions.includes(c));
      this.assertWithinOwn(actor, added, 'permissions');
    }
    let available: number[] | undefined;
    if (body.available_roles) {
      const added = body.available_roles.filter((a) => !before.available.some((b) => b.id === a));
      await this.checkAvailable(actor, added);
      available = [...new Set(body.available_roles)];
    }
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(permissions ? { permissions } : {}),
        ...(body.two_factor_required !== undefined ? { twoFactorRequired: body.two_factor_required } : {}),
      });
      if (available) await this.repo.setAvailable(tx, id, available);
      await recordAudit(tx, ctx, {
        entity: 'role',
        entityId: id,
        action: 'update',
        before: {
          name: before.name,
          description: before.description,
          permissions: before.permissions,
          available_roles: before.available,
          two_factor_required: before.twoFactorRequired,
        },
        after: body,
      });
    });
    await this.roleChanged(actor.projectId, id);
    return this.get(actor, id);
  }

  private async roleChanged(projectId: number, roleId: number): Promise<void> {
    await this.realtime.publish(projectId, APP_CHANGES_TOPIC, REALTIME_EVENTS.roleChanged, { roleId });
  }

  /** Tells the user's open consoles that they hold another role now, so their menu and actions follow it. */
  async userRoleChanged(projectId: number, change: UserRoleChanged): Promise<void> {
    await this.realtime.publish(projectId, topics.user(change.userId), REALTIME_EVENTS.roleChanged, change);
  }

  /** Deletes a role; gently, a role in use is refused with the list of its holders. */
  async delete(ctx: RequestContext, id: number, gently: boolean): Promise<void> {
    const { actor } = ctx;
    const r = await this.repo.find(actor, id);
    if (!r?.canView) throw notFound();
    if (!r.canDelete) throw prohibited();
    if (r.isBuiltin) throw new AppError('cannot_perform_action', [{ message: 'the built-in role cannot be deleted' }]);
    if (id === actor.roleId) throw new AppError('cannot_perform_action', [{ message: 'your own role cannot be deleted' }]);
    if (gently) {
      const holders = await this.repo.holders(actor, id, 20);
      if (holders.total > 0 || holders.hidden)
        throw new AppError('role_in_use', [{ id, users_count: holders.total, users: holders.users }]);
    }
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, ctx, { entity: 'role', entityId: id, action: 'delete', before: { name: r.name, permissions: r.permissions } });
      await this.repo.delete(tx, id);
    });
    await this.roleChanged(actor.projectId, id);
  }

  async bulkDelete(ctx: RequestContext, items: readonly number[], gently: boolean): Promise<RoleBulkDeleteResult> {
    const dependencies: RoleBulkDeleteResult['dependencies'] = [];
    const result = await bulkDelete(items, async (id) => {
      try {
        await this.delete(ctx, id, gently);
      } catch (e) {
        if (e instanceof AppError && e.code === 'role_in_use')
          dependencies.push(e.details?.[0] as RoleBulkDeleteResult['dependencies'][number]);
        throw e;
      }
    });
    return { ...result, dependencies };
  }
}
