import { dataResponse, IdParamsSchema, listResponse, OutboxListQuerySchema, OutboxMailSchema } from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { OutboxRepository } from './outbox.repository.js';
import { OutboxService } from './outbox.service.js';

/** The project's outbox: mail kept for lack of SMTP or not sent yet, with retry and delete. */
export async function outboxRoutes(app: AppInstance): Promise<void> {
  const db = app.database.db;
  const outbox = new OutboxService(db, new OutboxRepository(db), app.services.mailer);
  const tags = ['outbox'];

  app.get('/outbox', { schema: { tags, querystring: OutboxListQuerySchema, response: { 200: listResponse(OutboxMailSchema) } } }, (req) =>
    outbox.list(req.actor, req.query),
  );

  app.post(
    '/outbox/:id/retry',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(OutboxMailSchema) } } },
    async (req) => ({ data: await outbox.retry(req.ctx, req.params.id) }),
  );

  app.delete('/outbox/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await outbox.delete(req.ctx, req.params.id);
    return { data: true };
  });
}
