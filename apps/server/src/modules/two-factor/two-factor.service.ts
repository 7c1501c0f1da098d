import { createHash, hkdfSync, randomInt, randomUUID } from 'node:crypto';
import {
  LOGIN_ACCOUNT_MAX_FAILURES,
  LOGIN_ADDRESS_MAX_FAILURES,
  LOGIN_FAILURE_WINDOW_SECONDS,
  LOGIN_MAX_FAILURES,
  RECOVERY_CODE_COUNT,
  type Session,
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  TWO_FACTOR_CHALLENGE_TTL_SECONDS,
  type TwoFactorChallenge,
  type TwoFactorDisableBody,
  type TwoFactorEnrolment,
  type TwoFactorLoginBody,
  type TwoFactorLoginEnrolBody,
  type TwoFactorRecoveryCodes,
  type TwoFactorStatus,
} from '@atrium/contract';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { type AttemptCounter, confirmCurrentPassword, signInKeys } from '../../core/attempts.js';
import { recordAudit } from '../../core/audit.js';
import { SecretBox } from '../../core/auth/secret-box.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, notFound } from '../../core/errors.js';
import { endSessions } from '../../core/sessions.js';
import type { TwoFactorRepository } from './two-factor.repository.js';

/** What two-factor sign-in needs from elsewhere, given in app.ts. */
export interface TwoFactorDeps {
  /** The token secret every instance shares: the TOTP secrets' and challenges' keys are derived from it. */
  secret: string;
  attempts: AttemptCounter;
  /** Issues the session once the code is right (the auth module's own sign-in end). */
  completeSignIn(c: { userId: number; project: Session['project'] }, ip: string, requestId: string): Promise<Session>;
  /** The project a challenge's user signs in to. */
  project(projectId: number): Promise<Session['project'] | undefined>;
  /** The rules of acting on another user as an administrator (users management): throws when not allowed. */
  assertMayManage(actor: Actor, userId: number): Promise<void>;
  /** The name shown in authenticator apps beside the login. */
  issuer: string;
}

const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const CHALLENGE_TYPE = 'atrium-2fa-challenge';

/** A code as a person types it: spaces and dashes dropped, lower case. */
const normalize = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();
const hashRecovery = (code: string) => createHash('sha256').update(normalize(code)).digest('hex');
const isTotpCode = (code: string) => new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(normalize(code));

function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/**
 * Two-factor sign-in with TOTP (issue 14): enrolment from the profile, the second step of sign-in,
 * turning it off, new recovery codes, and an administrator's reset of another user's.
 */
export class TwoFactorService {
  private readonly secrets: SecretBox;
  private readonly challengeKey: Uint8Array;

  constructor(
    private readonly db: Db,
    private readonly repo: TwoFactorRepository,
    private readonly deps: TwoFactorDeps,
  ) {
    // Keys of their own: a challenge can never pass for an access token, nor the other way round.
    this.secrets = new SecretBox(deps.secret, 'totp secrets');
    this.challengeKey = new Uint8Array(hkdfSync('sha256', deps.secret, '', 'atrium two-factor challenges', 32));
  }

  async status(actor: Actor): Promise<TwoFactorStatus> {
    const row = await this.repo.find(actor.userId);
    return {
      enabled: !!row?.enabledAt,
      pending: !!row && !row.enabledAt,
      recovery_codes_left: row?.enabledAt ? row.recoveryCodes.length : 0,
      enabled_at: row?.enabledAt?.toISOString() ?? null,
    };
  }

