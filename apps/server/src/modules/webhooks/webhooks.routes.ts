import {
  CreateWebhookBodySchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  UpdateWebhookBodySchema,
  WebhookDeliveryDetailSchema,
  WebhookDeliveryListQuerySchema,
  WebhookDeliveryParamsSchema,
  WebhookDeliverySchema,
  WebhookListQuerySchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

/** Webhooks (issue 14): endpoints, their secret, a test ping, the delivery log and redelivery. */
export async function webhooksRoutes(app: AppInstance): Promise<void> {
  const { webhooks } = app.services;
  const tags = ['webhooks'];
  app.get('/webhooks', { schema: { tags, querystring: WebhookListQuerySchema, response: { 200: listResponse(WebhookSchema) } } }, (req) =>
    webhooks.list(req.actor, req.query),
  );
  app.put(
    '/webhooks',
    { schema: { tags, body: CreateWebhookBodySchema, response: { 200: dataResponse(WebhookWithSecretSchema) } } },
    async (req) => ({
      data: await webhooks.create(req.ctx, req.body),
    }),
  );
  app.get('/webhooks/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(WebhookSchema) } } }, async (req) => ({
    data: await webhooks.get(req.actor, req.params.id),
  }));
  app.patch(
    '/webhooks/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateWebhookBodySchema, response: { 200: dataResponse(WebhookSchema) } } },
    async (req) => ({ data: await webhooks.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/webhooks/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await webhooks.delete(req.ctx, req.params.id);
    return { data: true };
  });
  app.post(
    '/webhooks/:id/rotate-secret',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(WebhookWithSecretSchema) } } },
    async (req) => ({ data: await webhooks.rotateSecret(req.ctx, req.params.id) }),
  );
  app.post(
    '/webhooks/:id/ping',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(WebhookDeliverySchema) } } },
    async (req) => ({
      data: await webhooks.ping(req.ctx, req.params.id),
    }),
  );
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        params: IdParamsSchema,
        querystring: WebhookDeliveryListQuerySchema,
        response: { 200: listResponse(WebhookDeliverySchema) },
      },
    },
    (req) => webhooks.deliveries(req.actor, req.params.id, req.query),
  );
  app.get(
    '/webhooks/:id/deliveries/:deliveryId',
    { schema: { tags, params: WebhookDeliveryParamsSchema, response: { 200: dataResponse(WebhookDeliveryDetailSchema) } } },
    async (req) => ({ data: await webhooks.delivery(req.actor, req.params.id, req.params.deliveryId) }),
  );
  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    { schema: { tags, params: WebhookDeliveryParamsSchema, response: { 200: dataResponse(WebhookDeliverySchema) } } },
    async (req) => ({ data: await webhooks.redeliver(req.ctx, req.params.id, req.params.deliveryId) }),
  );
}
