import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CreateGroupBodySchema,
  dataResponse,
  FloorsAndApartmentsSchema,
  GeneratedStructureSchema,
  GenerateGroupsBodySchema,
  GroupDeleteImpactSchema,
  GroupListQuerySchema,
  GroupSchema,
  GroupTreeItemSchema,
  IdParamsSchema,
  listResponse,
  SaveGeneratedBodySchema,
  SaveGeneratedResultSchema,
  StructureExportQuerySchema,
  StructureImportQuerySchema,
  StructureImportResultSchema,
  UpdateGroupBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';
import { importSlots } from '../../core/spreadsheet.js';
import { uploadPath } from '../../core/uploads.js';

const Ok = dataResponse(z.boolean());
const GroupAnswer = dataResponse(GroupSchema);
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ImportQuery = StructureImportQuerySchema.extend({ role_id: z.coerce.number().int().positive().optional() });

export async function groupsRoutes(app: AppInstance): Promise<void> {
  const { groups, structure } = app.services;
  const tags = ['groups'];

  app.get(
    '/domains',
    { config: { cache: true }, schema: { tags, querystring: GroupListQuerySchema, response: { 200: listResponse(GroupSchema) } } },
    (req) => groups.list(req.actor, req.query),
  );

  app.get(
    '/domains/completely',
    {
      config: { cache: true },
      schema: { tags, response: { 200: z.object({ data: z.array(GroupTreeItemSchema), meta: z.object({ total: z.number().int() }) }) } },
    },
    async (req) => {
      const data = await groups.tree(req.actor);
      return { data, meta: { total: data.length } };
    },
  );

  app.get('/domains/:id', { schema: { tags, params: IdParamsSchema, response: { 200: GroupAnswer } } }, async (req) => ({
    data: await groups.get(req.actor, req.params.id),
  }));

  app.get(
    '/domains/:id/children',
    { config: { cache: true }, schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.array(GroupSchema)) } } },
    async (req) => ({ data: await groups.children(req.actor, req.params.id) }),
  );

  app.get(
    '/domains/:id/floors-and-apartments',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(FloorsAndApartmentsSchema) } } },
    async (req) => ({ data: await groups.floorsAndApartments(req.actor, req.params.id) }),
  );

  app.put('/domains', { schema: { tags, body: CreateGroupBodySchema, response: { 200: GroupAnswer } } }, async (req) => ({
    data: await groups.create(req.ctx, req.body),
  }));

  app.patch(
    '/domains/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateGroupBodySchema, response: { 200: GroupAnswer } } },
    async (req) => ({ data: await groups.update(req.ctx, req.params.id, req.body) }),
  );

  app.get(
    '/domains/:id/delete-impact',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(GroupDeleteImpactSchema) } } },
    async (req) => ({ data: await groups.deleteImpact(req.actor, req.params.id) }),
  );

  app.delete('/domains/:id', { schema: { tags, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await groups.delete(req.ctx, req.params.id);
    return { data: true };
  });

  app.post(
    '/domains/:id/logo',
    { schema: { tags, params: IdParamsSchema, consumes: ['multipart/form-data'], response: { 200: GroupAnswer } } },
    async (req) => {
      const file = req.isMultipart() ? await req.file() : undefined;
      if (file?.fieldname !== 'image') throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
      return { data: await groups.setLogo(req.ctx, req.params.id, await file.toBuffer()) };
    },
  );

  app.delete('/domains/:id/logo', { schema: { tags, params: IdParamsSchema, response: { 200: GroupAnswer } } }, async (req) => ({
    data: await groups.removeLogo(req.ctx, req.params.id),
  }));

  app.post(
    '/domains/generate',
    { schema: { tags, body: GenerateGroupsBodySchema, response: { 200: dataResponse(GeneratedStructureSchema) } } },
    async (req) => ({ data: await groups.generate(req.actor, req.body) }),
  );

  app.post(
    '/domains/generate/save',
    { schema: { tags, body: SaveGeneratedBodySchema, response: { 200: dataResponse(SaveGeneratedResultSchema) } } },
    async (req) => ({ data: await groups.saveGenerated(req.ctx, req.body) }),
  );

  app.post(
    '/domains/:id/import/structure',
    {
      schema: {
        tags,
        params: IdParamsSchema,
        querystring: ImportQuery,
        consumes: ['multipart/form-data'],
        response: { 200: dataResponse(StructureImportResultSchema) },
      },
    },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
      await structure.assertMayImport(req.actor, req.params.id, null);
      const tmp = await uploadPath(app.config.dataDir, '.xlsx');
      try {
        let roleText: string | undefined = req.query.role_id === undefined ? undefined : String(req.query.role_id);
        let received = false;
        // The upload goes to a temporary file, so the workbook is read once, as a stream, whatever the field order.
        for await (const part of req.parts()) {
          if (part.type === 'file') {
            if (part.fieldname !== 'file') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
            await pipeline(part.file, createWriteStream(tmp));
            if (part.file.truncated) throw new AppError('payload_too_large');
            received = true;
          } else if (part.fieldname === 'role_id') {
            roleText = String(part.value);
          }
        }
        if (!received) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
        const roleId = roleText === undefined || roleText === '' || roleText === 'null' ? null : Number(roleText);
        if (roleId !== null && (!Number.isInteger(roleId) || roleId <= 0)) {
          throw new AppError('invalid_data', [{ field: 'role_id', message: 'valid number' }]);
        }
        if (roleId !== null) await structure.assertMayImport(req.actor, req.params.id, roleId);
        // Reading a workbook is the expensive part: a bounded number at once (a flood of uploads waits for none).
        return { data: await importSlots.run(() => structure.importFile(req.ctx, req.params.id, tmp, roleId, req.query.tz_offset)) };
      } finally {
        await rm(tmp, { force: true });
      }
    },
  );

  app.get(
    '/domains/:id/export/structure',
    { schema: { tags, params: IdParamsSchema, querystring: StructureExportQuerySchema, produces: [XLSX] } },
    async (req, reply) => {
      await structure.assertMayExport(req.actor, req.params.id);
      const out = new PassThrough();
      structure.exportTo(req.actor, req.params.id, req.query.domain_type, req.query.tz_offset, out).catch((err: unknown) => {
        req.log.error({ err }, 'structure export failed');
        out.destroy(err instanceof Error ? err : new Error(String(err)));
      });
      return reply.type(XLSX).header('content-disposition', `attachment; filename="structure-${req.params.id}.xlsx"`).send(out);
    },
  );
}
