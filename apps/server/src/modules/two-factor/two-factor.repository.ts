import { and, eq, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { roles } from '../roles/roles.table.js';
import { users } from '../users/users.table.js';
import { userTwoFactor } from './two-factor.table.js';

export type TwoFactorRow = typeof userTwoFactor.$inferSelect;

export class TwoFactorRepository {
  constructor(private readonly db: Db) {}

  async find(userId: number): Promise<TwoFactorRow | undefined> {
    const [row] = await this.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, userId));
    return row;
  }

  /** The user's login and password hash (checking the password before enrolment or turning it off). */
  async account(userId: number): Promise<{ login: string; passwordHash: string | null } | undefined> {
    const [row] = await this.db.select({ login: users.login, passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId));
    return row;
  }

  /** Of these users, those whose two-factor sign-in is on. */
  async enabledAmong(userIds: readonly number[]): Promise<Set<number>> {
    if (!userIds.length) return new Set();
    const rows = await this.db
      .select({ userId: userTwoFactor.userId })
      .from(userTwoFactor)
      .where(and(inArray(userTwoFactor.userId, [...userIds]), isNotNull(userTwoFactor.enabledAt)));
    return new Set(rows.map((r) => r.userId));
  }

  /** Of these users, those whose role requires two-factor sign-in. */
  async requiredByRoleAmong(userIds: readonly number[]): Promise<Set<number>> {
    if (!userIds.length) return new Set();
    const rows = await this.db
      .select({ userId: users.id })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(and(inArray(users.id, [...userIds]), eq(roles.twoFactorRequired, true)));
    return new Set(rows.map((r) => r.userId));
  }

  /** Starts (or starts over) an enrolment; answers false when two-factor sign-in is already on. */
  async startPending(userId: number, secret: string): Promise<boolean> {
    const rows = await this.db
      .insert(userTwoFactor)
      .values({ userId, secret })
      .onConflictDoUpdate({
        target: userTwoFactor.userId,
        set: { secret, lastStep: null, recoveryCodes: [], createdAt: sql`now()` },
        setWhere: isNull(userTwoFactor.enabledAt),
      })
      .returning({ userId: userTwoFactor.userId });
    return rows.length > 0;
  }

  /** Turns a pending enrolment on with its first code's step and the recovery codes' hashes. */
  async enable(userId: number, step: number, recoveryHashes: string[]): Promise<boolean> {
    const rows = await this.db
      .update(userTwoFactor)
      .set({ enabledAt: sql`now()`, lastStep: step, recoveryCodes: recoveryHashes })
      .where(and(eq(userTwoFactor.userId, userId), isNull(userTwoFactor.enabledAt)))
      .returning({ userId: userTwoFactor.userId });
    return rows.length > 0;
  }

  /**
   * Takes the step of a code that matched, only when it is newer than the last one taken: one
   * statement, so the same code used twice (even at once) is accepted only once.
   */
  async takeStep(userId: number, step: number): Promise<boolean> {
    const rows = await this.db
      .update(userTwoFactor)
      .set({ lastStep: step })
      .where(
        and(
          eq(userTwoFactor.userId, userId),
          isNotNull(userTwoFactor.enabledAt),
          or(isNull(userTwoFactor.lastStep), sql`${userTwoFactor.lastStep} < ${step}`),
        ),
      )
      .returning({ userId: userTwoFactor.userId });
    return rows.length > 0;
  }

  /** Uses up a recovery code: it is removed in the same statement that finds it, so it works once. */
  async takeRecoveryCode(userId: number, hash: string): Promise<boolean> {
    const rows = await this.db
      .update(userTwoFactor)
      .set({ recoveryCodes: sql`array_remove(${userTwoFactor.recoveryCodes}, ${hash})` })
      .where(and(eq(userTwoFactor.userId, userId), isNotNull(userTwoFactor.enabledAt), sql`${hash} = ANY(${userTwoFactor.recoveryCodes})`))
      .returning({ userId: userTwoFactor.userId });
    return rows.length > 0;
  }

  async setRecoveryCodes(userId: number, recoveryHashes: string[]): Promise<void> {
    await this.db.update(userTwoFactor).set({ recoveryCodes: recoveryHashes }).where(eq(userTwoFactor.userId, userId));
  }

  /** Removes the user's two-factor sign-in; answers whether there was one. */
  async remove(db: DbOrTx, userId: number): Promise<boolean> {
    const rows = await db.delete(userTwoFactor).where(eq(userTwoFactor.userId, userId)).returning({ userId: userTwoFactor.userId });
    return rows.length > 0;
  }
}
