import { z } from 'zod';
import { DUMMY_PASSWORD } from './constants.js';
import { IdValueSchema, ListQuerySchema } from './list-query.js';
import { normalizePhone } from './phone.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Telephony (spec comms §3–§9): virtual (SIP) numbers, forward rule groups, SIP trunks, calls in
// progress, call history, interception, concierge devices and the SIP service.
// Paths: /sip-numbers, /forward-rules, /sip-trunks, /calls/management/…, /calls/interception,
// /calls/history/…, /sip/….

/** Form messages of this area the shared catalogue does not have (console keys). */
export const TELEPHONY_VALIDATION_MESSAGES = {
  /** "SIP password must include digits, lowercase and uppercase Latin letters" (spec comms §5). */
  sip_password: 'validation.sip_password',
  /** "must not contain spaces" (a SIP trunk number, spec comms §5). */
  no_spaces: 'validation.no_spaces',
  /** Interception needs at least one group (spec comms §5; the spec's own key, typo included). */
  at_least_one_group: 'validation.at_least_on_group_must_be_selected',
  /** "at least one queue with one number" (forward settings, spec comms §5). */
  forward_needs_number: 'validation.forward_needs_number',
  /** A SIP URI: sip:host[:port][;params]. */
  sip_uri: 'validation.sip_uri',
  /** Time-of-day from must be below to. */
  period_order: 'validation.less_than',
} as const;
const T = TELEPHONY_VALIDATION_MESSAGES;

export { SIP_HEADERS } from './sip-headers.js';

/** Defaults and limits of spec comms §9. */
export const TELEPHONY_DEFAULTS = {
  /** A forward rule group rings its numbers this long (seconds). */
  group_forward_timeout: 60,
  /** redirect_if_no_answer waits this long before the next stage (seconds). */
  no_answer_timeout: 10,
  /** Dialer history page size. */
  history_page_size: 50,
  /** Secure WebSocket port of the SIP proxy. */
  sip_wss_port: 8443,
  /** An ended call leaves the dialer after this long (ms). */
  ended_call_removal_ms: 5000,
  /** DTMF '#' opens the door: tone and gap (ms). */
  door_dtmf: { digit: '#', duration_ms: 160, gap_ms: 1200 },
  generic_dtmf_duration_ms: 1000,
} as const;

// --- shared pieces --------------------------------------------------------------------------

/** An Atrium virtual number: 2 to 16 digits. */
export const SipNumberValueSchema = z
  .string()
  .trim()
  .regex(/^[0-9]{2,16}$/, M.number);

/**
 * A forward target: an Atrium number, or an outside number (international, reached through a SIP
 * trunk). Digits with an optional leading '+', no spaces.
 */
export const ForwardTargetSchema = z
  .string()
  .trim()
  .min(1, M.required)
  .max(32)
  .regex(/^\+?[0-9]{2,20}$/, M.number);

/** Spec comms §5: digits, lowercase and uppercase Latin letters (all three), 8 to 64 characters. */
export function isSipPassword(value: string): boolean {
  return /[0-9]/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value) && /^[\x21-\x7e]{8,64}$/.test(value);
}
export const SipPasswordSchema = z.string().refine(isSipPassword, T.sip_password);

/** A password field as it is saved: the placeholder, null or empty means "unchanged". */
const sipPasswordOnSave = z
  .union([z.literal(DUMMY_PASSWORD), z.literal(''), z.null(), SipPasswordSchema])
  .transform((v) => (v === DUMMY_PASSWORD || v === '' ? null : v));

/** Day codes of forward rule groups (and amenity slots), Monday first. */
export const WEEK_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

/** Time-of-day window in seconds (0–86400), from below to. */
export const DayPeriodSchema = z
  .object({ from: z.number().int().min(0).max(86_400).default(0), to: z.number().int().min(0).max(86_400).default(86_400) })
  .refine((p) => p.from < p.to, { message: T.period_order, path: ['to'] });
export type DayPeriod = z.infer<typeof DayPeriodSchema>;

