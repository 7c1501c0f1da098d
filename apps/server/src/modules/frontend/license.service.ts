import { fullLicenseInfo, type LicenseInfo, type LicenseWarnings } from '@atrium/contract';
import type { ProjectsRepository } from '../projects/projects.repository.js';

interface StoredLicense {
  features: LicenseInfo;
  /** ISO date the licence ends, or null for a perpetual one. */
  expires_at: string | null;
  /** Days after expiry until licensed features are disabled. */
  grace_days: number;
}

const DAY = 86_400_000;
const CACHE_MS = 2000;

/**
 * The server's licence. The embedded default is a site that owns its licence: every feature on,
 * no expiry. A licence server or an uploaded licence replaces the stored value (licences issue).
 */
export class LicenseService {
  private cached: { at: number; value: Promise<StoredLicense> } | undefined;

  constructor(private readonly repo: ProjectsRepository) {}

  /**
   * The licence changes rarely and is read on every profile load, so each instance keeps it for
   * CACHE_MS; a change made through this instance is seen at once, one made elsewhere within CACHE_MS.
   */
  private stored(): Promise<StoredLicense> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > CACHE_MS) {
      const value = this.repo
        .setting<Partial<StoredLicense>>('license')
        .then((v): StoredLicense => ({ features: fullLicenseInfo(), expires_at: null, grace_days: 30, ...v }));
      value.catch(() => {
        this.cached = undefined;
      });
      this.cached = { at: now, value };
    }
    return this.cached.value;
  }

  /** Forgets the cached licence after it was changed. */
  invalidate(): void {
    this.cached = undefined;
  }

  async serverFeatures(): Promise<LicenseInfo> {
    return (await this.stored()).features;
  }

  async warnings(now = Date.now()): Promise<LicenseWarnings> {
    const lic = await this.stored();
    if (!lic.expires_at) return { status: 'normal', days: null };
    const end = Date.parse(lic.expires_at);
    const daysLeft = Math.ceil((end - now) / DAY);
    if (daysLeft > 14) return { status: 'normal', days: null };
    if (daysLeft >= 0) return { status: 'will_expire', days: daysLeft };
    return { status: 'already_expired', days: Math.max(0, lic.grace_days + daysLeft) };
  }
}
