import { type DomainLicense, type DomainLicenseInfo, LICENSE_FEATURES, type LicenseInfo, UNLIMITED_PERIOD } from '@atrium/contract';

/** One line of a group's licence share as the editor shows it: dates as `YYYY-MM-DD`, '' for unlimited. */
export interface ShareRow {
  type: string;
  is_active: boolean;
  /** null: as many as the parent (or the project) gives. */
  quantity: number | null;
  from: string;
  to: string;
}

const DAY = 86_400;

const day = (seconds: number): string =>
  seconds <= UNLIMITED_PERIOD.from || seconds >= UNLIMITED_PERIOD.to ? '' : new Date(seconds * 1000).toISOString().slice(0, 10);

const seconds = (value: string, bound: 'from' | 'to'): number => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return UNLIMITED_PERIOD[bound];
  const start = Date.parse(`${value}T00:00:00Z`) / 1000;
  return bound === 'from' ? start : start + DAY - 1;
};

/** The lines of a group's licence info (its device licences are not shares: they stay as they are). */
export function shareRows(info: DomainLicenseInfo): ShareRow[] {
  return info.licenses
    .filter((l) => !l.is_device_license)
    .map((l) => ({ type: l.type, is_active: l.is_active, quantity: l.quantity, from: day(l.period.from), to: day(l.period.to) }));
}

/** The group's licence info with these lines in place of its shares; notifications and device licences kept. */
export function shareInfo(info: DomainLicenseInfo, isEnabled: boolean, rows: readonly ShareRow[]): DomainLicenseInfo {
  const kept = new Map(info.licenses.filter((l) => !l.is_device_license).map((l) => [l.type, l]));
  const shares: DomainLicense[] = rows.map((r) => {
    const before = kept.get(r.type);
    return {
      type: r.type,
      is_active: r.is_active,
      is_device_license: false,
      device: null,
      quantity: r.quantity,
      period: { from: seconds(r.from, 'from'), to: seconds(r.to, 'to') },
      restrict_period: before?.restrict_period ?? { is_active: false, ...UNLIMITED_PERIOD },
    };
  });
  return { ...info, is_enabled: isEnabled, licenses: [...shares, ...info.licenses.filter((l) => l.is_device_license)] };
}

/** What is wrong with the lines before anything is sent (the server checks the rest against parents and siblings). */
export function shareProblems(
  rows: readonly ShareRow[],
): { index: number; problem: 'type_required' | 'type_twice' | 'quantity' | 'period' }[] {
  const seen = new Set<string>();
  const out: { index: number; problem: 'type_required' | 'type_twice' | 'quantity' | 'period' }[] = [];
  rows.forEach((r, index) => {
    if (!r.type) out.push({ index, problem: 'type_required' });
    else if (seen.has(r.type)) out.push({ index, problem: 'type_twice' });
    seen.add(r.type);
    if (r.quantity !== null && (!Number.isInteger(r.quantity) || r.quantity < 0 || r.quantity > 1_000_000_000))
      out.push({ index, problem: 'quantity' });
    if (r.from && r.to && r.from > r.to) out.push({ index, problem: 'period' });
  });
  return out;
}

/** The project's count of a feature's licences (null: unlimited; undefined: the feature is not counted). */
export function projectCount(features: LicenseInfo, type: string): number | null | undefined {
  const block = LICENSE_FEATURES[type as keyof typeof LICENSE_FEATURES]?.[0];
  if (!block) return undefined;
  const count = (features[block] as { license_count?: number | null }).license_count;
  return count === undefined ? undefined : count;
}
