import {
  dataResponse,
  IP_BLOCKING_EDIT_PERMISSION,
  IP_BLOCKING_VIEW_PERMISSION,
  IpBanListQuerySchema,
  IpBanSchema,
  IpBlockingServiceSchema,
  IpBlockingStatusBodySchema,
  IpCountResultSchema,
  IpServiceParamsSchema,
  IpUnbanAllBodySchema,
  IpUnbanBodySchema,
  IpWhitelistBodySchema,
  IpWhitelistEntrySchema,
  IpWhitelistQuerySchema,
  listResponse,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import type { Actor } from '../../core/context.js';
import { prohibited } from '../../core/errors.js';

const need = (actor: Actor, ...codes: string[]) => {
  const missing = codes.filter((c) => !actor.permissions.has(c));
  if (missing.length) throw prohibited(missing.map((permission) => ({ permission })));
};
const view = (actor: Actor) => need(actor, IP_BLOCKING_VIEW_PERMISSION);
const edit = (actor: Actor) => need(actor, IP_BLOCKING_VIEW_PERMISSION, IP_BLOCKING_EDIT_PERMISSION);

/** IP blocking (spec comms §7): status, banned list, unban, whitelist. */
export async function ipBlockingRoutes(app: AppInstance): Promise<void> {
  const { ipBlocking } = app.services;
  const tags = ['ip blocking'];

  app.get('/ip-blocking/status', { schema: { tags, response: { 200: dataResponse(z.array(IpBlockingServiceSchema)) } } }, async (req) => {
    view(req.actor);
    return { data: ipBlocking.status() };
  });
  app.post(
    '/ip-blocking/status',
    { schema: { tags, body: IpBlockingStatusBodySchema, response: { 200: dataResponse(z.array(IpBlockingServiceSchema)) } } },
    async (req) => {
      edit(req.actor);
      return { data: await ipBlocking.setStatus(req.ctx, req.body) };
    },
  );

  app.get(
    '/ip-blocking/banned',
    { schema: { tags, querystring: IpBanListQuerySchema, response: { 200: listResponse(IpBanSchema) } } },
    async (req) => {
      view(req.actor);
      return ipBlocking.listBans(req.query);
    },
  );
  app.post(
    '/ip-blocking/unban-all',
    { schema: { tags, body: IpUnbanAllBodySchema, response: { 200: dataResponse(IpCountResultSchema) } } },
    async (req) => {
      edit(req.actor);
      return { data: { count: await ipBlocking.unbanAll(req.ctx, req.body.service) } };
    },
  );
  app.post(
    '/ip-blocking/:service/unban',
    { schema: { tags, params: IpServiceParamsSchema, body: IpUnbanBodySchema, response: { 200: dataResponse(IpCountResultSchema) } } },
    async (req) => {
      edit(req.actor);
      return { data: { count: await ipBlocking.unban(req.ctx, req.params.service, req.body.ips) } };
    },
  );

  app.get(
    '/ip-blocking/whitelist',
    { schema: { tags, querystring: IpWhitelistQuerySchema, response: { 200: listResponse(IpWhitelistEntrySchema) } } },
    async (req) => {
      view(req.actor);
      return ipBlocking.whitelist(req.query.service);
    },
  );
  app.post(
    '/ip-blocking/:service/whitelist',
    {
      schema: {
        tags,
        params: IpServiceParamsSchema,
        body: IpWhitelistBodySchema,
        response: { 200: dataResponse(z.array(IpWhitelistEntrySchema)) },
      },
    },
    async (req) => {
      edit(req.actor);
      return { data: await ipBlocking.addToWhitelist(req.ctx, req.params.service, req.body.ips) };
    },
  );
  app.post(
    '/ip-blocking/:service/whitelist/delete',
    { schema: { tags, params: IpServiceParamsSchema, body: IpWhitelistBodySchema, response: { 200: dataResponse(IpCountResultSchema) } } },
    async (req) => {
      edit(req.actor);
      return { data: { count: await ipBlocking.removeFromWhitelist(req.ctx, req.params.service, req.body.ips) } };
    },
  );
}
