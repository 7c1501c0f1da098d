import {
  AnnounceAnswerBodySchema,
  AnnounceListQuerySchema,
  AnnounceResponseSchema,
  AnnounceResponsesDownloadQuerySchema,
  AnnounceResponsesQuerySchema,
  AnnounceSchema,
  AnnounceTokenParamsSchema,
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateAnnounceBodySchema,
  dataResponse,
  IdParamsSchema,
  ListQuerySchema,
  listResponse,
  PublicAnnounceSchema,
  UpdateAnnounceBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { sendExport } from '../../core/export.js';

const GetQuerySchema = ListQuerySchema.pick({ with: true });

/**
 * Announces and polls (spec comms §7): /announcements CRUD and bulk delete, start, stop, send poll,
 * responses and their download; the recipient's page by token needs no sign-in (the token is the key).
 * Fixed paths (delete, responses, token) are declared before /announcements/:id.
 */
export async function announcesRoutes(app: AppInstance): Promise<void> {
  const { announces } = app.services;
  const tags = ['announces'];
  const item = { 200: dataResponse(AnnounceSchema) };

  app.get(
    '/announcements',
    { schema: { tags, querystring: AnnounceListQuerySchema, response: { 200: listResponse(AnnounceSchema) } } },
    (req) => announces.list(req.actor, req.query),
  );
  app.put('/announcements', { schema: { tags, body: CreateAnnounceBodySchema, response: item } }, async (req) => ({
    data: await announces.create(req.ctx, req.body),
  }));
  app.post(
    '/announcements/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await announces.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get(
    '/announcements/responses',
    { schema: { tags, querystring: AnnounceResponsesQuerySchema, response: { 200: listResponse(AnnounceResponseSchema) } } },
    (req) => announces.responses(req.actor, req.query),
  );
  app.get(
    '/announcements/responses/download',
    { schema: { tags, querystring: AnnounceResponsesDownloadQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) => {
      const { columns, rows } = await announces.responsePages(req.actor, req.query.announce_id);
      return sendExport(reply, {
        format: req.query.export_format,
        name: `announce-${req.query.announce_id}-responses`,
        columns,
        cell: (r: Record<string, unknown>, c) => r[c],
        pages: rows,
      });
    },
  );
  app.get(
    '/announcements/token/:token',
    {
      config: { public: true, rateLimit: { max: 60, timeWindow: '1 minute' } },
      schema: { tags, params: AnnounceTokenParamsSchema, response: { 200: dataResponse(PublicAnnounceSchema) } },
    },
    async (req) => ({ data: await announces.byToken(req.params.token) }),
  );
  app.put(
    '/announcements/token/:token',
    {
      config: { public: true, rateLimit: { max: 20, timeWindow: '1 minute' } },
      schema: {
        tags,
        params: AnnounceTokenParamsSchema,
        body: AnnounceAnswerBodySchema,
        response: { 200: dataResponse(PublicAnnounceSchema) },
      },
    },
    async (req) => ({ data: await announces.answer(req.params.token, req.body) }),
  );
  app.get('/announcements/:id', { schema: { tags, params: IdParamsSchema, querystring: GetQuerySchema, response: item } }, async (req) => ({
    data: await announces.get(req.actor, req.params.id, req.query.with),
  }));
  app.patch(
    '/announcements/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateAnnounceBodySchema, response: item } },
    async (req) => ({
      data: await announces.update(req.ctx, req.params.id, req.body),
    }),
  );
  app.delete(
    '/announcements/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await announces.delete(req.ctx, req.params.id);
      return { data: true };
    },
  );
  app.post('/announcements/:id/start', { schema: { tags, params: IdParamsSchema, response: item } }, async (req) => ({
    data: await announces.start(req.ctx, req.params.id),
  }));
  app.post('/announcements/:id/stop', { schema: { tags, params: IdParamsSchema, response: item } }, async (req) => ({
    data: await announces.stop(req.ctx, req.params.id),
  }));
  app.post('/announcements/:id/send-poll', { schema: { tags, params: IdParamsSchema, response: item } }, async (req) => ({
    data: await announces.sendPoll(req.ctx, req.params.id),
  }));
}
