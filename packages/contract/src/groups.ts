import { z } from 'zod';
import { UNLIMITED_PERIOD } from './constants.js';
import { IdSchema, IdValueSchema, INT4_MAX, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES } from './validators.js';

/** Domain search needs at least this many characters (spec entities §5). */
export const DOMAIN_SEARCH_MIN_LENGTH = 2;
/** At most this many groups are made by one generate call. */
export const GENERATE_MAX_GROUPS = 10_000;

/**
 * The default domain types every project starts with, by their `type` code. The hierarchy rules
 * speak of these codes; types a project adds with other codes have no hierarchy rules.
 */
export const DOMAIN_TYPE_CODES = { complex: 1, building: 2, entrance: 3, floor: 4, service_area: 5, apartment: 6 } as const;

/**
 * Which parent type codes a child type code may sit under (`null` = a root group). A group without
 * a type, or of a type not listed here, may sit anywhere and have any children.
 */
export const DOMAIN_HIERARCHY: Readonly<Record<number, readonly (number | null)[]>> = {
  1: [null, 1],
  2: [null, 1],
  3: [2],
  4: [2, 3],
  5: [1, 2, 3, 4],
  6: [2, 3, 4],
};
/** Domain type codes whose groups have no logical address (spec: null for domain type 5). */
export const NO_LOGIC_ADDRESS_TYPES: readonly number[] = [5];

export const DomainTypeSchema = z.object({
  id: z.number().int(),
  type: z.number().int(),
  name: z.string(),
  /** A group this type belongs to; null: the whole project. */
  domain_id: z.number().int().nullable(),
  /** Ids of the groups of this type (on get, or in a list with `with=domains`). */
  domains: z.array(z.number().int()).optional(),
});
export type DomainType = z.infer<typeof DomainTypeSchema>;

export const CreateDomainTypeBodySchema = z.strictObject({
  type: z.number().int().min(1).max(1_000_000),
  name: z.string().trim().min(1).max(64),
  domain_id: IdValueSchema.nullable().optional(),
});
export const UpdateDomainTypeBodySchema = CreateDomainTypeBodySchema.partial();

const Period = z.object({ from: z.number().int().min(0), to: z.number().int().min(0) });

export const WhitelabelSettingsSchema = z.object({
  is_enabled: z.boolean().default(false),
  logo: z.string().nullable().default(null),
  name: z.string().trim().max(255).nullable().default(null),
  address: z.string().trim().max(255).nullable().default(null),
  email: z.email().max(255).nullable().default(null),
  phone: z.string().trim().max(32).nullable().default(null),
});
export type WhitelabelSettings = z.infer<typeof WhitelabelSettingsSchema>;

export const GuestIdentifierLimitsSchema = z.object({
  max_passes_count: z.number().int().min(0).nullable().default(null),
  max_period_days: z.number().int().min(0).nullable().default(null),
});

export const DeviceStatusNotifySchema = z.object({
  user_id: IdValueSchema,
  notify_about_offline_device: z.boolean().default(false),
  notify_about_device_task_failed: z.boolean().default(false),
});

/** One licence of a group: a feature or restrictor type, a period and a quantity (spec entities §3). */
export const DomainLicenseSchema = z.object({
  type: z.string().trim().min(1).max(64),
  is_active: z.boolean().default(true),
  is_device_license: z.boolean().default(false),
  device: IdValueSchema.nullable().default(null),
  /** null: unlimited. */
  quantity: z.number().int().min(0).nullable().default(null),
  period: Period.default({ ...UNLIMITED_PERIOD }),
  restrict_period: z
    .object({ is_active: z.boolean(), from: z.number().int().min(0), to: z.number().int().min(0) })
    .default({ is_active: false, ...UNLIMITED_PERIOD }),
});
export type DomainLicense = z.infer<typeof DomainLicenseSchema>;

export const DOMAIN_LICENSE_NOTIFY_PERIODS = ['everyday', 'weekly', 'monthly', 'never'] as const;
export const DomainLicenseInfoSchema = z.object({
  is_enabled: z.boolean().default(false),
  notifications: z
    .object({
      is_active: z.boolean().default(true),
      period: z.enum(DOMAIN_LICENSE_NOTIFY_PERIODS).default('everyday'),
      notify_before: z.number().int().min(0).max(365).default(14),
    })
    .default({ is_active: true, period: 'everyday', notify_before: 14 }),
  licenses: z.array(DomainLicenseSchema).max(100).default([]),
});
export type DomainLicenseInfo = z.infer<typeof DomainLicenseInfoSchema>;

