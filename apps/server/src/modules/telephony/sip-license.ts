import { type LicenseFeature, type LicenseInfo, licensed, userLicenseInEffect } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import type { Actor } from '../../core/context.js';
import { type DbOrTx, queryRows } from '../../core/db/client.js';
import { AppError } from '../../core/errors.js';
import type { LicenseService } from '../frontend/license.service.js';

export interface SipLicenseState {
  /** The SIP feature is on for the server or the user (spec core: hidden only when both are off). */
  enabled: boolean;
  /** More numbers exist than the server's licence counts: only viewing and deleting remain. */
  overLimit: boolean;
  /** Total numbers the server's licence allows (null: unlimited) and how many exist. */
  limit: number | null;
  used: number;
  server: LicenseInfo;
  user: LicenseInfo;
}

/**
 * A user's stored licence info as it is in effect now: every block present, and a block whose period
 * has not begun or has ended is off (as the profile shows it).
 */
export const userLicense = (stored: unknown, nowMs = Date.now()): LicenseInfo => userLicenseInEffect(stored, nowMs).info;

/**
 * The SIP licence rules of spec comms §6 on the server: SIP features need the SIP licence (server
 * or user); trunks and the web dialer their own flags; the project's virtual numbers stay within the
 * count of the project's licence (modules/licenses).
 */
export class SipLicense {
  constructor(private readonly licenses: LicenseService) {}

  async state(db: DbOrTx, actor: Actor): Promise<SipLicenseState> {
    const [server, rows] = await Promise.all([
      this.licenses.serverFeatures(actor.projectId),
      queryRows<{ info: unknown; used: number }>(
        db,
        sql`SELECT (SELECT license_info FROM users WHERE id = ${actor.userId}) AS info, (SELECT count(*)::int FROM sip_numbers WHERE project_id = ${actor.projectId}) AS used`,
      ),
    ]);
    const user = userLicense(rows[0]?.info);
    const limit = server.sip.license_count;
    const used = Number(rows[0]?.used ?? 0);
    return { enabled: licensed(server, user, 'sip'), overLimit: limit !== null && used > limit, limit, used, server, user };
  }

  /** Refuses with 403 unless `feature` is licensed (for the server or this user); answers the state. */
  async require(db: DbOrTx, actor: Actor, feature: LicenseFeature = 'sip'): Promise<SipLicenseState> {
    const s = await this.state(db, actor);
    if (!s.enabled || (feature !== 'sip' && !licensed(s.server, s.user, feature))) throw new AppError('sip_disabled', [{ feature }]);
    return s;
  }
}
