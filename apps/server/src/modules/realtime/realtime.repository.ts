import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../core/db/client.js';
import { refreshTokens } from '../auth/auth.table.js';

export class RealtimeRepository {
  constructor(private readonly db: Db) {}

  /**
   * Whether a sign-in of the user (the refresh token family `sessionId`, or any when not given) is
   * still live: neither signed out nor revoked, nor expired.
   */
  async hasLiveSession(userId: number, sessionId?: string): Promise<boolean> {
    const [row] = await this.db
      .select({ one: sql<number>`1` })
      .from(refreshTokens)
      .where(
        and(
          eq(refreshTokens.userId, userId),
          sessionId === undefined ? undefined : eq(refreshTokens.familyId, sessionId),
          isNull(refreshTokens.revokedAt),
          gt(refreshTokens.expiresAt, sql`now()`),
        ),
      )
      .limit(1);
    return !!row;
  }
}
