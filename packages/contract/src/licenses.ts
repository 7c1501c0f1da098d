import { z } from 'zod';
import { UNLIMITED_PERIOD } from './constants.js';

/** Licence info of an account, a group or the server (spec core §3). */
export const LicenseInfoSchema = z.object({
  sip: z.object({
    is_enabled: z.boolean(),
    is_sip_trunks_enabled: z.boolean(),
    is_web_dialer_enabled: z.boolean(),
    license_count: z.number().int().nullable(),
  }),
  mobile_app: z.object({
    is_enabled: z.boolean(),
    license_count: z.number().int().nullable(),
    is_domain_forward_rule_enabled: z.boolean(),
    is_white_label_enabled: z.boolean(),
    is_remote_open_enabled: z.boolean(),
    is_siri_enabled: z.boolean(),
    is_apple_watch_enabled: z.boolean(),
    is_family_events_enabled: z.boolean(),
  }),
  ukey2: z.object({ is_enabled: z.boolean(), license_count: z.number().int().nullable() }),
  elevator: z.object({ is_enabled: z.boolean() }),
  amenity: z.object({ is_enabled: z.boolean() }),
  license_plate: z.object({ is_enabled: z.boolean() }),
  face_id: z.object({ is_enabled_for_guests: z.boolean() }),
  identifier: z.object({ is_guest_enabled: z.boolean() }),
});
export type LicenseInfo = z.infer<typeof LicenseInfoSchema>;

/** Licence features the menu rules speak of, each as a path into LicenseInfo. */
export const LICENSE_FEATURES = {
  sip: ['sip', 'is_enabled'],
  sip_trunks: ['sip', 'is_sip_trunks_enabled'],
  web_dialer: ['sip', 'is_web_dialer_enabled'],
  mobile_app: ['mobile_app', 'is_enabled'],
  ukey2: ['ukey2', 'is_enabled'],
  elevator: ['elevator', 'is_enabled'],
  amenity: ['amenity', 'is_enabled'],
  license_plate: ['license_plate', 'is_enabled'],
  guest_access: ['identifier', 'is_guest_enabled'],
  face_id_guests: ['face_id', 'is_enabled_for_guests'],
} as const;
export type LicenseFeature = keyof typeof LICENSE_FEATURES;

export function featureEnabled(info: LicenseInfo | null | undefined, feature: LicenseFeature): boolean {
  if (!info) return false;
  const [block, flag] = LICENSE_FEATURES[feature];
  const b = info[block] as Record<string, unknown>;
  return b?.[flag] === true;
}

/**
 * The hide-when-both-off rule: a licensed item is hidden only when both the server's and the
 * user's feature are off.
 */
export function licensed(server: LicenseInfo | null | undefined, user: LicenseInfo | null | undefined, feature: LicenseFeature): boolean {
  return featureEnabled(server, feature) || featureEnabled(user, feature);
}

/**
 * The mobile app's own licence flags (spec core §3 mobile_app), each a feature of the app the app
 * offers only when the server says so: in the profile's licence state and in the answer to the app's
 * registration (the two answers an app reads after each sign-in).
 */
export const MOBILE_APP_FEATURES = {
  mobile_remote_open: 'is_remote_open_enabled',
  mobile_siri: 'is_siri_enabled',
  mobile_apple_watch: 'is_apple_watch_enabled',
  mobile_family_events: 'is_family_events_enabled',
  mobile_white_label: 'is_white_label_enabled',
  mobile_domain_forward_rule: 'is_domain_forward_rule_enabled',
} as const;
export type MobileAppFeature = keyof typeof MOBILE_APP_FEATURES;
export const MOBILE_APP_FEATURE_NAMES = Object.keys(MOBILE_APP_FEATURES) as [MobileAppFeature, ...MobileAppFeature[]];

/**
 * The mobile-app flags in effect for a user: a flag counts from a licence (the server's or the
 * user's own) only where that licence has the mobile app itself on — a flag of an app that is not
 * licensed licenses nothing — and, as every feature, it is off only when both leave it off.
 */
export function mobileAppFeatures(server: LicenseInfo | null | undefined, user: LicenseInfo | null | undefined): MobileAppFeature[] {
  const from = (info: LicenseInfo | null | undefined, flag: (typeof MOBILE_APP_FEATURES)[MobileAppFeature]) =>
    info?.mobile_app?.is_enabled === true && info.mobile_app[flag] === true;
  return MOBILE_APP_FEATURE_NAMES.filter((f) => from(server, MOBILE_APP_FEATURES[f]) || from(user, MOBILE_APP_FEATURES[f]));
}

