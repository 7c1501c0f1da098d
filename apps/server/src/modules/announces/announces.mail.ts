import sanitizeHtml from 'sanitize-html';
import type { MailParams } from '../../core/mail/templates.js';
import { safeHtml } from '../../core/safe-html.js';

/** The body as stored and shown: safe HTML (the formatting of the console's editor). */
export const sanitizeBody = safeHtml;

/** The body as plain text for the text part of a mail. */
export function bodyText(html: string): string {
  const withBreaks = html.replace(/<\/(p|h[1-4]|li|blockquote|pre)>/gi, '\n').replace(/<br\s*\/?>/gi, '\n');
  const text = sanitizeHtml(withBreaks, { allowedTags: [], allowedAttributes: {} });
  return text
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const TEXTS = {
  en: {
    poll: 'Please answer the poll at this link (it is yours alone and takes one answer):',
    reminder: 'A reminder: the poll still waits for your answer.',
    info: 'You can also read this announce online:',
    from: 'From',
  },
  ru: {
    poll: 'Пожалуйста, ответьте на опрос по ссылке (она только ваша и принимает один ответ):',
    reminder: 'Напоминаем: опрос ждёт вашего ответа.',
    info: 'Объявление можно прочитать и на сайте:',
    from: 'От',
  },
} as const;

export interface AnnounceMailInput {
  locale: string;
  recipient: string;
  subject: string;
  /** Sanitised HTML. */
  body: string;
  poll: boolean;
  reminder: boolean;
  link: string;
  owner: { name: string; email: string | null } | null;
}

/**
 * The placeholders' values of one recipient's announce mail (issue 14: announces are written from
 * the `announce` mail template): the subject and body, their own link, and the author when the
 * announce says so.
 */
export function announceParams(m: AnnounceMailInput): MailParams['announce'] {
  const t = m.locale === 'ru' ? TEXTS.ru : TEXTS.en;
  const owner = m.owner ? `${m.owner.name}${m.owner.email ? ` <${m.owner.email}>` : ''}` : null;
  return {
    name: m.recipient,
    subject: m.subject,
    body: { text: bodyText(m.body), html: m.body },
    reminder: m.reminder ? t.reminder : '',
    link_hint: m.poll ? t.poll : t.info,
    link: m.link,
    from: owner ? `${t.from}: ${owner}` : '',
  };
}
