import {
  dataResponse,
  IdParamsSchema,
  SessionSchema,
  TwoFactorConfirmBodySchema,
  TwoFactorDisableBodySchema,
  TwoFactorEnrolBodySchema,
  TwoFactorEnrolmentSchema,
  TwoFactorLoginBodySchema,
  TwoFactorLoginEnrolBodySchema,
  TwoFactorRecoveryCodesSchema,
  TwoFactorStatusSchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';

const tags = ['two-factor'];
const Ok = z.object({ data: z.boolean() });

/** Two-factor sign-in with TOTP (issue 14): the profile's own, an administrator's reset, and the second step of sign-in. */
export async function twoFactorRoutes(app: AppInstance): Promise<void> {
  const { twoFactor } = app.services;

  app.get('/profile/two-factor', { schema: { tags, response: { 200: dataResponse(TwoFactorStatusSchema) } } }, async (req) => ({
    data: await twoFactor.status(req.actor),
  }));

  app.post(
    '/profile/two-factor/enrol',
    { schema: { tags, body: TwoFactorEnrolBodySchema, response: { 200: dataResponse(TwoFactorEnrolmentSchema) } } },
    async (req) => ({ data: await twoFactor.startEnrolment(req.ctx, req.body.password) }),
  );

  app.post(
    '/profile/two-factor/confirm',
    { schema: { tags, body: TwoFactorConfirmBodySchema, response: { 200: dataResponse(TwoFactorRecoveryCodesSchema) } } },
    async (req) => ({ data: await twoFactor.confirmEnrolment(req.ctx, req.body.code) }),
  );

  app.post('/profile/two-factor/disable', { schema: { tags, body: TwoFactorDisableBodySchema, response: { 200: Ok } } }, async (req) => {
    await twoFactor.disable(req.ctx, req.body);
    return { data: true };
  });

  app.post(
    '/profile/two-factor/recovery-codes',
    { schema: { tags, body: TwoFactorDisableBodySchema, response: { 200: dataResponse(TwoFactorRecoveryCodesSchema) } } },
    async (req) => ({ data: await twoFactor.newRecoveryCodes(req.ctx, req.body) }),
  );

  app.post(
    '/users/:id/two-factor/reset',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.object({ id: z.number() })) } } },
    async (req) => ({ data: await twoFactor.reset(req.ctx, req.params.id) }),
  );

  app.post(
    '/login/two-factor',
    {
      config: { public: true },
      schema: {
        tags: ['session'],
        body: TwoFactorLoginBodySchema,
        response: {
          200: dataResponse(
            z.object({
              sessions: z.array(SessionSchema),
              /** After an enrolment at sign-in (a role requiring two-factor sign-in): the recovery codes, shown this once. */
              recovery_codes: z.array(z.string()).optional(),
            }),
          ),
        },
      },
    },
    async (req) => {
      try {
        const { recovery_codes, ...session } = await twoFactor.signIn(req.body, req.ip, String(req.id));
        return { data: { sessions: [session], ...(recovery_codes ? { recovery_codes } : {}) } };
      } catch (e) {
        // As failed passwords are: a warning with the address (never the code).
        if (e instanceof AppError && (e.code === 'two_factor_invalid_code' || e.code === 'too_many_attempts')) {
          req.log.warn({ ip: req.ip, reason: e.code }, 'two-factor sign-in failed');
        }
        throw e;
      }
    },
  );

  // A role requires a second step and the user has none: enrol with the sign-in's challenge.
  app.post(
    '/login/two-factor/enrol',
    {
      config: { public: true },
      schema: { tags: ['session'], body: TwoFactorLoginEnrolBodySchema, response: { 200: dataResponse(TwoFactorEnrolmentSchema) } },
    },
    async (req) => ({ data: await twoFactor.startSignInEnrolment(req.body) }),
  );
}
