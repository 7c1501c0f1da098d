import {
  type BulkDeleteResult,
  type CreateMailTemplateBody,
  LOCALES,
  type Locale,
  MAIL_TEMPLATE_KINDS,
  MAIL_TEMPLATE_MESSAGES,
  MAIL_TEMPLATE_PLACEHOLDERS,
  type MailPreview,
  type MailTemplate,
  type MailTemplateKind,
  type MailTemplateListQuery,
  type MailTemplatePreviewBody,
  type MailTemplateSendPreviewBody,
  type MailTemplateType,
  missingPlaceholders,
  type UpdateMailTemplateBody,
} from '@atrium/contract';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { intArray } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { type Mailer, SmtpMissingError, SmtpSendError } from '../../core/mail/mailer.js';
import { companyParams, defaultTemplate, renderTemplate, sampleParams } from '../../core/mail/templates.js';
import type { ProjectInfo } from '../../core/project-info.js';
import { projects } from '../projects/projects.table.js';
import { mailTemplates } from './mail-templates.table.js';

type Row = typeof mailTemplates.$inferSelect;

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();
const kindInfo = (kind: MailTemplateKind) => ({
  placeholders: [...MAIL_TEMPLATE_PLACEHOLDERS[kind].all],
  required_placeholders: [...MAIL_TEMPLATE_PLACEHOLDERS[kind].required],
});

/**
 * Mail templates (spec entities §3, §5, §7; issue 14). Project-level templates need the project
 * settings permissions; a group's need edit all groups, edit my groups and below, or the
 * self-group management of mail templates for that group (spec entities §6).
 */
export class MailTemplatesService {
  constructor(
    private readonly db: Db,
    private readonly mailer: Pick<Mailer, 'sendNow'>,
    /** The project's link base and management company, which previews show as the mails will. */
    private readonly projectInfo: Pick<ProjectInfo, 'of'>,
  ) {}

