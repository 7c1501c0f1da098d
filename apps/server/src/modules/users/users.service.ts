import {
  type BulkDeleteResult,
  type CreateUserBody,
  DEFAULT_IDENTIFIER_FORMAT,
  type ListMeta,
  type ListQuery,
  type MailDelivery,
  type Scope,
  scopeCodes,
  type UpdateUserBody,
  type User,
  type UserProfile,
  type UserRoleChanged,
} from '@atrium/contract';
import { scopeOf } from '../../core/acl.js';
import { confirmCurrentPassword, unlockSignIn } from '../../core/attempts.js';
import { recordAudit } from '../../core/audit.js';
import { hashPassword } from '../../core/auth/password.js';
import { bulkDelete } from '../../core/bulk.js';
import { changes } from '../../core/changes.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { type FileStore, MAX_IMAGE_BYTES, storableImage } from '../../core/files.js';
import { withRelations } from '../../core/list-query.js';
import { endSessions } from '../../core/sessions.js';
import { assignMasterNumber } from '../telephony/sip-numbers.service.js';
import type { UserListRow, UserRow, UsersRepository } from './users.repository.js';

/** What the registration module offers for "send registration link" (app.services.registration). */
export interface InviteSender {
  sendInvite(ctx: RequestContext, userId: number): Promise<MailDelivery>;
}
/** The part of the roles service users need: may the actor give this role to a user, and telling a user of a new role. */
export interface RoleAssigner {
  assertAssignable(actor: Actor, roleId: number): Promise<void>;
  assertMayActOnHolder(actor: Actor, roleId: number | null): Promise<void>;
  userRoleChanged(projectId: number, change: UserRoleChanged): Promise<void>;
}

const DEFAULT_PROFILE: UserProfile = {
  address: null,
  phone: null,
  use_phone_in_forward: false,
  country_code: null,
  time_zone: null,
  sip_number_id: null,
  identifier_format: DEFAULT_IDENTIFIER_FORMAT,
  time_format: null,
};
const iso = (d: Date | string | null) => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());
/** Fields a user may change on their own record without an edit permission over them. */
const ADMIN_FIELDS = ['login', 'role', 'domains', 'is_group_admin', 'license_info', 'elevator_access_disabled'] as const;

export function toUser(u: UserListRow, showLicense: boolean): User {
  const stored = (u.profile ?? {}) as Partial<UserProfile>;
  // Written out key by key, in DEFAULT_PROFILE's order: building it through Object.fromEntries was a
  // tenth of an uncached list call's CPU (two arrays and a closure per key, per row).
  const d = DEFAULT_PROFILE;
  const profile: UserProfile = {
    address: stored.address ?? d.address,
    phone: stored.phone ?? d.phone,
    use_phone_in_forward: stored.use_phone_in_forward ?? d.use_phone_in_forward,
    country_code: stored.country_code ?? d.country_code,
    time_zone: stored.time_zone ?? d.time_zone,
    sip_number_id: stored.sip_number_id ?? d.sip_number_id,
    identifier_format: stored.identifier_format ?? d.identifier_format,
    time_format: stored.time_format ?? d.time_format,
  };
  return {
    id: u.id,
    login: u.login,
    name: u.name,
    description: u.description,
    email: u.email,
    role: u.roleId,
    domains: u.domains,
    avatar_url: u.avatarPath ? `/api/v0/files/${u.avatarPath}` : null,
    elevator_access_disabled: u.elevatorAccessDisabled,
    license_info: showLicense ? ((u.licenseInfo as User['license_info']) ?? null) : null,
    is_group_admin: u.isGroupAdmin,
    is_invited: u.isInvited,
    activated_at: iso(u.activatedAt),
    activated: u.activatedAt !== null,
    profile,
    ...(u.mobileClients !== undefined
      ? {
          // Key by key: jsonb keeps its own key order, not the contract's.
          mobile_clients: u.mobileClients.map((c) => ({
            id: c.id,
            mobile_client_id: c.mobile_client_id,
            platform: c.platform,
            info: c.info,
            auth_at: new Date(c.auth_at).toISOString(),
            vendor_id: c.vendor_id,
            sip_number: c.sip_number,
            ukey2: c.ukey2,
          })),
        }
      : {}),
    created_by: u.createdBy,
    created_at: iso(u.createdAt) as string,
    updated_at: iso(u.updatedAt) as string,
    ...(u.roleName !== undefined ? { role_info: u.roleId && u.roleName !== null ? { id: u.roleId, name: u.roleName } : null } : {}),
    ...(u.domainsInfo !== undefined ? { domains_info: u.domainsInfo } : {}),
    ...(u.markersInfo !== undefined ? { markers_info: u.markersInfo } : {}),
    can_edit: u.editable,
    can_delete: u.deletable,
  };
}

