import { createHash, randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_TTL_SECONDS } from '@atrium/contract';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

export interface AccessClaims {
  userId: number;
  projectId: number;
  /** The refresh token family (one sign-in) the access token was issued for. */
  sessionId?: string;
}

export interface VerifiedAccess extends AccessClaims {
  /** Epoch milliseconds at which the token expires. */
  expiresAt: number;
}

/** Short-lived HS256 access tokens; the secret is shared by every instance through the database. */
export class TokenService {
  private readonly key: Uint8Array;
  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  async signAccess(claims: AccessClaims, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): Promise<string> {
    return new SignJWT({ pid: claims.projectId, ...(claims.sessionId ? { sid: claims.sessionId } : {}) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(claims.userId))
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(this.key);
  }

  /** The claims of a valid token, or null when it is malformed, forged or expired. */
  async verifyAccess(token: string): Promise<VerifiedAccess | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      const projectId = Number(payload.pid);
      if (!Number.isInteger(userId) || !Number.isInteger(projectId) || typeof payload.exp !== 'number') return null;
      const sessionId = typeof payload.sid === 'string' ? { sessionId: payload.sid } : {};
      return { userId, projectId, ...sessionId, expiresAt: payload.exp * 1000 };
    } catch (e) {
      if (e instanceof joseErrors.JOSEError) return null;
      throw e;
    }
  }

  /**
   * Whether Atrium signed the token, expired or not (IP blocking counts only tokens it never issued:
   * an expired one is a console that has not refreshed yet, not a guess).
   */
  async signedHere(token: string): Promise<boolean> {
    try {
      await jwtVerify(token, this.key, { algorithms: ['HS256'], currentDate: new Date(0) });
      return true;
    } catch (e) {
      if (e instanceof joseErrors.JOSEError) return false;
      throw e;
    }
  }
}

export const newRefreshToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
