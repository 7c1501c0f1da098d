import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import {
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateEmergencyAlertBodySchema,
  dataResponse,
  EmergencyAlertListQuerySchema,
  EmergencyAlertSchema,
  EmergencyAudioQuerySchema,
  EmergencyPlaybackSchema,
  GenerateEmergencyAudioBodySchema,
  IdParamsSchema,
  LiftLockdownBodySchema,
  LockdownListQuerySchema,
  LockdownSchema,
  listResponse,
  type MusterEntry,
  MusterExportQuerySchema,
  MusterQuerySchema,
  MusterSchema,
  StartLockdownBodySchema,
  UpdateEmergencyAlertBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';
import { sendExport } from '../../core/export.js';
import { uploadPath } from '../../core/uploads.js';
import { AUDIO_MAX_BYTES, audioExt } from './emergency.audio.js';

const WithQuery = z.object({ with: z.string().max(200).optional() });
const withList = (w: string | undefined) =>
  w
    ? w
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : [];
const MUSTER_COLUMNS = [
  'user_id',
  'user_name',
  'identifier_id',
  'identifier_name',
  'value',
  'device_id',
  'device_name',
  'entered_at',
  'direction',
];

/** Emergency alerts (/emergency: CRUD, bulk delete, file, generate, start, stop), lockdowns and the muster list. */
export async function emergencyRoutes(app: AppInstance): Promise<void> {
  const { emergency } = app.services;
  const tags = ['emergency'];
  const Alert = { 200: dataResponse(EmergencyAlertSchema) };
  const Playback = { 200: dataResponse(EmergencyPlaybackSchema) };

  app.get(
    '/emergency',
    { schema: { tags, querystring: EmergencyAlertListQuerySchema, response: { 200: listResponse(EmergencyAlertSchema) } } },
    (req) => emergency.list(req.actor, req.query),
  );
  app.put('/emergency', { schema: { tags, body: CreateEmergencyAlertBodySchema, response: Alert } }, async (req) => ({
    data: await emergency.create(req.ctx, req.body),
  }));
  app.post(
    '/emergency/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({
      data: await emergency.bulkDelete(req.ctx, req.body.items),
    }),
  );
  app.post('/emergency/generate', { schema: { tags, body: GenerateEmergencyAudioBodySchema, response: Alert } }, async (req) => ({
    data: await emergency.generate(req.ctx, req.body.id, req.body.tone, req.body.seconds),
  }));

  // Lockdowns and the muster list (registered before /emergency/:id so their paths are not taken for ids).
  app.get(
    '/emergency/lockdowns',
    { schema: { tags, querystring: LockdownListQuerySchema, response: { 200: listResponse(LockdownSchema) } } },
    (req) => emergency.listLockdowns(req.actor, req.query),
  );
  app.post(
    '/emergency/lockdowns',
    { schema: { tags, body: StartLockdownBodySchema, response: { 200: dataResponse(LockdownSchema) } } },
    async (req) => ({
      data: await emergency.startLockdown(req.ctx, req.body),
    }),
  );
  app.get(
    '/emergency/lockdowns/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(LockdownSchema) } } },
    async (req) => ({
      data: await emergency.getLockdown(req.actor, req.params.id),
    }),
  );
  app.post(
    '/emergency/lockdowns/:id/lift',
    { schema: { tags, params: IdParamsSchema, body: LiftLockdownBodySchema, response: { 200: dataResponse(LockdownSchema) } } },
    async (req) => ({ data: await emergency.liftLockdown(req.ctx, req.params.id) }),
  );
  app.get(
    '/emergency/muster',
    { schema: { tags, querystring: MusterQuerySchema, response: { 200: dataResponse(MusterSchema) } } },
    async (req) => ({
      data: await emergency.muster(req.actor, req.query),
    }),
  );
  app.get(
    '/emergency/muster/export',
    { schema: { tags, querystring: MusterExportQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) => {
      const muster = await emergency.muster(req.actor, req.query);
      return sendExport<MusterEntry>(reply, {
        format: req.query.export_format,
        name: 'muster',
        columns: MUSTER_COLUMNS,
        cell: (row, column) => row[column as keyof MusterEntry],
        pages: (async function* () {
          yield muster.entries;
        })(),
      });
    },
  );

  app.get('/emergency/:id', { schema: { tags, params: IdParamsSchema, querystring: WithQuery, response: Alert } }, async (req) => ({
    data: await emergency.get(req.actor, req.params.id, withList(req.query.with)),
  }));
  app.patch(
    '/emergency/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateEmergencyAlertBodySchema, response: Alert } },
    async (req) => ({
      data: await emergency.update(req.ctx, req.params.id, req.body),
    }),
  );
  app.delete('/emergency/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await emergency.delete(req.ctx, req.params.id);
    return { data: true };
  });
  app.post('/emergency/:id/start', { schema: { tags, params: IdParamsSchema, response: Playback } }, async (req) => ({
    data: await emergency.start(req.ctx, req.params.id),
  }));
  app.post('/emergency/:id/stop', { schema: { tags, params: IdParamsSchema, response: Playback } }, async (req) => ({
    data: await emergency.stop(req.ctx, req.params.id),
  }));
  app.get(
    '/emergency/:id/playback',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(EmergencyPlaybackSchema.nullable()) } } },
    async (req) => ({ data: await emergency.playback(req.actor, req.params.id) }),
  );
  app.post(
    '/emergency/:id/file',
    { schema: { tags, params: IdParamsSchema, consumes: ['multipart/form-data'], response: Alert } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
      // The upload waits on disk, never more than the bound plus one byte of it.
      const tmp = await uploadPath(app.config.dataDir, '.audio');
      try {
        let filename: string | null = null;
        for await (const part of req.parts({ limits: { fileSize: AUDIO_MAX_BYTES + 1, files: 1 } })) {
          if (part.type !== 'file') continue;
          if (part.fieldname !== 'file') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
          await pipeline(part.file, createWriteStream(tmp));
          if (part.file.truncated) {
            throw new AppError('payload_too_large', [
              { field: 'file', message: 'validation.file_size', params: { max: AUDIO_MAX_BYTES / 1024 } },
            ]);
          }
          filename = part.filename;
        }
        if (filename === null) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
        return { data: await emergency.setFile(req.ctx, req.params.id, await readFile(tmp), filename) };
      } finally {
        await rm(tmp, { force: true });
      }
    },
  );
  // The sound by its tokened link: devices fetch it, and the console's player plays it, without a sign-in.
  app.get(
    '/emergency/:id/audio',
    { config: { public: true }, schema: { tags, params: IdParamsSchema, querystring: EmergencyAudioQuerySchema, produces: ['audio/*'] } },
    async (req, reply) => {
      const sound = await emergency.audio(req.params.id, req.query.token);
      return reply
        .type(sound.type)
        .header('cache-control', 'private, max-age=3600')
        .header('content-disposition', `inline; filename="alert-${req.params.id}.${audioExt(sound.type)}"`)
        .send(sound.data);
    },
  );
}
