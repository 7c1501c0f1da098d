import { randomUUID } from 'node:crypto';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  LOGIN_ACCOUNT_MAX_FAILURES,
  LOGIN_ADDRESS_MAX_FAILURES,
  LOGIN_FAILURE_WINDOW_SECONDS,
  LOGIN_MAX_FAILURES,
  type LoginBody,
  PERMISSION_CODES,
  REFRESH_TOKEN_TTL_SECONDS,
  type Session,
  type TwoFactorChallenge,
} from '@atrium/contract';
import { signInKeys } from '../../core/attempts.js';
import { recordAudit } from '../../core/audit.js';
import { dummyHash, verifyPassword } from '../../core/auth/password.js';
import { hashToken, newRefreshToken, type TokenService } from '../../core/auth/tokens.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError } from '../../core/errors.js';
import { ACTOR_TABLES, type ReadCache, type Stamp } from '../../core/read-cache.js';
import { endSessions } from '../../core/sessions.js';
import type { AuthRepository } from './auth.repository.js';

/** What a right password leads to: sessions, and challenges for users with two-factor sign-in on (issue 14). */
export interface LoginResult {
  sessions: Session[];
  two_factor?: TwoFactorChallenge[];
}

/** two-factor sign-in (issue 14): modules/two-factor decides who needs a code and makes their challenge. */
export interface SecondFactorGate {
  required(userIds: readonly number[]): Promise<ReadonlySet<number>>;
  challenge(c: { userId: number; project: Session['project'] }, login: string): Promise<TwoFactorChallenge>;
}

const ALL_PERMISSIONS: ReadonlySet<string> = new Set(PERMISSION_CODES);

export class AuthService {
  constructor(
    private readonly db: Db,
    private readonly repo: AuthRepository,
    private readonly tokens: TokenService,
    private readonly cache?: ReadCache,
  ) {}

  /** One session per project where the login exists and the password matches. */
  async login(body: LoginBody, ip: string, requestId: string): Promise<LoginResult> {
    const keys = signInKeys(body.login, ip);
    // Counted before the slow password check, each in one statement: parallel attempts cannot all
    // read a count none of them has added to yet. The login and the address together hold the
    // tight limit, so the owner signing in from elsewhere is not locked out by someone else's guesses.
    const counts: [number, number][] = [
      [await this.repo.attempts.count(keys.accountAtAddress, LOGIN_FAILURE_WINDOW_SECONDS), LOGIN_MAX_FAILURES],
      [await this.repo.attempts.count(keys.address, LOGIN_FAILURE_WINDOW_SECONDS), LOGIN_ADDRESS_MAX_FAILURES],
      [await this.repo.attempts.count(keys.account, LOGIN_FAILURE_WINDOW_SECONDS), LOGIN_ACCOUNT_MAX_FAILURES],
    ];
    if (counts.some(([n, max]) => n > max)) throw new AppError('too_many_attempts');
    const candidates = await this.repo.candidatesByLogin(body.login);
    const matched = [];
    for (const c of candidates) if (await verifyPassword(c.passwordHash, body.password)) matched.push(c);
    if (!candidates.length) await verifyPassword(await dummyHash(), body.password);
    if (!matched.length) {
      await recordAudit(
        this.db,
        { actor: null, ip, requestId },
        { entity: 'session', action: 'login_failed', after: { login: body.login } },
      );
      throw new AppError('invalid_credentials');
    }
    // Not a failure after all: the address gets its attempt back and the login starts over.
    await this.repo.attempts.giveBack(keys.address);
    await this.repo.attempts.giveBack(keys.account);
    await this.repo.attempts.clear(keys.accountAtAddress);
    const sessions: Session[] = [];
    const twoFactor: TwoFactorChallenge[] = [];
    // two-factor sign-in (issue 14): a user with TOTP on gets a challenge, not a session.
    const gated = this.secondFactor ? await this.secondFactor.required(matched.map((c) => c.userId)) : new Set<number>();
    for (const c of matched) {
      if (gated.has(c.userId) && this.secondFactor) twoFactor.push(await this.secondFactor.challenge(c, body.login));
      else sessions.push(await this.completeSignIn(c, ip, requestId));
    }
    return twoFactor.length ? { sessions, two_factor: twoFactor } : { sessions };
  }

  private secondFactor: SecondFactorGate | undefined;
  /** two-factor sign-in (issue 14): which users must give a code after their password, and their challenge. */
  onSecondFactor(gate: SecondFactorGate): void {
    this.secondFactor = gate;
  }

