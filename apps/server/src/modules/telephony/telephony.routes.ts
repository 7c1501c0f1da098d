import {
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CallHistoryItemSchema,
  CallHistoryListQuerySchema,
  CallIdParamsSchema,
  CallInfoSchema,
  CallRecordSchema,
  ConciergeDeviceSchema,
  CreateForwardGroupBodySchema,
  CreateSipNumberBodySchema,
  CreateSipTrunkBodySchema,
  DeviceForwardsExportQuerySchema,
  DeviceForwardsSchema,
  DeviceTokenParamsSchema,
  DialerCredentialsSchema,
  DialerHistoryQuerySchema,
  DialerNumberParamsSchema,
  dataResponse,
  ForwardGroupListQuerySchema,
  ForwardGroupSchema,
  GeneratedSipNumberSchema,
  IdParamsSchema,
  InterceptionBodySchema,
  InterceptionSchema,
  ListQuerySchema,
  listResponse,
  RestartSipInstanceBodySchema,
  SipContactSchema,
  SipNumberListQuerySchema,
  SipNumberSchema,
  SipStatusSchema,
  SipTrunkListQuerySchema,
  SipTrunkSchema,
  UpdateForwardGroupBodySchema,
  UpdateSipNumberBodySchema,
  UpdateSipTrunkBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { sendExport } from '../../core/export.js';
import { FORWARD_COLUMNS, forwardRows } from './device-forwards.js';
import { telephonyOf } from './telephony.js';

const Ok = dataResponse(z.boolean());
const WithQuerySchema = ListQuerySchema.pick({ with: true });

/**
 * Telephony (spec comms §7): virtual numbers, forward rules, SIP trunks, calls, interception, call
 * history and the SIP service. Fixed paths come before `/{id}` ones ("generate", "contacts",
 * "delete" are no ids).
 */
export async function telephonyRoutes(app: AppInstance): Promise<void> {
  const { numbers, forwardRules, calls, deviceForwards } = telephonyOf(app);

  // --- a door panel's forwards (spec entities §7) ---------------------------------------------
  const dev = ['devices'];
  app.get(
    '/devices/:id/forwards/settings',
    { schema: { tags: dev, params: IdParamsSchema, response: { 200: dataResponse(DeviceForwardsSchema) } } },
    async (req) => ({ data: await deviceForwards.of(req.actor, req.params.id) }),
  );
  app.get(
    '/devices/:id/forwards',
    {
      schema: {
        tags: dev,
        params: IdParamsSchema,
        querystring: DeviceForwardsExportQuerySchema,
        produces: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv'],
      },
    },
    async (req, reply) => {
      const forwards = await deviceForwards.of(req.actor, req.params.id);
      const rows = forwardRows(forwards);
      return sendExport(reply, {
        format: req.query.export_format,
        name: `device-${forwards.device_id}-forwards`,
        columns: FORWARD_COLUMNS,
        cell: (r, c) => r[c as (typeof FORWARD_COLUMNS)[number]],
        pages: (async function* () {
          yield rows;
        })(),
      });
    },
  );

  // --- virtual numbers ------------------------------------------------------------------------
  const vn = ['virtual numbers'];
  app.get(
    '/sip-numbers',
    { schema: { tags: vn, querystring: SipNumberListQuerySchema, response: { 200: listResponse(SipNumberSchema) } } },
    (req) => numbers.list(req.actor, req.query),
  );
  app.put(
    '/sip-numbers',
    { schema: { tags: vn, body: CreateSipNumberBodySchema, response: { 200: dataResponse(SipNumberSchema) } } },
    async (req) => ({
      data: await numbers.create(req.ctx, req.body),
    }),
  );
  app.post(
    '/sip-numbers/delete',
    { schema: { tags: vn, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await numbers.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get('/sip-numbers/generate', { schema: { tags: vn, response: { 200: dataResponse(GeneratedSipNumberSchema) } } }, async (req) => ({
    data: await numbers.generate(req.actor),
  }));
  app.get('/sip-numbers/contacts', { schema: { tags: vn, response: { 200: dataResponse(z.array(SipContactSchema)) } } }, async (req) => ({
    data: await numbers.contacts(req.actor),
  }));
  app.get(
    '/sip-numbers/:id',
    { schema: { tags: vn, params: IdParamsSchema, querystring: WithQuerySchema, response: { 200: dataResponse(SipNumberSchema) } } },
    async (req) => ({ data: await numbers.get(req.actor, req.params.id, req.query.with) }),
  );
  app.patch(
    '/sip-numbers/:id',
    { schema: { tags: vn, params: IdParamsSchema, body: UpdateSipNumberBodySchema, response: { 200: dataResponse(SipNumberSchema) } } },
    async (req) => ({ data: await numbers.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/sip-numbers/:id', { schema: { tags: vn, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await numbers.delete(req.ctx, req.params.id);
    return { data: true };
  });
  app.get(
    '/sip-numbers/:id/call-info',
    { schema: { tags: vn, params: IdParamsSchema, response: { 200: dataResponse(CallInfoSchema) } } },
    async (req) => ({ data: await numbers.callInfo(req.actor, req.params.id) }),
  );

  // --- forward rules --------------------------------------------------------------------------
  const fr = ['forward rules'];
  app.get(
    '/forward-rules',
    { schema: { tags: fr, querystring: ForwardGroupListQuerySchema, response: { 200: listResponse(ForwardGroupSchema) } } },
    (req) => forwardRules.listGroups(req.actor, req.query),
  );
  app.put(
    '/forward-rules',
    { schema: { tags: fr, body: CreateForwardGroupBodySchema, response: { 200: dataResponse(ForwardGroupSchema) } } },
    async (req) => ({ data: await forwardRules.createGroup(req.ctx, req.body) }),
  );
  app.post(
    '/forward-rules/delete',
    { schema: { tags: fr, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await forwardRules.bulkDeleteGroups(req.ctx, req.body.items) }),
  );
  app.get(
    '/forward-rules/:id',
    { schema: { tags: fr, params: IdParamsSchema, querystring: WithQuerySchema, response: { 200: dataResponse(ForwardGroupSchema) } } },
    async (req) => ({ data: await forwardRules.getGroup(req.actor, req.params.id, req.query.with) }),
  );
  app.patch(
    '/forward-rules/:id',
    {
      schema: { tags: fr, params: IdParamsSchema, body: UpdateForwardGroupBodySchema, response: { 200: dataResponse(ForwardGroupSchema) } },
    },
    async (req) => ({ data: await forwardRules.updateGroup(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/forward-rules/:id', { schema: { tags: fr, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await forwardRules.deleteGroup(req.ctx, req.params.id);
    return { data: true };
  });

  // --- SIP trunks -----------------------------------------------------------------------------
  const st = ['sip trunks'];
  app.get(
    '/sip-trunks',
    { schema: { tags: st, querystring: SipTrunkListQuerySchema, response: { 200: listResponse(SipTrunkSchema) } } },
    (req) => forwardRules.listTrunks(req.actor, req.query),
  );
  app.put(
    '/sip-trunks',
    { schema: { tags: st, body: CreateSipTrunkBodySchema, response: { 200: dataResponse(SipTrunkSchema) } } },
    async (req) => ({
      data: await forwardRules.createTrunk(req.ctx, req.body),
    }),
  );
  app.post(
    '/sip-trunks/delete',
    { schema: { tags: st, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await forwardRules.bulkDeleteTrunks(req.ctx, req.body.items) }),
  );
  app.get(
    '/sip-trunks/:id',
    { schema: { tags: st, params: IdParamsSchema, response: { 200: dataResponse(SipTrunkSchema) } } },
    async (req) => ({
      data: await forwardRules.getTrunk(req.actor, req.params.id),
    }),
  );
  app.patch(
    '/sip-trunks/:id',
    { schema: { tags: st, params: IdParamsSchema, body: UpdateSipTrunkBodySchema, response: { 200: dataResponse(SipTrunkSchema) } } },
    async (req) => ({ data: await forwardRules.updateTrunk(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/sip-trunks/:id', { schema: { tags: st, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await forwardRules.deleteTrunk(req.ctx, req.params.id);
    return { data: true };
  });

  // --- calls ----------------------------------------------------------------------------------
  const cl = ['calls'];
  app.get('/calls/management/list', { schema: { tags: cl, response: { 200: dataResponse(z.array(CallRecordSchema)) } } }, async (req) => ({
    data: await calls.activeCalls(req.actor),
  }));
  app.post('/calls/management/:id/stop', { schema: { tags: cl, params: CallIdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await calls.stopCall(req.ctx, req.params.id);
    return { data: true };
  });
  app.get(
    '/calls/management/devices',
    { schema: { tags: cl, response: { 200: dataResponse(z.array(ConciergeDeviceSchema)) } } },
    async (req) => ({ data: await calls.conciergeDevices(req.actor) }),
  );
  app.post(
    '/calls/management/devices/open/:token',
    { schema: { tags: cl, params: DeviceTokenParamsSchema, response: { 200: dataResponse(z.object({ queued: z.number() })) } } },
    async (req) => ({ data: await calls.openDoor(req.ctx, req.params.token) }),
  );
  app.get('/calls/interception', { schema: { tags: cl, response: { 200: dataResponse(InterceptionSchema) } } }, async (req) => ({
    data: await calls.interception(req.actor),
  }));
  app.post(
    '/calls/interception',
    { schema: { tags: cl, body: InterceptionBodySchema, response: { 200: dataResponse(InterceptionSchema) } } },
    async (req) => ({ data: await calls.setInterception(req.ctx, req.body) }),
  );
  app.get(
    '/calls/history/dialer/:number',
    {
      schema: {
        tags: cl,
        params: DialerNumberParamsSchema,
        querystring: DialerHistoryQuerySchema,
        response: { 200: listResponse(CallHistoryItemSchema) },
      },
    },
    (req) => calls.dialerHistory(req.actor, req.params.number, req.query),
  );
  app.get(
    '/calls/history/items',
    { schema: { tags: cl, querystring: CallHistoryListQuerySchema, response: { 200: listResponse(CallHistoryItemSchema) } } },
    (req) => calls.history(req.actor, req.query),
  );
  app.get('/calls/dialer/credentials', { schema: { tags: cl, response: { 200: dataResponse(DialerCredentialsSchema) } } }, async (req) => ({
    data: await calls.dialerCredentials(req.actor),
  }));

  // --- SIP service ----------------------------------------------------------------------------
  const sip = ['sip service'];
  app.get('/sip/status', { schema: { tags: sip, response: { 200: dataResponse(SipStatusSchema) } } }, async (req) => ({
    data: calls.sipStatus(req.actor),
  }));
  app.post('/sip/reinit', { schema: { tags: sip, response: { 200: dataResponse(SipStatusSchema) } } }, async (req) => ({
    data: await calls.sipReinit(req.ctx),
  }));
  app.post(
    '/sip/restart-instance',
    { schema: { tags: sip, body: RestartSipInstanceBodySchema, response: { 200: dataResponse(SipStatusSchema) } } },
    async (req) => ({ data: await calls.sipRestartInstance(req.ctx, req.body) }),
  );
}