/** Everything off: a new account's licence info. */
export function emptyLicenseInfo(): LicenseInfo {
  return {
    sip: { is_enabled: false, is_sip_trunks_enabled: false, is_web_dialer_enabled: false, license_count: null },
    mobile_app: {
      is_enabled: false,
      license_count: null,
      is_domain_forward_rule_enabled: false,
      is_white_label_enabled: false,
      is_remote_open_enabled: false,
      is_siri_enabled: false,
      is_apple_watch_enabled: false,
      is_family_events_enabled: false,
    },
    ukey2: { is_enabled: false, license_count: null },
    elevator: { is_enabled: false },
    amenity: { is_enabled: false },
    license_plate: { is_enabled: false },
    face_id: { is_enabled_for_guests: false },
    identifier: { is_guest_enabled: false },
  };
}

/** Everything on: the embedded single-server default, where the site owns its licence. */
export function fullLicenseInfo(): LicenseInfo {
  const info = emptyLicenseInfo();
  info.sip = { is_enabled: true, is_sip_trunks_enabled: true, is_web_dialer_enabled: true, license_count: null };
  info.mobile_app = {
    is_enabled: true,
    license_count: null,
    is_domain_forward_rule_enabled: true,
    is_white_label_enabled: true,
    is_remote_open_enabled: true,
    is_siri_enabled: true,
    is_apple_watch_enabled: true,
    is_family_events_enabled: true,
  };
  info.ukey2 = { is_enabled: true, license_count: null };
  info.elevator = { is_enabled: true };
  info.amenity = { is_enabled: true };
  info.license_plate = { is_enabled: true };
  info.face_id = { is_enabled_for_guests: true };
  info.identifier = { is_guest_enabled: true };
  return info;
}

export const LICENSE_WARNING_STATUSES = ['normal', 'no_license', 'will_expire', 'already_expired'] as const;
export const LicenseWarningsSchema = z.object({
  status: z.enum(LICENSE_WARNING_STATUSES),
  days: z.number().int().nullable(),
});
export type LicenseWarnings = z.infer<typeof LicenseWarningsSchema>;

// --- licence files, licences of a project, usage and reports (spec core §3 §4, comms §2 §3 §7 §8) ---

/** The licence statuses of spec comms §4, computed from the dates. */
export const LICENSE_STATUSES = ['active', 'ending', 'disabled', 'pending', 'expired'] as const;
export type LicenseStatus = (typeof LICENSE_STATUSES)[number];
/** A licence that ends within this many days is "ending" and warned of (spec: notify before 14 days). */
export const LICENSE_NOTIFY_BEFORE_DAYS = 14;
/** The largest licence file accepted (a licence is a few kilobytes of JSON). */
export const LICENSE_FILE_MAX_BYTES = 64 * 1024;

/** A licence period in Unix seconds; 0 to 999999999999 means unlimited (spec core §7). */
export const LicensePeriodSchema = z
  .object({ from: z.number().int().min(0).max(999_999_999_999), to: z.number().int().min(0).max(999_999_999_999) })
  .refine((p) => p.from <= p.to, { message: 'the value must not be less than from', path: ['to'] });

// --- a user's own licence (spec core §3 licence info per account; issue 14, licences of new users) ---

/** The counted blocks a user's licence may hold with a period of its own. */
export const USER_LICENSE_BLOCKS = ['sip', 'mobile_app', 'ukey2'] as const;
export type UserLicenseBlock = (typeof USER_LICENSE_BLOCKS)[number];
const withPeriod = { period: LicensePeriodSchema.optional() };

/**
 * A user's licence info: the blocks of LicenseInfo, the counted ones with an optional period
 * {from, to} in Unix seconds (as a group licence's period). The block is in effect only within its
 * period; without one it is unlimited.
 */
export const UserLicenseInfoSchema = LicenseInfoSchema.extend({
  sip: LicenseInfoSchema.shape.sip.extend(withPeriod),
  mobile_app: LicenseInfoSchema.shape.mobile_app.extend(withPeriod),
  ukey2: LicenseInfoSchema.shape.ukey2.extend(withPeriod),
});
export type UserLicenseInfo = z.infer<typeof UserLicenseInfoSchema>;