const CIDR = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}(\/(3[0-2]|[12]?\d))?$/;

export const GroupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  parent_id: z.number().int().nullable(),
  /** Ids of the ancestors and the group itself, root first. */
  path: z.array(z.number().int()),
  domain_type_id: z.number().int().nullable(),
  domain_type: z.object({ id: z.number().int(), type: z.number().int(), name: z.string() }).nullable(),
  logic_address: z.number().int().nullable(),
  whitelabel_settings: WhitelabelSettingsSchema,
  apple_wallet_settings: z.record(z.string(), z.unknown()).nullable(),
  guest_identifier_limits: GuestIdentifierLimitsSchema,
  device_status_notify: z.array(DeviceStatusNotifySchema),
  is_resident_phonebook_enabled: z.boolean(),
  internal_subnetworks: z.array(z.string()),
  /** Null when the caller may not view this group's licences. */
  license_info: DomainLicenseInfoSchema.nullable(),
  has_children: z.boolean(),
  /** With `with=users` or on get: ids of the group's users. */
  users: z.array(z.number().int()).optional(),
  /** With `with=parent`. */
  parent: z.object({ id: z.number().int(), name: z.string() }).nullable().optional(),
  /**
   * With `with=path_names`: the names from the top group the caller may see down to this one
   * ("Site", "Building A", "Floor 7", "Apt 3"), so twelve "Apt 1" can be told apart.
   */
  path_names: z.array(z.string()).optional(),
  created_by: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /**
   * May the caller change anything of this group: every field by their edit-groups scope; else, as
   * a member with self-domain permissions, those sections, or the licence counts by that scope.
   */
  can_edit: z.boolean(),
  /**
   * May the caller delete this group: by their delete-groups scope, never their only group. A group
   * with users in it or below is refused until they are moved.
   */
  can_delete: z.boolean(),
});
export type Group = z.infer<typeof GroupSchema>;

const name = z.string().trim().min(1).max(255);
const groupFields = {
  name,
  description: z.string().trim().max(1000).nullable().optional(),
  domain_type_id: IdValueSchema.nullable().optional(),
  logic_address: z.number().int().min(0).max(999_999_999).nullable().optional(),
  whitelabel_settings: WhitelabelSettingsSchema.partial().optional(),
  apple_wallet_settings: z.record(z.string(), z.unknown()).nullable().optional(),
  guest_identifier_limits: GuestIdentifierLimitsSchema.partial().nullable().optional(),
  device_status_notify: z.array(DeviceStatusNotifySchema).max(1000).optional(),
  is_resident_phonebook_enabled: z.boolean().optional(),
  internal_subnetworks: z.array(z.string().trim().regex(CIDR, VALIDATION_MESSAGES.ip_with_prefix)).max(100).optional(),
  license_info: DomainLicenseInfoSchema.nullable().optional(),
  /** Users to attach to the group (ids). */
  users: z.array(IdValueSchema).max(10_000).optional(),
};

export const CreateGroupBodySchema = z.strictObject({
  ...groupFields,
  parent_id: IdValueSchema.nullable().optional(),
});
export type CreateGroupBody = z.infer<typeof CreateGroupBodySchema>;

export const UpdateGroupBodySchema = z.strictObject({
  ...groupFields,
  name: name.optional(),
  parent_id: IdValueSchema.nullable().optional(),
});
export type UpdateGroupBody = z.infer<typeof UpdateGroupBodySchema>;

const idList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return undefined;
    const parts = (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter((s) => s.trim() !== '');
    const ids = parts.map((s) => Number(s));
    if (ids.some((n) => !Number.isInteger(n) || n < 1 || n > INT4_MAX)) {
      ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.range, params: { min: 1, max: INT4_MAX } });
      return z.NEVER;
    }
    return ids;
  });

export const GroupListQuerySchema = ListQuerySchema.extend({
  /** Only these groups (comma list or repeated). */
  id: idList,
  /** Name, description or logical address contains the text (at least DOMAIN_SEARCH_MIN_LENGTH characters). */
  search: z.string().trim().max(100).optional(),
});
export type GroupListQuery = z.infer<typeof GroupListQuerySchema>;

/** A lean row of the complete tree, for pickers. */
export const GroupTreeItemSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  parent_id: z.number().int().nullable(),
  domain_type_id: z.number().int().nullable(),
  logic_address: z.number().int().nullable(),
});

