import { randomBytes, randomInt } from 'node:crypto';
import {
  CONFIRMATION_CODE_LENGTH,
  CONFIRMATION_CODE_TTL_SECONDS,
  CONFIRMATION_MAX_RESENDS,
  CONFIRMATION_RESEND_COOLDOWN_SECONDS,
  INVITE_TTL_SECONDS,
  type InviteInfo,
  isPermissionCode,
  type Locale,
  type MailDelivery,
  PASSWORD_RESET_TTL_SECONDS,
  type PendingRegistration,
  type RegisteredAccount,
  SELF_REGISTRATION_TTL_SECONDS,
  type SelfRegistrationBody,
  type SimpleRegistrationBody,
  VALIDATION_MESSAGES,
} from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import { hashPassword } from '../../core/auth/password.js';
import { hashToken } from '../../core/auth/tokens.js';
import type { RequestContext } from '../../core/context.js';
import { isCountry } from '../../core/countries.js';
import type { Db, Tx } from '../../core/db/client.js';
import { AppError, invalidField } from '../../core/errors.js';
import type { Mailer, QueuedMail } from '../../core/mail/mailer.js';
import type { ProjectInfo } from '../../core/project-info.js';
import { endSessions } from '../../core/sessions.js';
import type { SettingsService } from '../frontend/settings.service.js';
import type { RegistrationRepository, TokenRow } from './registration.repository.js';

/** A call made before sign-in: where it comes from and which language its mail should use. */
export interface PublicContext {
  ip: string;
  requestId: string;
  locale: Locale;
}

/** The role self-registered accounts get, made in a project the first time someone registers. */
export const PRIVATE_CLIENT_ROLE = {
  name: 'Private client',
  description: 'Given to people who registered themselves',
  permissions: ['can_edit_own_profile', 'can_create_conversations', 'can_create_conversation_messages'].filter(isPermissionCode),
};

