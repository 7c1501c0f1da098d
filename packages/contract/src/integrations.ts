import { z } from 'zod';
import { IdSchema, IdValueSchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Integrations (spec entities §3, §6, §7, §8; issue 14): an Axxon One video server that Atrium talks
// to over gRPC, for the project (domain_id null) or for a group and the groups below it. Its cameras
// and macros are read from the server; access events of the integration's devices can launch a macro.

export const INTEGRATION_TYPES = ['axxon_one'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

/** The device events that may launch an Axxon One macro. */
export const INTEGRATION_TRIGGER_EVENTS = ['access_granted', 'access_denied', 'door_opened', 'alarm_on', 'tamper'] as const;
export type IntegrationTriggerEvent = (typeof INTEGRATION_TRIGGER_EVENTS)[number];

/** Axxon One's gRPC port when the address names none. */
export const AXXON_ONE_DEFAULT_PORT = 20109;
/** The largest certificate file accepted (PEM). */
export const INTEGRATION_CERTIFICATE_MAX_BYTES = 64 * 1024;
/** Further groups an integration may serve. */
export const INTEGRATION_MAX_DOMAINS = 100;
/** Macro rules per integration. */
export const INTEGRATION_MAX_RULES = 50;

const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*)(?::(\d{1,5}))?$/i;

/**
 * An Axxon One server address as `host:port` (lower case; the default port added), or null when it
 * is not one. A `grpc://` or `grpcs://` prefix is accepted and dropped (TLS follows the certificate).
 */
export function normalizeIntegrationUrl(value: string): string | null {
  const v = value
    .trim()
    .replace(/^grpcs?:\/\//i, '')
    .replace(/\/$/, '');
  const m = HOST.exec(v);
  if (!m) return null;
  const port = m[1] === undefined ? AXXON_ONE_DEFAULT_PORT : Number(m[1]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  const host = m[1] === undefined ? v : v.slice(0, v.length - m[1].length - 1);
  return `${host.toLowerCase()}:${port}`;
}

const UrlSchema = z
  .string()
  .trim()
  .min(1, M.required)
  .max(300, M.max_length)
  .refine((v) => normalizeIntegrationUrl(v) !== null, M.url_or_ip)
  .transform((v) => normalizeIntegrationUrl(v) as string);

const NameSchema = z.string().trim().min(1, M.required).max(31, M.max_length);

export const IntegrationMacroRuleSchema = z.strictObject({
  /** The device event that launches the macro. */
  event: z.enum(INTEGRATION_TRIGGER_EVENTS),
  /** The macro's id on the Axxon One server (its guid). */
  macro_id: z.string().trim().min(1, M.required).max(200, M.max_length),
  /** The macro's name as the server listed it, kept for display. */
  macro_name: z.string().trim().max(200, M.max_length).nullable().optional(),
  /** The devices whose events launch it; empty: every device of the integration's groups. */
  device_ids: z.array(IdValueSchema).max(1000).default([]),
});
export type IntegrationMacroRule = z.infer<typeof IntegrationMacroRuleSchema>;

const SettingsBody = z.strictObject({
  url: UrlSchema,
  user: z.string().trim().min(1, M.required).max(100, M.max_length),
  /** null or absent on update keeps the stored password (it is never sent back). */
  password: z.string().min(1, M.required).max(200, M.max_length).nullable().optional(),
  /** Drops the stored certificate: the connection becomes insecure (plain-text gRPC). */
  remove_certificate: z.boolean().optional(),
});

/**
 * The JSON `payload` part of POST /integrations (multipart; the optional `certificate` file part is
 * the Axxon One server's TLS certificate or its CA, PEM). With a certificate Atrium connects over TLS
 * and checks the server against it; without one the connection is plain text.
 */
export const CreateIntegrationBodySchema = z.strictObject({
  type: z.enum(INTEGRATION_TYPES).default('axxon_one'),
  name: NameSchema,
  domain_id: IdValueSchema.nullable().optional(),
  /** Further groups the integration serves (with the groups below them), besides its own group. */
  domains: z.array(IdValueSchema).max(INTEGRATION_MAX_DOMAINS).default([]),
  axxon_one_settings: SettingsBody.extend({ password: z.string().min(1, M.required).max(200, M.max_length) }),
  macro_rules: z.array(IntegrationMacroRuleSchema).max(INTEGRATION_MAX_RULES).default([]),
});
export type CreateIntegrationBody = z.infer<typeof CreateIntegrationBodySchema>;

/** The JSON `payload` part of POST /integrations/{id}: the type and group stay; absent fields stay. */
export const UpdateIntegrationBodySchema = z.strictObject({
  name: NameSchema.optional(),
  domains: z.array(IdValueSchema).max(INTEGRATION_MAX_DOMAINS).optional(),
  axxon_one_settings: SettingsBody.partial().optional(),
  macro_rules: z.array(IntegrationMacroRuleSchema).max(INTEGRATION_MAX_RULES).optional(),
});
export type UpdateIntegrationBody = z.infer<typeof UpdateIntegrationBodySchema>;

export const IntegrationSchema = z.object({
  id: z.number(),
  type: z.enum(INTEGRATION_TYPES),
  name: z.string(),
  guid: z.string(),
  domain_id: z.number().nullable(),
  /** Further groups served (with the groups below them). */
  domains: z.array(z.number()),
  axxon_one_settings: z.object({
    url: z.string(),
    user: z.string(),
    /** Always null: the password is never sent back. */
    password: z.null(),
    has_password: z.boolean(),
    /** Whether a certificate is stored (the connection uses TLS). */
    has_certificate: z.boolean(),
    /** The certificate's subject and SHA-256 fingerprint, to tell which one is stored. */
    certificate_subject: z.string().nullable(),
    certificate_fingerprint: z.string().nullable(),
  }),
  macro_rules: z.array(
    z.object({
      event: z.enum(INTEGRATION_TRIGGER_EVENTS),
      macro_id: z.string(),
      macro_name: z.string().nullable(),
      device_ids: z.array(z.number()),
    }),
  ),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Integration = z.infer<typeof IntegrationSchema>;

export const IntegrationListQuerySchema = ListQuerySchema.extend({
  /** Only the integrations of this group; absent: every integration one may see. */
  domain_id: IdSchema.optional(),
  search: z.string().trim().min(1).max(100).optional(),
});
export type IntegrationListQuery = z.infer<typeof IntegrationListQuerySchema>;

/** GET /integrations/{id}/available: whether Atrium reaches the server and signs in to it now. */
export const IntegrationAvailabilitySchema = z.object({
  available: z.boolean(),
  /** Why not: the error code (`integration_unavailable`, `integration_grpc_error`). */
  code: z.string().nullable(),
  /** The gRPC status name of the failure (UNAVAILABLE, UNAUTHENTICATED, DEADLINE_EXCEEDED, …). */
  grpc_status: z.string().nullable(),
  tls: z.boolean(),
  checked_at: z.string(),
});
export type IntegrationAvailability = z.infer<typeof IntegrationAvailabilitySchema>;

/** A camera of the Axxon One server (GET /integration/axxonone/{id}/listcameras). */
export const AxxonCameraSchema = z.object({
  access_point: z.string(),
  display_name: z.string(),
  display_id: z.string(),
  is_active: z.boolean(),
});
export type AxxonCamera = z.infer<typeof AxxonCameraSchema>;

/** A macro of the Axxon One server (GET /integration/axxonone/{id}/listmacros). */
export const AxxonMacroSchema = z.object({
  guid: z.string(),
  name: z.string(),
  enabled: z.boolean(),
});
export type AxxonMacro = z.infer<typeof AxxonMacroSchema>;

/** POST /integration/axxonone/{id}/launch: launches a macro now (to try a rule). */
export const LaunchAxxonMacroBodySchema = z.strictObject({ macro_id: z.string().trim().min(1, M.required).max(200, M.max_length) });
export type LaunchAxxonMacroBody = z.infer<typeof LaunchAxxonMacroBodySchema>;

/**
 * GET /integrations/available: the integrations a group's devices may use (the device form's picker):
 * the project's, those of the group and the groups above it, and those serving one of them (`domains`).
 */
export const AvailableIntegrationsQuerySchema = z.object({
  domain_id: IdSchema.optional(),
  /** The device's group is used when domain_id is absent. */
  device_id: IdSchema.optional(),
});
export type AvailableIntegrationsQuery = z.infer<typeof AvailableIntegrationsQuerySchema>;

export const AvailableIntegrationSchema = z.object({
  id: z.number(),
  type: z.enum(INTEGRATION_TYPES),
  name: z.string(),
  domain_id: z.number().nullable(),
});
export type AvailableIntegration = z.infer<typeof AvailableIntegrationSchema>;
