import {
  type ChangePasswordBodySchema,
  DEFAULT_IDENTIFIER_FORMAT,
  LICENSE_FEATURES,
  type LicenseFeature,
  licensed,
  mobileAppFeatures,
  moreUrgent,
  type NotificationSettings,
  PERMISSION_CODES,
  type Profile,
  type ProfileFields,
  type UpdateProfileBody,
  userLicenseInEffect,
  userLicenseInfo,
} from '@atrium/contract';
import type { z } from 'zod';
import { scopeOf } from '../../core/acl.js';
import { confirmCurrentPassword } from '../../core/attempts.js';
import { recordAudit } from '../../core/audit.js';
import { hashPassword } from '../../core/auth/password.js';
import { changes } from '../../core/changes.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, invalidField } from '../../core/errors.js';
import { type FileStore, MAX_IMAGE_BYTES, storableImage } from '../../core/files.js';
import { endSessions } from '../../core/sessions.js';
import type { LicenseService } from '../frontend/license.service.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
import type { ProfileRepository, UserRow } from './profile.repository.js';

const DEFAULT_FIELDS: ProfileFields = {
  address: null,
  phone: null,
  time_zone: null,
  time_format: null,
  identifier_format: DEFAULT_IDENTIFIER_FORMAT,
  sip_number: null,
  is_app_popup_active: true,
  notification_settings: { acs: true },
};

export function profileFields(stored: Record<string, unknown>): ProfileFields {
  const merged = { ...DEFAULT_FIELDS, ...stored } as ProfileFields;
  merged.notification_settings = { ...DEFAULT_FIELDS.notification_settings, ...(stored.notification_settings as object | undefined) };
  return merged;
}

/**
 * Name, e-mail, address and phone are the person's record, which others rely on (who they are,
 * where mail and calls reach them): changing them needs the same right as PATCH /users/{self}.
 * Language, time zone, time and identifier formats, the popup flag and notification settings only
 * shape what this person's own console shows, so they stay each person's choice, no permission needed.
 */
const RECORD_PROFILE_FIELDS = ['address', 'phone'] as const;

/** What PATCH /users/{self} allows: edit-own-profile, or an edit scope that covers one's own groups. */
function mayEditOwnRecord(actor: Actor): boolean {
  if (actor.permissions.has('can_edit_own_profile')) return true;
  const scope = scopeOf(actor, 'users', 'edit');
  return scope === 'all' || ((scope === 'descendants' || scope === 'domain') && actor.groupIds.length > 0);
}

export class ProfileService {
  constructor(
    private readonly db: Db,
    private readonly repo: ProfileRepository,
    private readonly licenses: LicenseService,
    private readonly files: FileStore,
    private readonly notifications: NotificationsService,
  ) {}

  private async row(actor: Actor): Promise<UserRow> {
    const u = await this.repo.user(this.db, actor.userId, actor.projectId);
    if (!u) throw new AppError('unauthenticated');
    return u;
  }

  async get(actor: Actor): Promise<Profile> {
    const [row, server, restrictors, warnings] = await Promise.all([
      this.repo.full(actor.userId, actor.projectId),
      this.licenses.serverFeatures(actor.projectId),
      this.licenses.restrictors(actor.projectId),
      this.licenses.warnings(actor.projectId),
    ]);
    if (!row) throw new AppError('unauthenticated');
    const { user: u, role, project, domains, sipNumber } = row;
    // The user's own licence counts only within its periods; its end is told like the project's.
    const own = userLicenseInEffect(u.licenseInfo, Date.now());
    // The mobile app's own flags beside the features: what the app may offer this user.
    const features = [
      ...(Object.keys(LICENSE_FEATURES) as LicenseFeature[]).filter((f) => licensed(server, own.info, f)),
      ...mobileAppFeatures(server, own.info),
    ];
    const expiring = warnings.status === 'will_expire' || warnings.status === 'already_expired';
    return {
      id: u.id,
      login: u.login,
      email: u.email,
      name: u.name,
      locale: u.locale === 'ru' ? 'ru' : 'en',
      avatar_url: u.avatarPath ? `/api/v0/files/${u.avatarPath}` : null,
      is_invited: u.isInvited,
      role: role ? { id: role.id, name: role.name, permissions: role.isBuiltin ? [...PERMISSION_CODES] : (role.permissions ?? []) } : null,
      domains,
      project,
      profile: { ...profileFields(u.profile), sip_number: sipNumber },
      license_info: userLicenseInfo(u.licenseInfo),
      license_state: {
        features,
        restrictors: restrictors.map((r) => ({ type: r.type, value: r.limit })),
        // The project licence's end, told for the counted features it licenses (spec core §3), or
        // the end of the user's own licence of the feature when that is more urgent.
        expiring: {
          sip: moreUrgent(expiring && server.sip.is_enabled ? warnings : null, own.expiring.sip),
          mobile_app: moreUrgent(expiring && server.mobile_app.is_enabled ? warnings : null, own.expiring.mobile_app),
        },
      },
    };
  }