/**
 * A number's (or group's) own forward rules (spec comms §3): redirect_if_no_answer rings its
 * numbers after `timeout` seconds without an answer; redirect_if_error rings its numbers when the
 * callee cannot be reached (not registered, busy, failed).
 */
export const ForwardRulesSchema = z.object({
  redirect_if_no_answer: z
    .object({
      timeout: z.number().int().min(1).max(600).default(TELEPHONY_DEFAULTS.no_answer_timeout),
      numbers: z.array(ForwardTargetSchema).max(32).default([]),
    })
    .nullable()
    .default(null),
  redirect_if_error: z
    .object({ numbers: z.array(ForwardTargetSchema).max(32).default([]) })
    .nullable()
    .default(null),
});
export type ForwardRules = z.infer<typeof ForwardRulesSchema>;

/** True when at least one rule has at least one number ("at least one queue with one number"). */
export const forwardRulesHaveNumber = (rules: ForwardRules | null | undefined): boolean =>
  !!rules && ((rules.redirect_if_no_answer?.numbers.length ?? 0) > 0 || (rules.redirect_if_error?.numbers.length ?? 0) > 0);

const RefSchema = z.object({ id: z.number().int(), name: z.string() });
export type TelephonyRef = z.infer<typeof RefSchema>;

// --- virtual numbers (/sip-numbers) ---------------------------------------------------------

export const FORWARD_MODES = ['disabled', 'manual', 'picked'] as const;
export type ForwardMode = (typeof FORWARD_MODES)[number];

/**
 * What a number is for: a user's master number (the one the dialer registers with), a group's
 * number, a device's number, or none of these (a spare).
 */
export const SIP_NUMBER_PURPOSES = ['master_sip_number', 'group_sip_number', 'device_sip_number'] as const;
export type SipNumberPurpose = (typeof SIP_NUMBER_PURPOSES)[number];

const sipNumberFields = {
  number: SipNumberValueSchema,
  name: z.string().trim().max(255).nullable().optional(),
  is_active: z.boolean().default(true),
  /** A system (reserved) number: kept out of registration and the pickers. */
  is_reserved: z.boolean().default(false),
  user_id: IdValueSchema.nullable().optional(),
  device_id: IdValueSchema.nullable().optional(),
  domain_id: IdValueSchema,
  forward_mode: z.enum(FORWARD_MODES).default('disabled'),
  forward_rules: ForwardRulesSchema.prefault({}),
  forward_group_id: IdValueSchema.nullable().optional(),
  /** 'master_sip_number' makes it the user's dialer number; 'group_sip_number' the group's number. */
  purpose: z.enum(SIP_NUMBER_PURPOSES).nullable().optional(),
};

/** PUT /sip-numbers. */
export const CreateSipNumberBodySchema = z.strictObject({ ...sipNumberFields, password: SipPasswordSchema });
export type CreateSipNumberBody = z.infer<typeof CreateSipNumberBodySchema>;

/** PATCH /sip-numbers/{id}: every field optional; the password is omitted (or the placeholder) when unchanged. */
export const UpdateSipNumberBodySchema = z.strictObject({
  number: sipNumberFields.number.optional(),
  name: sipNumberFields.name,
  password: sipPasswordOnSave.optional(),
  is_active: z.boolean().optional(),
  is_reserved: z.boolean().optional(),
  user_id: sipNumberFields.user_id,
  device_id: sipNumberFields.device_id,
  domain_id: IdValueSchema.optional(),
  forward_mode: z.enum(FORWARD_MODES).optional(),
  forward_rules: ForwardRulesSchema.optional(),
  forward_group_id: sipNumberFields.forward_group_id,
  purpose: sipNumberFields.purpose,
});
export type UpdateSipNumberBody = z.infer<typeof UpdateSipNumberBodySchema>;

