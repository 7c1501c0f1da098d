import { z } from 'zod';
import { ACCESS_REFUSALS, DEFAULT_ENTRY, WEEKDAYS } from './access.js';
import { IdValueSchema, ListQuerySchema } from './list-query.js';
import { TimeZoneSchema } from './time-zones.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Schedules (time rules), access rules, identifiers and access events (spec entities §3–§9):
// the calls of /time-rules, /access-rules, /identifiers, /access-control/logs and /access/explain.

const ids = (max = 10_000) => z.array(IdValueSchema).max(max);
const name = z.string().trim().min(1).max(255);
const description = z.string().max(1000).nullable().optional();
const localDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, M.invalid_value);
const daySecond = z.number().int().min(0).max(86_400);

// --- schedules -------------------------------------------------------------------------------------

export const ScheduleEntrySchema = z.object({
  days: z.array(z.enum(WEEKDAYS)).min(1).max(7),
  from: daySecond.default(DEFAULT_ENTRY.from),
  to: daySecond.default(DEFAULT_ENTRY.to),
});
export const ScheduleExceptionSchema = z.object({ date: localDate, open: z.boolean().default(false) });

export const REPEAT_MODES = ['weekly'] as const;

const timeRuleFields = {
  name,
  description,
  domain_id: IdValueSchema,
  time_zone: TimeZoneSchema.optional(),
  valid_from: localDate.nullable().optional(),
  valid_to: localDate.nullable().optional(),
  is_all_day: z.boolean().optional(),
  repeat_mode: z.enum(REPEAT_MODES).optional(),
  entries: z.array(ScheduleEntrySchema).max(64).optional(),
  exceptions: z
    .array(ScheduleExceptionSchema)
    .max(366)
    .refine((list) => new Set(list.map((e) => e.date)).size === list.length, { message: M.unique })
    .optional(),
  access_rules: ids().optional(),
};

const validRange = (v: { valid_from?: string | null | undefined; valid_to?: string | null | undefined }) =>
  !v.valid_from || !v.valid_to || v.valid_from <= v.valid_to;
const rangeIssue = { message: M.invalid_value, path: ['valid_to'] };

export const CreateTimeRuleBodySchema = z.strictObject(timeRuleFields).refine(validRange, rangeIssue);
export type CreateTimeRuleBody = z.infer<typeof CreateTimeRuleBodySchema>;
export const UpdateTimeRuleBodySchema = z
  .strictObject({ ...timeRuleFields, name: name.optional(), domain_id: IdValueSchema.optional() })
  .refine(validRange, rangeIssue);
export type UpdateTimeRuleBody = z.infer<typeof UpdateTimeRuleBodySchema>;

