import { z } from 'zod';
import { IDENTIFIER_FORMATS, TIME_FORMATS } from './constants.js';
import { UserLicenseInfoSchema } from './licenses.js';
import { IdSchema, IdValueSchema, ListQuerySchema } from './list-query.js';
import { MobileClientInfoSchema } from './mobile-clients.js';
import { PhoneSchema } from './phone.js';
import { PasswordSchema } from './profile.js';
import { TimeZoneSchema } from './time-zones.js';
import { VALIDATION_MESSAGES } from './validators.js';

/** Profile block of a user as an administrator edits it (spec entities §3). */
export const UserProfileSchema = z.object({
  address: z.string().nullable(),
  phone: z.string().nullable(),
  use_phone_in_forward: z.boolean(),
  country_code: z.string().nullable(),
  time_zone: z.string().nullable(),
  sip_number_id: z.number().int().nullable(),
  identifier_format: z.enum(IDENTIFIER_FORMATS),
  time_format: z.enum(TIME_FORMATS).nullable(),
});
export type UserProfile = z.infer<typeof UserProfileSchema>;

export const UserSchema = z.object({
  id: z.number().int(),
  login: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  email: z.string().nullable(),
  /** The role id. */
  role: z.number().int().nullable(),
  /** Ids of the user's groups. */
  domains: z.array(z.number().int()),
  avatar_url: z.string().nullable(),
  elevator_access_disabled: z.boolean(),
  /** The user's licence (UserLicenseInfo blocks): the counted blocks may carry a period {from, to} in Unix seconds. */
  license_info: z.record(z.string(), z.record(z.string(), z.unknown())).nullable(),
  is_group_admin: z.boolean(),
  is_invited: z.boolean(),
  activated_at: z.string().nullable(),
  /** Derived from activated_at. */
  activated: z.boolean(),
  profile: UserProfileSchema,
  /** Read-only: the user's registered mobile apps; in a list only with `with=mobile_clients`. */
  mobile_clients: z.array(MobileClientInfoSchema).optional(),
  created_by: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** With `with=role`. */
  role_info: z.object({ id: z.number().int(), name: z.string() }).nullable().optional(),
  /** With `with=domains`. */
  domains_info: z.array(z.object({ id: z.number().int(), name: z.string() })).optional(),
  /** With `with=markers`: the markers on the user that the caller may see. */
  markers_info: z.array(z.object({ id: z.number().int(), name: z.string(), color: z.string() })).optional(),
  /**
   * May the caller change this user: by their edit permission's scope, or on their own record with
   * edit-own-profile (then all but the administrator's fields: login, role, groups, flags, licences).
   */
  can_edit: z.boolean(),
  /** May the caller delete this user: by their delete permission's scope, never themselves. */
  can_delete: z.boolean(),
});
export type User = z.infer<typeof UserSchema>;

export const UserProfileBodySchema = z.strictObject({
  address: z.string().trim().max(255).nullable().optional(),
  phone: PhoneSchema.nullable().optional(),
  use_phone_in_forward: z.boolean().optional(),
  country_code: z.string().trim().max(8).nullable().optional(),
  time_zone: TimeZoneSchema.nullable().optional(),
  sip_number_id: IdValueSchema.nullable().optional(),
  identifier_format: z.enum(IDENTIFIER_FORMATS).optional(),
  time_format: z.enum(TIME_FORMATS).nullable().optional(),
});

const login = z
  .string()
  .trim()
  .min(1, VALIDATION_MESSAGES.username_required)
  .max(64)
  .regex(/^[\w.@+-]+$/, VALIDATION_MESSAGES.alphanumeric_dash_underscore);
const email = z
  .union([z.email().max(255), z.literal('')])
  .nullable()
  .optional()
  .transform((v) => (v === '' ? null : v));

const userFields = {
  name: z.string().trim().min(1).max(255),
  description: z.string().trim().max(1000).nullable().optional(),
  email,
  role: IdValueSchema.nullable().optional(),
  /** At least one group (spec entities §5). */
  domains: z.array(IdValueSchema).min(1, 'at least one group must be selected').max(1000),
  elevator_access_disabled: z.boolean().optional(),
  is_group_admin: z.boolean().optional(),
  license_info: UserLicenseInfoSchema.partial().nullable().optional(),
  profile: UserProfileBodySchema.optional(),
};

export const CreateUserBodySchema = z.strictObject({
  ...userFields,
  login,
  name: userFields.name.optional(),
  password: PasswordSchema.optional(),
  /** Mail the registration link after creating (default true). */
  send_registration_link: z.boolean().default(true),
});
export type CreateUserBody = z.infer<typeof CreateUserBodySchema>;

export const UpdateUserBodySchema = z.strictObject({
  ...userFields,
  /** Markers on the user (needs "apply markers"); replaces the set. */
  markers: z.array(IdValueSchema).max(100).optional(),
  login: login.optional(),
  name: userFields.name.optional(),
  domains: userFields.domains.optional(),
  /** The caller's current password: required when they change their own `email` (the address password recovery mails go to). */
  password: z.string().min(1).max(1024).optional(),
});
export type UpdateUserBody = z.infer<typeof UpdateUserBodySchema>;

export const UserListQuerySchema = ListQuerySchema.extend({
  /** Login, name or e-mail contains the text. */
  search: z.string().trim().min(1).max(100).optional(),
  /** Only users of this group and the groups below it. */
  branch: IdSchema.optional(),
});

export const SetUserPasswordBodySchema = z.strictObject({ new_password: PasswordSchema });

/** Multipart fields of an avatar upload besides the image: the crop square the console chose. */
export const AvatarCropSchema = z.object({
  x: z.coerce.number().min(0).default(0),
  y: z.coerce.number().min(0).default(0),
  size: z.coerce.number().min(0).default(0),
});
