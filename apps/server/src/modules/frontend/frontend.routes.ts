import { CountrySchema, InfoSchema, LOCALES, PERMISSIONS, ResourcesMetaSchema, ServerSettingsSchema } from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { COUNTRIES } from '../../core/countries.js';
import { databaseAnswers } from '../../core/db/client.js';
import { deviceBrokerUrls } from '../../core/device-broker.js';

export const VERSION = '0.1.0';

export async function frontendRoutes(app: AppInstance): Promise<void> {
  const { licenses, profile, projectSettings } = app.services;
  const tags = ['frontend'];

  app.get('/frontend/resources/meta', { schema: { tags, response: { 200: z.object({ data: ResourcesMetaSchema }) } } }, async (req) => ({
    data: {
      meta: { locales: [...LOCALES], version: VERSION, api_version: 'v0' },
      permissions: PERMISSIONS.map((p) => ({ code: p.code, family: p.family, scope: p.scope ?? null, en: p.en, ru: p.ru })),
      notification_settings: await profile.notificationSettings(req.actor),
    },
  }));

  app.get(
    '/frontend/server/settings',
    { config: { public: true }, schema: { tags, response: { 200: z.object({ data: ServerSettingsSchema }) } } },
    async (req) => {
      // Public (the sign-in page reads the registration switches), but licence warnings are shown
      // only to those who may manage licences (spec core §4): others, and signed-out callers, hear 'normal'.
      // The licence is the caller's project's (modules/licenses).
      const header = req.headers.authorization;
      const caller = header?.startsWith('Bearer ') ? await app.services.auth.actorFromToken(header.slice(7)) : null;
      const features = await licenses.serverFeatures(caller?.projectId);
      const mayManageLicenses = caller?.permissions.has('can_manage_licenses') ?? false;
      // The caller's project settings, or the server's default project's for a signed-out caller.
      const project = await app.services.settings.server(caller?.projectId ?? null);
      const host = new URL(project.server_url ?? app.config.publicUrl).hostname;
      const { registration } = project;
      return {
        data: {
          can_user_recovery_password: registration.recovery,
          can_user_register_by_token: registration.by_token,
          can_user_register_himself: registration.self,
          is_standalone_mode: true,
          auto_forward_rules: project.auto_forward_rules,
          license: {
            features,
            counts: {
              sip: { per_account: features.sip.license_count, total: features.sip.license_count },
              mobile_app: { per_account: features.mobile_app.license_count, total: features.mobile_app.license_count },
              ukey2: { per_account: features.ukey2.license_count, total: features.ukey2.license_count },
            },
          },
          warnings: mayManageLicenses ? await licenses.warnings(caller?.projectId) : { status: 'normal' as const, days: null },
          locale: project.locale,
          time_zone: project.time_zone,
          domain: host,
          push_server: project.push_server,
          server_ip: project.server_ip,
          internal_server_ip: project.internal_server_ip,
          version: VERSION,
          device_broker_host: deviceBrokerUrls(app.config, project.server_url).url,
          sip_proxy_host: host,
          white_label: project.white_label,
          mobile_app: project.mobile_app,
        },
      };
    },
  );

  app.get('/info', { config: { public: true }, schema: { tags, response: { 200: z.object({ data: InfoSchema }) } } }, async () => ({
    data: {
      name: 'Atrium',
      version: VERSION,
      api_version: 'v0',
      time: new Date().toISOString(),
      database: (await databaseAnswers(app.database.db)) ? ('ok' as const) : ('unavailable' as const),
    },
  }));

  app.get(
    '/countries',
    { config: { public: true }, schema: { tags, response: { 200: z.object({ data: z.array(CountrySchema) }) } } },
    async () => ({
      data: COUNTRIES,
    }),
  );

  app.get(
    '/terms/:file',
    { config: { public: true }, schema: { tags, params: z.object({ file: z.enum(['en.html', 'ru.html']) }) } },
    async (req, reply) =>
      reply.type('text/html; charset=utf-8').send(await projectSettings.publicTerms(req.params.file === 'ru.html' ? 'ru' : 'en')),
  );

  app.get(
    '/files/*',
    { config: { public: true }, schema: { tags, params: z.object({ '*': z.string().regex(/^[a-z-]+\/[0-9a-f-]{36}\.[a-z]{3,4}$/) }) } },
    async (req, reply) => {
      const key = req.params['*'];
      const data = await app.files.get(key);
      const ext = key.slice(key.lastIndexOf('.') + 1);
      const type = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' }[ext] ?? 'application/octet-stream';
      return reply.type(type).header('cache-control', 'private, max-age=86400').send(data);
    },
  );
}