  /** Throws unless the actor may read (or change) the templates of the project (null) or of a group of it. */
  private async assertAccess(actor: Actor, groupId: number | null, change: boolean): Promise<void> {
    const has = (c: string) => actor.permissions.has(c);
    if (groupId === null) {
      if (has('can_change_project_settings') || (!change && has('can_view_project_settings'))) return;
      throw prohibited([{ permission: change ? 'can_change_project_settings' : 'can_view_project_settings' }]);
    }
    const [g] = await queryRows<{ id: number; mine: boolean; below: boolean }>(
      this.db,
      sql`SELECT g.id, g.id = ANY(${intArray(actor.groupIds)}) AS mine, g.path && ${intArray(actor.groupIds)} AS below
        FROM groups g WHERE g.id = ${groupId} AND g.project_id = ${actor.projectId}`,
    );
    if (!g) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [groupId] }]);
    if (has('can_edit_all_domains')) return;
    if (has('can_edit_descendant_domains') && g.below) return;
    if (has('can_manage_self_domain_mail_templates') && g.mine) return;
    throw prohibited([{ permission: 'can_manage_self_domain_mail_templates' }]);
  }

  private toTemplate(r: Row): MailTemplate {
    const kind = r.kind as MailTemplateKind;
    return {
      id: r.id,
      kind,
      locale: r.locale as Locale,
      domain_id: r.groupId,
      subject: r.subject,
      body: r.body,
      is_default: false,
      ...kindInfo(kind),
      updated_at: iso(r.updatedAt),
    };
  }

  private builtIn(kind: MailTemplateKind, locale: Locale, groupId: number | null): MailTemplate {
    const t = defaultTemplate(kind, locale);
    return {
      id: null,
      kind,
      locale,
      domain_id: groupId,
      subject: t.subject,
      body: t.body,
      is_default: true,
      ...kindInfo(kind),
      updated_at: null,
    };
  }

  types(): MailTemplateType[] {
    return MAIL_TEMPLATE_KINDS.map((kind) => ({ kind, ...kindInfo(kind) }));
  }

  /** The templates of the project or of a group: a stored one, else the built-in text, for every kind and language. */
  async list(actor: Actor, q: MailTemplateListQuery): Promise<MailTemplate[]> {
    const groupId = q.domain_id ?? null;
    await this.assertAccess(actor, groupId, false);
    const rows = await this.db
      .select()
      .from(mailTemplates)
      .where(
        and(
          eq(mailTemplates.projectId, actor.projectId),
          groupId === null ? isNull(mailTemplates.groupId) : eq(mailTemplates.groupId, groupId),
        ),
      );
    const out: MailTemplate[] = [];
    for (const kind of MAIL_TEMPLATE_KINDS) {
      if (q.kind && q.kind !== kind) continue;
      for (const locale of LOCALES) {
        if (q.locale && q.locale !== locale) continue;
        const row = rows.find((r) => r.kind === kind && r.locale === locale);
        out.push(row ? this.toTemplate(row) : this.builtIn(kind, locale, groupId));
      }
    }
    return out;
  }

  private async row(actor: Actor, id: number): Promise<Row> {
    const [row] = await this.db
      .select()
      .from(mailTemplates)
      .where(and(eq(mailTemplates.id, id), eq(mailTemplates.projectId, actor.projectId)));
    if (!row) throw notFound();
    return row;
  }

  async get(actor: Actor, id: number): Promise<MailTemplate> {
    const row = await this.row(actor, id);
    await this.assertAccess(actor, row.groupId, false);
    return this.toTemplate(row);
  }

  async create(ctx: RequestContext, body: CreateMailTemplateBody): Promise<MailTemplate> {
    const groupId = body.domain_id ?? null;
    await this.assertAccess(ctx.actor, groupId, true);
    const [existing] = await this.db
      .select({ id: mailTemplates.id })
      .from(mailTemplates)
      .where(
        and(
          eq(mailTemplates.projectId, ctx.actor.projectId),
          groupId === null ? isNull(mailTemplates.groupId) : eq(mailTemplates.groupId, groupId),
          eq(mailTemplates.kind, body.kind),
          eq(mailTemplates.locale, body.locale),
        ),
      );
    // Spec entities §7: "a template of this type already exists".
    if (existing) throw new AppError('value_not_unique', [{ field: 'kind', message: 'validation.unique' }]);
    const row = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(mailTemplates)
        .values({
          projectId: ctx.actor.projectId,
          groupId,
          kind: body.kind,
          locale: body.locale,
          subject: body.subject,
          body: body.body,
          createdBy: ctx.actor.userId,
        })
        .returning();
      if (!r) throw new Error('mail template insert returned nothing');
      await recordAudit(tx, ctx, {
        entity: 'mail_template',
        entityId: r.id,
        action: 'create',
        after: { kind: r.kind, locale: r.locale, domain_id: r.groupId, subject: r.subject },
      });
      return r;
    });
    return this.toTemplate(row);
  }

  async update(ctx: RequestContext, id: number, body: UpdateMailTemplateBody): Promise<MailTemplate> {
    const before = await this.row(ctx.actor, id);
    await this.assertAccess(ctx.actor, before.groupId, true);
    if (body.body !== undefined) {
      const missing = missingPlaceholders(before.kind as MailTemplateKind, body.body);
      if (missing.length) throw invalidField('body', MAIL_TEMPLATE_MESSAGES.must_contain, { placeholders: missing.join(', ') });
    }
    const row = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .update(mailTemplates)
        .set({
          ...(body.subject !== undefined ? { subject: body.subject } : {}),
          ...(body.body !== undefined ? { body: body.body } : {}),
          updatedAt: sql`now()`,
        })
        .where(eq(mailTemplates.id, id))
        .returning();
      if (!r) throw notFound();
      await recordAudit(tx, ctx, {
        entity: 'mail_template',
        entityId: id,
        action: 'update',
        before: { subject: before.subject, body: before.body },
        after: { subject: r.subject, body: r.body },
      });
      return r;
    });
    return this.toTemplate(row);
  }

  /** Deletes a template: that kind goes back to the template above it (or the built-in text). */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.row(ctx.actor, id);
    await this.assertAccess(ctx.actor, before.groupId, true);
    await this.db.transaction(async (tx) => {
      await tx.delete(mailTemplates).where(eq(mailTemplates.id, id));
      await recordAudit(tx, ctx, {
        entity: 'mail_template',
        entityId: id,
        action: 'delete',
        before: { kind: before.kind, locale: before.locale, domain_id: before.groupId, subject: before.subject },
      });
    });
  }

  /** POST /mail-templates/delete: each one deleted, or why not. */
  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  /**
   * A (possibly unsaved) template written with sample values, the project's links and its
   * management company. `logo: 'file'` (the console's preview) shows the logo from its public
   * address; a mailed preview carries it inside, as every mail does.
   */
  async preview(actor: Actor, body: MailTemplatePreviewBody, logo: 'file' | 'inline' = 'file'): Promise<MailPreview> {
    await this.assertAccess(actor, body.domain_id ?? null, false);
    const [p] = await this.db.select({ name: projects.name }).from(projects).where(eq(projects.id, actor.projectId));
    const info = await this.projectInfo.of(actor.projectId);
    const logoSrc = logo === 'file' && info.company.logoKey ? `/api/v0/files/${info.company.logoKey}` : undefined;
    return renderTemplate(
      { subject: body.subject, body: body.body },
      { ...companyParams(info.company, logoSrc), ...sampleParams(body.kind, body.locale, p?.name ?? 'Atrium', info.linkBase) },
    );
  }

  /** The preview mailed to an address through the project's SMTP. */
  async sendPreview(ctx: RequestContext, body: MailTemplateSendPreviewBody): Promise<MailPreview> {
    await this.assertAccess(ctx.actor, body.domain_id ?? null, true);
    const mail = await this.preview(ctx.actor, body, 'inline');
    try {
      await this.mailer.sendNow(ctx.actor.projectId, { to: body.to, ...mail });
    } catch (e) {
      if (e instanceof SmtpMissingError) throw new AppError('test_mail_failed');
      if (e instanceof SmtpSendError) throw new AppError('test_mail_failed', [{ field: 'to', message: e.message }]);
      throw e;
    }
    // The console shows what was sent, with the logo from its address.
    return this.preview(ctx.actor, body);
  }
}