export const SipNumberSchema = z.object({
  id: z.number().int(),
  number: z.string(),
  name: z.string().nullable(),
  /** Always the placeholder (a password is always set): secrets are never sent back. */
  password: z.string(),
  is_active: z.boolean(),
  is_reserved: z.boolean(),
  user_id: z.number().int().nullable(),
  device_id: z.number().int().nullable(),
  domain_id: z.number().int().nullable(),
  forward_mode: z.enum(FORWARD_MODES),
  forward_rules: ForwardRulesSchema,
  forward_group_id: z.number().int().nullable(),
  purpose: z.enum(SIP_NUMBER_PURPOSES).nullable(),
  /** Who the number belongs to, as the pickers show it: the user's or device's name, else the group's. */
  owner_info: z.string().nullable(),
  created_by: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
  /** Relations, present when asked for with `with=user,device,domain,forward_group`. */
  user: RefSchema.nullable().optional(),
  device: RefSchema.extend({ type: z.string() }).nullable().optional(),
  domain: RefSchema.nullable().optional(),
  forward_group: RefSchema.nullable().optional(),
});
export type SipNumber = z.infer<typeof SipNumberSchema>;

/** Relations a virtual number list or get may include (`with=`). */
export const SIP_NUMBER_RELATIONS = ['user', 'device', 'domain', 'forward_group'] as const;

/**
 * GET /sip-numbers. Filterable: number, name, is_active, is_reserved, user_id, device_id,
 * domain_id, forward_mode, purpose; sortable: id, number, name, created_at. `free=true` lists only
 * numbers attached to no user and no device (the pickers).
 */
export const SipNumberListQuerySchema = ListQuerySchema.extend({
  search: z.string().trim().min(1).max(100).optional(),
  free: z.enum(['true', 'false']).optional(),
});

/** GET /sip-numbers/generate: a free number and a strong password. */
export const GeneratedSipNumberSchema = z.object({ number: z.string(), password: z.string() });

/** One entry of the dialer's contacts (GET /sip-numbers/contacts): a number the caller may call. */
export const SipContactSchema = z.object({
  id: z.number().int(),
  number: z.string(),
  name: z.string().nullable(),
  user: RefSchema.nullable(),
  device: RefSchema.extend({ type: z.string() }).nullable(),
  domain: RefSchema.nullable(),
  /** The user's description, or the device's group name. */
  description: z.string().nullable(),
  owner_info: z.string().nullable(),
});
export type SipNumberContact = z.infer<typeof SipContactSchema>;

/** Who stands behind a number (GET /sip-numbers/{id}/call-info, and a call's `info`). */
export const CallInfoSchema = z.object({
  /** The owner's address: the user's profile address, or the device's group path. */
  address: z.string().nullable(),
  /** The owner's name: the user's name, or the device's name. */
  user: z.string().nullable(),
});
export type CallInfo = z.infer<typeof CallInfoSchema>;

/** What the web dialer registers with: the caller's master number (GET /calls/dialer/credentials). */
export const DialerCredentialsSchema = z.object({
  number: z.string(),
  name: z.string(),
  password: z.string(),
  /** The SIP domain (realm): the server's host. */
  domain: z.string(),
  /** wss://host:8443 */
  ws_url: z.string(),
});
export type DialerCredentials = z.infer<typeof DialerCredentialsSchema>;

// --- forward rule groups (/forward-rules) ---------------------------------------------------

export const ForwardGroupParamsSchema = z.object({
  /** Numbers rung at once (Atrium numbers); at least one. */
  numbers: z.array(SipNumberValueSchema).min(1, T.forward_needs_number).max(64),
  timeout: z.number().int().min(1).max(600).default(TELEPHONY_DEFAULTS.group_forward_timeout),
  /** Days the group forwards; none selected is refused. */
  days: z
    .array(z.enum(WEEK_DAYS))
    .min(1, M.required)
    .max(7)
    .default([...WEEK_DAYS]),
  /** Time-of-day window (seconds) in the project's time zone. */
  period: DayPeriodSchema.prefault({}),
  /** Outside numbers rung through `trunk_id` with the group's numbers. */
  trunk_numbers: z
    .array(
      z
        .string()
        .trim()
        .refine((v) => !/\s/.test(v), T.no_spaces)
        .refine((v) => normalizePhone(v) !== null, M.phone_international),
    )
    .max(16)
    .default([]),
  trunk_id: IdValueSchema.nullable().default(null),
});
export type ForwardGroupParams = z.infer<typeof ForwardGroupParamsSchema>;

