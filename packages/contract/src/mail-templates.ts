import { z } from 'zod';
import { LOCALES } from './constants.js';
import { IdSchema, IdValueSchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Mail templates (spec entities §3, §5, §7; issue 14): the texts of every mail Atrium sends, per
// project and per group, with `{placeholder}` marks filled in when a mail is written.

/** The kinds of mail Atrium sends. */
export const MAIL_TEMPLATE_KINDS = [
  'invite',
  'self_registration_code',
  'password_reset',
  'announce',
  'device_offline',
  'device_task_failed',
] as const;
export type MailTemplateKind = (typeof MAIL_TEMPLATE_KINDS)[number];

/**
 * The project's management company (white-label settings), offered by every kind: a line whose
 * placeholders are all empty is left out of the mail; `{company_logo}` draws the logo in the HTML part only.
 */
export const MAIL_COMPANY_PLACEHOLDERS = ['company_name', 'company_address', 'company_email', 'company_phone', 'company_logo'] as const;

/** The placeholders each kind offers, and the ones its body must contain. */
export const MAIL_TEMPLATE_PLACEHOLDERS: Record<MailTemplateKind, { all: readonly string[]; required: readonly string[] }> = {
  invite: { all: ['name', 'login', 'link', 'project', 'days', ...MAIL_COMPANY_PLACEHOLDERS], required: ['link'] },
  self_registration_code: { all: ['name', 'code', 'link', 'object_name', 'minutes', ...MAIL_COMPANY_PLACEHOLDERS], required: ['code'] },
  password_reset: { all: ['name', 'login', 'link', 'minutes', ...MAIL_COMPANY_PLACEHOLDERS], required: ['link'] },
  announce: {
    all: ['name', 'subject', 'body', 'reminder', 'link_hint', 'link', 'from', ...MAIL_COMPANY_PLACEHOLDERS],
    required: ['body', 'link'],
  },
  // Sent to the project's administrator e-mail when the general settings' device notifications are on.
  device_offline: { all: ['project', 'device', 'serial_number', 'group', 'time', ...MAIL_COMPANY_PLACEHOLDERS], required: ['device'] },
  device_task_failed: {
    all: ['project', 'device', 'serial_number', 'group', 'task_type', 'error', 'time', ...MAIL_COMPANY_PLACEHOLDERS],
    required: ['device'],
  },
};

export const MAIL_TEMPLATE_MESSAGES = {
  /** "The value must contain {placeholders}" (spec entities §5) */
  must_contain: M.must_contain,
} as const;

/** The required placeholders of `kind` that `body` lacks, as `{name}` marks. */
export function missingPlaceholders(kind: MailTemplateKind, body: string): string[] {
  return MAIL_TEMPLATE_PLACEHOLDERS[kind].required.filter((p) => !body.includes(`{${p}}`)).map((p) => `{${p}}`);
}

export const MAIL_TEMPLATE_LIMITS = { subject: 200, body: 20_000 } as const;

const SubjectSchema = z.string().trim().min(1, M.required).max(MAIL_TEMPLATE_LIMITS.subject, M.max_length);
const BodySchema = z.string().trim().min(1, M.required).max(MAIL_TEMPLATE_LIMITS.body, M.max_length);

const checkBody = (v: { kind: MailTemplateKind; body: string }, ctx: z.RefinementCtx) => {
  const missing = missingPlaceholders(v.kind, v.body);
  if (missing.length)
    ctx.addIssue({
      code: 'custom',
      path: ['body'],
      message: MAIL_TEMPLATE_MESSAGES.must_contain,
      params: { placeholders: missing.join(', ') },
    });
};

/** PUT /mail-templates: a template of a kind and language, for the project or (with domain_id) a group. */
export const CreateMailTemplateBodySchema = z
  .strictObject({
    kind: z.enum(MAIL_TEMPLATE_KINDS),
    locale: z.enum(LOCALES),
    domain_id: IdValueSchema.nullable().optional(),
    subject: SubjectSchema,
    body: BodySchema,
  })
  .superRefine(checkBody);
export type CreateMailTemplateBody = z.infer<typeof CreateMailTemplateBodySchema>;

/** PATCH /mail-templates/{id}: the kind, language and group stay; the body is checked against the kind by the server. */
export const UpdateMailTemplateBodySchema = z.strictObject({ subject: SubjectSchema.optional(), body: BodySchema.optional() });
export type UpdateMailTemplateBody = z.infer<typeof UpdateMailTemplateBodySchema>;

/** POST /mail-templates/preview: renders a (possibly unsaved) template with sample values. */
export const MailTemplatePreviewBodySchema = z
  .strictObject({
    kind: z.enum(MAIL_TEMPLATE_KINDS),
    locale: z.enum(LOCALES),
    domain_id: IdValueSchema.nullable().optional(),
    subject: SubjectSchema,
    body: BodySchema,
  })
  .superRefine(checkBody);
export type MailTemplatePreviewBody = z.infer<typeof MailTemplatePreviewBodySchema>;

/** POST /mail-templates/send-preview: the preview mailed to `to` through the project's SMTP. */
export const MailTemplateSendPreviewBodySchema = z
  .strictObject({
    kind: z.enum(MAIL_TEMPLATE_KINDS),
    locale: z.enum(LOCALES),
    domain_id: IdValueSchema.nullable().optional(),
    subject: SubjectSchema,
    body: BodySchema,
    to: z.email(M.email).max(254, M.max_length),
  })
  .superRefine(checkBody);
export type MailTemplateSendPreviewBody = z.infer<typeof MailTemplateSendPreviewBodySchema>;

export const MailPreviewSchema = z.object({ subject: z.string(), text: z.string(), html: z.string() });
export type MailPreview = z.infer<typeof MailPreviewSchema>;

/** A template as listed: a stored one (id set) or the built-in default of a kind and language (id null). */
export const MailTemplateSchema = z.object({
  id: z.number().nullable(),
  kind: z.enum(MAIL_TEMPLATE_KINDS),
  locale: z.enum(LOCALES),
  domain_id: z.number().nullable(),
  subject: z.string(),
  body: z.string(),
  is_default: z.boolean(),
  placeholders: z.array(z.string()),
  required_placeholders: z.array(z.string()),
  updated_at: z.string().nullable(),
});
export type MailTemplate = z.infer<typeof MailTemplateSchema>;

/** GET /mail-templates: the project's templates (or a group's, with domain_id), a built-in default for each missing one. */
export const MailTemplateListQuerySchema = z.strictObject({
  domain_id: IdSchema.optional(),
  kind: z.enum(MAIL_TEMPLATE_KINDS).optional(),
  locale: z.enum(LOCALES).optional(),
});
export type MailTemplateListQuery = z.infer<typeof MailTemplateListQuerySchema>;

/** GET /mail-templates/types: each kind with its placeholders. */
export const MailTemplateTypeSchema = z.object({
  kind: z.enum(MAIL_TEMPLATE_KINDS),
  placeholders: z.array(z.string()),
  required_placeholders: z.array(z.string()),
});
export type MailTemplateType = z.infer<typeof MailTemplateTypeSchema>;
