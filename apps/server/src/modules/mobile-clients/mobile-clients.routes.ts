import {
  dataResponse,
  IdParamsSchema,
  MOBILE_SDK_KEY_HEADER,
  MobileClientInfoSchema,
  MobileClientSchema,
  RegisteredMobileClientSchema,
  RegisterMobileClientBodySchema,
  TestPushResultSchema,
  UserMobileClientParamsSchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

/**
 * Mobile clients (issue 14): the signed-in user's own apps (register after each sign-in, list,
 * remove) and, for an administrator, a user's apps (read-only list, remove).
 */
export async function mobileClientsRoutes(app: AppInstance): Promise<void> {
  const { mobileClients, push } = app.services;
  const tags = ['mobile-clients'];
  app.put(
    '/mobile-clients',
    {
      schema: {
        tags,
        description: `Registers the signed-in user's app (again: the same mobile_client_id updates it). The answer carries client_secret when one is issued (first registration, a move, an install without one): an install another user holds moves to the caller only with it (403 otherwise). An app built on the mobile SDK sends is_sdk and the project's SDK api key in the ${MOBILE_SDK_KEY_HEADER} header.`,
        body: RegisterMobileClientBodySchema,
        response: { 200: dataResponse(RegisteredMobileClientSchema) },
      },
    },
    async (req) => {
      const key = req.headers[MOBILE_SDK_KEY_HEADER];
      return { data: await mobileClients.register(req.ctx, req.body, typeof key === 'string' ? key : undefined) };
    },
  );
  app.get('/mobile-clients', { schema: { tags, response: { 200: dataResponse(z.array(MobileClientSchema)) } } }, async (req) => ({
    data: await mobileClients.listOwn(req.actor),
  }));
  app.delete(
    '/mobile-clients/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await mobileClients.removeOwn(req.ctx, req.params.id);
      return { data: true };
    },
  );
  app.get(
    '/users/:id/mobile-clients',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.array(MobileClientInfoSchema)) } } },
    async (req) => ({ data: await mobileClients.listOfUser(req.actor, req.params.id) }),
  );
  app.delete(
    '/users/:id/mobile-clients/:clientId',
    { schema: { tags, params: UserMobileClientParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await mobileClients.removeOfUser(req.ctx, req.params.id, req.params.clientId);
      return { data: true };
    },
  );
  // The push tab's "send test push" (general settings): the saved settings, the caller's own apps.
  app.post(
    '/settings/push/test',
    { schema: { tags: ['settings'], response: { 200: dataResponse(TestPushResultSchema) } } },
    async (req) => ({ data: await push.test(req.actor) }),
  );
}
