import { z } from 'zod';

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
