import {
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  ConversationListQuerySchema,
  ConversationMessageBodySchema,
  ConversationMessageSchema,
  ConversationMessagesAnswerSchema,
  ConversationMessagesQuerySchema,
  ConversationRecipientSchema,
  ConversationRecipientsQuerySchema,
  ConversationSchema,
  ConversationUnreadSchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  StartConversationBodySchema,
  UpdateConversationBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { ConversationsRepository } from './conversations.repository.js';
import { ConversationsService } from './conversations.service.js';

// Keyed by the shared services: a plugin's encapsulated instance is another object than the app.
const built = new WeakMap<object, ConversationsService>();

/** The conversations service of one app, built once from its shared decorations. */
export function conversationsOf(app: AppInstance): ConversationsService {
  const known = built.get(app.services);
  if (known) return known;
  const service = new ConversationsService(new ConversationsRepository(app.database.db), app.realtime, () => app.services.push.wake());
  built.set(app.services, service);
  return service;
}

/**
 * Conversations (spec comms §7): recipients, list, get, messages by before_date, start, reply, delete
 * and bulk delete. Fixed paths come before `/{id}` ones ("recipients", "unread", "delete" are no ids).
 */
export async function conversationsRoutes(app: AppInstance): Promise<void> {
  const conversations = conversationsOf(app);
  const tags = ['conversations'];

  app.get(
    '/conversations/recipients',
    { schema: { tags, querystring: ConversationRecipientsQuerySchema, response: { 200: listResponse(ConversationRecipientSchema) } } },
    (req) => conversations.recipients(req.actor, req.query),
  );
  app.get('/conversations/unread', { schema: { tags, response: { 200: dataResponse(ConversationUnreadSchema) } } }, async (req) => ({
    data: await conversations.unread(req.actor),
  }));
  app.get(
    '/conversations',
    { schema: { tags, querystring: ConversationListQuerySchema, response: { 200: listResponse(ConversationSchema) } } },
    (req) => conversations.list(req.actor, req.query),
  );
  // Starting, writing and reading touch no table a cached read depends on (app.ts keepsReadCache).
  app.put(
    '/conversations',
    {
      config: { keepsReadCache: true },
      schema: { tags, body: StartConversationBodySchema, response: { 200: dataResponse(ConversationSchema) } },
    },
    async (req) => ({ data: await conversations.start(req.ctx, req.body) }),
  );
  app.post(
    '/conversations/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await conversations.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get(
    '/conversations/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(ConversationSchema) } } },
    async (req) => ({
      data: await conversations.get(req.actor, req.params.id),
    }),
  );
  app.patch(
    '/conversations/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateConversationBodySchema, response: { 200: dataResponse(ConversationSchema) } } },
    async (req) => ({ data: await conversations.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete(
    '/conversations/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await conversations.delete(req.ctx, req.params.id);
      return { data: true };
    },
  );
  app.get(
    '/conversations/:id/messages',
    {
      schema: {
        tags,
        params: IdParamsSchema,
        querystring: ConversationMessagesQuerySchema,
        response: { 200: ConversationMessagesAnswerSchema },
      },
    },
    (req) => conversations.messages(req.actor, req.params.id, req.query),
  );
  app.put(
    '/conversations/:id/messages',
    {
      config: { keepsReadCache: true },
      schema: {
        tags,
        params: IdParamsSchema,
        body: ConversationMessageBodySchema,
        response: { 200: dataResponse(ConversationMessageSchema) },
      },
    },
    async (req) => ({ data: await conversations.write(req.ctx, req.params.id, req.body) }),
  );
  app.post(
    '/conversations/:id/read',
    {
      config: { keepsReadCache: true },
      schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.object({ unread_count: z.number().int() })) } },
    },
    async (req) => ({ data: await conversations.markRead(req.ctx, req.params.id) }),
  );
}
