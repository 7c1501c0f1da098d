import { LICENSE_FEATURES, type LicenseFeature, type LicenseInfo, UNLIMITED_PERIOD } from '@atrium/contract';
import { formatDate } from '../../app/format';

/** A licence date (Unix seconds) as the day it falls on, or null for an unlimited end or start. */
export function periodDay(seconds: number, locale: string): string | null {
  if (seconds <= UNLIMITED_PERIOD.from || seconds >= UNLIMITED_PERIOD.to) return null;
  return formatDate(seconds * 1000, locale, { utc: true });
}

/** "used of limit" fraction for a progress bar (0–100), 0 without a limit. */
export function usedPercent(used: number, limit: number | null): number {
  if (limit === null) return 0;
  if (limit === 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.round((used / limit) * 100));
}

/** The features a licence turns on, in the order of the contract's list. */
export function enabledFeatures(info: LicenseInfo): LicenseFeature[] {
  return (Object.keys(LICENSE_FEATURES) as LicenseFeature[]).filter((f) => {
    const [block, flag] = LICENSE_FEATURES[f];
    return (info[block] as Record<string, unknown>)[flag] === true;
  });
}

/** A licence count as shown: the number, or ∞ when unlimited (null). */
export const countText = (n: number | null): string => (n === null ? '∞' : String(n));
