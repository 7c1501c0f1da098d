import { z } from 'zod';
import { LOCALES } from './constants.js';
import { PhoneSchema } from './phone.js';
import { PasswordSchema } from './profile.js';
import { VALIDATION_MESSAGES } from './validators.js';

/**
 * Registration, self-registration, e-mail confirmation and password recovery (spec core §7).
 * The flows and their answers are described in `docs/registration.md`.
 */

/** Account types a person may pick when registering themselves. */
export const SELF_REGISTRATION_USER_TYPES = ['private', 'company'] as const;
export type SelfRegistrationUserType = (typeof SELF_REGISTRATION_USER_TYPES)[number];

/** How long each mailed secret stays valid, and how often a confirmation code may be re-sent. */
export const INVITE_TTL_SECONDS = 7 * 24 * 3600;
export const PASSWORD_RESET_TTL_SECONDS = 3600;
export const SELF_REGISTRATION_TTL_SECONDS = 24 * 3600;
export const CONFIRMATION_CODE_TTL_SECONDS = 3600;
export const CONFIRMATION_RESEND_COOLDOWN_SECONDS = 60;
export const CONFIRMATION_MAX_RESENDS = 5;
/** Length of the mailed confirmation code (letters and digits without look-alikes). */
export const CONFIRMATION_CODE_LENGTH = 8;

const name = z.string().trim().min(1).max(255);
const email = z.string().trim().toLowerCase().pipe(z.email().max(255));
/** An opaque secret from a mailed link (invite, reset, confirmation). */
const linkToken = z.string().trim().min(8).max(256);

/** POST /registration/simple: an account with a login and a password, active at once. */
export const SimpleRegistrationBodySchema = z.strictObject({
  name,
  login: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .regex(/^[^\s]+$/, VALIDATION_MESSAGES.invalid_value),
  password: PasswordSchema,
  locale: z.enum(LOCALES).optional(),
});
export type SimpleRegistrationBody = z.infer<typeof SimpleRegistrationBodySchema>;

/** POST /registration/self: a private client registers with an object; a code is mailed to confirm. */
export const SelfRegistrationBodySchema = z.strictObject({
  user_name: name,
  user_country: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, VALIDATION_MESSAGES.invalid_value),
  user_email: email,
  user_type: z.enum(SELF_REGISTRATION_USER_TYPES),
  user_phone: PhoneSchema,
  object_name: name,
  user_password: PasswordSchema,
  locale: z.enum(LOCALES).optional(),
});
export type SelfRegistrationBody = z.infer<typeof SelfRegistrationBodySchema>;

/**
 * A pending self-registration, as POST /registration/self, GET /registration/self/code/{token} and
 * POST /registration/self/resend/{token} answer it. `token` names the pending registration (it does
 * not confirm it); the code that confirms it only travels by mail.
 */
export const PendingRegistrationSchema = z.object({
  token: z.string(),
  email: z.string(),
  user_name: z.string(),
  object_name: z.string(),
  /** When the mailed code stops working (a new one can be sent). */
  code_expires_at: z.string(),
  /** When the registration itself is dropped unless confirmed. */
  expires_at: z.string(),
  /** Earliest time a new code may be sent. */
  resend_after: z.string(),
  resends_left: z.number().int(),
});
export type PendingRegistration = z.infer<typeof PendingRegistrationSchema>;

export const RegistrationTokenParamsSchema = z.object({ token: linkToken });
export const SelfRegistrationCodeParamsSchema = z.object({ code: linkToken });

/** POST /email/confirm: the code from the self-registration mail, as typed (case, spaces and dashes ignored). */
export const EmailConfirmBodySchema = z.strictObject({
  code: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .transform((v) => v.replace(/[\s-]/g, '').toUpperCase()),
});

/** POST /registration/confirm: the secret from the self-registration mail's link. */
export const RegistrationConfirmBodySchema = z.strictObject({ token: linkToken });

/** GET /registration/token/{token}: who an invitation is for. */
export const InviteInfoSchema = z.object({ login: z.string(), name: z.string(), email: z.string().nullable() });
export type InviteInfo = z.infer<typeof InviteInfoSchema>;

/** POST /registration/token: accept an invitation by setting a password. */
export const AcceptInviteBodySchema = z.strictObject({ token: linkToken, password: PasswordSchema });

/** POST /password/recovery: always answers true, whether or not the address belongs to an account. */
export const PasswordRecoveryBodySchema = z.strictObject({ email });

/** POST /password/reset: the secret from the recovery mail's link and the new password. */
export const PasswordResetBodySchema = z.strictObject({ code: linkToken, password: PasswordSchema });

/** The account a registration call made or completed: sign in with `login`. */
export const RegisteredAccountSchema = z.object({ id: z.number().int(), login: z.string() });
export type RegisteredAccount = z.infer<typeof RegisteredAccountSchema>;

/** SMTP settings of a project (`projects.settings.smtp`); absent means mail stays in the outbox. */
export const SmtpSettingsSchema = z.object({
  host: z.string().min(1).max(255),
  port: z.number().int().min(1).max(65535),
  secure: z.boolean().default(false),
  user: z.string().max(255).nullable().optional(),
  password: z.string().max(1024).nullable().optional(),
  from: z.string().min(3).max(255),
});
export type SmtpSettings = z.infer<typeof SmtpSettingsSchema>;
