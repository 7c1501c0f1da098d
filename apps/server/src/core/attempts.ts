import { LOGIN_FAILURE_WINDOW_SECONDS, LOGIN_MAX_FAILURES, VALIDATION_MESSAGES } from '@atrium/contract';
import { eq, sql } from 'drizzle-orm';
import { loginFailures } from '../modules/auth/auth.table.js';
import { verifyPassword } from './auth/password.js';
import type { Db } from './db/client.js';
import { AppError, invalidField } from './errors.js';

/**
 * Attempts counted per key in a time window (failed sign-ins by address and by login, guesses at
 * registration and recovery secrets), in the database so the limits hold across instances. Sign-in
 * and registration share it: one table, one counting rule.
 */
export class AttemptCounter {
  constructor(private readonly db: Db) {}

  /**
   * Counts one more attempt for `key` and answers the count in the current window (a new window
   * when the last one ended). One statement, so parallel attempts each see the ones before them
   * and none can slip past a limit checked on the answer.
   */
  async count(key: string, windowSeconds: number): Promise<number> {
    return (await this.countInWindow(key, windowSeconds)).count;
  }

  /**
   * As `count`, also answering how much of the window is left (ms), for limits that tell the client
   * when to come back (a route's Retry-After).
   */
  async countInWindow(key: string, windowSeconds: number): Promise<{ count: number; leftMs: number }> {
    const inWindow = sql`${loginFailures.windowStart} > now() - make_interval(secs => ${windowSeconds})`;
    const [row] = await this.db
      .insert(loginFailures)
      .values({ key, failures: 1, windowStart: sql`now()` })
      .onConflictDoUpdate({
        target: loginFailures.key,
        set: {
          failures: sql`CASE WHEN ${inWindow} THEN ${loginFailures.failures} + 1 ELSE 1 END`,
          windowStart: sql`CASE WHEN ${inWindow} THEN ${loginFailures.windowStart} ELSE now() END`,
        },
      })
      .returning({
        failures: loginFailures.failures,
        leftMs: sql<number>`greatest(0, floor(extract(epoch from (${loginFailures.windowStart} + make_interval(secs => ${windowSeconds}) - now())) * 1000))::float8`,
      });
    return { count: row?.failures ?? 1, leftMs: Math.max(0, Number(row?.leftMs ?? windowSeconds * 1000)) };
  }

  /** Forgets the keys starting with `prefix` whose window began more than `olderThanSeconds` ago. */
  async forgetOld(prefix: string, olderThanSeconds: number): Promise<number> {
    const gone = await this.db
      .delete(loginFailures)
      .where(
        sql`left(${loginFailures.key}, ${prefix.length}) = ${prefix} AND ${loginFailures.windowStart} < now() - make_interval(secs => ${olderThanSeconds})`,
      )
      .returning({ key: loginFailures.key });
    return gone.length;
  }

  /** Gives back an attempt that turned out not to count (a right password, a call that was no guess). */
  async giveBack(key: string): Promise<void> {
    await this.db
      .update(loginFailures)
      .set({ failures: sql`greatest(${loginFailures.failures} - 1, 0)` })
      .where(eq(loginFailures.key, key));
  }

  /** Forgets every attempt of `key`. */
  async clear(key: string): Promise<void> {
    await this.db.delete(loginFailures).where(eq(loginFailures.key, key));
  }

  /** Forgets every attempt of the keys starting with `prefix` (an account's, from every address). */
  async clearPrefix(prefix: string): Promise<void> {
    await this.db.delete(loginFailures).where(sql`left(${loginFailures.key}, ${prefix.length}) = ${prefix}`);
  }
}

/** The attempt keys of sign-in: per address, per login, and per login from one address. */
export const signInKeys = (login: string, ip: string) => {
  const account = `login:${login.toLowerCase()}`;
  return { address: `ip:${ip}`, account, accountAtAddress: `${account}|ip:${ip}` };
};

/** Lifts the sign-in lock of a login from every address (an administrator unlocks an account). */
export async function unlockSignIn(attempts: AttemptCounter, login: string): Promise<void> {
  const { account } = signInKeys(login, '');
  await attempts.clear(account);
  await attempts.clearPrefix(`${account}|`);
}

/**
 * Checks a signed-in person's current password (to change it, or their own e-mail), as sign-in is
 * checked: at most LOGIN_MAX_FAILURES wrong answers per person in the window, then 429, so a
 * borrowed access token cannot be used to guess the password behind it. A right answer gives its
 * attempt back. `field` names the form field a missing or wrong answer is reported on.
 */
export async function confirmCurrentPassword(
  attempts: AttemptCounter,
  userId: number,
  passwordHash: string | null,
  given: string | undefined,
  field: string,
): Promise<void> {
  if (!given) throw invalidField(field, VALIDATION_MESSAGES.required);
  const key = `password:${userId}`;
  if ((await attempts.count(key, LOGIN_FAILURE_WINDOW_SECONDS)) > LOGIN_MAX_FAILURES) throw new AppError('too_many_attempts');
  if (!(passwordHash && (await verifyPassword(passwordHash, given)))) {
    throw new AppError('wrong_old_password', [{ field, message: 'wrong old password' }]);
  }
  await attempts.giveBack(key);
}
