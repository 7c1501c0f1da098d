import type { Locale } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { mailTemplates } from '../../modules/mail-templates/mail-templates.table.js';
import { type DbOrTx, queryRows } from '../db/client.js';
import type { OutgoingMail } from './smtp.js';
import { type CompanyInfo, companyParams, type MailKind, type MailParams, type MailTemplateText, renderMail } from './templates.js';

/** Whose groups choose a mail's template: a user (their groups), or groups named directly. */
export interface MailRecipient {
  userId?: number | undefined;
  groupIds?: readonly number[] | undefined;
}

/**
 * The stored template a mail to this recipient uses (issue 14, mail templates): the one of the
 * recipient's group nearest to them (their own group, then its parent and up; with several groups
 * the deepest wins), else the project's, else none (the built-in text is used).
 */
export async function findMailTemplate(
  db: DbOrTx,
  v: { projectId: number; kind: MailKind; locale: Locale; recipient?: MailRecipient | undefined },
): Promise<MailTemplateText | undefined> {
  const groupIds = (v.recipient?.groupIds ?? []).map((i) => Math.trunc(i)).filter((i) => Number.isSafeInteger(i));
  const userId = v.recipient?.userId;
  const theirs = sql`(SELECT unnest(rg.path) FROM groups rg WHERE rg.project_id = ${v.projectId}
    AND (rg.id = ANY(${`{${groupIds.join(',')}}`}::int[])
      ${userId !== undefined ? sql`OR rg.id IN (SELECT ug.group_id FROM user_groups ug WHERE ug.user_id = ${userId})` : sql``}))`;
  const [row] = await queryRows<MailTemplateText>(
    db,
    sql`SELECT t.subject, t.body FROM ${mailTemplates} t LEFT JOIN groups g ON g.id = t.group_id
      WHERE t.project_id = ${v.projectId} AND t.kind = ${v.kind} AND t.locale = ${v.locale}
        AND (t.group_id IS NULL OR t.group_id IN ${theirs})
      ORDER BY t.group_id IS NULL, cardinality(g.path) DESC, g.id
      LIMIT 1`,
  );
  return row;
}

/** A mail of `kind` in the recipient's language, written from the template that applies to them, with the company footer. */
export async function composeMail<K extends MailKind>(
  db: DbOrTx,
  v: {
    projectId: number | null;
    to: string;
    locale: Locale | string;
    kind: K;
    params: MailParams[K];
    recipient?: MailRecipient | undefined;
    /** The project's management company, which the footer shows (none: left out). */
    company?: CompanyInfo | null | undefined;
  },
): Promise<OutgoingMail & { html: string }> {
  const locale: Locale = v.locale === 'ru' ? 'ru' : 'en';
  const template =
    v.projectId === null ? undefined : await findMailTemplate(db, { projectId: v.projectId, kind: v.kind, locale, recipient: v.recipient });
  return { to: v.to, ...renderMail(v.kind, locale, v.params, template, companyParams(v.company)) };
}

/**
 * The stored templates of several recipients at once (each as `findMailTemplate` finds it), in one
 * query: by `${userId}:${locale}`, undefined where none applies.
 */
export async function findMailTemplatesOfUsers(
  db: DbOrTx,
  v: { projectId: number; kind: MailKind; recipients: readonly { userId: number; locale: Locale }[] },
): Promise<Map<string, MailTemplateText | undefined>> {
  const found = new Map<string, MailTemplateText | undefined>();
  const wanted = [...new Map(v.recipients.map((r) => [`${r.userId}:${r.locale}`, { uid: Math.trunc(r.userId), loc: r.locale }])).values()];
  if (!wanted.length) return found;
  const rows = await queryRows<{ uid: number; loc: string; subject: string | null; body: string | null }>(
    db,
    sql`SELECT r.uid, r.loc, t.subject, t.body
      FROM jsonb_to_recordset(${JSON.stringify(wanted)}::jsonb) AS r(uid int, loc text)
      LEFT JOIN LATERAL (
        SELECT t.subject, t.body FROM ${mailTemplates} t LEFT JOIN groups g ON g.id = t.group_id
        WHERE t.project_id = ${v.projectId} AND t.kind = ${v.kind} AND t.locale = r.loc
          AND (t.group_id IS NULL OR t.group_id IN (SELECT unnest(rg.path) FROM groups rg WHERE rg.project_id = ${v.projectId}
            AND rg.id IN (SELECT ug.group_id FROM user_groups ug WHERE ug.user_id = r.uid)))
        ORDER BY t.group_id IS NULL, cardinality(g.path) DESC, g.id
        LIMIT 1
      ) t ON TRUE`,
  );
  for (const r of rows)
    found.set(`${Number(r.uid)}:${r.loc}`, r.subject === null || r.body === null ? undefined : { subject: r.subject, body: r.body });
  return found;
}
