import {
  AddCloudLicenseBodySchema,
  dataResponse,
  IdParamsSchema,
  LICENSE_FILE_MAX_BYTES,
  LICENSE_PERIOD_COLUMNS,
  LICENSE_USED_COLUMNS,
  LicenseFeaturesStateSchema,
  LicenseListSchema,
  LicensePeriodRowSchema,
  LicenseReportQuerySchema,
  LicenseSchema,
  LicenseUsageSchema,
  LicenseUsedDaySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';
import { sendExport } from '../../core/export.js';

const periodCell = (v: unknown, column: string): unknown =>
  (column === 'from' || column === 'to') && typeof v === 'number'
    ? v >= 999_999_999_999 || v === 0
      ? ''
      : new Date(v * 1000).toISOString().slice(0, 10)
    : v;

/**
 * Licences (spec comms §2 §7): /licenses list, one, add from a file or from the licence server,
 * remove, usage and the features in effect; the licence reports /reports/licenses/used and /period
 * with their xlsx downloads.
 */
export async function licensesRoutes(app: AppInstance): Promise<void> {
  const { licenseAdmin } = app.services;
  const tags = ['licenses'];
  const reportTags = ['reports'];

  app.get('/licenses', { schema: { tags, response: { 200: dataResponse(LicenseListSchema) } } }, async (req) => ({
    data: await licenseAdmin.list(req.actor),
  }));
  app.get('/licenses/usage', { schema: { tags, response: { 200: dataResponse(LicenseUsageSchema) } } }, async (req) => ({
    data: await licenseAdmin.usage(req.actor),
  }));
  app.get('/licenses/features', { schema: { tags, response: { 200: dataResponse(LicenseFeaturesStateSchema) } } }, async (req) => ({
    data: await licenseAdmin.features(req.actor),
  }));
  app.post(
    '/licenses/file',
    { schema: { tags, consumes: ['multipart/form-data'], response: { 200: dataResponse(LicenseSchema) } } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('license_invalid_file');
      const file = await req.file({ limits: { fileSize: LICENSE_FILE_MAX_BYTES + 1 } });
      if (!file) throw new AppError('license_invalid_file');
      const bytes = await file.toBuffer().catch(() => {
        throw new AppError('license_invalid_file', [{ max_bytes: LICENSE_FILE_MAX_BYTES }]);
      });
      return { data: await licenseAdmin.addFile(req.ctx, bytes) };
    },
  );
  app.post(
    '/licenses/cloud',
    { schema: { tags, body: AddCloudLicenseBodySchema, response: { 200: dataResponse(LicenseSchema) } } },
    async (req) => ({
      data: await licenseAdmin.addFromCloud(req.ctx, req.body.key),
    }),
  );
  app.get('/licenses/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(LicenseSchema) } } }, async (req) => ({
    data: await licenseAdmin.get(req.actor, req.params.id),
  }));
  app.delete('/licenses/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } }, async (req) => {
    await licenseAdmin.remove(req.ctx, req.params.id);
    return { data: true };
  });

  app.get(
    '/reports/licenses/used',
    { schema: { tags: reportTags, querystring: LicenseReportQuerySchema, response: { 200: dataResponse(z.array(LicenseUsedDaySchema)) } } },
    async (req) => ({ data: await licenseAdmin.reportUsed(req.actor, req.query) }),
  );
  app.get(
    '/reports/licenses/used/download',
    { schema: { tags: reportTags, querystring: LicenseReportQuerySchema, produces: ['application/octet-stream'] } },
    async (req, reply) => {
      const rows = await licenseAdmin.reportUsed(req.actor, req.query);
      return sendExport(reply, {
        format: 'xlsx',
        name: 'licenses-used',
        columns: LICENSE_USED_COLUMNS,
        cell: (r, c) => r[c as (typeof LICENSE_USED_COLUMNS)[number]],
        pages: (async function* () {
          yield rows;
        })(),
      });
    },
  );
  app.get(
    '/reports/licenses/period',
    {
      schema: { tags: reportTags, querystring: LicenseReportQuerySchema, response: { 200: dataResponse(z.array(LicensePeriodRowSchema)) } },
    },
    async (req) => ({ data: await licenseAdmin.reportPeriod(req.actor, req.query) }),
  );
  app.get(
    '/reports/licenses/period/download',
    { schema: { tags: reportTags, querystring: LicenseReportQuerySchema, produces: ['application/octet-stream'] } },
    async (req, reply) => {
      const rows = await licenseAdmin.reportPeriod(req.actor, req.query);
      return sendExport(reply, {
        format: 'xlsx',
        name: 'license-periods',
        columns: LICENSE_PERIOD_COLUMNS,
        cell: (r, c) => periodCell(r[c as (typeof LICENSE_PERIOD_COLUMNS)[number]], c),
        pages: (async function* () {
          yield rows;
        })(),
      });
    },
  );
}