const RELATIONS = ['role', 'domains', 'markers', 'mobile_clients'] as const;

export type MarkerApplier = (
  tx: Parameters<Parameters<Db['transaction']>[0]>[0],
  actor: Actor,
  userId: number,
  markerIds: readonly number[],
) => Promise<void>;

/** A project's licence count check for users' licence info: made before the write, run inside its transaction. */
export type LicenseCheck = (projectId: number) => Promise<(tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<void>>;

/** Runs `change` to some users' groups (or their deletion) and lets the listener see before and after. */
export type MembershipChange = (
  tx: Parameters<Parameters<Db['transaction']>[0]>[0],
  userIds: number[],
  change: () => Promise<void>,
) => Promise<void>;

export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly repo: UsersRepository,
    private readonly roles: RoleAssigner,
    private readonly files: FileStore,
    /** Resolved at call time: the registration module registers itself after this one. */
    private readonly invites: () => InviteSender | undefined,
  ) {}

  private showLicense(actor: Actor, userId: number): boolean {
    return userId === actor.userId || actor.permissions.has('can_view_user_licenses');
  }

  async list(actor: Actor, q: ListQuery & { search?: string; branch?: number }): Promise<{ data: User[]; meta: ListMeta }> {
    if (!Object.values(scopeCodes('users', 'view')).some((c) => actor.permissions.has(c))) {
      throw prohibited([{ permission: 'can_view_users' }]);
    }
    const rel = withRelations(RELATIONS, q.with);
    const { rows, total, estimated } = await this.repo.list(actor, q, rel);
    const meta: ListMeta = { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) };
    return { data: rows.map((u) => toUser(u, this.showLicense(actor, u.id))), meta };
  }

  async get(actor: Actor, id: number, withRel: readonly string[] = []): Promise<User> {
    const u = await this.repo.find(this.db, actor, id, withRelations(RELATIONS, withRel));
    if (!u?.canView) throw notFound();
    return toUser(u, this.showLicense(actor, u.id));
  }

  /** Where the actor may place users: the scope of their edit permission, else of view, else their own groups. */
  private placementScope(actor: Actor): Scope {
    const s = scopeOf(actor, 'users', 'edit') ?? scopeOf(actor, 'users', 'view') ?? 'domain';
    return s === 'own' ? 'domain' : s;
  }

  private async assertPlaceable(actor: Actor, ids: readonly number[]): Promise<void> {
    const ok = await this.repo.groupsInScope(actor, this.placementScope(actor), ids);
    const bad = ids.filter((id) => !ok.has(id));
    if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: bad }]);
  }

  private async assertUnique(actor: Actor, login: string | undefined, email: string | null | undefined, exceptId = 0) {
    if (login !== undefined && (await this.repo.loginTaken(actor.projectId, login, exceptId))) {
      throw new AppError('value_not_unique', [{ field: 'login', message: 'value must be unique' }]);
    }
    if (email && (await this.repo.emailTaken(actor.projectId, email, exceptId))) {
      throw new AppError('email_already_used', [{ field: 'email', message: 'e-mail already used' }]);
    }
  }

  private assertLicenseEdit(actor: Actor, body: { license_info?: unknown }) {
    if (body.license_info !== undefined && !actor.permissions.has('can_edit_user_licenses')) {
      throw prohibited([{ field: 'license_info', permission: 'can_edit_user_licenses' }]);
    }
  }

  async create(ctx: RequestContext, body: CreateUserBody): Promise<User> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_users')) throw prohibited([{ permission: 'can_create_users' }]);
    if (body.send_registration_link && !body.email) {
      throw new AppError('email_required_for_registration', [{ field: 'email', message: 'user must provide an e-mail for registration' }]);
    }
    this.assertLicenseEdit(actor, body);
    await this.assertUnique(actor, body.login, body.email);
    await this.assertPlaceable(actor, body.domains);
    if (body.role) await this.roles.assertAssignable(actor, body.role);
    const passwordHash = body.password ? await hashPassword(body.password) : null;
    // No licence sent: the project's basic licence, if it gives one (modules/licenses).
    const licenseInfo = body.license_info !== undefined ? body.license_info : ((await this.newUserLicense?.(actor.projectId)) ?? null);
    const checkLicense = licenseInfo ? await this.licenseCheck?.(actor.projectId) : undefined;
    const id = await this.db.transaction(async (tx) => {
      const userId = await this.repo.insert(tx, {
        projectId: actor.projectId,
        login: body.login,
        name: body.name ?? body.login,
        description: body.description ?? null,
        email: body.email ?? null,
        passwordHash,
        roleId: body.role ?? null,
        profile: { ...body.profile },
        licenseInfo,
        isGroupAdmin: body.is_group_admin ?? false,
        elevatorAccessDisabled: body.elevator_access_disabled ?? false,
        isInvited: body.send_registration_link,
        createdBy: actor.userId,
      });
      await this.repo.setGroups(tx, userId, body.domains);
      await checkLicense?.(tx);
      // The master virtual number is the number's own record (modules/telephony); the profile names it.
      if (body.profile?.sip_number_id) await assignMasterNumber(tx, actor.projectId, userId, body.profile.sip_number_id);
      const { password: _omit, ...after } = body;
      await recordAudit(tx, ctx, { entity: 'user', entityId: userId, action: 'create', after: { ...after, license_info: licenseInfo } });
      return userId;
    });
    if (body.send_registration_link) {
      // The user exists either way; a failed mail is resent from the user's page.
      await this.invites()
        ?.sendInvite(ctx, id)
        .catch(() => undefined);
    }
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateUserBody): Promise<User> {
    const { actor } = ctx;
    const before = await this.repo.find(this.db, actor, id);
    if (!before?.canView) throw notFound();
    const self = id === actor.userId;
    if (!self) await this.roles.assertMayActOnHolder(actor, before.roleId);
    if (!before.canEdit) {
      // Users may edit their own record; editing others needs the edit permission in scope.
      if (!self || !actor.permissions.has('can_edit_own_profile')) throw prohibited();
      const changed = ADMIN_FIELDS.filter((f) => body[f] !== undefined);
      if (changed.length) throw prohibited(changed.map((field) => ({ field, message: 'only an administrator may change this field' })));
    }
    this.assertLicenseEdit(actor, body);
    // One's own e-mail is where password recovery mails go: as on PATCH /profile, a borrowed access
    // token alone must not move it. Someone else's e-mail is the edit permission's to change.
    if (self && changes(body.email, before.email)) {
      await confirmCurrentPassword(this.repo.attempts, before.id, before.passwordHash, body.password, 'password');
    }
    await this.assertUnique(actor, body.login, body.email, id);
    if (body.role !== undefined && body.role !== before.roleId && body.role !== null) await this.roles.assertAssignable(actor, body.role);
    // `domains` replaces the groups the caller sees; those outside the caller's scope stay as they are.
    const hidden = before.allDomains.filter((g) => !before.domains.includes(g));
    const domains = body.domains ? [...new Set([...body.domains, ...hidden])] : undefined;
    if (body.domains) {
      const next = [...new Set(body.domains)];
      const added = next.filter((g) => !before.domains.includes(g));
      const removed = before.domains.filter((g) => !next.includes(g));
      await this.assertPlaceable(actor, [...added, ...removed]);
      if (self && removed.length) await this.assertKeepsTopGroups(id, removed);
    }
    const profile = body.profile ? { ...(before.profile as object), ...body.profile } : undefined;
    const { password: _omit, ...after } = body;
    const checkLicense = body.license_info !== undefined ? await this.licenseCheck?.(actor.projectId) : undefined;
    await this.db.transaction(async (tx) => {
      const write = async () => {
        await this.repo.update(tx, id, {
          ...(body.login !== undefined ? { login: body.login } : {}),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.email !== undefined ? { email: body.email } : {}),
          ...(body.role !== undefined ? { roleId: body.role } : {}),
          ...(body.is_group_admin !== undefined ? { isGroupAdmin: body.is_group_admin } : {}),
          ...(body.elevator_access_disabled !== undefined ? { elevatorAccessDisabled: body.elevator_access_disabled } : {}),
          ...(body.license_info !== undefined ? { licenseInfo: body.license_info } : {}),
          ...(profile ? { profile } : {}),
        });
        if (domains) await this.repo.setGroups(tx, id, domains);
        if (body.profile?.sip_number_id !== undefined) await assignMasterNumber(tx, actor.projectId, id, body.profile.sip_number_id);
      };
      // Another group is other doors, and elevator access on or off other floors: what the user's
      // identifiers open changes, so the listener sees the user before and after the write.
      if ((body.domains || body.elevator_access_disabled !== undefined) && this.membership) await this.membership(tx, [id], write);
      else await write();
      if (body.markers !== undefined) await this.markerApplier?.(tx, actor, id, body.markers);
      await checkLicense?.(tx);
      await recordAudit(tx, ctx, { entity: 'user', entityId: id, action: 'update', before: auditView(before), after });
    });
    if (body.domains || body.elevator_access_disabled !== undefined) await this.membershipCommitted?.();
    // Once committed: the user's console reloads its profile and reads the new role.
    if (body.role !== undefined && body.role !== before.roleId) {
      await this.roles.userRoleChanged(actor.projectId, { userId: id, previousRoleId: before.roleId, newRoleId: body.role });
    }
    return this.get(actor, id);
  }

  /** The current user cannot leave their only group or a top-level one (a group none of their other groups is above). */
  private async assertKeepsTopGroups(userId: number, removed: readonly number[]): Promise<void> {
    const mine = await this.repo.groupPaths(userId);
    const ids = new Set(mine.map((g) => g.id));
    const top = mine.filter((g) => !g.path.some((a) => a !== g.id && ids.has(a))).map((g) => g.id);
    const lost = removed.filter((g) => top.includes(g) || mine.length === 1);
    if (lost.length) throw new AppError('cannot_remove_only_group', [{ field: 'domains', ids: lost }]);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const { actor } = ctx;
    const u = await this.repo.find(this.db, actor, id);
    if (!u?.canView) throw notFound();
    if (!u.canDelete) throw prohibited();
    if (id === actor.userId) throw new AppError('cannot_perform_action', [{ message: 'use account deletion to delete yourself' }]);
    await this.roles.assertMayActOnHolder(actor, u.roleId);
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, ctx, { entity: 'user', entityId: id, action: 'delete', before: auditView(u) });
      const remove = () => this.repo.delete(tx, id);
      if (this.membership) await this.membership(tx, [id], remove);
      else await remove();
    });
    await this.membershipCommitted?.();
    await this.files.remove(u.avatarPath);
  }

  bulkDelete(ctx: RequestContext, items: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(items, (id) => this.delete(ctx, id));
  }

  private membership: MembershipChange | undefined;
  private markerApplier: MarkerApplier | undefined;

  /** The markers area puts markers on users (PATCH /users/{id} with `markers`). */
  onMarkers(apply: MarkerApplier): void {
    this.markerApplier = apply;
  }
  private licenseCheck: LicenseCheck | undefined;
  /**
   * The licences module's count check (issue 14): read before a write of users' licence info, then
   * run inside its transaction after the write, so a breach rolls the whole write back.
   */
  onLicenseWrite(check: LicenseCheck): void {
    this.licenseCheck = check;
  }
  private newUserLicense: ((projectId: number) => Promise<Record<string, unknown> | null>) | undefined;
  /** The licences module's basic licence, given to a user made without licence info (issue 14). */
  onNewUser(license: (projectId: number) => Promise<Record<string, unknown> | null>): void {
    this.newUserLicense = license;
  }
  private membershipCommitted: (() => Promise<void>) | undefined;

  /**
   * Who must hear of a change to users' groups or their deletion, inside its transaction (the
   * access area: the doors their identifiers open), and once it committed.
   */
  onMembershipChange(around: MembershipChange, committed: () => Promise<void>): void {
    this.membership = around;
    this.membershipCommitted = committed;
  }

  private async editable(actor: Actor, id: number, selfAllowed = true) {
    const u = await this.repo.find(this.db, actor, id);
    if (!u?.canView) throw notFound();
    if (!u.canEdit && !(selfAllowed && id === actor.userId && actor.permissions.has('can_edit_own_profile'))) throw prohibited();
    // Acting on someone else is acting on their role: no one may take over a more privileged account.
    if (id !== actor.userId) await this.roles.assertMayActOnHolder(actor, u.roleId);
    return u;
  }

  /**
   * An administrator sets another user's password; one's own goes through /profile/password with the
   * old one. Every sign-in of the user ends with the old password (a stolen refresh token, a lost device).
   */
  async setPassword(ctx: RequestContext, id: number, password: string): Promise<void> {
    await this.editable(ctx.actor, id, false);
    const passwordHash = await hashPassword(password);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, { passwordHash });
      await endSessions(tx, { userId: id });
      await recordAudit(tx, ctx, { entity: 'user', entityId: id, action: 'password' });
    });
  }

  /**
   * Lifts the sign-in lock of a user's login from every address (failed sign-ins and wrong current
   * passwords), as an administrator does for someone locked out. Acting on them: the same rules as
   * setting their password.
   */
  async unlockSignIn(ctx: RequestContext, id: number): Promise<{ id: number }> {
    const u = await this.editable(ctx.actor, id, false);
    await unlockSignIn(this.repo.attempts, u.login);
    await this.repo.attempts.clear(`password:${id}`);
    await recordAudit(this.db, ctx, { entity: 'user', entityId: id, action: 'unlock' });
    return { id };
  }

  /** two-factor sign-in (issue 14): another area acts on a user as an administrator, with the rules of setting their password. */
  async assertMayManage(actor: Actor, id: number): Promise<void> {
    await this.editable(actor, id, false);
  }

  /** Answers where the mail went: relayed to SMTP or kept in the outbox. */
  async sendRegistrationLink(ctx: RequestContext, id: number): Promise<MailDelivery> {
    const u = await this.editable(ctx.actor, id);
    if (!u.email)
      throw new AppError('email_required_for_registration', [{ field: 'email', message: 'user must provide an e-mail for registration' }]);
    if (u.activatedAt) throw new AppError('user_already_registered');
    const sender = this.invites();
    if (!sender) throw new AppError('cannot_perform_action', [{ message: 'registration mail is not available' }]);
    const sent = await sender.sendInvite(ctx, id);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, { isInvited: true });
      await recordAudit(tx, ctx, { entity: 'user', entityId: id, action: 'registration_link' });
    });
    return { email: sent.email, mail_status: sent.mail_status };
  }

  /** Stores the avatar (a bounded copy, core/files.ts): the console crops it (x, y, size) before upload; the crop is kept for reference. */
  async setAvatar(ctx: RequestContext, id: number, image: Buffer, crop: { x: number; y: number; size: number }): Promise<User> {
    const u = await this.editable(ctx.actor, id);
    if (image.length > MAX_IMAGE_BYTES) throw new AppError('payload_too_large');
    const { ext, data } = await storableImage(image);
    const key = await this.files.put('avatars', ext, data);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, { avatarPath: key, profile: { ...(u.profile as object), avatar_crop: crop } });
      await recordAudit(tx, ctx, { entity: 'user', entityId: id, action: 'avatar', after: { avatar: key, crop } });
    });
    await this.files.remove(u.avatarPath);
    return this.get(ctx.actor, id);
  }

  async removeAvatar(ctx: RequestContext, id: number): Promise<User> {
    const u = await this.editable(ctx.actor, id);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, { avatarPath: null });
      await recordAudit(tx, ctx, { entity: 'user', entityId: id, action: 'avatar', before: { avatar: u.avatarPath } });
    });
    await this.files.remove(u.avatarPath);
    return this.get(ctx.actor, id);
  }
}

const auditView = (u: UserRow) => ({
  login: u.login,
  name: u.name,
  email: u.email,
  role: u.roleId,
  domains: u.domains,
  is_group_admin: u.isGroupAdmin,
});