const forwardGroupFields = {
  name: z.string().trim().min(1).max(255),
  domain_id: IdValueSchema,
  params: ForwardGroupParamsSchema,
  forward_rules: ForwardRulesSchema.prefault({}),
};
export const CreateForwardGroupBodySchema = z
  .strictObject(forwardGroupFields)
  .refine((b) => b.params.trunk_numbers.length === 0 || b.params.trunk_id !== null, {
    message: M.required,
    path: ['params', 'trunk_id'],
  });
export type CreateForwardGroupBody = z.infer<typeof CreateForwardGroupBodySchema>;
export const UpdateForwardGroupBodySchema = z.strictObject({
  name: forwardGroupFields.name.optional(),
  domain_id: IdValueSchema.optional(),
  params: ForwardGroupParamsSchema.optional(),
  forward_rules: ForwardRulesSchema.optional(),
});
export type UpdateForwardGroupBody = z.infer<typeof UpdateForwardGroupBodySchema>;

export const ForwardGroupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  domain_id: z.number().int().nullable(),
  params: z.object({
    numbers: z.array(z.string()),
    timeout: z.number().int(),
    days: z.array(z.enum(WEEK_DAYS)),
    period: z.object({ from: z.number().int(), to: z.number().int() }),
    trunk_numbers: z.array(z.string()),
    trunk_id: z.number().int().nullable(),
  }),
  forward_rules: ForwardRulesSchema,
  created_by: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
  domain: RefSchema.nullable().optional(),
});
export type ForwardGroup = z.infer<typeof ForwardGroupSchema>;
export const ForwardGroupListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

// --- SIP trunks (/sip-trunks) ---------------------------------------------------------------

