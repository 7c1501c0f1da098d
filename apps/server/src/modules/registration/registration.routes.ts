import {
  AcceptInviteBodySchema,
  EmailConfirmBodySchema,
  InviteInfoSchema,
  type Locale,
  PasswordRecoveryBodySchema,
  PasswordResetBodySchema,
  PendingRegistrationSchema,
  RegisteredAccountSchema,
  RegistrationConfirmBodySchema,
  RegistrationTokenParamsSchema,
  SelfRegistrationBodySchema,
  SelfRegistrationCodeParamsSchema,
  SimpleRegistrationBodySchema,
} from '@atrium/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import type { PublicContext } from './registration.service.js';

const Account = z.object({ data: RegisteredAccountSchema });
const Pending = z.object({ data: PendingRegistrationSchema });
const Ok = z.object({ data: z.boolean() });

/** The language of the caller's browser, for mail sent to an address that has no account yet. */
export function requestLocale(header: string | string[] | undefined): Locale {
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('ru') ? 'ru' : 'en';
}

const publicContext = (req: FastifyRequest): PublicContext => ({
  ip: req.ip,
  requestId: String(req.id),
  locale: requestLocale(req.headers['accept-language']),
});

/** Registration, self-registration, e-mail confirmation and password recovery: all before sign-in. */
export async function registrationRoutes(app: AppInstance): Promise<void> {
  const { registration } = app.services;
  const tags = ['registration'];
  const config = { public: true };

  app.post(
    '/registration/simple',
    { config, schema: { tags, body: SimpleRegistrationBodySchema, response: { 200: Account } } },
    async (req) => ({ data: await registration.registerSimple(publicContext(req), req.body) }),
  );

  app.post(
    '/registration/self',
    { config, schema: { tags, body: SelfRegistrationBodySchema, response: { 200: Pending } } },
    async (req) => ({ data: await registration.registerSelf(publicContext(req), req.body) }),
  );

  app.get(
    '/registration/self/code/:code',
    { config, schema: { tags, params: SelfRegistrationCodeParamsSchema, response: { 200: Pending } } },
    async (req) => ({ data: await registration.pendingRegistration(publicContext(req), req.params.code) }),
  );

  app.post(
    '/registration/self/resend/:code',
    { config, schema: { tags, params: SelfRegistrationCodeParamsSchema, response: { 200: Pending } } },
    async (req) => ({ data: await registration.resendCode(publicContext(req), req.params.code) }),
  );

  app.post('/email/confirm', { config, schema: { tags, body: EmailConfirmBodySchema, response: { 200: Account } } }, async (req) => ({
    data: await registration.confirmEmail(publicContext(req), req.body.code, 'invalid_confirmation_code'),
  }));

  app.post(
    '/registration/confirm',
    { config, schema: { tags, body: RegistrationConfirmBodySchema, response: { 200: Account } } },
    async (req) => ({ data: await registration.confirmEmail(publicContext(req), req.body.token, 'verification_link_outdated') }),
  );

  app.get(
    '/registration/token/:token',
    { config, schema: { tags, params: RegistrationTokenParamsSchema, response: { 200: z.object({ data: InviteInfoSchema }) } } },
    async (req) => ({ data: await registration.invite(publicContext(req), req.params.token) }),
  );

  app.post('/registration/token', { config, schema: { tags, body: AcceptInviteBodySchema, response: { 200: Account } } }, async (req) => ({
    data: await registration.acceptInvite(publicContext(req), req.body.token, req.body.password),
  }));

  app.post('/password/recovery', { config, schema: { tags, body: PasswordRecoveryBodySchema, response: { 200: Ok } } }, async (req) => {
    await registration.requestRecovery(publicContext(req), req.body.email);
    return { data: true };
  });

  app.post('/password/reset', { config, schema: { tags, body: PasswordResetBodySchema, response: { 200: Account } } }, async (req) => ({
    data: await registration.resetPassword(publicContext(req), req.body.code, req.body.password),
  }));
}
