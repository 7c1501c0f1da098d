import {
  AddFoundDevicesBodySchema,
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateDeviceBodySchema,
  DEVICE_TYPES,
  type DeviceEvent,
  DeviceEventDownloadQuerySchema,
  DeviceEventListQuerySchema,
  DeviceEventSchema,
  DeviceInitBodySchema,
  DeviceInitResultSchema,
  DeviceListQuerySchema,
  DeviceSchema,
  DeviceSearchBodySchema,
  DeviceTaskListQuerySchema,
  DeviceTaskSchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  VALIDATION_MESSAGES as M,
  RawDeviceSchema,
  RemoteControlBodySchema,
  RemoteControlSessionSchema,
  RemoteInputBodySchema,
  SessionParamsSchema,
  SetProtocolBodySchema,
  SyncErrorsSchema,
  TaskEntitySchema,
  UpdateDeviceBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';
import { sendExport } from '../../core/export.js';
import { devicesPageJson } from './devices.service.js';

const Ok = dataResponse(z.boolean());
const RawQuery = z.object({ type: z.enum(DEVICE_TYPES).optional() });

const EVENT_COLUMNS = ['id', 'occurred_at', 'received_at', 'device_id', 'device_name', 'type', 'identifier', 'data'] as const;
const cell = (e: DeviceEvent, c: (typeof EVENT_COLUMNS)[number]) => (c === 'data' ? JSON.stringify(e.data) : (e[c] ?? ''));

export async function devicesRoutes(app: AppInstance): Promise<void> {
  const { devices } = app.services;
  const tags = ['devices'];

  app.get(
    '/devices',
    {
      schema: { tags, querystring: DeviceListQuerySchema, response: { 200: listResponse(DeviceSchema) } },
      // The answer is built key by key by toDevice, in the contract's order and with nothing else, its
      // settings already parsed by their schema: encoding every page's devices through zod again on the
      // way out was the largest share of the route's own CPU. devices.list.test.ts checks that the text
      // is exactly what the schema gives. Each settings object shared by many devices is encoded once.
      serializerCompiler: () => (data) => devicesPageJson(data as Parameters<typeof devicesPageJson>[0]),
    },
    (req) => devices.list(req.actor, req.query),
  );

  app.get(
    '/devices/raw',
    { schema: { tags, querystring: RawQuery, response: { 200: dataResponse(z.array(RawDeviceSchema)) } } },
    async (req) => ({ data: await devices.raw(req.actor, req.query.type) }),
  );

  app.put('/devices', { schema: { tags, body: CreateDeviceBodySchema, response: { 200: dataResponse(DeviceSchema) } } }, async (req) => ({
    data: await devices.create(req.ctx, req.body),
  }));

  app.post(
    '/devices/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await devices.bulkDelete(req.ctx, req.body.items) }),
  );

  // --- tasks (before /devices/:id so "tasks" is never read as an id) -------------------------------
  app.get(
    '/devices/tasks',
    { schema: { tags, querystring: DeviceTaskListQuerySchema, response: { 200: listResponse(DeviceTaskSchema) } } },
    (req) => devices.listTasks(req.actor, req.query),
  );
  app.delete('/devices/tasks/:id', { schema: { tags, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await devices.deleteTask(req.ctx, req.params.id);
    return { data: true };
  });
  app.post(
    '/devices/tasks/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await devices.bulkDeleteTasks(req.ctx, req.body.items) }),
  );
  app.post(
    '/devices/tasks/:id/restart',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(DeviceTaskSchema) } } },
    async (req) => ({ data: await devices.restartTask(req.ctx, req.params.id) }),
  );
  app.post(
    '/devices/tasks/:id/reinit',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(DeviceTaskSchema) } } },
    async (req) => ({ data: await devices.reinitTask(req.ctx, req.params.id) }),
  );
  app.get(
    '/devices/tasks/:id/entities',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.array(TaskEntitySchema)) } } },
    async (req) => ({ data: await devices.taskEntities(req.actor, req.params.id) }),
  );

  // --- events ------------------------------------------------------------------------------------
  app.get(
    '/devices/events',
    { schema: { tags, querystring: DeviceEventListQuerySchema, response: { 200: listResponse(DeviceEventSchema) } } },
    (req) => devices.listEvents(req.actor, req.query),
  );
  app.get(
    '/devices/events/download',
    { schema: { tags, querystring: DeviceEventDownloadQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) => {
      return sendExport(reply, {
        format: req.query.export_format,
        name: 'device-events',
        columns: EVENT_COLUMNS,
        cell: (e: DeviceEvent, c) => cell(e, c as (typeof EVENT_COLUMNS)[number]),
        pages: await devices.eventPages(req.actor, req.query),
      });
    },
  );

  // --- remote control, IP search, found devices, backup import -----------------------------------
  app.put(
    '/devices/remote-control',
    { schema: { tags, body: RemoteControlBodySchema, response: { 200: dataResponse(RemoteControlSessionSchema) } } },
    async (req) => ({ data: await devices.startRemoteControl(req.ctx, req.body) }),
  );
  app.patch(
    '/devices/remote-control/:session',
    { schema: { tags, params: SessionParamsSchema, response: { 200: dataResponse(RemoteControlSessionSchema) } } },
    async (req) => ({ data: await devices.keepRemoteControl(req.ctx, req.params.session) }),
  );
  app.delete('/devices/remote-control/:session', { schema: { tags, params: SessionParamsSchema, response: { 200: Ok } } }, async (req) => {
    await devices.endRemoteControl(req.ctx, req.params.session);
    return { data: true };
  });
  app.post(
    '/devices/remote-control/:session/input',
    { schema: { tags, params: SessionParamsSchema, body: RemoteInputBodySchema, response: { 200: Ok } } },
    async (req) => {
      await devices.remoteInput(req.ctx, req.params.session, req.body);
      return { data: true };
    },
  );
  app.post(
    '/devices/search',
    {
      schema: {
        tags,
        body: DeviceSearchBodySchema,
        response: { 200: dataResponse(z.object({ request_id: z.string(), addresses: z.number() })) },
      },
    },
    async (req) => ({ data: await devices.search(req.ctx, req.body) }),
  );
  app.put(
    '/devices/found',
    {
      schema: {
        tags,
        body: AddFoundDevicesBodySchema,
        response: {
          200: dataResponse(
            z.object({
              created: z.array(DeviceSchema),
              not_created: z.array(z.object({ serial_number: z.string(), message: z.string(), code: z.string() })),
            }),
          ),
        },
      },
    },
    async (req) => ({ data: await devices.addFound(req.ctx, req.body.items) }),
  );
  app.post(
    '/devices/backup/import',
    { schema: { tags, consumes: ['multipart/form-data'], response: { 200: dataResponse(DeviceTaskSchema) } } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'file', message: M.required }]);
      let file: Buffer | undefined;
      for await (const part of req.parts()) {
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'file') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: M.unknown_field }]);
        file = await part.toBuffer();
      }
      if (!file) throw new AppError('wrong_file_body', [{ field: 'file', message: M.required }]);
      return { data: await devices.importBackup(req.ctx, file) };
    },
  );

  // --- one device --------------------------------------------------------------------------------
  app.get('/devices/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(DeviceSchema) } } }, async (req) => ({
    data: await devices.get(req.actor, req.params.id),
  }));

  app.patch(
    '/devices/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateDeviceBodySchema, response: { 200: dataResponse(DeviceSchema) } } },
    async (req) => ({ data: await devices.update(req.ctx, req.params.id, req.body) }),
  );

  app.delete('/devices/:id', { schema: { tags, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await devices.delete(req.ctx, req.params.id);
    return { data: true };
  });

  app.post(
    '/devices/:id/settings/apply',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(DeviceTaskSchema) } } },
    async (req) => ({ data: await devices.sendSettings(req.ctx, req.params.id) }),
  );

  app.post(
    '/devices/:id/init/apply',
    { schema: { tags, params: IdParamsSchema, body: DeviceInitBodySchema, response: { 200: dataResponse(DeviceInitResultSchema) } } },
    async (req) => ({ data: await devices.init(req.ctx, req.params.id, req.body.password) }),
  );

  app.post(
    '/devices/:id/protocol',
    { schema: { tags, params: IdParamsSchema, body: SetProtocolBodySchema, response: { 200: dataResponse(DeviceSchema) } } },
    async (req) => ({ data: await devices.setProtocol(req.ctx, req.params.id, req.body.protocol) }),
  );

  app.get(
    '/devices/:id/sync-errors',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(SyncErrorsSchema) } } },
    async (req) => ({ data: await devices.syncErrors(req.actor, req.params.id) }),
  );
}