export const FloorsAndApartmentsSchema = z.array(
  z.object({
    id: z.number().int(),
    name: z.string(),
    logic_address: z.number().int().nullable(),
    apartments: z.array(z.object({ id: z.number().int(), name: z.string(), logic_address: z.number().int().nullable() })),
  }),
);

/** One level of a generated structure: `count` groups of domain type `id` under every group of the level above. */
export const GenerateLevelSchema = z.strictObject({
  id: IdValueSchema,
  count: z.number().int().min(1).max(1000),
  prefix: z.string().max(64).default(''),
  /** When true, each generated group's logical address is its number. */
  logic_number: z.boolean().default(true),
  numeration: z
    .strictObject({
      from: z.number().int().min(0).max(999_999).default(1),
      /** Numbers to skip (for example 13). */
      except: z.array(z.number().int().min(0)).max(1000).default([]),
      /** Number through the whole level instead of restarting under every parent. */
      is_in_youngest_num: z.boolean().default(false),
      /** Prefix each number with the parent's number (floor 2, apartment 1 → 201). */
      is_start_youngest_num: z.boolean().default(false),
    })
    .default({ from: 1, except: [], is_in_youngest_num: false, is_start_youngest_num: false }),
});

export const GenerateGroupsBodySchema = z.strictObject({
  /** The group the structure is made under; null with `root_level_only` makes root groups. */
  parent_id: IdValueSchema.nullable().default(null),
  root_level_only: z.boolean().default(false),
  domains: z.array(GenerateLevelSchema).min(1).max(6),
});
export type GenerateGroupsBody = z.infer<typeof GenerateGroupsBodySchema>;

export interface GeneratedGroup {
  name: string;
  domain_type_id: number;
  logic_address: number | null;
  children: GeneratedGroup[];
}
// Recursive: named, so the OpenAPI document defines it once and refers to it (components.schemas.GeneratedGroup).
export const GeneratedGroupSchema: z.ZodType<GeneratedGroup> = z
  .lazy(() =>
    z.strictObject({
      name,
      domain_type_id: IdValueSchema,
      logic_address: z.number().int().min(0).max(999_999_999).nullable(),
      children: z.array(GeneratedGroupSchema).max(GENERATE_MAX_GROUPS),
    }),
  )
  .meta({ id: 'GeneratedGroup' });

export const GeneratedStructureSchema = z.object({
  parent_id: z.number().int().nullable(),
  total: z.number().int(),
  domains: z.array(GeneratedGroupSchema),
});

export const SaveGeneratedBodySchema = z.strictObject({
  parent_id: IdValueSchema.nullable(),
  domains: z.array(GeneratedGroupSchema).min(1).max(GENERATE_MAX_GROUPS),
});
export type SaveGeneratedBody = z.infer<typeof SaveGeneratedBodySchema>;

export const SaveGeneratedResultSchema = z.object({ created: z.number().int(), ids: z.array(z.number().int()) });

/** Query of structure import: the caller's offset from UTC in minutes, used to read dates. */
export const StructureImportQuerySchema = z.object({ tz_offset: z.coerce.number().int().min(-840).max(840).default(0) });
export const StructureExportQuerySchema = z.object({
  domain_type: IdSchema.optional(),
  tz_offset: z.coerce.number().int().min(-840).max(840).default(0),
});

/** What deleting a group takes with it: its subgroups; users and devices must be moved first. */
export const GroupDeleteImpactSchema = z.object({
  subgroups: z.number().int(),
  users: z.number().int(),
  devices: z.number().int(),
});
export type GroupDeleteImpact = z.infer<typeof GroupDeleteImpactSchema>;

export const StructureImportResultSchema = z.object({
  users_attached: z.number().int(),
  users_created: z.number().int(),
  /** The first row errors (at most 100), in row order. */
  errors: z.array(z.object({ row: z.number().int(), code: z.string(), message: z.string(), field: z.string().optional() })),
  /** How many rows had errors in all. */
  errors_total: z.number().int(),
});
export type StructureImportResult = z.infer<typeof StructureImportResultSchema>;

/** Columns of the structure spreadsheet, in order (export writes them, import reads them). */
export const STRUCTURE_COLUMNS = [
  'object_id',
  'object',
  'domain_type',
  'logic_address',
  'user_id',
  'login',
  'name',
  'email',
  'phone',
  'license_count',
  'license_from',
  'license_to',
] as const;
