import {
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CallHistoryItemSchema,
  DeviceAlarmListQuerySchema,
  DeviceAlarmLogSchema,
  DeviceAlarmSchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  ProcessAlarmBodySchema,
  SosCallListQuerySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

/**
 * Device alarms (spec comms §7): /alarms list, get, process, logs, delete and bulk delete, and the
 * SOS call history at /alarms/calls. Fixed paths come before `/{id}` ones.
 */
export async function alarmsRoutes(app: AppInstance): Promise<void> {
  const { alarms } = app.services;
  const tags = ['alarms'];
  app.get(
    '/alarms',
    { schema: { tags, querystring: DeviceAlarmListQuerySchema, response: { 200: listResponse(DeviceAlarmSchema) } } },
    (req) => alarms.list(req.actor, req.query),
  );
  app.get(
    '/alarms/calls',
    { schema: { tags, querystring: SosCallListQuerySchema, response: { 200: listResponse(CallHistoryItemSchema) } } },
    (req) => alarms.sosCalls(req.actor, req.query),
  );
  app.post(
    '/alarms/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await alarms.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get('/alarms/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(DeviceAlarmSchema) } } }, async (req) => ({
    data: await alarms.get(req.actor, req.params.id),
  }));
  app.get(
    '/alarms/:id/logs',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.array(DeviceAlarmLogSchema)) } } },
    async (req) => ({ data: await alarms.logs(req.actor, req.params.id) }),
  );
  app.post(
    '/alarms/:id/process',
    { schema: { tags, params: IdParamsSchema, body: ProcessAlarmBodySchema, response: { 200: dataResponse(DeviceAlarmSchema) } } },
    async (req) => ({ data: await alarms.process(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/alarms/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await alarms.delete(req.ctx, req.params.id);
    return { data: true };
  });
}
