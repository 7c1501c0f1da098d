import {
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateMailTemplateBodySchema,
  dataResponse,
  IdParamsSchema,
  MailPreviewSchema,
  MailTemplateListQuerySchema,
  MailTemplatePreviewBodySchema,
  MailTemplateSchema,
  MailTemplateSendPreviewBodySchema,
  MailTemplateTypeSchema,
  UpdateMailTemplateBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

/** Mail templates (issue 14): /mail-templates list, CRUD, bulk delete, types, preview and send-preview. */
export async function mailTemplatesRoutes(app: AppInstance): Promise<void> {
  const { mailTemplates } = app.services;
  const tags = ['mail-templates'];
  app.get(
    '/mail-templates',
    { schema: { tags, querystring: MailTemplateListQuerySchema, response: { 200: dataResponse(z.array(MailTemplateSchema)) } } },
    async (req) => ({ data: await mailTemplates.list(req.actor, req.query) }),
  );
  app.get('/mail-templates/types', { schema: { tags, response: { 200: dataResponse(z.array(MailTemplateTypeSchema)) } } }, async () => ({
    data: mailTemplates.types(),
  }));
  app.put(
    '/mail-templates',
    { schema: { tags, body: CreateMailTemplateBodySchema, response: { 200: dataResponse(MailTemplateSchema) } } },
    async (req) => ({ data: await mailTemplates.create(req.ctx, req.body) }),
  );
  app.post(
    '/mail-templates/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await mailTemplates.bulkDelete(req.ctx, req.body.items) }),
  );
  app.post(
    '/mail-templates/preview',
    { schema: { tags, body: MailTemplatePreviewBodySchema, response: { 200: dataResponse(MailPreviewSchema) } } },
    async (req) => ({ data: await mailTemplates.preview(req.actor, req.body) }),
  );
  app.post(
    '/mail-templates/send-preview',
    { schema: { tags, body: MailTemplateSendPreviewBodySchema, response: { 200: dataResponse(MailPreviewSchema) } } },
    async (req) => ({ data: await mailTemplates.sendPreview(req.ctx, req.body) }),
  );
  app.get(
    '/mail-templates/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(MailTemplateSchema) } } },
    async (req) => ({
      data: await mailTemplates.get(req.actor, req.params.id),
    }),
  );
  app.patch(
    '/mail-templates/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateMailTemplateBodySchema, response: { 200: dataResponse(MailTemplateSchema) } } },
    async (req) => ({ data: await mailTemplates.update(req.ctx, req.params.id, req.body) }),
  );
  app.delete(
    '/mail-templates/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await mailTemplates.delete(req.ctx, req.params.id);
      return { data: true };
    },
  );
}
