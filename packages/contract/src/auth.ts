import { z } from 'zod';

export const LoginBodySchema = z.strictObject({
  login: z.string().trim().min(1).max(255),
  password: z.string().min(1).max(1024),
});
export type LoginBody = z.infer<typeof LoginBodySchema>;

export const ProjectRefSchema = z.object({ id: z.number().int(), uid: z.string(), name: z.string() });

export const SessionSchema = z.object({
  token: z.string(),
  refresh: z.string(),
  expires_in: z.number().int(),
  project: ProjectRefSchema,
});
export type Session = z.infer<typeof SessionSchema>;

/**
 * Two-factor sign-in (issue 14): a project whose user has TOTP on answers a challenge instead of a
 * session; the challenge and a code (or recovery code) go to POST /login/two-factor for the session.
 */
export const TwoFactorChallengeSchema = z.object({
  challenge: z.string(),
  project: ProjectRefSchema,
  expires_in: z.number().int(),
  /** The user's role requires a second step and they have none yet: enrol first (POST /login/two-factor/enrol). */
  enrolment_required: z.boolean().optional(),
});
export type TwoFactorChallenge = z.infer<typeof TwoFactorChallengeSchema>;

export const LoginResponseSchema = z.object({
  data: z.object({ sessions: z.array(SessionSchema), two_factor: z.array(TwoFactorChallengeSchema).optional() }),
});

export const RefreshBodySchema = z.strictObject({ token: z.string().min(10).max(512) });
export const RefreshResponseSchema = z.object({
  data: z.object({ session: z.object({ token: z.string(), refresh: z.string(), expires_in: z.number().int() }) }),
});

export const LogoutBodySchema = z.object({ token: z.string().max(512).optional() }).optional();