  /** A new secret for the user's authenticator; two-factor sign-in is on only once a code from it is confirmed. */
  async startEnrolment(ctx: RequestContext, password: string): Promise<TwoFactorEnrolment> {
    const account = await this.repo.account(ctx.actor.userId);
    if (!account) throw notFound();
    await confirmCurrentPassword(this.deps.attempts, ctx.actor.userId, account.passwordHash, password, 'password');
    const secret = new Secret({ size: 20 });
    if (!(await this.repo.startPending(ctx.actor.userId, this.encrypt(secret.base32)))) throw new AppError('two_factor_already_enabled');
    const otpauth = this.totp(secret, account.login).toString();
    const svg = await QRCode.toString(otpauth, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
    return { secret: secret.base32, otpauth_url: otpauth, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
  }

  /** The first code from the authenticator turns two-factor sign-in on and makes the recovery codes, shown this once. */
  async confirmEnrolment(ctx: RequestContext, code: string): Promise<TwoFactorRecoveryCodes> {
    const userId = ctx.actor.userId;
    const row = await this.repo.find(userId);
    if (!row) throw new AppError('two_factor_not_pending');
    if (row.enabledAt) throw new AppError('two_factor_already_enabled');
    await this.countGuess(userId);
    const step = this.matchingStep(row.secret, code);
    if (step === null) throw invalidCode();
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    if (!(await this.repo.enable(userId, step, codes.map(hashRecovery)))) throw new AppError('two_factor_already_enabled');
    await this.deps.attempts.clear(guessKey(userId));
    await recordAudit(this.db, ctx, { entity: 'two_factor', entityId: userId, action: 'enable' });
    return { recovery_codes: codes };
  }

  /** Turns it off: the password and a current code (or a recovery code); never while the user's role requires it. */
  async disable(ctx: RequestContext, body: TwoFactorDisableBody): Promise<void> {
    const userId = ctx.actor.userId;
    if ((await this.repo.requiredByRoleAmong([userId])).has(userId)) throw new AppError('two_factor_required_by_role');
    await this.confirmOwner(userId, body);
    await this.repo.remove(this.db, userId);
    await recordAudit(this.db, ctx, { entity: 'two_factor', entityId: userId, action: 'disable' });
  }

  /** New recovery codes in place of the old ones (all of them), with the password and a current code. */
  async newRecoveryCodes(ctx: RequestContext, body: TwoFactorDisableBody): Promise<TwoFactorRecoveryCodes> {
    const userId = ctx.actor.userId;
    await this.confirmOwner(userId, body);
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await this.repo.setRecoveryCodes(userId, codes.map(hashRecovery));
    await recordAudit(this.db, ctx, { entity: 'two_factor', entityId: userId, action: 'recovery_codes' });
    return { recovery_codes: codes };
  }

  /**
   * An administrator turns off another user's two-factor sign-in (a lost phone), with the rules of
   * setting their password: within the administrator's scope, never for someone more privileged.
   * The user's sign-ins end, so the next one is with the password alone and they can enrol again.
   */
  async reset(ctx: RequestContext, userId: number): Promise<{ id: number }> {
    await this.deps.assertMayManage(ctx.actor, userId);
    await this.db.transaction(async (tx) => {
      if (!(await this.repo.remove(tx, userId))) throw new AppError('two_factor_not_enabled');
      await endSessions(tx, { userId });
      await recordAudit(tx, ctx, { entity: 'two_factor', entityId: userId, action: 'reset' });
    });
    return { id: userId };
  }

  /**
   * For sign-in (auth module): which of these users must take a second step: those with two-factor
   * sign-in on, and those whose role requires it (they enrol before any session is made).
   */
  async required(userIds: readonly number[]): Promise<ReadonlySet<number>> {
    const [enabled, byRole] = await Promise.all([this.repo.enabledAmong(userIds), this.repo.requiredByRoleAmong(userIds)]);
    return new Set([...enabled, ...byRole]);
  }

  /** For sign-in (auth module): a short-lived signed challenge; it is not a session and opens nothing else. */
  async challenge(c: { userId: number; project: Session['project'] }, login: string): Promise<TwoFactorChallenge> {
    // Without two-factor sign-in on, the user is here because their role requires it: they enrol first.
    const enrol = !(await this.repo.enabledAmong([c.userId])).has(c.userId);
    const challenge = await new SignJWT({ typ: CHALLENGE_TYPE, pid: c.project.id, lgn: login, ...(enrol ? { enr: true } : {}) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(c.userId))
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + TWO_FACTOR_CHALLENGE_TTL_SECONDS)
      .sign(this.challengeKey);
    return { challenge, project: c.project, expires_in: TWO_FACTOR_CHALLENGE_TTL_SECONDS, ...(enrol ? { enrolment_required: true } : {}) };
  }

  /**
   * Sign-in of a user whose role requires a second step and who has none: an enrolment challenge
   * (the password already checked) answers a new secret; the first code from it, given to `signIn`,
   * turns two-factor sign-in on and opens the session.
   */
  async startSignInEnrolment(body: TwoFactorLoginEnrolBody): Promise<TwoFactorEnrolment> {
    const claims = await this.readChallenge(body.challenge);
    if (!claims?.enrol) throw new AppError('invalid_token');
    const account = await this.repo.account(claims.userId);
    if (!account) throw new AppError('invalid_token');
    const secret = new Secret({ size: 20 });
    if (!(await this.repo.startPending(claims.userId, this.encrypt(secret.base32)))) throw new AppError('two_factor_already_enabled');
    const otpauth = this.totp(secret, account.login).toString();
    const svg = await QRCode.toString(otpauth, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
    return { secret: secret.base32, otpauth_url: otpauth, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
  }

  /**
   * The second step of sign-in: a challenge and a code (or a recovery code) → a session. Wrong codes
   * count as failed sign-ins of the login (address, account, both), and on their own per user, so
   * signing in with the password again does not buy more guesses.
   */
  async signIn(body: TwoFactorLoginBody, ip: string, requestId: string): Promise<Session & { recovery_codes?: string[] }> {
    const claims = await this.readChallenge(body.challenge);
    if (!claims) throw new AppError('invalid_token');
    const keys = signInKeys(claims.login, ip);
    const { attempts } = this.deps;
    const counts: [number, number][] = [
      [await attempts.count(keys.accountAtAddress, LOGIN_FAILURE_WINDOW_SECONDS), LOGIN_MAX_FAILURES],
      [await attempts.count(keys.address, LOGIN_FAILURE_WINDOW_SECONDS), LOGIN_ADDRESS_MAX_FAILURES],
      [await attempts.count(keys.account, LOGIN_FAILURE_WINDOW_SECONDS), LOGIN_ACCOUNT_MAX_FAILURES],
      [await attempts.count(guessKey(claims.userId), LOGIN_FAILURE_WINDOW_SECONDS), LOGIN_MAX_FAILURES],
    ];
    if (counts.some(([n, max]) => n > max)) throw new AppError('too_many_attempts');
    // A challenge signs in once: whoever holds a used one (a log, a shared screen) cannot sign in
    // again with it within its life, even with a new code. It is taken in one counting statement
    // before the code is looked at (two requests racing with one challenge cannot both pass, and a
    // replay burns no code), and given back when the code is wrong, so a typo can be corrected.
    const challengeUse = `2fa-challenge:${claims.jti}`;
    if ((await attempts.count(challengeUse, TWO_FACTOR_CHALLENGE_TTL_SECONDS + 60)) > 1) {
      await attempts.giveBack(challengeUse);
      throw new AppError('invalid_token');
    }
    const project = await this.deps.project(claims.projectId);
    const enrolled = claims.enrol && project ? await this.finishEnrolment(claims.userId, body.code) : null;
    const ok = project && (claims.enrol ? enrolled && 'totp' : await this.takeCode(claims.userId, body.code));
    if (!project || !ok) {
      await attempts.giveBack(challengeUse);
      await recordAudit(
        this.db,
        { actor: project ? { userId: claims.userId, projectId: claims.projectId } : null, ip, requestId },
        { entity: 'session', entityId: claims.userId, action: 'login_two_factor_failed', after: { login: claims.login } },
      );
      throw invalidCode();
    }
    await attempts.giveBack(keys.address);
    await attempts.giveBack(keys.account);
    await attempts.clear(keys.accountAtAddress);
    await attempts.clear(guessKey(claims.userId));
    if (ok === 'recovery') {
      await recordAudit(
        this.db,
        { actor: { userId: claims.userId, projectId: claims.projectId }, ip, requestId },
        { entity: 'two_factor', entityId: claims.userId, action: 'recovery_code_used' },
      );
    }
    if (enrolled) {
      await recordAudit(
        this.db,
        { actor: { userId: claims.userId, projectId: claims.projectId }, ip, requestId },
        { entity: 'two_factor', entityId: claims.userId, action: 'enable', after: { at_sign_in: true } },
      );
      return { ...(await this.deps.completeSignIn({ userId: claims.userId, project }, ip, requestId)), recovery_codes: enrolled };
    }
    return this.deps.completeSignIn({ userId: claims.userId, project }, ip, requestId);
  }

  /** The first code of an enrolment begun at sign-in: turns two-factor sign-in on; answers the recovery codes, or null. */
  private async finishEnrolment(userId: number, code: string): Promise<string[] | null> {
    const row = await this.repo.find(userId);
    if (!row || row.enabledAt) return null;
    const step = this.matchingStep(row.secret, code);
    if (step === null) return null;
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    return (await this.repo.enable(userId, step, codes.map(hashRecovery))) ? codes : null;
  }

  private async readChallenge(token: string) {
    try {
      const { payload } = await jwtVerify(token, this.challengeKey, { algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      const projectId = Number(payload.pid);
      if (
        payload.typ !== CHALLENGE_TYPE ||
        !Number.isInteger(userId) ||
        !Number.isInteger(projectId) ||
        typeof payload.lgn !== 'string' ||
        typeof payload.jti !== 'string'
      )
        return null;
      return { userId, projectId, login: payload.lgn, jti: payload.jti, enrol: payload.enr === true };
    } catch (e) {
      if (e instanceof joseErrors.JOSEError) return null;
      throw e;
    }
  }

  /** The password and a code of the signed-in owner, wrong answers limited as sign-in is. */
  private async confirmOwner(userId: number, body: TwoFactorDisableBody): Promise<void> {
    const account = await this.repo.account(userId);
    if (!account) throw notFound();
    const row = await this.repo.find(userId);
    if (!row?.enabledAt) throw new AppError('two_factor_not_enabled');
    await confirmCurrentPassword(this.deps.attempts, userId, account.passwordHash, body.password, 'password');
    await this.countGuess(userId);
    if (!(await this.takeCode(userId, body.code))) throw invalidCode();
    await this.deps.attempts.clear(guessKey(userId));
  }

  private async countGuess(userId: number): Promise<void> {
    if ((await this.deps.attempts.count(guessKey(userId), LOGIN_FAILURE_WINDOW_SECONDS)) > LOGIN_MAX_FAILURES)
      throw new AppError('too_many_attempts');
  }

  /** Uses up a TOTP code (its time step, once) or a recovery code; answers which, or false. */
  private async takeCode(userId: number, code: string): Promise<'totp' | 'recovery' | false> {
    if (isTotpCode(code)) {
      const row = await this.repo.find(userId);
      if (!row?.enabledAt) return false;
      const step = this.matchingStep(row.secret, code);
      return step !== null && (await this.repo.takeStep(userId, step)) ? 'totp' : false;
    }
    return (await this.repo.takeRecoveryCode(userId, hashRecovery(code))) ? 'recovery' : false;
  }

  /** The time step of a code that matches now or one step either side (clock drift), or null. */
  private matchingStep(encrypted: string, code: string): number | null {
    const now = Date.now();
    const totp = this.totp(Secret.fromBase32(this.decrypt(encrypted)), '');
    const delta = totp.validate({ token: normalize(code), timestamp: now, window: 1 });
    return delta === null ? null : totp.counter({ timestamp: now }) + delta;
  }

  private totp(secret: Secret, login: string): TOTP {
    return new TOTP({
      issuer: this.deps.issuer,
      label: login,
      algorithm: 'SHA1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
      secret,
    });
  }

  private encrypt(plain: string): string {
    return this.secrets.seal(plain);
  }

  private decrypt(stored: string): string {
    return this.secrets.open(stored);
  }
}

const guessKey = (userId: number) => `2fa:${userId}`;
const invalidCode = () => new AppError('two_factor_invalid_code', [{ field: 'code', message: 'invalid two-factor code' }]);