/** A user's stored licence info with every block and flag present (missing ones off). */
export function userLicenseInfo(stored: unknown): UserLicenseInfo {
  const empty = emptyLicenseInfo() as UserLicenseInfo;
  const s = (stored ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const out = { ...empty } as Record<string, unknown>;
  for (const k of Object.keys(empty)) {
    const block = s[k];
    if (block && typeof block === 'object') out[k] = { ...(empty[k as keyof UserLicenseInfo] as object), ...block };
  }
  return out as UserLicenseInfo;
}

const DAY_SECONDS = 86_400;
const urgency = (w: LicenseWarnings | null) =>
  w === null ? -1 : w.status === 'already_expired' ? 3 : w.status === 'will_expire' ? 2 : w.status === 'no_license' ? 1 : 0;

/** The more urgent of two licence warnings (the fewer days left when both are of one state). */
export function moreUrgent(a: LicenseWarnings | null, b: LicenseWarnings | null): LicenseWarnings | null {
  if (urgency(a) !== urgency(b)) return urgency(a) > urgency(b) ? a : b;
  return (a?.days ?? Number.POSITIVE_INFINITY) <= (b?.days ?? Number.POSITIVE_INFINITY) ? a : b;
}

/**
 * A user's licence as of `nowMs`: `info` with every counted block outside its period turned off, and
 * per counted block the warning of spec core §4 for its own period: will_expire with the days left
 * within LICENSE_NOTIFY_BEFORE_DAYS of the end, already_expired after it (days 0: off from its end, a
 * user's licence has no grace days); null when it is not ending, has no period or is off.
 */
export function userLicenseInEffect(
  stored: unknown,
  nowMs: number,
): { info: UserLicenseInfo; expiring: Record<UserLicenseBlock, LicenseWarnings | null> } {
  const info = userLicenseInfo(stored);
  const nowS = Math.floor(nowMs / 1000);
  const expiring = { sip: null, mobile_app: null, ukey2: null } as Record<UserLicenseBlock, LicenseWarnings | null>;
  for (const b of USER_LICENSE_BLOCKS) {
    const block = info[b];
    const p = block.period;
    if (!block.is_enabled || !p) continue;
    const off = { ...(emptyLicenseInfo()[b] as object), period: p } as never;
    if (nowS < p.from) {
      info[b] = off;
    } else if (nowS > p.to) {
      info[b] = off;
      expiring[b] = { status: 'already_expired', days: 0 };
    } else {
      const left = Math.floor(p.to / DAY_SECONDS) - Math.floor(nowS / DAY_SECONDS);
      const ending = p.to < UNLIMITED_PERIOD.to && left <= LICENSE_NOTIFY_BEFORE_DAYS;
      if (ending) expiring[b] = { status: 'will_expire', days: left };
    }
  }
  return { info, expiring };
}

/** What the issuer signs: the canonical JSON (RFC 8785) of this object is the signed message. */
export const LicensePayloadSchema = z.strictObject({
  format: z.literal(1),
  /** The issuer's id of the licence (a UUID). */
  id: z.uuid(),
  customer: z.string().trim().min(1).max(255),
  /** The deployment the licence is bound to (the server's instance id); null: any. */
  instance_id: z.string().trim().min(1).max(64).nullable(),
  /** The project the licence is bound to (its uid); null: any project of the deployment. */
  project_uid: z.string().trim().min(1).max(64).nullable(),
  issued_at: z.iso.datetime(),
  period: LicensePeriodSchema,
  /** Days after the end during which the features stay on (the already_expired warning counts them down). */
  grace_days: z.number().int().min(0).max(365),
  features: LicenseInfoSchema,
});
export type LicensePayload = z.infer<typeof LicensePayloadSchema>;

/** A licence file: the payload and the issuer's Ed25519 signature of its canonical JSON, base64. */
export const LicenseFileSchema = z.strictObject({
  license: LicensePayloadSchema,
  signature: z.string().trim().min(1).max(200),
});
export type LicenseFile = z.infer<typeof LicenseFileSchema>;

export const LICENSE_SOURCES = ['file', 'cloud'] as const;

/** A licence installed in the project. */
export const LicenseSchema = z.object({
  id: z.number().int(),
  license_id: z.string(),
  customer: z.string(),
  source: z.enum(LICENSE_SOURCES),
  instance_id: z.string().nullable(),
  project_uid: z.string().nullable(),
  issued_at: z.string(),
  period: z.object({ from: z.number().int(), to: z.number().int() }),
  grace_days: z.number().int(),
  features: LicenseInfoSchema,
  status: z.enum(LICENSE_STATUSES),
  /** Days until the end (ending) or until the features go off (expired within its grace days); else null. */
  days: z.number().int().nullable(),
  created_by: z.number().int().nullable(),
  created_at: z.string(),
});
export type License = z.infer<typeof LicenseSchema>;

/** GET /licenses: the ids of the licences in effect and every licence (spec comms §3). */
export const LicenseListSchema = z.object({ active_ids: z.array(z.number().int()), items: z.array(LicenseSchema) });
export type LicenseList = z.infer<typeof LicenseListSchema>;

/** POST /licenses/cloud: fetch this project's licence from the licence server, optionally by an activation key. */
export const AddCloudLicenseBodySchema = z.strictObject({ key: z.string().trim().min(1).max(200).optional() });

export const LICENSE_COUNTED = ['sip', 'mobile_app', 'ukey2'] as const;
export type LicenseCounted = (typeof LICENSE_COUNTED)[number];

/** A count the project is over: its type contains _qty (spec core §4). */
export const LicenseRestrictorSchema = z.object({
  type: z.enum(['sip_qty', 'mobile_app_qty', 'ukey2_qty']),
  limit: z.number().int(),
  used: z.number().int(),
});
export type LicenseRestrictor = z.infer<typeof LicenseRestrictorSchema>;

/** GET /licenses/usage: what the project uses of its counted features, counted live. */
export const LicenseUsageSchema = z.object({
  sip_numbers_used: z.number().int(),
  mobile_app_used: z.number().int(),
  ukey2_used: z.number().int(),
  limits: z.object({ sip: z.number().int().nullable(), mobile_app: z.number().int().nullable(), ukey2: z.number().int().nullable() }),
  restrictors: z.array(LicenseRestrictorSchema),
});
export type LicenseUsage = z.infer<typeof LicenseUsageSchema>;

export const LICENSE_SOURCES_OF_FEATURES = ['license', 'development', 'none'] as const;
/** GET /licenses/features: the project's features in effect, where they come from, the warnings. */
export const LicenseFeaturesStateSchema = z.object({
  features: LicenseInfoSchema,
  /** license: an installed licence; development: the built-in development licence; none: nothing in effect. */
  source: z.enum(LICENSE_SOURCES_OF_FEATURES),
  warnings: LicenseWarningsSchema,
  /** When the licence in effect ends (ISO), or null when unlimited or none. */
  expires_at: z.string().nullable(),
  /** Give this to the issuer to get a licence for this deployment. */
  instance_id: z.string(),
  project_uid: z.string(),
  /** A licence server is configured: licences can be fetched with POST /licenses/cloud. */
  cloud_enabled: z.boolean(),
  /**
   * No issuer key is configured (LICENSE_PUBLIC_KEY): development licences are accepted and a project
   * without a licence has every feature without limits. The Licences page warns of it.
   */
  development_server: z.boolean(),
});
export type LicenseFeaturesState = z.infer<typeof LicenseFeaturesStateSchema>;

const ReportDate = z.iso.date();
/** GET /reports/licenses/used and /period (and their /download, an xlsx file): a day range, by default the last 30 days. */
export const LicenseReportQuerySchema = z
  .object({
    from: ReportDate.optional(),
    to: ReportDate.optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'the value must not be less than from', path: ['to'] })
  .refine((q) => !q.from || !q.to || Date.parse(q.to) - Date.parse(q.from) <= 366 * 2 * 86_400_000, {
    message: 'the range must not exceed two years',
    path: ['to'],
  });
export type LicenseReportQuery = z.infer<typeof LicenseReportQuerySchema>;

/** One day of the licences-used report: what was used and what the licence allowed. */
export const LicenseUsedDaySchema = z.object({
  day: z.string(),
  sip_numbers_used: z.number().int(),
  mobile_app_used: z.number().int(),
  ukey2_used: z.number().int(),
  sip_limit: z.number().int().nullable(),
  mobile_app_limit: z.number().int().nullable(),
  ukey2_limit: z.number().int().nullable(),
});
export type LicenseUsedDay = z.infer<typeof LicenseUsedDaySchema>;

/** One bar of the licence-period report: a project licence or a group's licence of one type. */
export const LicensePeriodRowSchema = z.object({
  kind: z.enum(['project', 'group']),
  /** The licence's row id (project) or the group's id (group). */
  id: z.number().int(),
  name: z.string(),
  type: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  quantity: z.number().int().nullable(),
  status: z.enum(LICENSE_STATUSES),
});
export type LicensePeriodRow = z.infer<typeof LicensePeriodRowSchema>;

/** The columns of the xlsx downloads of the licence reports. */
export const LICENSE_USED_COLUMNS = [
  'day',
  'sip_numbers_used',
  'sip_limit',
  'mobile_app_used',
  'mobile_app_limit',
  'ukey2_used',
  'ukey2_limit',
] as const;
export const LICENSE_PERIOD_COLUMNS = ['kind', 'name', 'type', 'from', 'to', 'quantity', 'status'] as const;
