import {
  AUDIT_EXPORT_COLUMNS,
  AuditDownloadQuerySchema,
  type AuditEvent,
  AuditEventSchema,
  AuditIdParamsSchema,
  AuditListQuerySchema,
  dataResponse,
  listResponse,
} from '@atrium/contract';
import type { AppInstance } from '../../app.js';
import { sendExport } from '../../core/export.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';

const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));

const cell = (e: AuditEvent, column: (typeof AUDIT_EXPORT_COLUMNS)[number]): unknown => {
  switch (column) {
    case 'user_login':
      return e.user?.login ?? '';
    case 'user_name':
      return e.user?.name ?? '';
    case 'before':
    case 'after':
      return json(e[column]);
    default:
      return e[column];
  }
};

/** The audit log: /audit/items list, one event, download (before /audit/items/:id: "download" is no id). Never cached: the table is not on the change feed. */
export async function auditRoutes(app: AppInstance): Promise<void> {
  const audit = new AuditService(new AuditRepository(app.database.db));
  const tags = ['audit'];

  app.get(
    '/audit/items',
    { schema: { tags, querystring: AuditListQuerySchema, response: { 200: listResponse(AuditEventSchema) } } },
    (req) => audit.list(req.actor, req.query),
  );
  app.get(
    '/audit/items/download',
    { schema: { tags, querystring: AuditDownloadQuerySchema, produces: ['text/csv', 'application/octet-stream'] } },
    async (req, reply) =>
      sendExport(reply, {
        format: req.query.export_format,
        name: 'audit-events',
        columns: AUDIT_EXPORT_COLUMNS,
        cell: (e: AuditEvent, c) => cell(e, c as (typeof AUDIT_EXPORT_COLUMNS)[number]),
        pages: await audit.pages(req.actor, req.query),
      }),
  );
  app.get(
    '/audit/items/:id',
    { schema: { tags, params: AuditIdParamsSchema, response: { 200: dataResponse(AuditEventSchema) } } },
    async (req) => ({
      data: await audit.get(req.actor, req.params.id),
    }),
  );
}
