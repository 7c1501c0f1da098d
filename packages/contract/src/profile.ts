import { z } from 'zod';
import { IDENTIFIER_FORMATS, LOCALES, TIME_FORMATS } from './constants.js';
import { LicenseWarningsSchema, UserLicenseInfoSchema } from './licenses.js';
import { PhoneSchema } from './phone.js';
import { TimeZoneSchema } from './time-zones.js';

export const NotificationSettingsSchema = z.object({ acs: z.boolean() });
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;

export const ProfileFieldsSchema = z.object({
  address: z.string().max(255).nullable(),
  phone: z.string().max(32).nullable(),
  time_zone: z.string().max(64).nullable(),
  time_format: z.enum(TIME_FORMATS).nullable(),
  identifier_format: z.enum(IDENTIFIER_FORMATS),
  sip_number: z.string().nullable(),
  is_app_popup_active: z.boolean(),
  notification_settings: NotificationSettingsSchema,
});
export type ProfileFields = z.infer<typeof ProfileFieldsSchema>;

export const LicenseStateSchema = z.object({
  features: z.array(z.string()),
  restrictors: z.array(z.object({ type: z.string(), value: z.number().nullable() })),
  expiring: z.object({ sip: LicenseWarningsSchema.nullable(), mobile_app: LicenseWarningsSchema.nullable() }),
});

export const ProfileSchema = z.object({
  id: z.number().int(),
  login: z.string(),
  email: z.string().nullable(),
  name: z.string(),
  locale: z.enum(LOCALES),
  avatar_url: z.string().nullable(),
  is_invited: z.boolean(),
  role: z.object({ id: z.number().int(), name: z.string(), permissions: z.array(z.string()) }).nullable(),
  domains: z.array(z.object({ id: z.number().int(), name: z.string() })),
  project: z.object({ id: z.number().int(), uid: z.string(), name: z.string(), description: z.string().nullable() }),
  profile: ProfileFieldsSchema,
  /** The user's own licence as stored, each counted block with its period when it has one. */
  license_info: UserLicenseInfoSchema,
  license_state: LicenseStateSchema,
});
export type Profile = z.infer<typeof ProfileSchema>;

const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

export const UpdateProfileBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  locale: z.enum(LOCALES).optional(),
  email: z.email().max(255).nullable().optional(),
  profile: z
    .strictObject({
      address: optionalText(255),
      phone: PhoneSchema.nullable().optional(),
      time_zone: TimeZoneSchema.nullable().optional(),
      time_format: z.enum(TIME_FORMATS).nullable().optional(),
      identifier_format: z.enum(IDENTIFIER_FORMATS).optional(),
    })
    .optional(),
  /** The current password: required when `email` changes (the address password recovery mails go to). */
  password: z.string().min(1).max(1024).optional(),
});
export type UpdateProfileBody = z.infer<typeof UpdateProfileBodySchema>;

export const PASSWORD_MIN_LENGTH = 8;
export const PasswordSchema = z.string().min(PASSWORD_MIN_LENGTH).max(128);

export const ChangePasswordBodySchema = z.strictObject({ old: z.string().min(1).max(1024), new: PasswordSchema });
export const MobilePopupBodySchema = z.strictObject({ is_app_popup_active: z.boolean() });

export const ResourcesMetaSchema = z.object({
  meta: z.object({ locales: z.array(z.string()), version: z.string(), api_version: z.string() }),
  permissions: z.array(z.object({ code: z.string(), family: z.string(), scope: z.string().nullable(), en: z.string(), ru: z.string() })),
  notification_settings: NotificationSettingsSchema,
});
