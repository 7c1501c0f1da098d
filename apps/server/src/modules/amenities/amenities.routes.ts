import {
  AmenityListQuerySchema,
  AmenitySchema,
  AmenityStateParamsSchema,
  AmenityStateQuerySchema,
  AmenityStateSchema,
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateAmenityBodySchema,
  CreateReservationBodySchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  ReservationListQuerySchema,
  ReservationLogSchema,
  ReservationLogsQuerySchema,
  ReservationSchema,
  UpdateAmenityBodySchema,
  UpdateReservationBodySchema,
} from '@atrium/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';
import { declareLicense } from '../../core/license-guard.js';

/** The one file of a multipart body, in the field `file`; a larger one than the limit is refused while read. */
async function oneFile(req: FastifyRequest, limit: number): Promise<Buffer> {
  if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
  let data: Buffer | undefined;
  for await (const part of req.parts({ limits: { fileSize: limit + 1, files: 1 } })) {
    if (part.type !== 'file') continue;
    if (part.fieldname !== 'file') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
    data = await part.toBuffer();
    if (part.file.truncated || data.length > limit) throw new AppError('payload_too_large', [{ field: 'file', max: limit }]);
  }
  if (!data?.length) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
  return data;
}

/** Amenities (/amenities) and their reservations (/amenities/reservations), spec comms §7. */
export async function amenitiesRoutes(app: AppInstance): Promise<void> {
  const { amenities, reservations } = app.services;
  const tags = ['amenities'];
  declareLicense(app, 'amenity');
  const rtags = ['amenity reservations'];
  const FILE_LIMIT = 5 * 1024 * 1024;

  // --- reservations (static segments before /amenities/:id) ---
  app.get(
    '/amenities/reservations',
    { schema: { tags: rtags, querystring: ReservationListQuerySchema, response: { 200: listResponse(ReservationSchema) } } },
    (req) => reservations.list(req.actor, req.query),
  );
  app.put(
    '/amenities/reservations',
    { schema: { tags: rtags, body: CreateReservationBodySchema, response: { 200: dataResponse(ReservationSchema) } } },
    async (req) => ({ data: await reservations.create(req.ctx, req.body) }),
  );
  app.post(
    '/amenities/reservations/delete',
    { schema: { tags: rtags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await reservations.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get(
    '/amenities/reservations/:id',
    { schema: { tags: rtags, params: IdParamsSchema, response: { 200: dataResponse(ReservationSchema) } } },
    async (req) => ({ data: await reservations.get(req.actor, req.params.id) }),
  );
  app.patch(
    '/amenities/reservations/:id',
    {
      schema: {
        tags: rtags,
        params: IdParamsSchema,
        body: UpdateReservationBodySchema,
        response: { 200: dataResponse(ReservationSchema) },
      },
    },
    async (req) => ({ data: await reservations.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete(
    '/amenities/reservations/:id',
    { schema: { tags: rtags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await reservations.delete(req.ctx, req.params.id);
      return { data: true };
    },
  );
  app.post(
    '/amenities/reservations/:id/cancel',
    { schema: { tags: rtags, params: IdParamsSchema, response: { 200: dataResponse(ReservationSchema) } } },
    async (req) => ({ data: await reservations.cancel(req.ctx, req.params.id) }),
  );
  app.get(
    '/amenities/reservations/:id/logs',
    {
      schema: {
        tags: rtags,
        params: IdParamsSchema,
        querystring: ReservationLogsQuerySchema,
        response: { 200: listResponse(ReservationLogSchema) },
      },
    },
    (req) => reservations.logs(req.actor, req.params.id, req.query),
  );

  // --- amenities ---
  app.get('/amenities', { schema: { tags, querystring: AmenityListQuerySchema, response: { 200: listResponse(AmenitySchema) } } }, (req) =>
    amenities.list(req.actor, req.query),
  );
  app.put(
    '/amenities',
    { schema: { tags, body: CreateAmenityBodySchema, response: { 200: dataResponse(AmenitySchema) } } },
    async (req) => ({
      data: await amenities.create(req.ctx, req.body),
    }),
  );
  app.post(
    '/amenities/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await amenities.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get('/amenities/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(AmenitySchema) } } }, async (req) => ({
    data: await amenities.get(req.actor, req.params.id),
  }));
  app.patch(
    '/amenities/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateAmenityBodySchema, response: { 200: dataResponse(AmenitySchema) } } },
    async (req) => ({ data: await amenities.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/amenities/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await amenities.delete(req.ctx, req.params.id);
    return { data: true };
  });
  app.get(
    '/amenities/:id/state/:date',
    {
      schema: {
        tags,
        params: AmenityStateParamsSchema,
        querystring: AmenityStateQuerySchema,
        response: { 200: dataResponse(AmenityStateSchema) },
      },
    },
    async (req) => ({
      data: await amenities.state(req.actor, req.params.id, req.params.date, req.query.user_offset, req.query.except ?? null),
    }),
  );
  // The image (PNG, JPEG, GIF, WebP) and the terms of use (PDF): multipart `file`, at most 5 MB.
  for (const kind of ['image', 'terms-of-use'] as const) {
    app.post(
      `/amenities/:id/${kind}`,
      { schema: { tags, params: IdParamsSchema, consumes: ['multipart/form-data'], response: { 200: dataResponse(AmenitySchema) } } },
      async (req) => ({ data: await amenities.setFile(req.ctx, req.params.id, kind, await oneFile(req, FILE_LIMIT)) }),
    );
    app.delete(
      `/amenities/:id/${kind}`,
      { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(AmenitySchema) } } },
      async (req) => ({
        data: await amenities.removeFile(req.ctx, req.params.id, kind),
      }),
    );
  }
}
