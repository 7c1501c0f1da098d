import { z } from 'zod';
import { IdValueSchema } from './list-query.js';

// Single sign-on with OpenID Connect (issue 14, "Beyond the peers"): providers per project, the
// authorization code flow with PKCE, state and nonce, users matched by a claim of the ID token.

/** What a provider's claim is matched against: the user's e-mail or login. */
export const SSO_MATCH_FIELDS = ['email', 'login'] as const;
export type SsoMatchField = (typeof SSO_MATCH_FIELDS)[number];
/** Seconds a started sign-in (state, nonce, PKCE verifier) waits for the provider's answer. */
export const SSO_LOGIN_TTL_SECONDS = 600;
/** Seconds the one-time ticket the console exchanges for its session lives. */
export const SSO_TICKET_TTL_SECONDS = 60;

const IssuerSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .transform((v) => v.replace(/\/+$/, ''));

export const SsoProviderSchema = z.object({
  id: z.number(),
  name: z.string(),
  issuer: z.string(),
  client_id: z.string(),
  /** Never sent back: null on read; `has_client_secret` tells whether one is stored. */
  client_secret: z.null(),
  has_client_secret: z.boolean(),
  scopes: z.string(),
  /** The ID token claim matched against a user (e.g. `email`, `preferred_username`). */
  claim: z.string(),
  match_field: z.enum(SSO_MATCH_FIELDS),
  is_enabled: z.boolean(),
  /** Unknown people get an account on first sign-in (off by default), with this role and group. */
  auto_create: z.boolean(),
  default_role_id: z.number().nullable(),
  default_group_id: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SsoProvider = z.infer<typeof SsoProviderSchema>;

const providerFields = {
  name: z.string().trim().min(1).max(64),
  issuer: IssuerSchema,
  client_id: z.string().trim().min(1).max(255),
  /** null, absent or the placeholder: keep the stored secret; '' clears it (a public client). */
  client_secret: z.string().max(1024).nullable().optional(),
  scopes: z
    .string()
    .trim()
    .max(255)
    .regex(/^[\w:./-]+( [\w:./-]+)*$/)
    .default('openid email profile'),
  claim: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[\w.:-]+$/)
    .default('email'),
  match_field: z.enum(SSO_MATCH_FIELDS).default('email'),
  is_enabled: z.boolean().default(true),
  auto_create: z.boolean().default(false),
  default_role_id: IdValueSchema.nullable().optional(),
  default_group_id: IdValueSchema.nullable().optional(),
};
export const CreateSsoProviderBodySchema = z.strictObject(providerFields);
export type CreateSsoProviderBody = z.infer<typeof CreateSsoProviderBodySchema>;
export const UpdateSsoProviderBodySchema = z.strictObject({
  name: providerFields.name.optional(),
  issuer: IssuerSchema.optional(),
  client_id: providerFields.client_id.optional(),
  client_secret: providerFields.client_secret,
  scopes: z
    .string()
    .trim()
    .max(255)
    .regex(/^[\w:./-]+( [\w:./-]+)*$/)
    .optional(),
  claim: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[\w.:-]+$/)
    .optional(),
  match_field: z.enum(SSO_MATCH_FIELDS).optional(),
  is_enabled: z.boolean().optional(),
  auto_create: z.boolean().optional(),
  default_role_id: IdValueSchema.nullable().optional(),
  default_group_id: IdValueSchema.nullable().optional(),
});
export type UpdateSsoProviderBody = z.infer<typeof UpdateSsoProviderBodySchema>;

/** What the login page shows: one "Sign in with <name>" button per enabled provider. */
export const SsoLoginOptionSchema = z.object({ id: z.number(), name: z.string() });
export type SsoLoginOption = z.infer<typeof SsoLoginOptionSchema>;

export const SsoStartQuerySchema = z.object({
  redirect: z
    .string()
    .max(512)
    .regex(/^\/(?!\/)/)
    .optional(),
});
export const SsoCallbackQuerySchema = z.object({
  state: z.string().min(1).max(256).optional(),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(1024).optional(),
  iss: z.string().max(2048).optional(),
  session_state: z.string().max(1024).optional(),
});
export const SsoExchangeBodySchema = z.strictObject({ ticket: z.string().min(10).max(256) });
