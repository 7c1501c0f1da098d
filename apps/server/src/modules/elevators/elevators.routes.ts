import {
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CallElevatorBodySchema,
  CreateElevatorBodySchema,
  CreateElevatorRuleBodySchema,
  type DeviceEvent,
  DeviceEventDownloadQuerySchema,
  DeviceEventListQuerySchema,
  DeviceEventSchema,
  dataResponse,
  ElevatorListQuerySchema,
  ElevatorRuleSchema,
  ElevatorSchema,
  FloorInfoSchema,
  FloorsQuerySchema,
  IdParamsSchema,
  listResponse,
  UpdateElevatorBodySchema,
  UpdateElevatorRuleBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { sendExport } from '../../core/export.js';
import { declareLicense } from '../../core/license-guard.js';

const Ok = dataResponse(z.boolean());
const EVENT_COLUMNS = ['id', 'occurred_at', 'received_at', 'device_id', 'device_name', 'type', 'identifier', 'data'] as const;

/** Elevators, calls, elevator events and elevator access rules (before /elevators/:id: "events" and "access-rules" are no ids). */
export async function elevatorsRoutes(app: AppInstance): Promise<void> {
  const { elevators, devices } = app.services;
  const tags = ['elevators'];
  declareLicense(app, 'elevator');

  app.get(
    '/elevators/events',
    { schema: { tags, querystring: DeviceEventListQuerySchema, response: { 200: listResponse(DeviceEventSchema) } } },
    async (req) => devices.listEvents(req.actor, req.query, await elevators.controllerIds(req.actor)),
  );
  app.get(
    '/elevators/events/download',
    { schema: { tags, querystring: DeviceEventDownloadQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) =>
      sendExport(reply, {
        format: req.query.export_format,
        name: 'elevator-events',
        columns: EVENT_COLUMNS,
        cell: (e: DeviceEvent, c) => (c === 'data' ? JSON.stringify(e.data) : e[c as keyof DeviceEvent]),
        pages: await devices.eventPages(req.actor, req.query, await elevators.controllerIds(req.actor)),
      }),
  );

  const rules = ['elevator access rules'];
  app.get(
    '/elevators/access-rules',
    { schema: { tags: rules, querystring: ElevatorListQuerySchema, response: { 200: listResponse(ElevatorRuleSchema) } } },
    (req) => elevators.listRules(req.actor, req.query),
  );
  app.put(
    '/elevators/access-rules',
    { schema: { tags: rules, body: CreateElevatorRuleBodySchema, response: { 200: dataResponse(ElevatorRuleSchema) } } },
    async (req) => ({
      data: await elevators.createRule(req.ctx, req.body),
    }),
  );
  app.post(
    '/elevators/access-rules/delete',
    { schema: { tags: rules, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await elevators.bulkDeleteRules(req.ctx, req.body.items) }),
  );
  app.get(
    '/elevators/access-rules/:id',
    { schema: { tags: rules, params: IdParamsSchema, response: { 200: dataResponse(ElevatorRuleSchema) } } },
    async (req) => ({
      data: await elevators.getRule(req.actor, req.params.id),
    }),
  );
  app.patch(
    '/elevators/access-rules/:id',
    {
      schema: {
        tags: rules,
        params: IdParamsSchema,
        body: UpdateElevatorRuleBodySchema,
        response: { 200: dataResponse(ElevatorRuleSchema) },
      },
    },
    async (req) => ({ data: await elevators.updateRule(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/elevators/access-rules/:id', { schema: { tags: rules, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await elevators.deleteRule(req.ctx, req.params.id);
    return { data: true };
  });

  app.get(
    '/elevators',
    { schema: { tags, querystring: ElevatorListQuerySchema, response: { 200: listResponse(ElevatorSchema) } } },
    (req) => elevators.list(req.actor, req.query),
  );
  app.put(
    '/elevators',
    { schema: { tags, body: CreateElevatorBodySchema, response: { 200: dataResponse(ElevatorSchema) } } },
    async (req) => ({
      data: await elevators.create(req.ctx, req.body),
    }),
  );
  app.post(
    '/elevators/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await elevators.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get('/elevators/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(ElevatorSchema) } } }, async (req) => ({
    data: await elevators.get(req.actor, req.params.id),
  }));
  app.patch(
    '/elevators/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateElevatorBodySchema, response: { 200: dataResponse(ElevatorSchema) } } },
    async (req) => ({ data: await elevators.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/elevators/:id', { schema: { tags, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await elevators.delete(req.ctx, req.params.id);
    return { data: true };
  });
  app.get(
    '/elevators/:id/floors',
    { schema: { tags, params: IdParamsSchema, querystring: FloorsQuerySchema, response: { 200: dataResponse(z.array(FloorInfoSchema)) } } },
    async (req) => ({ data: await elevators.floors(req.actor, req.params.id, req.query.mode) }),
  );
  app.post(
    '/elevators/:id/call',
    {
      schema: {
        tags,
        params: IdParamsSchema,
        body: CallElevatorBodySchema,
        response: { 200: dataResponse(z.object({ queued: z.number() })) },
      },
    },
    async (req) => ({ data: await elevators.call(req.ctx, req.params.id, req.body) }),
  );
}
