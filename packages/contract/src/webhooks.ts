import { z } from 'zod';
import { DEVICE_EVENT_TYPES } from './devices.js';
import { ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Webhooks (issue 14, "Beyond the peers"): chosen events of a project posted to a building's own
// systems, signed, retried, and logged per endpoint. The signature scheme is described in README.md.

/** The entities whose recorded changes (audit events) an endpoint may ask for, as `audit.<entity>`. */
export const WEBHOOK_AUDIT_ENTITIES = [
  'user',
  'group',
  'role',
  'device',
  'identifier',
  'access_rule',
  'time_rule',
  'schedule',
  'elevator',
  'sip_number',
  'forward_rule',
  'marker',
  'api_key',
  'webhook',
] as const;

/** Every event type an endpoint may choose. */
export const WEBHOOK_EVENT_TYPES = [
  ...DEVICE_EVENT_TYPES.map((t) => `device.${t}` as const),
  'device.online',
  'device.offline',
  'call.ended',
  ...WEBHOOK_AUDIT_ENTITIES.map((e) => `audit.${e}` as const),
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The test ping's type: sent on request only, never chosen. */
export const WEBHOOK_PING_EVENT = 'ping';

/** Headers of every delivery. */
export const WEBHOOK_HEADERS = {
  event: 'x-atrium-event',
  delivery: 'x-atrium-delivery',
  timestamp: 'x-atrium-timestamp',
  /** `v1=` and the hex HMAC-SHA256, keyed by the endpoint's secret, of `<timestamp>.<body>`. */
  signature: 'x-atrium-signature',
} as const;

/** Attempts of a delivery before it is given up (the first one included). */
export const WEBHOOK_MAX_ATTEMPTS = 8;
/** The most of an answer's body kept in the delivery log. */
export const WEBHOOK_RESPONSE_BODY_LIMIT = 2048;

const url = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
    } catch {
      return false;
    }
  }, M.invalid_value);

const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .transform((v) => [...new Set(v)]);

export const CreateWebhookBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  url,
  event_types: eventTypes,
  enabled: z.boolean().default(true),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBodySchema>;

export const UpdateWebhookBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  url: url.optional(),
  event_types: eventTypes.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBodySchema>;

export const WebhookDeliveryStatusSchema = z.enum(['pending', 'delivering', 'succeeded', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatusSchema>;

export const WebhookSchema = z.object({
  id: z.number(),
  name: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  enabled: z.boolean(),
  /** The last delivery's status, null before the first. */
  last_delivery_status: WebhookDeliveryStatusSchema.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

/** The answer of a create or a secret rotation: the signing secret, shown this once. */
export const WebhookWithSecretSchema = WebhookSchema.extend({ secret: z.string() });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;

export const WebhookAttemptSchema = z.object({
  attempt: z.number(),
  response_status: z.number().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
  at: z.string(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

export const WebhookDeliverySchema = z.object({
  id: z.number(),
  endpoint_id: z.number(),
  event_type: z.string(),
  event_id: z.string(),
  status: WebhookDeliveryStatusSchema,
  attempts: z.number(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  response_status: z.number().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().nullable(),
  created_at: z.string(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/** One delivery with what was sent and every attempt. */
export const WebhookDeliveryDetailSchema = WebhookDeliverySchema.extend({
  payload: z.unknown(),
  attempt_log: z.array(WebhookAttemptSchema),
});
export type WebhookDeliveryDetail = z.infer<typeof WebhookDeliveryDetailSchema>;

export const WebhookListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });
export type WebhookListQuery = z.infer<typeof WebhookListQuerySchema>;
export const WebhookDeliveryListQuerySchema = ListQuerySchema;
export type WebhookDeliveryListQuery = z.infer<typeof WebhookDeliveryListQuerySchema>;

export const WebhookDeliveryParamsSchema = z.object({
  id: z.coerce.number().int().min(1).max(2_147_483_647),
  deliveryId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});
