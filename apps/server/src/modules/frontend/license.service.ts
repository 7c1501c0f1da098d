import type { KeyObject } from 'node:crypto';
import { emptyLicenseInfo, fullLicenseInfo, type LicenseInfo, type LicenseRestrictor, type LicenseWarnings } from '@atrium/contract';
import type { DbOrTx } from '../../core/db/client.js';
import { DEV_ISSUER_PUBLIC_KEY, publicKeyFrom, verifyLicenseFile } from '../licenses/license-file.js';
import { evaluateLicenses, type ProjectLicenseState } from '../licenses/license-state.js';
import type { LicensesRepository, UsageCounts } from '../licenses/licenses.repository.js';

/** How long each instance keeps a project's licence state (a change made elsewhere is seen within it). */
export const LICENSE_CACHE_MS = 2000;
/** Usage counts behind the over-limit restrictors (read with every profile) are kept this long; limits are enforced on live counts. */
const USAGE_CACHE_MS = 10_000;

/**
 * The licence in effect in each project, from the signed licence files installed there
 * (modules/licenses): its features, warnings and over-limit restrictors, for every area that asks
 * (profile, server settings, SIP limits, UKEY2 counting, guest face recognition). Without an issuer
 * key configured (LICENSE_PUBLIC_KEY) the development issuer's files are accepted and a project with
 * no licence runs on the built-in development licence: every feature, no counts, no end.
 */
export class LicenseService {
  private readonly cache = new Map<number, { at: number; value: Promise<ProjectLicenseState> }>();
  private readonly usageCache = new Map<number, { at: number; value: Promise<UsageCounts> }>();
  /** The issuer's public key licence files are verified with. */
  readonly key: KeyObject;
  /** No issuer key configured: development licences and the built-in development licence. */
  readonly development: boolean;

  constructor(
    private readonly repo: LicensesRepository,
    opts: { publicKey?: string | undefined } = {},
  ) {
    this.development = !opts.publicKey;
    this.key = publicKeyFrom(opts.publicKey ?? DEV_ISSUER_PUBLIC_KEY);
  }

  /**
   * The licence changes rarely and is read on every profile load, so each instance keeps it for
   * LICENSE_CACHE_MS; a change made through this instance is seen at once, one made elsewhere within LICENSE_CACHE_MS.
   * A time other than now, or a read inside a transaction (`db`), is evaluated afresh.
   */
  async state(projectId: number, now?: number, db?: DbOrTx): Promise<ProjectLicenseState> {
    if (now !== undefined || db !== undefined) return this.evaluate(projectId, now ?? Date.now(), db);
    const at = Date.now();
    const hit = this.cache.get(projectId);
    if (hit && at - hit.at <= LICENSE_CACHE_MS) return hit.value;
    const value = this.evaluate(projectId, at);
    value.catch(() => this.cache.delete(projectId));
    this.cache.set(projectId, { at, value });
    return value;
  }

  private async evaluate(projectId: number, now: number, db?: DbOrTx): Promise<ProjectLicenseState> {
    const rows = await this.repo.rows(projectId, db);
    const installed = rows.map((r) => {
      try {
        return { id: r.id, payload: verifyLicenseFile(r.file, this.key) };
      } catch {
        return { id: r.id, payload: null };
      }
    });
    return evaluateLicenses(installed, now, this.development);
  }

  /** Forgets the cached licence of one project (or all) after it was changed. */
  invalidate(projectId?: number): void {
    if (projectId === undefined) {
      this.cache.clear();
      this.usageCache.clear();
    } else {
      this.cache.delete(projectId);
      this.usageCache.delete(projectId);
    }
  }

  /**
   * The features licensed to a project. Without a project (a signed-out caller of the public server
   * settings) nothing is licensed, except on a development server.
   */
  async serverFeatures(projectId?: number): Promise<LicenseInfo> {
    if (projectId === undefined) return this.development ? fullLicenseInfo() : emptyLicenseInfo();
    return (await this.state(projectId)).features;
  }

  /** The licence warning of spec core §4 for a project (normal without a project). */
  async warnings(projectId?: number, now?: number): Promise<LicenseWarnings> {
    if (projectId === undefined) return { status: 'normal', days: null };
    return (await this.state(projectId, now)).warnings;
  }

  /** What the project uses of its counted features, counted at most every USAGE_CACHE_MS on this instance. */
  private usage(projectId: number): Promise<UsageCounts> {
    const at = Date.now();
    const hit = this.usageCache.get(projectId);
    if (hit && at - hit.at <= USAGE_CACHE_MS) return hit.value;
    const value = this.repo.usage(projectId);
    value.catch(() => this.usageCache.delete(projectId));
    this.usageCache.set(projectId, { at, value });
    return value;
  }

  /**
   * The counted features the project uses more of than its licence allows (types ending in _qty),
   * from `used` when given (live counts), else from recent counts.
   */
  async restrictors(projectId: number, used?: UsageCounts): Promise<LicenseRestrictor[]> {
    const [{ features }, counts] = await Promise.all([this.state(projectId), used ?? this.usage(projectId)]);
    used = counts;
    const out: LicenseRestrictor[] = [];
    const check = (type: LicenseRestrictor['type'], limit: number | null, n: number) => {
      if (limit !== null && n > limit) out.push({ type, limit, used: n });
    };
    check('sip_qty', features.sip.license_count, used.sip);
    check('mobile_app_qty', features.mobile_app.license_count, used.mobileApp);
    check('ukey2_qty', features.ukey2.license_count, used.ukey2);
    return out;
  }
}
