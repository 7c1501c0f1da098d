import {
  BROKER_CERT_MAX_BYTES,
  BrokerRestartBodySchema,
  BrokerSendResultSchema,
  BrokerSettingsSchema,
  BrokerStatusSchema,
  DomainForwardRulesSettingsSchema,
  dataResponse,
  GeneralSettingsSchema,
  PushSettingsSchema,
  SipSettingsSchema,
  TermsSettingsSchema,
  TestMailBodySchema,
  UpdateDomainForwardRulesBodySchema,
  UpdateGeneralSettingsBodySchema,
  UpdatePushSettingsBodySchema,
  UpdateSipSettingsBodySchema,
  UpdateTermsSettingsBodySchema,
  UpdateWhiteLabelBodySchema,
  WHITE_LABEL_LOGO_MAX_BYTES,
  WhiteLabelSettingsSchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';

/**
 * Project settings (spec comms §7 "Project settings"): general, SIP, push server, MQTT broker and the
 * management company's white-label, each GET and PATCH (the broker's certificates as multipart).
 */
export async function projectSettingsRoutes(app: AppInstance): Promise<void> {
  const { projectSettings: s } = app.services;
  const tags = ['project settings'];

  app.get('/settings/general', { schema: { tags, response: { 200: dataResponse(GeneralSettingsSchema) } } }, async (req) => ({
    data: await s.general(req.actor),
  }));
  app.patch(
    '/settings/general',
    { schema: { tags, body: UpdateGeneralSettingsBodySchema, response: { 200: dataResponse(GeneralSettingsSchema) } } },
    async (req) => ({ data: await s.updateGeneral(req.ctx, req.body) }),
  );
  app.post(
    '/settings/test-mail',
    { schema: { tags, body: TestMailBodySchema, response: { 200: dataResponse(z.object({ sent: z.literal(true) })) } } },
    async (req) => ({ data: await s.testMail(req.ctx, req.body) }),
  );

  app.get('/settings/sip', { schema: { tags, response: { 200: dataResponse(SipSettingsSchema) } } }, async (req) => ({
    data: await s.sip(req.actor),
  }));
  app.patch(
    '/settings/sip',
    { schema: { tags, body: UpdateSipSettingsBodySchema, response: { 200: dataResponse(SipSettingsSchema) } } },
    async (req) => ({ data: await s.updateSip(req.ctx, req.body) }),
  );

  // The SIP tab's automatic forward rules on their own; saved through the SIP tab, so they reach the
  // running SIP server and the devices as a save of the tab does.
  app.get(
    '/settings/domain-forward-rules',
    { schema: { tags, response: { 200: dataResponse(DomainForwardRulesSettingsSchema) } } },
    async (req) => ({ data: (await s.sip(req.actor)).auto_forward_rules }),
  );
  app.patch(
    '/settings/domain-forward-rules',
    { schema: { tags, body: UpdateDomainForwardRulesBodySchema, response: { 200: dataResponse(DomainForwardRulesSettingsSchema) } } },
    async (req) => ({ data: (await s.updateSip(req.ctx, { auto_forward_rules: req.body })).auto_forward_rules }),
  );

  app.get('/settings/push', { schema: { tags, response: { 200: dataResponse(PushSettingsSchema) } } }, async (req) => ({
    data: await s.push(req.actor),
  }));
  app.patch(
    '/settings/push',
    { schema: { tags, body: UpdatePushSettingsBodySchema, response: { 200: dataResponse(PushSettingsSchema) } } },
    async (req) => ({ data: await s.updatePush(req.ctx, req.body) }),
  );

  app.get('/settings/terms', { schema: { tags, response: { 200: dataResponse(TermsSettingsSchema) } } }, async (req) => ({
    data: await s.terms(req.actor),
  }));
  app.patch(
    '/settings/terms',
    {
      schema: {
        tags,
        description: 'The terms and conditions per language (HTML, basic formatting kept); null returns to the built-in text.',
        body: UpdateTermsSettingsBodySchema,
        response: { 200: dataResponse(TermsSettingsSchema) },
      },
    },
    async (req) => ({ data: await s.updateTerms(req.ctx, req.body) }),
  );

  app.get('/settings/white-label', { schema: { tags, response: { 200: dataResponse(WhiteLabelSettingsSchema) } } }, async (req) => ({
    data: await s.whiteLabel(req.actor),
  }));
  app.patch(
    '/settings/white-label',
    { schema: { tags, body: UpdateWhiteLabelBodySchema, response: { 200: dataResponse(WhiteLabelSettingsSchema) } } },
    async (req) => ({ data: await s.updateWhiteLabel(req.ctx, req.body) }),
  );
  app.post(
    '/settings/white-label/logo',
    { schema: { tags, consumes: ['multipart/form-data'], response: { 200: dataResponse(WhiteLabelSettingsSchema) } } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'logo', message: 'field is required' }]);
      // One byte over the limit is enough to tell the file is too large.
      const file = await req.file({ limits: { fileSize: WHITE_LABEL_LOGO_MAX_BYTES + 1, files: 1 } });
      if (file?.fieldname !== 'logo') throw new AppError('wrong_file_body', [{ field: 'logo', message: 'field is required' }]);
      const data = await file.toBuffer().catch(() => null);
      if (!data || file.file.truncated) throw new AppError('payload_too_large', [{ field: 'logo', message: 'validation.file_size' }]);
      return { data: await s.setLogo(req.ctx, data) };
    },
  );
  app.delete(
    '/settings/white-label/logo',
    { schema: { tags, response: { 200: dataResponse(WhiteLabelSettingsSchema) } } },
    async (req) => ({
      data: await s.removeLogo(req.ctx),
    }),
  );

  app.get('/settings/broker', { schema: { tags, response: { 200: dataResponse(BrokerSettingsSchema) } } }, async (req) => ({
    data: await s.broker(req.actor),
  }));
  app.post(
    '/settings/broker',
    { schema: { tags, consumes: ['multipart/form-data'], response: { 200: dataResponse(BrokerSettingsSchema) } } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'use_user_certs', message: 'field is required' }]);
      const fields: Record<string, string> = {};
      const files: { certfile?: string; keyfile?: string } = {};
      for await (const part of req.parts({ limits: { files: 2, fields: 4, fileSize: BROKER_CERT_MAX_BYTES } })) {
        if (part.type === 'file') {
          if (part.fieldname !== 'certfile' && part.fieldname !== 'keyfile') {
            throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
          }
          const buf = await part.toBuffer().catch(() => null);
          if (!buf || part.file.truncated)
            throw new AppError('payload_too_large', [{ field: part.fieldname, message: 'validation.file_size' }]);
          files[part.fieldname] = buf.toString('utf8');
        } else {
          fields[part.fieldname] = String(part.value);
        }
      }
      const use = z.enum(['true', 'false', '1', '0']).safeParse(fields.use_user_certs);
      if (!use.success) throw new AppError('invalid_data', [{ field: 'use_user_certs', message: 'validation.invalid_value' }]);
      return {
        data: await s.updateBroker(req.ctx, { use_user_certs: use.data === 'true' || use.data === '1', ...files }),
      };
    },
  );
  app.post('/settings/broker/send', { schema: { tags, response: { 200: dataResponse(BrokerSendResultSchema) } } }, async (req) => ({
    data: await s.sendBroker(req.ctx),
  }));
  app.get('/settings/broker/status', { schema: { tags, response: { 200: dataResponse(BrokerStatusSchema) } } }, async (req) => ({
    data: await s.brokerStatus(req.actor),
  }));
  app.post(
    '/settings/broker/restart',
    { schema: { tags, body: BrokerRestartBodySchema, response: { 200: dataResponse(BrokerStatusSchema) } } },
    async (req) => ({ data: await s.restartBroker(req.ctx, req.body.type) }),
  );
}
