import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import {
  type AccessEvent,
  AccessEventDownloadQuerySchema,
  AccessEventSchema,
  AccessMatrixDownloadQuerySchema,
  AccessMatrixQuerySchema,
  type AccessMatrixRow,
  AccessMatrixRowSchema,
  AccessRuleSchema,
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateAccessRuleBodySchema,
  CreateGuestBodySchema,
  CreateIdentifierBodySchema,
  CreateTimeRuleBodySchema,
  dataResponse,
  ExplainQuerySchema,
  ExplainSchema,
  GuestGrantSchema,
  GuestInfoSchema,
  GuestKeyParamsSchema,
  GuestOpenBodySchema,
  IDENTIFIER_COLUMNS,
  type Identifier,
  IdentifierExportQuerySchema,
  IdentifierImportContinueBodySchema,
  IdentifierImportResultSchema,
  IdentifierListQuerySchema,
  IdentifierSchema,
  IdParamsSchema,
  ListQuerySchema,
  listResponse,
  TimeRuleSchema,
  UpdateAccessRuleBodySchema,
  UpdateGuestBodySchema,
  UpdateIdentifierBodySchema,
  UpdateTimeRuleBodySchema,
} from '@atrium/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';
import { sendExport } from '../../core/export.js';
import { importSlots } from '../../core/spreadsheet.js';
import { uploadPath } from '../../core/uploads.js';

const Ok = dataResponse(z.boolean());
const EVENT_COLUMNS = [
  'id',
  'occurred_at',
  'device_id',
  'device_name',
  'lock_number',
  'granted',
  'reason',
  'value',
  'identifier_id',
  'identifier_name',
  'user_id',
  'user_name',
  'rule_id',
  'direction',
] as const;
const MATRIX_COLUMNS = [
  'user_id',
  'user_name',
  'identifier_id',
  'identifier_name',
  'identifier_type',
  'device_id',
  'device_name',
  'lock_number',
  'rule_id',
  'rule_name',
  'prohibition',
  'schedules',
] as const;
const SearchQuery = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

/** A cell of the identifiers export, written as the import reads it back (limits only when active). */
function identifierCell(i: Identifier, c: string): unknown {
  switch (c) {
    case 'owner_login':
      return i.owner?.login ?? '';
    case 'passes_restrict_max_count':
      return i.passes_restrict_active ? i.passes_restrict_max_count : '';
    case 'period_restrict_from':
    case 'period_restrict_to':
      return i.period_restrict_active ? (i[c] ?? '') : '';
    default:
      return i[c as keyof Identifier] ?? '';
  }
}

