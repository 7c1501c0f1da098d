import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { refreshTokens } from '../modules/auth/auth.table.js';
import { type DbOrTx, EVENTS_CHANNEL } from './db/client.js';

/** Said on the events channel when sign-ins ended: every instance then checks its sockets (core/realtime.ts). */
export const SESSIONS_ENDED_SIGNAL = '!sessions-ended';

/**
 * Ends sign-ins: one (a refresh token family), or all of a user's but perhaps the caller's own.
 * Their refresh tokens stop working, and when this commits every instance hears it (NOTIFY is
 * delivered on commit) and closes the realtime sockets of the ended sign-ins at once.
 * Sign-out, a password change or reset, and a rotated refresh token used again all end here.
 */
export async function endSessions(
  db: DbOrTx,
  which: { familyId: string } | { userId: number; exceptFamily?: string | null },
): Promise<void> {
  const whose =
    'familyId' in which
      ? eq(refreshTokens.familyId, which.familyId)
      : and(eq(refreshTokens.userId, which.userId), which.exceptFamily ? ne(refreshTokens.familyId, which.exceptFamily) : undefined);
  await db
    .update(refreshTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(whose, isNull(refreshTokens.revokedAt)));
  await db.execute(sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${SESSIONS_ENDED_SIGNAL})`);
}