/** sip:host[:port][;params] or sips:… */
export const SipUriSchema = z
  .string()
  .trim()
  .max(255)
  .regex(/^sips?:(?:[^@\s]+@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?(?:;[^\s]*)?$/, T.sip_uri);

/** A trunk's outgoing number: no spaces, international (spec comms §5); stored in E.164. */
export const TrunkNumberSchema = z
  .string()
  .trim()
  .refine((v) => !/\s/.test(v), T.no_spaces)
  .transform((v, ctx) => {
    const e164 = normalizePhone(v);
    if (e164) return e164;
    ctx.addIssue({ code: 'custom', message: M.phone_international });
    return z.NEVER;
  });

const trunkFields = {
  name: z.string().trim().min(1).max(255),
  outgoing_number: TrunkNumberSchema,
  termination_uri: SipUriSchema,
  login: z.string().trim().max(128).nullable().optional(),
  /** A trunk must have a group (spec comms §5). */
  domains: z.array(IdValueSchema).min(1, M.required).max(1000),
};
export const CreateSipTrunkBodySchema = z.strictObject({
  ...trunkFields,
  password: z.string().max(128).nullable().optional(),
});
export type CreateSipTrunkBody = z.infer<typeof CreateSipTrunkBodySchema>;
export const UpdateSipTrunkBodySchema = z.strictObject({
  name: trunkFields.name.optional(),
  outgoing_number: trunkFields.outgoing_number.optional(),
  termination_uri: trunkFields.termination_uri.optional(),
  login: trunkFields.login,
  /** The placeholder, null or empty: unchanged. */
  password: z.string().max(128).nullable().optional(),
  domains: trunkFields.domains.optional(),
});
export type UpdateSipTrunkBody = z.infer<typeof UpdateSipTrunkBodySchema>;

export const SipTrunkSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  outgoing_number: z.string(),
  termination_uri: z.string(),
  login: z.string().nullable(),
  /** The placeholder when a password is set, '' otherwise. */
  password: z.string(),
  domains: z.array(z.number().int()),
  created_by: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type SipTrunk = z.infer<typeof SipTrunkSchema>;
export const SipTrunkListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

// --- calls in progress (/calls/management) --------------------------------------------------

export const CALL_STATUSES = ['new', 'calling', 'answered', 'waiting', 'answered_waiting', 'destroyed'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const CALL_TYPES = ['normal', 'awaiting'] as const;
export type CallType = (typeof CALL_TYPES)[number];

/** Server call status → the dialer's call status (spec comms §4). */
export const CLIENT_CALL_STATUS: Record<CallStatus, string> = {
  new: 'new',
  calling: 'calling',
  destroyed: 'destroyed',
  answered: 'active',
  waiting: 'paused',
  answered_waiting: 'processed_paused',
};

/** A call as the server keeps it; also the data of CallUpdated on `calls-management.{number}`. */
export const CallRecordSchema = z.object({
  /** The speech id (X-Speech-Id) when the caller sent one, else the server's id of the call. */
  id: z.string(),
  status: z.enum(CALL_STATUSES),
  type: z.enum(CALL_TYPES),
  caller: z.string(),
  callee: z.string(),
  /** The number that answered (the part before a dash of a forked contact). */
  answered_by: z.string().nullable(),
  sos: z.boolean(),
  /** Epoch seconds. */
  created_at: z.number().int(),
  /** When it was answered (epoch seconds); null until then. The dialer's call timer counts from it. */
  answered_at: z.number().int().nullable(),
  /** Who the caller is. */
  info: CallInfoSchema,
});
export type CallRecord = z.infer<typeof CallRecordSchema>;

/** Data of CallUpdated (REALTIME_EVENTS.callUpdated) on `topics.callsManagement(number)`. */
export const CallUpdatedSchema = CallRecordSchema;
export type CallUpdated = CallRecord;

export const CallIdParamsSchema = z.object({ id: z.string().trim().min(1).max(128) });

/** A concierge device (GET /calls/management/devices): a panel whose door the caller may open. */
export const ConciergeDeviceSchema = z.object({
  token: z.string(),
  name: z.string(),
  sip_number: z.object({ number: z.string() }).nullable(),
});
export type ConciergeDevice = z.infer<typeof ConciergeDeviceSchema>;
export const DeviceTokenParamsSchema = z.object({ token: z.string().trim().min(1).max(256) });

// --- interception (/calls/interception) -----------------------------------------------------

export const InterceptionBodySchema = z
  .strictObject({ is_active: z.boolean(), domains: z.array(IdValueSchema).max(1000).default([]) })
  .refine((b) => !b.is_active || b.domains.length > 0, { message: T.at_least_one_group, path: ['domains'] });
export type InterceptionBody = z.infer<typeof InterceptionBodySchema>;
export const InterceptionSchema = z.object({
  isActive: z.boolean(),
  /** Groups whose calls are intercepted. */
  groups: z.array(z.number().int()),
  /** Groups the user may choose from (full names). */
  userGroups: z.array(RefSchema),
});
export type Interception = z.infer<typeof InterceptionSchema>;

// --- call history (/calls/history) ----------------------------------------------------------

export const CALL_OUTCOMES = ['answered', 'noanswer', 'busy', 'cancel', 'failed'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];
export const CALL_DIRECTIONS = ['incoming', 'outgoing'] as const;

const HistoryPartySchema = z.object({
  number: z.string(),
  user: z.object({ id: z.number().int().nullable(), name: z.string() }).nullable(),
});
export const CallHistoryItemSchema = z.object({
  id: z.number().int(),
  call_id: z.string(),
  created_at: z.string(),
  status: z.enum(CALL_OUTCOMES),
  /** Seconds of conversation (0 when not answered). */
  duration: z.number().int(),
  from: HistoryPartySchema,
  to: HistoryPartySchema,
  /**
   * Seen from the number the history is asked for (the dialer); in the general list from the viewer's
   * own numbers, null for a call between others.
   */
  direction: z.enum(CALL_DIRECTIONS).nullable(),
  type: z.enum(CALL_TYPES),
  sos: z.boolean(),
  answered_by: z.string().nullable(),
});
export type CallHistoryItem = z.infer<typeof CallHistoryItemSchema>;

/** GET /calls/history/dialer/{number}: page size 50, page 1 by default. */
export const DialerHistoryQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(TELEPHONY_DEFAULTS.history_page_size).default(TELEPHONY_DEFAULTS.history_page_size),
});
export const DialerNumberParamsSchema = z.object({ number: SipNumberValueSchema });

