import {
  BACKUP_LIMITS,
  BackupApplyResultSchema,
  BackupListQuerySchema,
  BackupSchema,
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  MakeBackupBodySchema,
} from '@atrium/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';

/**
 * The backup file of a multipart body (field `file`; a larger one than BACKUP_LIMITS is refused
 * while read), and the field `accept_unsigned` (`true`: apply a file this server did not sign).
 */
async function backupFile(req: FastifyRequest): Promise<{ data: Buffer; acceptUnsigned: boolean }> {
  if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
  const limit = BACKUP_LIMITS.maxFileBytes;
  let data: Buffer | undefined;
  let acceptUnsigned = false;
  for await (const part of req.parts({ limits: { fileSize: limit + 1, files: 1, fields: 4, fieldSize: 64 } })) {
    if (part.type !== 'file') {
      if (part.fieldname !== 'accept_unsigned') continue;
      if (part.value !== 'true' && part.value !== 'false')
        throw new AppError('invalid_data', [{ field: 'accept_unsigned', message: 'must be true or false' }]);
      acceptUnsigned = part.value === 'true';
      continue;
    }
    if (part.fieldname !== 'file') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
    data = await part.toBuffer();
    if (part.file.truncated || data.length > limit) throw new AppError('payload_too_large', [{ field: 'file', max: limit }]);
  }
  if (!data?.length) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
  return { data, acceptUnsigned };
}

/** Backups (spec entities §7): list, delete, bulk delete, make, apply a stored one or a file, download. */
export async function backupsRoutes(app: AppInstance): Promise<void> {
  const { backups } = app.services;
  const tags = ['backups'];
  app.get('/backups', { schema: { tags, querystring: BackupListQuerySchema, response: { 200: listResponse(BackupSchema) } } }, (req) =>
    backups.list(req.actor, req.query),
  );
  app.post(
    '/backups/make',
    { schema: { tags, body: MakeBackupBodySchema, response: { 200: dataResponse(BackupSchema) } } },
    async (req) => ({ data: await backups.make(req.ctx, req.body) }),
  );
  app.post(
    '/backups/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await backups.bulkDelete(req.ctx, req.body.items) }),
  );
  app.post(
    '/backups/apply',
    { schema: { tags, consumes: ['multipart/form-data'], response: { 200: dataResponse(BackupApplyResultSchema) } } },
    async (req) => {
      const { data, acceptUnsigned } = await backupFile(req);
      return { data: await backups.applyFile(req.ctx, data, { acceptUnsigned }) };
    },
  );
  app.get('/backups/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(BackupSchema) } } }, async (req) => ({
    data: await backups.get(req.actor, req.params.id),
  }));
  app.delete('/backups/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await backups.delete(req.ctx, req.params.id);
    return { data: true };
  });
  app.post(
    '/backups/:id/apply',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(BackupApplyResultSchema) } } },
    async (req) => ({ data: await backups.apply(req.ctx, req.params.id) }),
  );
  app.get('/backups/:id/download', { schema: { tags, params: IdParamsSchema, produces: ['application/zip'] } }, async (req, reply) => {
    const file = await backups.download(req.actor, req.params.id);
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="${file.fileName}"`)
      .header('cache-control', 'private, no-store')
      .send(file.data);
  });
}