/** Schedules (/time-rules), access rules, identifiers, access events and "why was I refused?". */
export async function accessRoutes(app: AppInstance): Promise<void> {
  const { access } = app.services;

  // --- schedules ---------------------------------------------------------------------------------
  const schedules = ['schedules'];
  app.get(
    '/time-rules',
    { schema: { tags: schedules, querystring: SearchQuery, response: { 200: listResponse(TimeRuleSchema) } } },
    (req) => access.listTimeRules(req.actor, req.query),
  );
  app.put(
    '/time-rules',
    { schema: { tags: schedules, body: CreateTimeRuleBodySchema, response: { 200: dataResponse(TimeRuleSchema) } } },
    async (req) => ({
      data: await access.createTimeRule(req.ctx, req.body),
    }),
  );
  app.post(
    '/time-rules/delete',
    { schema: { tags: schedules, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await access.bulkDeleteTimeRules(req.ctx, req.body.items) }),
  );
  app.get(
    '/time-rules/:id',
    { schema: { tags: schedules, params: IdParamsSchema, response: { 200: dataResponse(TimeRuleSchema) } } },
    async (req) => ({
      data: await access.getTimeRule(req.actor, req.params.id),
    }),
  );
  app.patch(
    '/time-rules/:id',
    {
      schema: { tags: schedules, params: IdParamsSchema, body: UpdateTimeRuleBodySchema, response: { 200: dataResponse(TimeRuleSchema) } },
    },
    async (req) => ({ data: await access.updateTimeRule(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/time-rules/:id', { schema: { tags: schedules, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await access.deleteTimeRule(req.ctx, req.params.id);
    return { data: true };
  });

  // --- access rules ------------------------------------------------------------------------------
  const rules = ['access rules'];
  app.get(
    '/access-rules',
    { schema: { tags: rules, querystring: SearchQuery, response: { 200: listResponse(AccessRuleSchema) } } },
    (req) => access.listAccessRules(req.actor, req.query),
  );
  app.get(
    '/access-rules/available-for-guest',
    {
      config: { license: 'guest_access' },
      schema: { tags: rules, querystring: SearchQuery, response: { 200: listResponse(AccessRuleSchema) } },
    },
    (req) => access.listAccessRules(req.actor, req.query, true),
  );
  app.put(
    '/access-rules',
    { schema: { tags: rules, body: CreateAccessRuleBodySchema, response: { 200: dataResponse(AccessRuleSchema) } } },
    async (req) => ({
      data: await access.createAccessRule(req.ctx, req.body),
    }),
  );
  app.post(
    '/access-rules/delete',
    { schema: { tags: rules, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await access.bulkDeleteAccessRules(req.ctx, req.body.items) }),
  );
  app.get(
    '/access-rules/:id',
    { schema: { tags: rules, params: IdParamsSchema, response: { 200: dataResponse(AccessRuleSchema) } } },
    async (req) => ({
      data: await access.getAccessRule(req.actor, req.params.id),
    }),
  );
  app.patch(
    '/access-rules/:id',
    {
      schema: { tags: rules, params: IdParamsSchema, body: UpdateAccessRuleBodySchema, response: { 200: dataResponse(AccessRuleSchema) } },
    },
    async (req) => ({ data: await access.updateAccessRule(req.ctx, req.params.id, req.body) }),
  );
  app.delete('/access-rules/:id', { schema: { tags: rules, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await access.deleteAccessRule(req.ctx, req.params.id);
    return { data: true };
  });

  // --- identifiers -------------------------------------------------------------------------------
  const ids = ['identifiers'];
  app.get(
    '/identifiers',
    {
      schema: { tags: ids, querystring: IdentifierListQuerySchema, response: { 200: listResponse(IdentifierSchema) } },
      // toIdentifier builds each row key by key in the contract's order, and nothing else, so the page
      // is sent as it is instead of being encoded by zod again; access.lists.test.ts checks the text
      // is exactly what the schema gives.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    (req) => access.listIdentifiers(req.actor, req.query),
  );
  app.put(
    '/identifiers',
    { schema: { tags: ids, body: CreateIdentifierBodySchema, response: { 200: dataResponse(IdentifierSchema) } } },
    async (req) => ({
      data: await access.createIdentifier(req.ctx, req.body),
    }),
  );
  app.post(
    '/identifiers/delete',
    { schema: { tags: ids, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await access.bulkDeleteIdentifiers(req.ctx, req.body.items) }),
  );
  app.get(
    '/identifiers/export',
    { schema: { tags: ids, querystring: IdentifierExportQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) =>
      sendExport(reply, {
        format: req.query.export_format,
        name: 'identifiers',
        columns: IDENTIFIER_COLUMNS,
        cell: identifierCell,
        pages: access.identifierPages(req.actor, { ...req.query, page: 1, size: 1000, with: [] }),
      }),
  );
  app.post(
    '/identifiers/import',
    { schema: { tags: ids, consumes: ['multipart/form-data'], response: { 200: dataResponse(IdentifierImportResultSchema) } } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
      const id = randomUUID();
      const tmp = await uploadPath(app.config.dataDir, '.xlsx');
      try {
        let received = false;
        for await (const part of req.parts()) {
          if (part.type !== 'file') continue;
          if (part.fieldname !== 'file') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
          await pipeline(part.file, createWriteStream(tmp));
          if (part.file.truncated) throw new AppError('payload_too_large');
          received = true;
        }
        if (!received) throw new AppError('wrong_file_body', [{ field: 'file', message: 'field is required' }]);
        return { data: await importSlots.run(() => access.importIdentifiers(req.ctx, tmp, id)) };
      } finally {
        // Moved away when the attempt found duplicates (it waits for the continue call); otherwise gone.
        await rm(tmp, { force: true });
      }
    },
  );
  app.post(
    '/identifiers/import/continue',
    { schema: { tags: ids, body: IdentifierImportContinueBodySchema, response: { 200: dataResponse(IdentifierImportResultSchema) } } },
    async (req) => ({ data: await importSlots.run(() => access.continueImport(req.ctx, req.body.filepath, req.body.action)) }),
  );
  app.get(
    '/identifiers/:id',
    { schema: { tags: ids, params: IdParamsSchema, response: { 200: dataResponse(IdentifierSchema) } } },
    async (req) => ({
      data: await access.getIdentifier(req.actor, req.params.id),
    }),
  );
  app.patch(
    '/identifiers/:id',
    { schema: { tags: ids, params: IdParamsSchema, body: UpdateIdentifierBodySchema, response: { 200: dataResponse(IdentifierSchema) } } },
    async (req) => ({ data: await access.updateIdentifier(req.ctx, req.params.id, req.body) }),
  );
  app.post(
    '/identifiers/:id/photo',
    { schema: { tags: ids, params: IdParamsSchema, consumes: ['multipart/form-data'], response: { 200: dataResponse(IdentifierSchema) } } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
      let image: Buffer | undefined;
      for await (const part of req.parts()) {
        if (part.type !== 'file') continue; // is_new: every photo sent is the new one
        if (part.fieldname !== 'image') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
        image = await part.toBuffer();
      }
      if (!image) throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
      return { data: await access.setIdentifierPhoto(req.ctx, req.params.id, image, app.files) };
    },
  );
  app.get('/identifiers/:id/qr', { schema: { tags: ids, params: IdParamsSchema, produces: ['image/png'] } }, async (req, reply) =>
    reply
      .type('image/png')
      .header('cache-control', 'private, no-store')
      .send(await access.identifierQr(req.actor, req.params.id)),
  );
  // The identifier's Apple Wallet pass, signed with the project's Apple Wallet settings.
  app.get(
    '/identifiers/:id/pkpass',
    { schema: { tags: ids, params: IdParamsSchema, produces: ['application/vnd.apple.pkpass'] } },
    async (req, reply) => {
      const identifier = await access.getIdentifier(req.actor, req.params.id);
      const pass = await app.services.appleWallet.pass(req.actor.projectId, identifier);
      return reply
        .type('application/vnd.apple.pkpass')
        .header('content-disposition', `attachment; filename="identifier-${identifier.id}.pkpass"`)
        .header('cache-control', 'private, no-store')
        .send(pass);
    },
  );
  app.post(
    '/identifiers/:id/revoke',
    { schema: { tags: ids, params: IdParamsSchema, response: { 200: dataResponse(IdentifierSchema) } } },
    async (req) => ({ data: await access.revokeIdentifier(req.ctx, req.params.id) }),
  );
  app.delete('/identifiers/:id', { schema: { tags: ids, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await access.deleteIdentifier(req.ctx, req.params.id);
    return { data: true };
  });

  // --- UKEY2: view-only ----------------------------------------------------------------------------
  app.get(
    '/ukey2',
    { config: { license: 'ukey2' }, schema: { tags: ids, querystring: SearchQuery, response: { 200: listResponse(IdentifierSchema) } } },
    (req) => access.listUkey2(req.actor, req.query),
  );
  app.get(
    '/ukey2/:id',
    { config: { license: 'ukey2' }, schema: { tags: ids, params: IdParamsSchema, response: { 200: dataResponse(IdentifierSchema) } } },
    async (req) => ({
      data: await access.getUkey2(req.actor, req.params.id),
    }),
  );

  // --- guest access ------------------------------------------------------------------------------
  const guests = ['guest access'];
  const guestLicense = { license: 'guest_access' } as const;
  // A guest's page has no one signed in: the licence is that of the key's project.
  const guestPageLicense = {
    feature: 'guest_access',
    project: (req: FastifyRequest) => access.guests.projectOfKey((req.params as { key: string }).key),
  } as const;
  const createGuest = {
    config: guestLicense,
    schema: { tags: guests, body: CreateGuestBodySchema, response: { 200: dataResponse(GuestGrantSchema) } },
  } as const;
  app.put('/guest-access', createGuest, async (req) => ({ data: await access.guests.create(req.ctx, req.body) }));
  app.put('/identifiers/guest', createGuest, async (req) => ({ data: await access.guests.create(req.ctx, req.body) }));
  const updateGuest = {
    config: guestLicense,
    schema: { tags: guests, params: IdParamsSchema, body: UpdateGuestBodySchema, response: { 200: dataResponse(IdentifierSchema) } },
  } as const;
  app.patch('/guest-access/:id', updateGuest, async (req) => ({ data: await access.guests.update(req.ctx, req.params.id, req.body) }));
  app.patch('/identifiers/guest/:id', updateGuest, async (req) => ({ data: await access.guests.update(req.ctx, req.params.id, req.body) }));
  // The guest's photo, set by whoever granted the key: the face a door with face ID must see to open for them.
  app.post(
    '/guest-access/:id/photo',
    {
      config: guestLicense,
      schema: {
        tags: guests,
        params: IdParamsSchema,
        consumes: ['multipart/form-data'],
        response: { 200: dataResponse(IdentifierSchema) },
      },
    },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
      let image: Buffer | undefined;
      for await (const part of req.parts()) {
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'image') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
        image = await part.toBuffer();
      }
      if (!image) throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
      return { data: await access.guests.setPhoto(req.ctx, req.params.id, image, app.files) };
    },
  );
  app.post(
    '/guest-access/:id/revoke',
    { config: guestLicense, schema: { tags: guests, params: IdParamsSchema, response: { 200: dataResponse(IdentifierSchema) } } },
    async (req) => ({ data: await access.guests.revoke(req.ctx, req.params.id) }),
  );
  app.delete(
    '/guest-access/:id',
    { config: guestLicense, schema: { tags: guests, params: IdParamsSchema, response: { 200: Ok } } },
    async (req) => {
      await access.guests.remove(req.ctx, req.params.id);
      return { data: true };
    },
  );
  app.post(
    '/guest-access/delete',
    { config: guestLicense, schema: { tags: guests, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await access.guests.removeMany(req.ctx, req.body.items) }),
  );
  app.get(
    '/guest-access/access-rules',
    { config: guestLicense, schema: { tags: guests, querystring: SearchQuery, response: { 200: listResponse(AccessRuleSchema) } } },
    (req) => access.listAccessRules(req.actor, req.query, true),
  );
  // The guest's page: no sign-in, an unguessable key, and a few calls a minute per address.
  app.get(
    '/guest-access/key/:key',
    {
      config: { public: true, license: guestPageLicense, rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: { tags: guests, params: GuestKeyParamsSchema, response: { 200: dataResponse(GuestInfoSchema) } },
    },
    async (req) => ({ data: await access.guests.info(req.params.key) }),
  );
  app.post(
    '/guest-access/key/:key/open',
    {
      config: { public: true, license: guestPageLicense, rateLimit: { max: 10, timeWindow: '1 minute' } },
      schema: {
        tags: guests,
        params: GuestKeyParamsSchema,
        body: GuestOpenBodySchema,
        response: { 200: dataResponse(z.object({ opened: z.literal(true), passes_left: z.number().nullable() })) },
      },
    },
    async (req) => ({ data: await access.guests.open(req.params.key, req.body.token, req.ip, String(req.id)) }),
  );

  // --- access events and explanations ------------------------------------------------------------
  const logs = ['access control'];
  app.get(
    '/access-control/logs',
    {
      schema: { tags: logs, querystring: ListQuerySchema, response: { 200: listResponse(AccessEventSchema) } },
      // As /identifiers: the page is sent as mapEvents builds it, in the contract's order (access.lists.test.ts).
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    (req) => access.listAccessEvents(req.actor, req.query),
  );
  app.get(
    '/access-control/logs/download',
    { schema: { tags: logs, querystring: AccessEventDownloadQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) =>
      sendExport(reply, {
        format: req.query.export_format,
        name: 'access-events',
        columns: EVENT_COLUMNS,
        cell: (e: AccessEvent, c) => e[c as keyof AccessEvent],
        pages: access.accessEventPages(req.actor, req.query),
      }),
  );
  app.get(
    '/access-matrix',
    { schema: { tags: logs, querystring: AccessMatrixQuerySchema, response: { 200: listResponse(AccessMatrixRowSchema) } } },
    (req) => access.accessMatrix(req.actor, req.query),
  );
  app.get(
    '/access-matrix/download',
    { schema: { tags: logs, querystring: AccessMatrixDownloadQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) =>
      sendExport(reply, {
        format: req.query.export_format,
        name: 'access-matrix',
        columns: MATRIX_COLUMNS,
        cell: (r: AccessMatrixRow, c) => (c === 'schedules' ? r.schedules.map((x) => x.name).join(', ') : r[c as keyof AccessMatrixRow]),
        pages: access.accessMatrixPages(req.actor, req.query),
      }),
  );
  app.get(
    '/access/explain',
    { schema: { tags: logs, querystring: ExplainQuerySchema, response: { 200: dataResponse(ExplainSchema) } } },
    async (req) => ({
      data: await access.explain(req.actor, req.query),
    }),
  );
}