/**
 * GET /calls/history/items. Filterable: from_number, to_number, status, type, sos, created_at;
 * sortable: created_at, duration, status.
 */
export const CallHistoryListQuerySchema = ListQuerySchema;

// --- SIP service (/sip) ---------------------------------------------------------------------

export const SipInstanceSchema = z.object({
  type: z.string(),
  ip_address: z.string(),
  status: z.enum(['running', 'stopped', 'error']),
  registrations: z.number().int(),
  active_calls: z.number().int(),
  /** How often its SIP server's worker thread died and was started again since the instance started. */
  crashes: z.number().int().optional(),
});
export const SipStatusSchema = z.object({
  is_running: z.boolean(),
  started_at: z.string().nullable(),
  instances: z.array(SipInstanceSchema),
});
export type SipStatus = z.infer<typeof SipStatusSchema>;
export const RestartSipInstanceBodySchema = z.strictObject({
  type: z.string().trim().min(1).max(64),
  ip_address: z.string().trim().min(1).max(255),
});

// --- a device's forwards (GET /devices/{id}/forwards/settings, GET /devices/{id}/forwards) ----------

/** One number a door panel may ring, with where its calls go on (spec entities §7 "forwards"). */
export const DeviceForwardNumberSchema = z.object({
  number: z.string(),
  name: z.string().nullable(),
  /** Whose number it is: the group's own, or a resident's master number. */
  purpose: z.enum(['group_sip_number', 'master_sip_number']),
  owner: z.string().nullable(),
  /** How the panel dials it: sip:<number>@<address>;transport=<protocol>. */
  uri: z.string(),
  forward_mode: z.enum(FORWARD_MODES),
  forward_rules: ForwardRulesSchema,
  forward_group: z.string().nullable(),
});
export const DeviceForwardEntrySchema = z.object({
  domain_id: z.number().int(),
  domain: z.string(),
  /** The group's logical address (an apartment's number on the panel's keypad), when it has one. */
  logic_address: z.number().int().nullable(),
  numbers: z.array(DeviceForwardNumberSchema),
});
/** A resident as the panel's phonebook shows them (project SIP settings, resident phonebook). */
export const DevicePhonebookEntrySchema = z.object({
  domain_id: z.number().int(),
  domain: z.string(),
  logic_address: z.number().int().nullable(),
  name: z.string(),
  /** The resident's master number, or the group's own number when the resident has none. */
  number: z.string(),
});
export const DeviceForwardsSchema = z.object({
  device_id: z.number().int(),
  /**
   * The project's auto forward rules (SIP tab): when on, Atrium's forwards are the panel's own call
   * rules; `address` and `protocol` follow its use_address and device_protocol either way.
   */
  auto_forward_rules: z.boolean(),
  /**
   * The residents' phonebook for the panel's screen: empty unless the project's resident phonebook
   * is on; residents of the panel's group and below that have the phonebook to devices on (every group
   * of the project when show_all_groups).
   */
  phonebook: z.array(DevicePhonebookEntrySchema),
  serial_number: z.string(),
  /** The panel's own virtual number (what it registers as), if it has one. */
  sip_number: z.string().nullable(),
  /** Where the panel sends its calls: Atrium's SIP server, and the transport. */
  address: z.string(),
  protocol: z.enum(['UDP', 'TCP', 'TLS']),
  entries: z.array(DeviceForwardEntrySchema),
});
export type DeviceForwards = z.infer<typeof DeviceForwardsSchema>;
export const DeviceForwardsExportQuerySchema = z.strictObject({ export_format: z.enum(['csv', 'xlsx']).default('xlsx') });