// Rate limits (events per window): secrets tried, recovery mails and registrations asked for.
const FAILED_SECRETS_PER_IP = { max: 20, windowSeconds: 15 * 60 };
const RECOVERY_PER_IP = { max: 10, windowSeconds: 15 * 60 };
const RECOVERY_PER_EMAIL = { max: 3, windowSeconds: 15 * 60 };
const REGISTRATIONS_PER_IP = { max: 10, windowSeconds: 3600 };
const REGISTRATIONS_PER_EMAIL = { max: 3, windowSeconds: 3600 };
// Expired tokens are kept this long (a late click still answers "outdated", not "invalid").
const EXPIRED_TOKEN_GRACE_SECONDS = 7 * 24 * 3600;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const newLinkToken = (): string => randomBytes(32).toString('base64url');
const newCode = (): string =>
  Array.from({ length: CONFIRMATION_CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
const codeForMail = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;
const inSeconds = (s: number) => new Date(Date.now() + s * 1000);
const expired = (row: { expiresAt: Date }) => row.expiresAt.getTime() <= Date.now();

/** The pending registration kept in the self_registration token's payload until it is confirmed. */
interface PendingPayload {
  email: string;
  name: string;
  country: string;
  user_type: string;
  phone: string;
  object_name: string;
  password_hash: string;
  locale: Locale;
  code_hash: string;
  code_expires_at: string;
  last_sent_at: string;
  resends: number;
}

/** The licence a self-registered account gets (modules/licenses), decided inside the registration's transaction. */
export type SelfRegisteredLicense = (
  tx: Tx,
  projectId: number,
  clientType: string,
) => Promise<{ info: Record<string, unknown> | null; source: string | null; refused: Record<string, unknown> | null }>;

// Errors that mean "this secret is wrong": counted per IP so secrets cannot be guessed.
const SECRET_ERRORS = new Set(['invalid_confirmation_code', 'verification_link_outdated', 'invite_invalid']);

export class RegistrationService {
  constructor(
    private readonly db: Db,
    private readonly repo: RegistrationRepository,
    private readonly mailer: Mailer,
    private readonly settings: SettingsService,
    /** Links lead to the project's server URL, else PUBLIC_URL (core/project-info.ts). */
    private readonly links: Pick<ProjectInfo, 'link'>,
  ) {}

  private license: SelfRegisteredLicense | undefined;
  /** The licences module gives self-registered accounts their licence (issue 14). */
  onSelfRegistered(license: SelfRegisteredLicense): void {
    this.license = license;
  }

  /** The licence of a new account of `clientType`, and what the audit says of it. */
  private async accountLicense(tx: Tx, projectId: number, clientType: string) {
    const l = (await this.license?.(tx, projectId, clientType)) ?? { info: null, source: null, refused: null };
    return {
      licenseInfo: l.info,
      audit: {
        license_info: l.info,
        ...(l.source ? { license_source: l.source } : {}),
        ...(l.refused ? { license_refused: l.refused } : {}),
      },
    };
  }

  private async allowed(flag: 'recovery' | 'by_token' | 'self'): Promise<void> {
    if (!(await this.settings.registration())[flag]) throw new AppError('registration_disabled');
  }

  private async limit(key: string, rule: { max: number; windowSeconds: number }): Promise<void> {
    if ((await this.repo.attempts.count(`reg:${key}`, rule.windowSeconds)) > rule.max) throw new AppError('too_many_attempts');
  }

  /** Runs a call that checks a mailed secret; wrong secrets count against the caller's IP. */
  private async withSecret<T>(ctx: PublicContext, run: () => Promise<T>): Promise<T> {
    const key = `reg:secret:${ctx.ip}`;
    // Counted before the check, in one statement: parallel guesses cannot all read a count none of
    // them has added to yet. A call that turns out not to be a wrong secret gives its attempt back.
    if ((await this.repo.attempts.count(key, FAILED_SECRETS_PER_IP.windowSeconds)) > FAILED_SECRETS_PER_IP.max) {
      throw new AppError('too_many_attempts');
    }
    let wrongSecret = false;
    try {
      return await run();
    } catch (e) {
      wrongSecret = e instanceof AppError && SECRET_ERRORS.has(e.code);
      throw e;
    } finally {
      if (!wrongSecret) await this.repo.attempts.giveBack(key);
    }
  }

  private async project(): Promise<{ id: number; name: string }> {
    const p = await this.repo.defaultProject();
    if (!p) throw new AppError('cannot_perform_action');
    return p;
  }

  /** The private-client role of the project, made on first use. Call under `lockProject`. */
  private async privateClientRole(tx: Tx, projectId: number): Promise<number> {
    return (
      (await this.repo.roleByName(tx, projectId, PRIVATE_CLIENT_ROLE.name)) ??
      this.repo.createRole(tx, { projectId, ...PRIVATE_CLIENT_ROLE, permissions: [...PRIVATE_CLIENT_ROLE.permissions] })
    );
  }

  /**
   * The role a self-registered client of this type gets: the one the general settings name for the
   * type (self-registration clients), else the private-client role. Call under `lockProject`.
   */
  private async clientRole(tx: Tx, projectId: number, type: string): Promise<number> {
    return (await this.repo.selfRegisterRole(tx, projectId, type)) ?? this.privateClientRole(tx, projectId);
  }

  // ---- simple registration -------------------------------------------------------------------

  /** A login and a password, active at once, in the root group with the role of private clients. */
  async registerSimple(ctx: PublicContext, body: SimpleRegistrationBody): Promise<RegisteredAccount> {
    await this.allowed('self');
    await this.limit(`simple:ip:${ctx.ip}`, REGISTRATIONS_PER_IP);
    const project = await this.project();
    const email = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(body.login) ? body.login.toLowerCase() : null;
    const passwordHash = await hashPassword(body.password);
    return this.db.transaction(async (tx) => {
      await this.repo.lockProject(tx, project.id);
      if (await this.repo.loginTaken(tx, project.id, body.login)) throw new AppError('user_already_registered');
      if (email && (await this.repo.emailTaken(tx, project.id, email))) throw new AppError('email_already_used');
      const root = await this.repo.rootGroup(tx, project.id);
      if (!root) throw new AppError('cannot_perform_action');
      const roleId = await this.clientRole(tx, project.id, 'private');
      const license = await this.accountLicense(tx, project.id, 'private');
      const id = await this.repo.createUser(tx, {
        projectId: project.id,
        login: body.login,
        name: body.name,
        email,
        passwordHash,
        locale: body.locale ?? ctx.locale,
        roleId,
        groupId: root.id,
        profile: {},
        licenseInfo: license.licenseInfo,
      });
      await recordAudit(
        tx,
        { ...ctx, actor: { userId: id, projectId: project.id } },
        {
          entity: 'user',
          entityId: id,
          action: 'register',
          after: { login: body.login, name: body.name, email, role_id: roleId, group_id: root.id, ...license.audit },
        },
      );
      return { id, login: body.login };
    });
  }

  // ---- self-registration ---------------------------------------------------------------------

  /** Keeps the registration pending and mails a code that confirms it (POST /email/confirm or the link). */
  async registerSelf(ctx: PublicContext, body: SelfRegistrationBody): Promise<PendingRegistration> {
    await this.allowed('self');
    if (!isCountry(body.user_country)) throw invalidField('user_country', VALIDATION_MESSAGES.invalid_value);
    await this.limit(`self:ip:${ctx.ip}`, REGISTRATIONS_PER_IP);
    await this.limit(`self:email:${body.user_email}`, REGISTRATIONS_PER_EMAIL);
    const project = await this.project();
    if (
      (await this.repo.emailTaken(this.db, project.id, body.user_email)) ||
      (await this.repo.loginTaken(this.db, project.id, body.user_email))
    ) {
      throw new AppError('email_already_used');
    }
    await this.repo.purgeExpired(EXPIRED_TOKEN_GRACE_SECONDS);
    const token = newLinkToken();
    const code = newCode();
    const now = new Date();
    const payload: PendingPayload = {
      email: body.user_email,
      name: body.user_name,
      country: body.user_country,
      user_type: body.user_type,
      phone: body.user_phone,
      object_name: body.object_name,
      password_hash: await hashPassword(body.user_password),
      locale: body.locale ?? ctx.locale,
      code_hash: hashToken(code),
      code_expires_at: inSeconds(CONFIRMATION_CODE_TTL_SECONDS).toISOString(),
      last_sent_at: now.toISOString(),
      resends: 0,
    };
    const expiresAt = inSeconds(SELF_REGISTRATION_TTL_SECONDS);
    const mail = await this.db.transaction(async (tx) => {
      await this.repo.insertToken(tx, {
        tokenHash: hashToken(token),
        kind: 'self_registration',
        projectId: project.id,
        payload: payload as unknown as Record<string, unknown>,
        expiresAt,
      });
      return this.queueCode(tx, project.id, hashToken(token), code, payload);
    });
    this.mailer.deliverSoon([mail]);
    return this.pending(token, payload, expiresAt);
  }

  private async queueCode(tx: Tx, projectId: number, registrationHash: string, code: string, p: PendingPayload): Promise<QueuedMail> {
    await this.repo.insertToken(tx, {
      tokenHash: hashToken(code),
      kind: 'email_confirm',
      projectId,
      payload: { registration: registrationHash },
      expiresAt: new Date(p.code_expires_at),
    });
    return this.mailer.queue(tx, {
      projectId,
      to: p.email,
      locale: p.locale,
      kind: 'self_registration_code',
      params: {
        name: p.name,
        code: codeForMail(code),
        link: await this.links.link(projectId, `/registration/confirm/${code}`, tx),
        object_name: p.object_name,
        minutes: Math.round(CONFIRMATION_CODE_TTL_SECONDS / 60),
      },
    });
  }

  private pending(token: string, p: PendingPayload, expiresAt: Date): PendingRegistration {
    return {
      token,
      email: p.email,
      user_name: p.name,
      object_name: p.object_name,
      code_expires_at: p.code_expires_at,
      expires_at: expiresAt.toISOString(),
      resend_after: new Date(new Date(p.last_sent_at).getTime() + CONFIRMATION_RESEND_COOLDOWN_SECONDS * 1000).toISOString(),
      resends_left: Math.max(0, CONFIRMATION_MAX_RESENDS - p.resends),
    };
  }

  private checkPending(row: TokenRow | undefined): asserts row is TokenRow {
    if (!row || row.usedAt) throw new AppError('invalid_confirmation_code');
    if (expired(row)) throw new AppError('verification_link_outdated');
  }

  /** The pending registration named by the token POST /registration/self answered. */
  async pendingRegistration(ctx: PublicContext, token: string): Promise<PendingRegistration> {
    await this.allowed('self');
    return this.withSecret(ctx, async () => {
      const row = await this.repo.token(hashToken(token), 'self_registration');
      this.checkPending(row);
      return this.pending(token, row.payload as unknown as PendingPayload, row.expiresAt);
    });
  }

  /** Mails a new code; the previous one stops working. */
  async resendCode(ctx: PublicContext, token: string): Promise<PendingRegistration> {
    await this.allowed('self');
    const { mail, answer } = await this.withSecret(ctx, () =>
      this.db.transaction(async (tx) => {
        const row = await this.repo.tokenForUpdate(tx, hashToken(token), 'self_registration');
        this.checkPending(row);
        const p = row.payload as unknown as PendingPayload;
        if (p.resends >= CONFIRMATION_MAX_RESENDS) throw new AppError('too_many_attempts');
        if (Date.now() < new Date(p.last_sent_at).getTime() + CONFIRMATION_RESEND_COOLDOWN_SECONDS * 1000) {
          throw new AppError('too_many_attempts');
        }
        const code = newCode();
        await this.repo.markUsed(tx, p.code_hash);
        const next: PendingPayload = {
          ...p,
          code_hash: hashToken(code),
          code_expires_at: inSeconds(CONFIRMATION_CODE_TTL_SECONDS).toISOString(),
          last_sent_at: new Date().toISOString(),
          resends: p.resends + 1,
        };
        await this.repo.setPayload(tx, row.tokenHash, next as unknown as Record<string, unknown>);
        const projectId = row.projectId as number;
        return { mail: await this.queueCode(tx, projectId, row.tokenHash, code, next), answer: this.pending(token, next, row.expiresAt) };
      }),
    );
    this.mailer.deliverSoon([mail]);
    return answer;
  }

  /**
   * Confirms a self-registration with the mailed code: the account is made (login = e-mail) in a
   * new group named after the object, under the project's root group, with the role the general
   * settings give its client type (else the private-client role).
   */
  async confirmEmail(
    ctx: PublicContext,
    code: string,
    wrong: 'invalid_confirmation_code' | 'verification_link_outdated',
  ): Promise<RegisteredAccount> {
    await this.allowed('self');
    return this.withSecret(ctx, () =>
      this.db.transaction(async (tx) => {
        const codeHash = hashToken(code.replace(/[\s-]/g, '').toUpperCase());
        const codeRow = await this.repo.tokenForUpdate(tx, codeHash, 'email_confirm');
        if (!codeRow || codeRow.usedAt) throw new AppError(wrong);
        const registration = await this.repo.tokenForUpdate(tx, String(codeRow.payload.registration), 'self_registration');
        const p = registration?.payload as unknown as PendingPayload | undefined;
        if (!registration || registration.usedAt || p?.code_hash !== codeHash) throw new AppError(wrong);
        if (expired(codeRow) || expired(registration)) throw new AppError('verification_link_outdated');
        const projectId = registration.projectId as number;
        await this.repo.lockProject(tx, projectId);
        if ((await this.repo.emailTaken(tx, projectId, p.email)) || (await this.repo.loginTaken(tx, projectId, p.email))) {
          throw new AppError('email_already_used');
        }
        const root = await this.repo.rootGroup(tx, projectId);
        if (!root) throw new AppError('cannot_perform_action');
        const roleId = await this.clientRole(tx, projectId, p.user_type);
        const groupId = await this.repo.createGroup(tx, { projectId, parent: root, name: p.object_name });
        const license = await this.accountLicense(tx, projectId, p.user_type);
        const id = await this.repo.createUser(tx, {
          projectId,
          login: p.email,
          name: p.name,
          email: p.email,
          passwordHash: p.password_hash,
          locale: p.locale,
          roleId,
          groupId,
          profile: { phone: p.phone, country: p.country, user_type: p.user_type },
          licenseInfo: license.licenseInfo,
        });
        await this.repo.markUsed(tx, codeHash);
        await this.repo.markUsed(tx, registration.tokenHash);
        const actx = { ...ctx, actor: { userId: id, projectId } };
        await recordAudit(tx, actx, {
          entity: 'group',
          entityId: groupId,
          action: 'create',
          after: { name: p.object_name, parent_id: root.id },
        });
        await recordAudit(tx, actx, {
          entity: 'user',
          entityId: id,
          action: 'register',
          after: { login: p.email, name: p.name, role_id: roleId, group_id: groupId, ...license.audit },
        });
        return { id, login: p.email };
      }),
    );
  }

  // ---- invitations ---------------------------------------------------------------------------

  /**
   * Mails the user a link to set their password (the users area's "send registration link").
   * Earlier links of the user stop working.
   */
  async sendInvite(ctx: RequestContext, userId: number): Promise<MailDelivery & { expires_at: string }> {
    await this.allowed('by_token');
    const user = await this.repo.userInProject(ctx.actor.projectId, userId);
    if (!user) throw new AppError('not_found');
    if (!user.email) throw new AppError('email_required_for_registration');
    if (user.activatedAt) throw new AppError('user_already_registered');
    const email = user.email;
    const token = newLinkToken();
    const expiresAt = inSeconds(INVITE_TTL_SECONDS);
    const project = await this.repo.projectName(user.projectId);
    const mail = await this.db.transaction(async (tx) => {
      await this.repo.invalidateUserTokens(tx, user.id, 'invite');
      await this.repo.insertToken(tx, {
        tokenHash: hashToken(token),
        kind: 'invite',
        projectId: user.projectId,
        userId: user.id,
        expiresAt,
      });
      await this.repo.markInvited(tx, user.id);
      await recordAudit(tx, ctx, { entity: 'user', entityId: user.id, action: 'send_invite', after: { email } });
      return this.mailer.queue(tx, {
        projectId: user.projectId,
        to: email,
        locale: user.locale,
        kind: 'invite',
        recipient: { userId: user.id },
        params: {
          name: user.name,
          login: user.login,
          link: await this.links.link(user.projectId, `/registration/${token}`, tx),
          project,
          days: Math.round(INVITE_TTL_SECONDS / 86_400),
        },
      });
    });
    this.mailer.deliverSoon([mail]);
    return { email, expires_at: expiresAt.toISOString(), mail_status: mail.status };
  }

  private async inviteRow(tx: Tx | Db, token: string, lock: boolean) {
    const hash = hashToken(token);
    const row = lock ? await this.repo.tokenForUpdate(tx, hash, 'invite') : await this.repo.token(hash, 'invite');
    if (!row || row.usedAt || !row.userId) throw new AppError('invite_invalid');
    if (expired(row)) throw new AppError('verification_link_outdated');
    const user = await this.repo.user(tx, row.userId);
    if (!user) throw new AppError('invite_invalid');
    if (user.activatedAt) throw new AppError('user_already_registered');
    return { row, user };
  }

  /** Who an invitation is for. */
  async invite(ctx: PublicContext, token: string): Promise<InviteInfo> {
    await this.allowed('by_token');
    return this.withSecret(ctx, async () => {
      const { user } = await this.inviteRow(this.db, token, false);
      return { login: user.login, name: user.name, email: user.email };
    });
  }

  /** Accepts an invitation: sets the password and activates the account. */
  async acceptInvite(ctx: PublicContext, token: string, password: string): Promise<RegisteredAccount> {
    await this.allowed('by_token');
    const passwordHash = await hashPassword(password);
    return this.withSecret(ctx, () =>
      this.db.transaction(async (tx) => {
        const { row, user } = await this.inviteRow(tx, token, true);
        await this.repo.setPassword(tx, user.id, passwordHash);
        await this.repo.markUsed(tx, row.tokenHash);
        await this.repo.invalidateUserTokens(tx, user.id, 'invite');
        await recordAudit(
          tx,
          { ...ctx, actor: { userId: user.id, projectId: user.projectId } },
          {
            entity: 'user',
            entityId: user.id,
            action: 'accept_invite',
          },
        );
        return { id: user.id, login: user.login };
      }),
    );
  }

  // ---- password recovery ---------------------------------------------------------------------

  /**
   * Mails a reset link to every account with this e-mail. Answers the same whether or not there
   * is one; delivery happens after the answer, so its timing does not tell either.
   */
  async requestRecovery(ctx: PublicContext, email: string): Promise<void> {
    await this.allowed('recovery');
    await this.limit(`recovery:ip:${ctx.ip}`, RECOVERY_PER_IP);
    await this.limit(`recovery:email:${email}`, RECOVERY_PER_EMAIL);
    const accounts = await this.repo.usersByEmail(email);
    const mails: QueuedMail[] = [];
    for (const user of accounts) {
      const token = newLinkToken();
      const mail = await this.db.transaction(async (tx) => {
        await this.repo.invalidateUserTokens(tx, user.id, 'password_reset');
        await this.repo.insertToken(tx, {
          tokenHash: hashToken(token),
          kind: 'password_reset',
          projectId: user.projectId,
          userId: user.id,
          expiresAt: inSeconds(PASSWORD_RESET_TTL_SECONDS),
        });
        return this.mailer.queue(tx, {
          projectId: user.projectId,
          to: user.email ?? email,
          locale: user.locale,
          kind: 'password_reset',
          recipient: { userId: user.id },
          params: {
            name: user.name,
            login: user.login,
            link: await this.links.link(user.projectId, `/password/reset/${token}`, tx),
            minutes: Math.round(PASSWORD_RESET_TTL_SECONDS / 60),
          },
        });
      });
      mails.push(mail);
    }
    this.mailer.deliverSoon(mails);
  }

  /** Sets a new password with the mailed link's secret; every session of the account ends. */
  async resetPassword(ctx: PublicContext, code: string, password: string): Promise<RegisteredAccount> {
    await this.allowed('recovery');
    const passwordHash = await hashPassword(password);
    return this.withSecret(ctx, () =>
      this.db.transaction(async (tx) => {
        const row = await this.repo.tokenForUpdate(tx, hashToken(code), 'password_reset');
        if (!row || row.usedAt || !row.userId || expired(row)) throw new AppError('verification_link_outdated');
        const user = await this.repo.user(tx, row.userId);
        if (!user) throw new AppError('verification_link_outdated');
        await this.repo.setPassword(tx, user.id, passwordHash);
        await this.repo.markUsed(tx, row.tokenHash);
        await this.repo.invalidateUserTokens(tx, user.id, 'password_reset');
        await endSessions(tx, { userId: user.id });
        await recordAudit(
          tx,
          { ...ctx, actor: { userId: user.id, projectId: user.projectId } },
          {
            entity: 'user',
            entityId: user.id,
            action: 'reset_password',
          },
        );
        return { id: user.id, login: user.login };
      }),
    );
  }
}
