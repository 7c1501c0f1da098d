import { z } from 'zod';
import { IdValueSchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// API keys (issue 14, "Beyond the peers"): a building's own systems call the API with a key that acts
// with one role's permissions and a group scope, never more than its creator holds.

/** Every key starts with this, so a leaked one is easy to recognise (secret scanners, logs). */
export const API_KEY_PREFIX = 'atr_';
/** Characters of the key after {@link API_KEY_PREFIX} that are kept in clear to tell keys apart. */
export const API_KEY_VISIBLE_CHARS = 8;
/** A key as sent by a caller: the prefix and 43 base64url characters (32 random bytes). */
export const API_KEY_PATTERN = /^atr_[A-Za-z0-9_-]{43}$/;

export const CreateApiKeyBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  /** The role the key acts with: one the creator may assign, granting nothing the creator lacks. */
  role: IdValueSchema,
  /** The groups the key's scoped permissions reach; empty: the creator's own groups. */
  domains: z.array(IdValueSchema).max(1000).default([]),
  /** When the key stops working; none: until revoked. */
  expires_at: z.iso
    .datetime({ offset: true })
    .nullable()
    .optional()
    .refine((v) => v == null || Date.parse(v) > Date.now(), M.invalid_value),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBodySchema>;

export const ApiKeyStatusSchema = z.enum(['active', 'expired', 'revoked']);
export type ApiKeyStatus = z.infer<typeof ApiKeyStatusSchema>;

export const ApiKeySchema = z.object({
  id: z.number(),
  name: z.string(),
  /** The start of the key (`atr_` and 8 characters): the rest is never stored. */
  prefix: z.string(),
  role: z.number().nullable(),
  role_info: z.object({ id: z.number(), name: z.string() }).nullable(),
  domains: z.array(z.number()),
  status: ApiKeyStatusSchema,
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_by: z.number().nullable(),
  created_at: z.string(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** The answer of a create: the key itself, shown this once. */
export const CreatedApiKeySchema = ApiKeySchema.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

export const ApiKeyListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });
export type ApiKeyListQuery = z.infer<typeof ApiKeyListQuerySchema>;
