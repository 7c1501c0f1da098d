import {
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateMarkerBodySchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  MarkerListQuerySchema,
  MarkerSchema,
  UpdateMarkerBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

/** Markers: /markers CRUD and bulk delete. */
export async function markersRoutes(app: AppInstance): Promise<void> {
  const { markers } = app.services;
  const tags = ['markers'];
  app.get('/markers', { schema: { tags, querystring: MarkerListQuerySchema, response: { 200: listResponse(MarkerSchema) } } }, (req) =>
    markers.list(req.actor, req.query),
  );
  app.put('/markers', { schema: { tags, body: CreateMarkerBodySchema, response: { 200: dataResponse(MarkerSchema) } } }, async (req) => ({
    data: await markers.create(req.ctx, req.body),
  }));
  app.post(
    '/markers/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await markers.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get('/markers/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(MarkerSchema) } } }, async (req) => ({
    data: await markers.get(req.actor, req.params.id),
  }));
  app.patch(
    '/markers/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateMarkerBodySchema, response: { 200: dataResponse(MarkerSchema) } } },
    async (req) => ({ data: await markers.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/markers/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await markers.delete(req.ctx, req.params.id);
    return { data: true };
  });
}
