import { LoginBodySchema, LoginResponseSchema, LogoutBodySchema, RefreshBodySchema, RefreshResponseSchema } from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';

export async function authRoutes(app: AppInstance): Promise<void> {
  const { auth } = app.services;

  app.post(
    '/login',
    { config: { public: true }, schema: { tags: ['session'], body: LoginBodySchema, response: { 200: LoginResponseSchema } } },
    async (req) => {
      try {
        return { data: await auth.login(req.body, req.ip, String(req.id)) };
      } catch (e) {
        // Failed sign-ins and locks are what an operator watches for: warnings, with the login and address (never the password).
        if (e instanceof AppError && (e.code === 'invalid_credentials' || e.code === 'too_many_attempts')) {
          req.log.warn(
            { login: req.body.login, ip: req.ip, reason: e.code },
            e.code === 'too_many_attempts' ? 'sign-in locked' : 'sign-in failed',
          );
        }
        throw e;
      }
    },
  );

  app.post(
    '/refresh',
    { config: { public: true }, schema: { tags: ['session'], body: RefreshBodySchema, response: { 200: RefreshResponseSchema } } },
    async (req) => ({
      data: {
        session: await auth.refresh(req.body.token, req.ip, String(req.id), (who) =>
          req.log.info({ user_id: who.userId, session_family: who.sessionFamily }, 'session refreshed'),
        ),
      },
    }),
  );

  app.post(
    '/logout',
    { schema: { tags: ['session'], body: LogoutBodySchema, response: { 200: z.object({ data: z.boolean() }) } } },
    async (req) => {
      await auth.logout(req.ctx, req.body?.token);
      return { data: true };
    },
  );
}
