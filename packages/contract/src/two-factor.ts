import { z } from 'zod';

// Two-factor sign-in with TOTP (issue 14, "Beyond the peers"): enrolled from the profile by QR,
// confirmed with a code, ten single-use recovery codes shown once.

/** Codes a person types: six digits from the authenticator app. */
export const TOTP_DIGITS = 6;
/** Seconds a TOTP code lives (RFC 6238's default, what every authenticator app uses). */
export const TOTP_PERIOD_SECONDS = 30;
/** Recovery codes made at enrolment; each works once. */
export const RECOVERY_CODE_COUNT = 10;
/** Seconds a sign-in challenge (password checked, code still wanted) lives. */
export const TWO_FACTOR_CHALLENGE_TTL_SECONDS = 300;

/** A TOTP code or a recovery code (`xxxxx-xxxxx`); spaces and dashes a person types are tolerated. */
export const TwoFactorCodeSchema = z.string().trim().min(6).max(32);

export const TwoFactorStatusSchema = z.object({
  /** TOTP is on: sign-in asks for a code. */
  enabled: z.boolean(),
  /** An enrolment was started and waits for its first code. */
  pending: z.boolean(),
  recovery_codes_left: z.number().int(),
  enabled_at: z.string().nullable(),
});
export type TwoFactorStatus = z.infer<typeof TwoFactorStatusSchema>;

export const TwoFactorEnrolBodySchema = z.strictObject({ password: z.string().min(1).max(1024) });
export type TwoFactorEnrolBody = z.infer<typeof TwoFactorEnrolBodySchema>;

/** The new secret, shown only while enrolment waits for its first code. */
export const TwoFactorEnrolmentSchema = z.object({
  /** Base32 key for typing into an authenticator by hand. */
  secret: z.string(),
  otpauth_url: z.string(),
  /** The otpauth URL as a QR code (an SVG data URL). */
  qr: z.string(),
});
export type TwoFactorEnrolment = z.infer<typeof TwoFactorEnrolmentSchema>;

export const TwoFactorConfirmBodySchema = z.strictObject({ code: TwoFactorCodeSchema });
export type TwoFactorConfirmBody = z.infer<typeof TwoFactorConfirmBodySchema>;

export const TwoFactorRecoveryCodesSchema = z.object({ recovery_codes: z.array(z.string()) });
export type TwoFactorRecoveryCodes = z.infer<typeof TwoFactorRecoveryCodesSchema>;

/** Turning TOTP off, or making new recovery codes: the password and a current code (or a recovery code). */
export const TwoFactorDisableBodySchema = z.strictObject({ password: z.string().min(1).max(1024), code: TwoFactorCodeSchema });
export type TwoFactorDisableBody = z.infer<typeof TwoFactorDisableBodySchema>;

export const TwoFactorLoginBodySchema = z.strictObject({
  challenge: z.string().min(10).max(2048),
  code: TwoFactorCodeSchema,
});
export type TwoFactorLoginBody = z.infer<typeof TwoFactorLoginBodySchema>;

/**
 * POST /login/two-factor/enrol: a challenge whose `enrolment_required` is set (the user's role asks
 * for a second step and they have none yet) answers a new secret to enrol; the first code from it,
 * sent to POST /login/two-factor, turns two-factor sign-in on and answers the session with the
 * recovery codes, shown this once.
 */
export const TwoFactorLoginEnrolBodySchema = z.strictObject({ challenge: z.string().min(10).max(2048) });
export type TwoFactorLoginEnrolBody = z.infer<typeof TwoFactorLoginEnrolBodySchema>;