  async update(ctx: RequestContext, body: UpdateProfileBody): Promise<Profile> {
    const before = await this.row(ctx.actor);
    const emailChanged = changes(body.email, before.email);
    const changed = [
      ...(body.name !== undefined && body.name !== before.name ? ['name'] : []),
      ...(emailChanged ? ['email'] : []),
      ...RECORD_PROFILE_FIELDS.filter((f) => changes(body.profile?.[f], before.profile[f])).map((f) => `profile.${f}`),
    ];
    if (changed.length && !mayEditOwnRecord(ctx.actor)) {
      throw new AppError(
        'action_prohibited',
        changed.map((field) => ({ field, message: 'action prohibited' })),
      );
    }
    // The address password recovery mails go to: a borrowed access token alone must not move it.
    if (emailChanged) await confirmCurrentPassword(this.repo.attempts, before.id, before.passwordHash, body.password, 'password');
    if (body.email && (await this.repo.emailTaken(ctx.actor.projectId, body.email, before.id))) {
      throw new AppError('email_already_used', [{ field: 'email', message: 'e-mail already used' }]);
    }
    await this.db.transaction(async (tx) => {
      const after = await this.repo.update(
        tx,
        before.id,
        {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.locale !== undefined ? { locale: body.locale } : {}),
          ...(body.email !== undefined ? { email: body.email } : {}),
        },
        body.profile,
      );
      await recordAudit(tx, ctx, {
        entity: 'profile',
        entityId: before.id,
        action: 'update',
        before: pick(before),
        after: after && pick(after),
      });
    });
    return this.get(ctx.actor);
  }

  /**
   * Sets a new password and ends every other session of the user (a stolen refresh token, a
   * forgotten device); the sign-in that made the change (the caller's `sessionId`) goes on. Other
   * access tokens run out within their 15 minutes.
   */
  async changePassword(ctx: RequestContext, body: z.infer<typeof ChangePasswordBodySchema>): Promise<void> {
    const u = await this.row(ctx.actor);
    await confirmCurrentPassword(this.repo.attempts, u.id, u.passwordHash, body.old, 'old');
    if (body.old === body.new) throw invalidField('new', 'new password must differ from the old one');
    const passwordHash = await hashPassword(body.new);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, u.id, { passwordHash });
      await endSessions(tx, { userId: u.id, exceptFamily: ctx.actor.sessionId ?? null });
      await recordAudit(tx, ctx, { entity: 'profile', entityId: u.id, action: 'password' });
    });
    // Tells the user's other open consoles (and the user later) that the password changed.
    await this.notifications.notify(ctx.actor.projectId, u.id, { type: 'system', data: { event: 'password_changed' } });
  }

  async setPopupActive(ctx: RequestContext, active: boolean): Promise<Profile> {
    const u = await this.row(ctx.actor);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, u.id, {}, { is_app_popup_active: active });
      await recordAudit(tx, ctx, { entity: 'profile', entityId: u.id, action: 'update', after: { is_app_popup_active: active } });
    });
    return this.get(ctx.actor);
  }

  async notificationSettings(actor: Actor): Promise<NotificationSettings> {
    return profileFields((await this.row(actor)).profile).notification_settings;
  }

  async saveNotificationSettings(ctx: RequestContext, settings: NotificationSettings): Promise<NotificationSettings> {
    const u = await this.row(ctx.actor);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, u.id, {}, { notification_settings: settings });
      await recordAudit(tx, ctx, { entity: 'notification_settings', entityId: u.id, action: 'update', after: settings });
    });
    return settings;
  }

  /** Deletes the caller's own account; the last administrator of a project cannot leave it ownerless. */
  async deleteAccount(ctx: RequestContext): Promise<void> {
    const u = await this.row(ctx.actor);
    await this.db.transaction(async (tx) => {
      const admins = await this.repo.lockAdmins(tx, u.projectId);
      if (admins.length === 1 && admins[0] === u.id) {
        throw new AppError('cannot_perform_action', [{ message: 'the last administrator cannot delete their account' }]);
      }
      await recordAudit(tx, ctx, { entity: 'user', entityId: u.id, action: 'delete', before: pick(u) });
      await this.repo.delete(tx, u.id);
    });
    await this.files.remove(u.avatarPath);
  }

  async setAvatar(ctx: RequestContext, image: Buffer): Promise<Profile> {
    if (image.length > MAX_IMAGE_BYTES) throw new AppError('payload_too_large');
    const { ext, data } = await storableImage(image);
    const u = await this.row(ctx.actor);
    const key = await this.files.put('avatars', ext, data);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, u.id, { avatarPath: key });
      await recordAudit(tx, ctx, { entity: 'profile', entityId: u.id, action: 'avatar', after: { avatar: key } });
    });
    await this.files.remove(u.avatarPath);
    return this.get(ctx.actor);
  }

  async removeAvatar(ctx: RequestContext): Promise<Profile> {
    const u = await this.row(ctx.actor);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, u.id, { avatarPath: null });
      await recordAudit(tx, ctx, { entity: 'profile', entityId: u.id, action: 'avatar', before: { avatar: u.avatarPath } });
    });
    await this.files.remove(u.avatarPath);
    return this.get(ctx.actor);
  }
}

const pick = (u: UserRow) => ({ name: u.name, locale: u.locale, email: u.email, profile: u.profile });
