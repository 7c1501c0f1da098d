import {
  emptyLicenseInfo,
  fullLicenseInfo,
  LICENSE_NOTIFY_BEFORE_DAYS,
  type LicenseInfo,
  type LicensePayload,
  type LicenseStatus,
  type LicenseWarnings,
  UNLIMITED_PERIOD,
} from '@atrium/contract';

const DAY_S = 86_400;

/** An installed licence as the evaluation sees it: null payload when its signature no longer verifies. */
export interface InstalledLicense {
  id: number;
  payload: LicensePayload | null;
}

export interface LicenseVerdict {
  status: LicenseStatus;
  /** Days until the end (ending) or until the features go off (expired, within grace); else null. */
  days: number | null;
}

/** The project's licence as of one moment. */
export interface ProjectLicenseState {
  features: LicenseInfo;
  source: 'license' | 'development' | 'none';
  warnings: LicenseWarnings;
  /** ISO end of the licence in effect; null when unlimited or none. */
  expiresAt: string | null;
  activeIds: number[];
  verdicts: Map<number, LicenseVerdict>;
}

const isUnlimitedEnd = (to: number) => to >= UNLIMITED_PERIOD.to;

/** Calendar days (UTC) from `nowS` to `thenS`: 0 when both fall on the same day. */
export function calendarDaysBetween(nowS: number, thenS: number): number {
  const day = (s: number) => Math.floor(s / DAY_S);
  return day(thenS) - day(nowS);
}

/**
 * The statuses of spec comms §4 from the dates, and what is in effect:
 * - pending: not started yet; expired: ended (its grace days still keep the features on, if it is the
 *   last licence to have ended and nothing else is in effect); disabled: in its period but replaced by a
 *   licence issued later, or its signature no longer verifies;
 * - active, or ending within LICENSE_NOTIFY_BEFORE_DAYS: the newest-issued licence in its period.
 * A project with no licence at all runs on the development licence when `development` (no issuer key
 * configured), else on nothing (no_license).
 */
export function evaluateLicenses(rows: readonly InstalledLicense[], nowMs: number, development: boolean): ProjectLicenseState {
  const nowS = Math.floor(nowMs / 1000);
  const verdicts = new Map<number, LicenseVerdict>();
  const valid = rows.filter((r): r is InstalledLicense & { payload: LicensePayload } => r.payload !== null);
  for (const r of rows) if (!r.payload) verdicts.set(r.id, { status: 'disabled', days: null });

  const inPeriod = valid.filter((r) => r.payload.period.from <= nowS && nowS <= r.payload.period.to);
  const newestFirst = (a: (typeof valid)[number], b: (typeof valid)[number]) =>
    b.payload.issued_at.localeCompare(a.payload.issued_at) || b.id - a.id;
  const effective = [...inPeriod].sort(newestFirst)[0];
  const graceEnd = (r: (typeof valid)[number]) => r.payload.period.to + r.payload.grace_days * DAY_S;
  const inGrace = effective
    ? undefined
    : valid
        .filter((r) => r.payload.period.to < nowS && nowS <= graceEnd(r))
        .sort((a, b) => b.payload.period.to - a.payload.period.to || newestFirst(a, b))[0];

  for (const r of valid) {
    const { from, to } = r.payload.period;
    if (nowS < from) verdicts.set(r.id, { status: 'pending', days: null });
    else if (nowS > to) verdicts.set(r.id, { status: 'expired', days: r === inGrace ? calendarDaysBetween(nowS, graceEnd(r)) : null });
    else if (r !== effective) verdicts.set(r.id, { status: 'disabled', days: null });
    else {
      const left = calendarDaysBetween(nowS, to);
      const ending = !isUnlimitedEnd(to) && left <= LICENSE_NOTIFY_BEFORE_DAYS;
      verdicts.set(r.id, { status: ending ? 'ending' : 'active', days: ending ? left : null });
    }
  }

  const inEffect = effective ?? inGrace;
  if (inEffect) {
    const verdict = verdicts.get(inEffect.id) as LicenseVerdict;
    const warnings: LicenseWarnings =
      verdict.status === 'ending'
        ? { status: 'will_expire', days: verdict.days }
        : verdict.status === 'expired'
          ? { status: 'already_expired', days: verdict.days }
          : { status: 'normal', days: null };
    const to = inEffect.payload.period.to;
    return {
      features: inEffect.payload.features,
      source: 'license',
      warnings,
      expiresAt: isUnlimitedEnd(to) ? null : new Date(to * 1000).toISOString(),
      activeIds: [inEffect.id],
      verdicts,
    };
  }
  if (!rows.length && development) {
    return {
      features: fullLicenseInfo(),
      source: 'development',
      warnings: { status: 'normal', days: null },
      expiresAt: null,
      activeIds: [],
      verdicts,
    };
  }
  return {
    features: emptyLicenseInfo(),
    source: 'none',
    warnings: { status: 'no_license', days: null },
    expiresAt: null,
    activeIds: [],
    verdicts,
  };
}