export const TimeRuleSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  domain_id: z.number().nullable(),
  time_zone: z.string(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  is_all_day: z.boolean(),
  repeat_mode: z.string(),
  entries: z.array(z.object({ days: z.array(z.enum(WEEKDAYS)), from: z.number(), to: z.number() })),
  exceptions: z.array(z.object({ date: z.string(), open: z.boolean() })),
  access_rules: z.array(z.number()),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type TimeRule = z.infer<typeof TimeRuleSchema>;

// --- access rules ----------------------------------------------------------------------------------

export const RuleDeviceSchema = z.object({ id: IdValueSchema, lock_number: z.number().int().min(1).max(64).default(1) });

const accessRuleFields = {
  name,
  description,
  is_shareable: z.boolean().optional(),
  prohibition: z.boolean().optional(),
  available_for_guest: z.boolean().optional(),
  /** An access rule must have a device (spec entities §5). */
  devices: z.array(RuleDeviceSchema).min(1, M.required).max(1000),
  identifiers: ids().optional(),
  users: ids().optional(),
  domains: ids(1000).optional(),
  time_rules: ids(64).optional(),
};
export const CreateAccessRuleBodySchema = z.strictObject(accessRuleFields);
export type CreateAccessRuleBody = z.infer<typeof CreateAccessRuleBodySchema>;
export const UpdateAccessRuleBodySchema = z.strictObject({
  ...accessRuleFields,
  name: name.optional(),
  devices: accessRuleFields.devices.optional(),
});
export type UpdateAccessRuleBody = z.infer<typeof UpdateAccessRuleBodySchema>;

export const AccessRuleSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  is_shareable: z.boolean(),
  prohibition: z.boolean(),
  available_for_guest: z.boolean(),
  devices: z.array(z.object({ id: z.number(), lock_number: z.number() })),
  identifiers: z.array(z.number()),
  users: z.array(z.number()),
  domains: z.array(z.number()),
  time_rules: z.array(z.number()),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type AccessRule = z.infer<typeof AccessRuleSchema>;

// --- identifiers -----------------------------------------------------------------------------------

export const IDENTIFIER_TYPES = ['card', 'ukey', 'ukey2', 'access_code', 'qr', 'license_plate'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];
/** Types whose value is a number read by a reader: stored as upper-case hex, shown in dec or hex. */
export const HEX_IDENTIFIER_TYPES: readonly IdentifierType[] = ['card', 'ukey', 'ukey2'];

/**
 * An identifier's value as stored: hex types without separators, upper case; a licence plate upper
 * case without spaces; codes and QR values as given (trimmed). Null when it cannot be one.
 */
export function normalizeIdentifierValue(type: IdentifierType, raw: string): string | null {
  const v = raw.trim();
  if (!v) return null;
  if (HEX_IDENTIFIER_TYPES.includes(type)) {
    const hex = v.replace(/[-:\s]/g, '').toUpperCase();
    return /^[0-9A-F]{1,32}$/.test(hex) ? hex : null;
  }
  if (type === 'license_plate') {
    const plate = v.replace(/\s+/g, '').toUpperCase();
    return plate.length <= 16 ? plate : null;
  }
  if (type === 'access_code') return /^[0-9]{4,16}$/.test(v) ? v : null;
  return v.length <= 128 ? v : null;
}

/** A hex value as people read it: pairs joined by dashes (`04-A1-B2`), or in decimal. */
export function formatIdentifierValue(type: IdentifierType, value: string, format: 'hex' | 'dec'): string {
  if (!HEX_IDENTIFIER_TYPES.includes(type) || !/^[0-9A-F]+$/.test(value)) return value;
  if (format === 'dec') return BigInt(`0x${value}`).toString(10);
  const even = value.length % 2 ? `0${value}` : value;
  return even.match(/../g)?.join('-') ?? value;
}

const identifierFields = {
  name,
  description,
  is_active: z.boolean().optional(),
  type: z.enum(IDENTIFIER_TYPES).optional(),
  value: z.string().trim().min(1).max(128),
  owner_id: IdValueSchema.nullable().optional(),
  period_restrict_active: z.boolean().optional(),
  period_restrict_from: z.iso.datetime({ offset: true }).nullable().optional(),
  period_restrict_to: z.iso.datetime({ offset: true }).nullable().optional(),
  passes_restrict_active: z.boolean().optional(),
  passes_restrict_max_count: z.number().int().min(0).max(1_000_000).optional(),
  access_rules: ids(1000).optional(),
};
const validPeriod = (v: { period_restrict_from?: string | null | undefined; period_restrict_to?: string | null | undefined }) =>
  !v.period_restrict_from || !v.period_restrict_to || Date.parse(v.period_restrict_from) < Date.parse(v.period_restrict_to);
const periodIssue = { message: M.invalid_value, path: ['period_restrict_to'] };

export const CreateIdentifierBodySchema = z.strictObject(identifierFields).refine(validPeriod, periodIssue);
export type CreateIdentifierBody = z.infer<typeof CreateIdentifierBodySchema>;
export const UpdateIdentifierBodySchema = z
  .strictObject({ ...identifierFields, name: name.optional(), value: identifierFields.value.optional() })
  .refine(validPeriod, periodIssue);
export type UpdateIdentifierBody = z.infer<typeof UpdateIdentifierBodySchema>;

export const IdentifierSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  is_active: z.boolean(),
  type: z.enum(IDENTIFIER_TYPES),
  value: z.string(),
  owner_id: z.number().nullable(),
  owner: z.object({ id: z.number(), name: z.string(), login: z.string() }).nullable(),
  period_restrict_active: z.boolean(),
  period_restrict_from: z.string().nullable(),
  period_restrict_to: z.string().nullable(),
  passes_restrict_active: z.boolean(),
  passes_restrict_max_count: z.number(),
  passes_restrict_passes_count: z.number(),
  access_rules: z.array(z.number()),
  guest_type: z.string().nullable(),
  /** A guest identifier's message to its guest. */
  key_message: z.string().nullable(),
  photo_url: z.string().nullable(),
  is_revoked: z.boolean(),
  revoked_at: z.string().nullable(),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type Identifier = z.infer<typeof IdentifierSchema>;

export const IdentifierListQuerySchema = ListQuerySchema.extend({
  /** Name, value or owner contains the text. */
  search: z.string().trim().min(1).max(100).optional(),
  onlyGuest: z.enum(['0', '1']).optional(),
});

// --- access events and "why was I refused?" ----------------------------------------------------------

export const AccessEventSchema = z.object({
  id: z.number(),
  occurred_at: z.string(),
  device_id: z.number(),
  device_name: z.string().nullable(),
  lock_number: z.number(),
  granted: z.boolean(),
  reason: z.string().nullable(),
  value: z.string().nullable(),
  identifier_id: z.number().nullable(),
  identifier_name: z.string().nullable(),
  /**
   * The identifier's type (the known identifier's, else what the device reported), so its number
   * reads as it does everywhere else; null when neither says.
   */
  identifier_type: z.enum(IDENTIFIER_TYPES).nullable(),
  user_id: z.number().nullable(),
  user_name: z.string().nullable(),
  rule_id: z.number().nullable(),
  direction: z.string().nullable(),
});
export type AccessEvent = z.infer<typeof AccessEventSchema>;

export const ExplainQuerySchema = z
  .object({
    identifier_id: z.coerce.number().int().min(1).optional(),
    user_id: z.coerce.number().int().min(1).optional(),
    device_id: z.coerce.number().int().min(1),
    lock: z.coerce.number().int().min(1).max(64).default(1),
    at: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((q) => q.identifier_id !== undefined || q.user_id !== undefined, { message: M.required, path: ['identifier_id'] });

export const EXPLAIN_STEPS = [
  'identifier',
  'active',
  'revoked',
  'period',
  'passes',
  'device',
  'rules',
  'prohibition',
  'schedule',
  'sync',
] as const;

export const ExplainSchema = z.object({
  granted: z.boolean(),
  reason: z.enum(ACCESS_REFUSALS).nullable(),
  at: z.string(),
  identifier: z.object({ id: z.number(), name: z.string(), value: z.string(), type: z.string() }).nullable(),
  device: z.object({ id: z.number(), name: z.string(), lock: z.number() }),
  steps: z.array(
    z.object({
      step: z.enum(EXPLAIN_STEPS),
      ok: z.boolean(),
      /** What was looked at, for the console to word (rule names, schedule names, counts). */
      detail: z.record(z.string(), z.unknown()),
    }),
  ),
  /** Per identifier of the person, when asked about a user. */
  others: z.array(z.object({ identifier_id: z.number(), granted: z.boolean(), reason: z.enum(ACCESS_REFUSALS).nullable() })),
});
export type Explain = z.infer<typeof ExplainSchema>;

// --- the access matrix -------------------------------------------------------------------------------

export const AccessMatrixQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  size: z.coerce.number().int().min(1).max(500).default(20),
  user_id: z.coerce.number().int().min(1).optional(),
  device_id: z.coerce.number().int().min(1).optional(),
  identifier_id: z.coerce.number().int().min(1).optional(),
  rule_id: z.coerce.number().int().min(1).optional(),
  /** Name of the person, identifier, device or rule contains the text. */
  search: z.string().trim().min(1).max(100).optional(),
  sort: z.enum(['user_name', '-user_name', 'device_name', '-device_name', 'rule_name', '-rule_name']).default('user_name'),
});
export type AccessMatrixQuery = z.infer<typeof AccessMatrixQuerySchema>;

export const AccessMatrixDownloadQuerySchema = AccessMatrixQuerySchema.omit({ page: true, size: true }).extend({
  export_format: z.enum(['csv', 'xlsx']).default('xlsx'),
});

/** One line of the matrix: an identifier (of a person, or of nobody) reaches a lock through a rule, when its schedules allow. */
export const AccessMatrixRowSchema = z.object({
  user_id: z.number().nullable(),
  user_name: z.string().nullable(),
  identifier_id: z.number(),
  identifier_name: z.string(),
  identifier_type: z.string(),
  device_id: z.number(),
  device_name: z.string(),
  lock_number: z.number(),
  rule_id: z.number(),
  rule_name: z.string(),
  prohibition: z.boolean(),
  schedules: z.array(z.object({ id: z.number(), name: z.string() })),
});
export type AccessMatrixRow = z.infer<typeof AccessMatrixRowSchema>;

export const AccessEventDownloadQuerySchema = ListQuerySchema.omit({ page: true, size: true, with: true }).extend({
  export_format: z.enum(['csv', 'xlsx']).default('xlsx'),
});

// --- identifiers: export and the two-step import ---------------------------------------------------

/** Columns of the identifiers spreadsheet, export and import alike (an export imports back). */
export const IDENTIFIER_COLUMNS = [
  'name',
  'type',
  'value',
  'owner_login',
  'is_active',
  'period_restrict_from',
  'period_restrict_to',
  'passes_restrict_max_count',
  'description',
] as const;

export const IdentifierExportQuerySchema = ListQuerySchema.omit({ page: true, size: true, with: true }).extend({
  export_format: z.enum(['csv', 'xlsx']).default('xlsx'),
  search: z.string().trim().min(1).max(100).optional(),
  onlyGuest: z.enum(['0', '1']).optional(),
});

export const IMPORT_ACTIONS = ['skip', 'replace', 'cancel'] as const;
export const IdentifierImportContinueBodySchema = z.strictObject({
  action: z.enum(IMPORT_ACTIONS),
  /** The pending import the attempt answered (an opaque id, not a path on the server). */
  filepath: z.string().regex(/^[0-9a-f-]{36}$/, M.invalid_value),
});

export const IdentifierImportResultSchema = z.object({
  /** imported: done; duplicates: nothing written yet, continue with an action; cancelled. */
  status: z.enum(['imported', 'duplicates', 'cancelled']),
  filepath: z.string().nullable(),
  /** Data rows of the sheet (those with errors included). */
  rows: z.number(),
  created: z.number(),
  updated: z.number(),
  skipped: z.number(),
  duplicates: z.array(z.object({ row: z.number(), type: z.string(), value: z.string(), existing_id: z.number().nullable() })),
  duplicates_total: z.number(),
  errors: z.array(z.object({ row: z.number(), field: z.string(), message: z.string() })),
  errors_total: z.number(),
});
export type IdentifierImportResult = z.infer<typeof IdentifierImportResultSchema>;

// --- guest access ------------------------------------------------------------------------------------

/** The fixed name of a guest identifier (spec entities §3). */
export const GUEST_IDENTIFIER_NAME = 'Guest identifier';

const guestFields = {
  /** Rules available for guests (`GET /access-rules/available-for-guest`). */
  access_rules: z.array(IdValueSchema).min(1, M.required).max(64),
  restrict_period: z.boolean().default(true),
  valid_from: z.iso.datetime({ offset: true }).nullable().optional(),
  valid_to: z.iso.datetime({ offset: true }).nullable().optional(),
  restrict_pass_count: z.boolean().default(false),
  /** Sent only when the pass count is restricted; 0 otherwise (spec entities §5). */
  pass_limit: z.number().int().min(0).max(10_000).default(0),
  key_message: z.string().max(500).nullable().optional(),
  guest_type: z.enum(['guest', 'courier', 'service']).default('guest'),
  name: z.string().trim().min(1).max(255).optional(),
};
export const CreateGuestBodySchema = z
  .strictObject(guestFields)
  .refine((v) => !v.restrict_period || (v.valid_from && v.valid_to && Date.parse(v.valid_from) < Date.parse(v.valid_to)), {
    message: M.invalid_value,
    path: ['valid_to'],
  })
  .refine((v) => !v.restrict_pass_count || v.pass_limit > 0, { message: M.min_value, path: ['pass_limit'] });
export type CreateGuestBody = z.infer<typeof CreateGuestBodySchema>;
export const UpdateGuestBodySchema = z.strictObject({
  access_rules: guestFields.access_rules.optional(),
  restrict_period: z.boolean().optional(),
  valid_from: guestFields.valid_from,
  valid_to: guestFields.valid_to,
  restrict_pass_count: z.boolean().optional(),
  pass_limit: z.number().int().min(0).max(10_000).optional(),
  key_message: guestFields.key_message,
  guest_type: z.enum(['guest', 'courier', 'service']).optional(),
  name: guestFields.name,
});
export type UpdateGuestBody = z.infer<typeof UpdateGuestBodySchema>;

/** A granted guest identifier: the identifier, its public key and the page's address. */
export const GuestGrantSchema = z.object({
  identifier: IdentifierSchema,
  key: z.string(),
  url: z.string(),
});

export const GuestKeyParamsSchema = z.object({ key: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, M.invalid_value) });

/** What the public check page shows: nothing about anyone else. */
export const GuestInfoSchema = z.object({
  name: z.string(),
  /** The QR code's content: the identifier's value. */
  qr: z.string(),
  key_message: z.string().nullable(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  passes_left: z.number().nullable(),
  /** Doors the guest may open from the page, each with its opening token. */
  doors: z.array(z.object({ token: z.string(), name: z.string(), lock: z.number() })),
});
export type GuestInfo = z.infer<typeof GuestInfoSchema>;

export const GuestOpenBodySchema = z.strictObject({ token: z.string().min(10).max(200) });

/** Realtime: an access decision stored, on `access-events`, to those who may see the device and the events. */
export const ACCESS_REALTIME = { eventsTopic: 'access-events', events: { decision: 'AccessDecisionStored' } } as const;
