import {
  AvailableIntegrationSchema,
  AvailableIntegrationsQuerySchema,
  AxxonCameraSchema,
  AxxonMacroSchema,
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateIntegrationBodySchema,
  dataResponse,
  IdParamsSchema,
  INTEGRATION_CERTIFICATE_MAX_BYTES,
  IntegrationAvailabilitySchema,
  IntegrationListQuerySchema,
  IntegrationSchema,
  LaunchAxxonMacroBodySchema,
  listResponse,
  UpdateIntegrationBodySchema,
  VALIDATION_MESSAGES,
} from '@atrium/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';

/**
 * Reads a create or update call: multipart with a JSON `payload` part and an optional `certificate`
 * file part (spec entities §7), or a plain JSON body (the payload alone, no certificate).
 */
async function readPayload<S extends z.ZodType>(req: FastifyRequest, schema: S): Promise<{ body: z.infer<S>; certificate?: string }> {
  let raw: unknown;
  let certificate: string | undefined;
  if (req.isMultipart()) {
    let text: string | undefined;
    for await (const part of req.parts({ limits: { files: 1, fields: 2, fileSize: INTEGRATION_CERTIFICATE_MAX_BYTES } })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'certificate')
          throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
        const buf = await part.toBuffer().catch(() => null);
        if (!buf || part.file.truncated)
          throw new AppError('payload_too_large', [{ field: 'certificate', message: 'validation.file_size' }]);
        certificate = buf.toString('utf8');
      } else if (part.fieldname === 'payload') {
        text = String(part.value);
      }
    }
    if (text === undefined) throw new AppError('wrong_file_body', [{ field: 'payload', message: VALIDATION_MESSAGES.required }]);
    try {
      raw = JSON.parse(text);
    } catch {
      throw new AppError('invalid_data', [{ field: 'payload', message: VALIDATION_MESSAGES.invalid_value }]);
    }
  } else {
    raw = req.body ?? {};
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError(
      'invalid_data',
      parsed.error.issues.map((i) => ({
        field: i.path.join('.'),
        message:
          i.code === 'unrecognized_keys'
            ? VALIDATION_MESSAGES.unknown_field
            : i.message.startsWith('validation.')
              ? i.message
              : VALIDATION_MESSAGES.invalid_value,
      })),
    );
  }
  return { body: parsed.data, ...(certificate !== undefined ? { certificate } : {}) };
}

/**
 * Integrations with Axxon One (issue 14): /integrations list, get, create and update (POST multipart),
 * delete, bulk delete, availability; the server's macros and cameras at the spec's
 * /integration/axxonone/{id}/listmacros and /listcameras, and a macro launched on request.
 */
export async function integrationsRoutes(app: AppInstance): Promise<void> {
  const { integrations } = app.services;
  const tags = ['integrations'];
  const Item = { 200: dataResponse(IntegrationSchema) };
  app.get(
    '/integrations',
    { schema: { tags, querystring: IntegrationListQuerySchema, response: { 200: listResponse(IntegrationSchema) } } },
    (req) => integrations.list(req.actor, req.query),
  );
  app.get(
    '/integrations/available',
    {
      schema: { tags, querystring: AvailableIntegrationsQuerySchema, response: { 200: dataResponse(z.array(AvailableIntegrationSchema)) } },
    },
    async (req) => ({ data: await integrations.availableFor(req.actor, req.query) }),
  );
  app.post('/integrations', { schema: { tags, consumes: ['multipart/form-data', 'application/json'], response: Item } }, async (req) => {
    const { body, certificate } = await readPayload(req, CreateIntegrationBodySchema);
    return { data: await integrations.create(req.ctx, body, certificate) };
  });
  app.post(
    '/integrations/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await integrations.bulkDelete(req.ctx, req.body.items) }),
  );
  app.get('/integrations/:id', { schema: { tags, params: IdParamsSchema, response: Item } }, async (req) => ({
    data: await integrations.get(req.actor, req.params.id),
  }));
  app.post(
    '/integrations/:id',
    { schema: { tags, params: IdParamsSchema, consumes: ['multipart/form-data', 'application/json'], response: Item } },
    async (req) => {
      const { body, certificate } = await readPayload(req, UpdateIntegrationBodySchema);
      return { data: await integrations.update(req.ctx, req.params.id, body, certificate) };
    },
  );
  app.delete(
    '/integrations/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await integrations.delete(req.ctx, req.params.id);
      return { data: true };
    },
  );
  app.get(
    '/integrations/:id/available',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(IntegrationAvailabilitySchema) } } },
    async (req) => ({ data: await integrations.available(req.actor, req.params.id) }),
  );
  app.get(
    '/integration/axxonone/:id/listcameras',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.array(AxxonCameraSchema)) } } },
    async (req) => ({ data: await integrations.cameras(req.actor, req.params.id) }),
  );
  app.get(
    '/integration/axxonone/:id/listmacros',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.array(AxxonMacroSchema)) } } },
    async (req) => ({ data: await integrations.macros(req.actor, req.params.id) }),
  );
  app.post(
    '/integration/axxonone/:id/launch',
    { schema: { tags, params: IdParamsSchema, body: LaunchAxxonMacroBodySchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await integrations.launch(req.ctx, req.params.id, req.body.macro_id);
      return { data: true };
    },
  );
}
