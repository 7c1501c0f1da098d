import { z } from 'zod';
import { MOBILE_APP_FEATURE_NAMES } from './licenses.js';
import { IdSchema } from './list-query.js';

// Mobile clients and push delivery (issue 14, spec entities §2 "Mobile client info"):
// PUT /mobile-clients (the signed-in user's app registers itself), GET /mobile-clients,
// DELETE /mobile-clients/{id}; an administrator: GET /users/{id}/mobile-clients,
// DELETE /users/{id}/mobile-clients/{clientId}.

export const MOBILE_PLATFORMS = ['ios', 'android'] as const;
export type MobilePlatform = (typeof MOBILE_PLATFORMS)[number];

/** The header by which an app built on the mobile SDK presents the project's SDK api key. */
export const MOBILE_SDK_KEY_HEADER = 'x-atrium-sdk-key';

/** A mobile client as an administrator sees it in the user (read-only). */
export const MobileClientInfoSchema = z.object({
  id: z.number().int(),
  mobile_client_id: z.string(),
  platform: z.enum(MOBILE_PLATFORMS),
  info: z.string().nullable(),
  auth_at: z.string(),
  vendor_id: z.string().nullable(),
  sip_number: z.string().nullable(),
  ukey2: z.string().nullable(),
});
export type MobileClientInfo = z.infer<typeof MobileClientInfoSchema>;

/** A mobile client as its own user sees it. The push token is never sent back. */
export const MobileClientSchema = MobileClientInfoSchema.extend({
  has_push_token: z.boolean(),
  /** Registered by an app built on the mobile SDK (with the project's SDK api key). */
  is_sdk: z.boolean(),
  created_at: z.string(),
});
export type MobileClient = z.infer<typeof MobileClientSchema>;

/**
 * The answer to an app's registration: its client, and the mobile-app features it may offer this
 * user (remote opening, Siri, Apple Watch, family events, white label, group forward rules), from the
 * server's licence and the user's own (licenses.ts mobileAppFeatures).
 */
/** The management company an app licensed for white label shows as its own (the white-label tab). */
export const MobileWhiteLabelSchema = z.object({
  name: z.string().nullable(),
  address: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  logo_url: z.string().nullable(),
});
export type MobileWhiteLabel = z.infer<typeof MobileWhiteLabelSchema>;

export const RegisteredMobileClientSchema = MobileClientSchema.extend({
  license_features: z.array(z.enum(MOBILE_APP_FEATURE_NAMES)),
  /**
   * The management company to brand the app with: present only while white label is licensed to this
   * user (mobile_white_label in license_features), null otherwise (the app shows its own brand).
   */
  white_label: MobileWhiteLabelSchema.nullable(),
  /**
   * The install's secret, present only when one was issued by this registration (the first, a move to
   * another user, or an install that had none). The server keeps only its hash: the app stores it and
   * sends it back as client_secret; without it the install cannot move to another user.
   */
  client_secret: z.string().optional(),
});
export type RegisteredMobileClient = z.infer<typeof RegisteredMobileClientSchema>;

const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * What an app sends when it registers (again) after each sign-in: the same mobile_client_id updates
 * its registration and its auth_at. A null push_token removes the token (no pushes to this app).
 */
export const RegisterMobileClientBodySchema = z.strictObject({
  mobile_client_id: text(128),
  platform: z.enum(MOBILE_PLATFORMS),
  info: text(500).nullable().optional(),
  vendor_id: text(128).nullable().optional(),
  push_token: text(4096).nullable().optional(),
  sip_number: z
    .string()
    .trim()
    .regex(/^\+?[0-9*#]{1,32}$/)
    .nullable()
    .optional(),
  ukey2: z
    .string()
    .trim()
    .regex(/^[0-9A-Fa-f]{1,64}$/)
    .nullable()
    .optional(),
  /** The app is built on the mobile SDK: it presents the SDK api key in the X-Atrium-SDK-Key header. */
  is_sdk: z.boolean().optional(),
  /**
   * The secret the server issued to this install: proof that the caller holds the phone, needed to
   * move an install another user holds (signed in as someone else on the same phone).
   */
  client_secret: z.string().min(1).max(256).optional(),
});
export type RegisterMobileClientBody = z.infer<typeof RegisterMobileClientBodySchema>;

export const UserMobileClientParamsSchema = z.object({ id: IdSchema, clientId: IdSchema });

/**
 * What Atrium POSTs to the project's push server (`Authorization: Bearer <push token of the settings>`),
 * once per platform of the user's apps. The push server answers 2xx when it took the message; it may
 * list tokens its platform refused as `{ "invalid_tokens": [...] }` (with 2xx or 410), and a 410
 * without a list means every token sent was refused. Refused tokens are removed from their clients.
 */
export const PushMessageSchema = z.object({
  tokens: z.array(z.string()),
  platform: z.enum(MOBILE_PLATFORMS),
  title: z.string(),
  body: z.string(),
  data: z.object({ type: z.string(), id: z.number().int() }),
  locale: z.enum(['en', 'ru']),
});
export type PushMessage = z.infer<typeof PushMessageSchema>;
/** Attempts of one push before it is given up. */
export const PUSH_MAX_ATTEMPTS = 8;

/** The answer of POST /settings/push/test: the push server's HTTP status and how many of the caller's app tokens it was sent to. */
export const TestPushResultSchema = z.object({ status: z.number().int(), tokens: z.number().int() });
export type TestPushResult = z.infer<typeof TestPushResultSchema>;
