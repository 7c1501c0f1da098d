import {
  ApiKeyListQuerySchema,
  ApiKeySchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

/** API keys (issue 14): list, create (the key is in this one answer), read, revoke, delete. */
export async function apiKeysRoutes(app: AppInstance): Promise<void> {
  const { apiKeys } = app.services;
  const tags = ['api-keys'];
  app.get('/api-keys', { schema: { tags, querystring: ApiKeyListQuerySchema, response: { 200: listResponse(ApiKeySchema) } } }, (req) =>
    apiKeys.list(req.actor, req.query),
  );
  app.put(
    '/api-keys',
    { schema: { tags, body: CreateApiKeyBodySchema, response: { 200: dataResponse(CreatedApiKeySchema) } } },
    async (req) => ({
      data: await apiKeys.create(req.ctx, req.body),
    }),
  );
  app.get('/api-keys/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(ApiKeySchema) } } }, async (req) => ({
    data: await apiKeys.get(req.actor, req.params.id),
  }));
  app.post(
    '/api-keys/:id/revoke',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(ApiKeySchema) } } },
    async (req) => ({
      data: await apiKeys.revoke(req.ctx, req.params.id),
    }),
  );
  app.delete('/api-keys/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await apiKeys.delete(req.ctx, req.params.id);
    return { data: true };
  });
}