  /** A session for a user whose sign-in is complete (password, and a code where two-factor is on). */
  async completeSignIn(c: { userId: number; project: Session['project'] }, ip: string, requestId: string): Promise<Session> {
    await this.repo.markActivated(c.userId);
    await recordAudit(
      this.db,
      { actor: { userId: c.userId, projectId: c.project.id }, ip, requestId },
      { entity: 'session', entityId: c.userId, action: 'login' },
    );
    return { ...(await this.issue(c.userId, c.project.id, randomUUID())), project: c.project };
  }

  private async issue(userId: number, projectId: number, familyId: string) {
    const refresh = newRefreshToken();
    await this.repo.insertRefresh(this.db, {
      tokenHash: hashToken(refresh),
      userId,
      familyId,
      expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000),
    });
    const token = await this.tokens.signAccess({ userId, projectId, sessionId: familyId });
    return { token, refresh, expires_in: ACCESS_TOKEN_TTL_SECONDS };
  }

  /**
   * Rotates a refresh token. A token that was already rotated is a replay (stolen or duplicated):
   * its whole family is revoked, the event is audited, and the caller must sign in again.
   * An ordinary rotation happens every few minutes of every open console: it is not a change anyone
   * made, so it goes to the server's log (`onRotated`), not the audit log people read.
   */
  async refresh(token: string, ip: string, requestId: string, onRotated?: (who: { userId: number; sessionFamily: string }) => void) {
    const tokenHash = hashToken(token);
    const outcome = await this.db.transaction(async (tx) => {
      const row = await this.repo.refreshForUpdate(tx, tokenHash);
      if (!row || row.revokedAt || row.expiresAt.getTime() < Date.now()) return { ok: false as const };
      const projectId = await this.repo.projectOfUser(tx, row.userId);
      if (projectId === undefined) return { ok: false as const };
      const audit = (action: string) =>
        recordAudit(
          tx,
          { actor: { userId: row.userId, projectId }, ip, requestId },
          { entity: 'session', entityId: row.userId, action, after: { session_family: row.familyId } },
        );
      if (row.rotatedAt) {
        await endSessions(tx, { familyId: row.familyId });
        await audit('refresh_reuse');
        return { ok: false as const };
      }
      await this.repo.markRotated(tx, tokenHash);
      return { ok: true as const, userId: row.userId, familyId: row.familyId, projectId };
    });
    if (!outcome.ok) throw new AppError('invalid_token');
    onRotated?.({ userId: outcome.userId, sessionFamily: outcome.familyId });
    return this.issue(outcome.userId, outcome.projectId, outcome.familyId);
  }

  /** Revokes the given refresh token's family, or every session of the user when none is given. */
  async logout(ctx: RequestContext, refresh?: string): Promise<void> {
    const { actor } = ctx;
    await recordAudit(this.db, ctx, { entity: 'session', entityId: actor.userId, action: 'logout' });
    if (refresh) {
      const row = await this.repo.refreshForUpdate(this.db, hashToken(refresh));
      if (row && row.userId === actor.userId) await endSessions(this.db, { familyId: row.familyId });
      return;
    }
    await endSessions(this.db, { userId: actor.userId });
  }

  /**
   * Who calls with this access token, or null. A token seen before is answered from the read
   * cache until it expires or anything changes (a role, the user, their groups): no signature
   * check and no query on the hot path.
   */
  async actorFromToken(token: string): Promise<Actor | null> {
    const cached = this.cache?.actor(token);
    if (cached) return cached;
    const generation = this.cache?.stamp(ACTOR_TABLES);
    // Requests of one caller arriving together after a change read the caller once between them.
    if (this.cache) return this.cache.shared(`caller:${token}`, generation, () => this.readActor(token, generation));
    return this.readActor(token, generation);
  }

  private async readActor(token: string, generation: Stamp | undefined): Promise<Actor | null> {
    const claims = await this.tokens.verifyAccess(token);
    if (!claims) return null;
    const row = await this.repo.actor(claims.userId, claims.projectId, claims.sessionId);
    if (!row) return null;
    const actor: Actor = {
      userId: row.userId,
      projectId: row.projectId,
      login: row.login,
      roleId: row.roleId,
      // The built-in administrator role holds every permission, including ones added after it was made.
      permissions: row.isBuiltin ? ALL_PERMISSIONS : new Set(row.permissions ?? []),
      groupIds: row.groupIds,
      ...(claims.sessionId ? { sessionId: claims.sessionId } : {}),
    };
    this.cache?.keepActor(generation, token, actor, claims.expiresAt);
    return actor;
  }
}
