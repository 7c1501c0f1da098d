import {
  CreateSsoProviderBodySchema,
  dataResponse,
  IdParamsSchema,
  LoginResponseSchema,
  SsoCallbackQuerySchema,
  SsoExchangeBodySchema,
  SsoLoginOptionSchema,
  SsoProviderSchema,
  SsoStartQuerySchema,
  UpdateSsoProviderBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

const tags = ['sso'];

/** Single sign-on with OpenID Connect (issue 14): providers of the project, and the signed-out flow. */
export async function ssoRoutes(app: AppInstance): Promise<void> {
  const { sso } = app.services;

  app.get('/sso-providers', { schema: { tags, response: { 200: dataResponse(z.array(SsoProviderSchema)) } } }, async (req) => ({
    data: await sso.list(req.actor),
  }));
  app.get(
    '/sso-providers/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(SsoProviderSchema) } } },
    async (req) => ({ data: await sso.get(req.actor, req.params.id) }),
  );
  app.put(
    '/sso-providers',
    { schema: { tags, body: CreateSsoProviderBodySchema, response: { 200: dataResponse(SsoProviderSchema) } } },
    async (req) => ({ data: await sso.create(req.ctx, req.body) }),
  );
  app.patch(
    '/sso-providers/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateSsoProviderBodySchema, response: { 200: dataResponse(SsoProviderSchema) } } },
    async (req) => ({ data: await sso.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete(
    '/sso-providers/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: z.object({ data: z.boolean() }) } } },
    async (req) => {
      await sso.remove(req.ctx, req.params.id);
      return { data: true };
    },
  );

  // Signed out: the login page's buttons, the way out to the provider, the way back, and the ticket's exchange.
  app.get(
    '/sso/login-options',
    { config: { public: true }, schema: { tags, response: { 200: dataResponse(z.array(SsoLoginOptionSchema)) } } },
    async () => ({ data: await sso.loginOptions() }),
  );
  app.get(
    '/sso/:id/start',
    { config: { public: true }, schema: { tags, params: IdParamsSchema, querystring: SsoStartQuerySchema, response: { 302: z.null() } } },
    async (req, reply) => reply.redirect(await sso.start(req.params.id, req.query.redirect), 302),
  );
  app.get(
    '/sso/callback',
    { config: { public: true }, schema: { tags, querystring: SsoCallbackQuerySchema, response: { 302: z.null() } } },
    async (req, reply) => {
      const raw = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
      return reply.redirect(await sso.callback(raw, req.ip, String(req.id)), 302);
    },
  );
  app.post(
    '/sso/exchange',
    { config: { public: true }, schema: { tags: ['session'], body: SsoExchangeBodySchema, response: { 200: LoginResponseSchema } } },
    async (req) => ({ data: await sso.exchange(req.body.ticket, req.ip, String(req.id)) }),
  );
}
