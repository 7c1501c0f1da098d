import type { Locale, MailTemplateKind } from '@atrium/contract';

/** What each kind of mail needs to be written: the values of its placeholders. */
export interface MailParams {
  invite: { name: string; login: string; link: string; project: string; days: number };
  self_registration_code: { name: string; code: string; link: string; object_name: string; minutes: number };
  password_reset: { name: string; login: string; link: string; minutes: number };
  /**
   * `body` is the announce's sanitised HTML (put as it is into the HTML part, as text into the text
   * part); `reminder`, `link_hint` and `from` are sentences in the recipient's language, or empty.
   */
  announce: { name: string; subject: string; body: RichValue; reminder: string; link_hint: string; link: string; from: string };
  /** To the administrator e-mail of the general settings: a device went offline. */
  device_offline: { project: string; device: string; serial_number: string; group: string; time: string };
  /** To the administrator e-mail of the general settings: a device task ended in error. */
  device_task_failed: {
    project: string;
    device: string;
    serial_number: string;
    group: string;
    task_type: string;
    error: string;
    time: string;
  };
}
export type MailKind = keyof MailParams & MailTemplateKind;

/** A value that has its own HTML form (already safe), e.g. an announce body. */
export interface RichValue {
  text: string;
  html: string;
  /** The HTML may stand inside a line of text (an image), not only as a paragraph of its own. */
  inline?: boolean;
}

/** The project's management company (white-label settings), which every mail's footer shows. */
export interface CompanyInfo {
  name: string | null;
  address: string | null;
  email: string | null;
  phone: string | null;
  /** The logo's file key, or null. */
  logoKey: string | null;
}

/** The company placeholders every kind of mail has (`{company_logo}` only draws in the HTML part). */
export interface CompanyParams {
  company_name: string;
  company_address: string;
  company_email: string;
  company_phone: string;
  company_logo: RichValue;
}

/**
 * The Content-ID of the logo in a mail's HTML part. The logo travels inside the mail (an inline
 * attachment, RFC 2392) rather than as a link to Atrium: Outlook, Thunderbird and many corporate
 * clients block remote images until the reader allows them, and a web-mail's image proxy cannot
 * fetch from an Atrium that is only reachable inside the building's network; an inline part is
 * shown at once by all of them. The mailer attaches the project's logo when it sends (core/mail/mailer.ts).
 */
export const COMPANY_LOGO_CID = 'company-logo@atrium';

/**
 * The company placeholders of a project: empty strings where the white-label has nothing (their
 * lines are then left out). `logoSrc`: where the HTML part finds the logo (the inline part by
 * default; a preview in the console gives the logo's address instead).
 */
export function companyParams(c: CompanyInfo | null | undefined, logoSrc?: string): CompanyParams {
  const name = c?.name?.trim() ?? '';
  const src = c?.logoKey ? (logoSrc ?? `cid:${COMPANY_LOGO_CID}`) : '';
  return {
    company_name: name,
    company_address: c?.address?.trim() ?? '',
    company_email: c?.email?.trim() ?? '',
    company_phone: c?.phone?.trim() ?? '',
    company_logo: {
      text: '',
      html: src ? `<img src="${escapeHtml(src)}" alt="${escapeHtml(name)}" style="max-height:64px;max-width:240px">` : '',
      inline: true,
    },
  };
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** A template: a subject and a body of paragraphs (blank lines between), with `{placeholder}` marks. */
export interface MailTemplateText {
  subject: string;
  body: string;
}

type Defaults = Record<MailKind, MailTemplateText>;

/** The footer every built-in text ends with: the management company; lines without a value are left out. */
const FOOTER_EN = ['{company_logo}', '{company_name}\n{company_address}\nPhone: {company_phone}\nE-mail: {company_email}'];
const FOOTER_RU = ['{company_logo}', '{company_name}\n{company_address}\nТелефон: {company_phone}\nЭл. почта: {company_email}'];

const en: Defaults = {
  invite: {
    subject: 'Your invitation to {project}',
    body: [
      'Hello, {name}.',
      'An account with the login "{login}" was made for you in {project}. Open the link below to set your password and finish the registration:',
      '{link}',
      'The link works once and for {days} days. If you did not expect this message, ignore it.',
      ...FOOTER_EN,
    ].join('\n\n'),
  },
  self_registration_code: {
    subject: 'Your registration confirmation code',
    body: [
      'Hello, {name}.',
      'To confirm your registration for "{object_name}", enter this code:',
      '{code}',
      'or open the link:',
      '{link}',
      'The code works for {minutes} minutes. If you did not register, ignore this message.',
      ...FOOTER_EN,
    ].join('\n\n'),
  },
  password_reset: {
    subject: 'Password recovery',
    body: [
      'Hello, {name}.',
      'Someone asked to reset the password of the account "{login}". Open the link below to set a new password:',
      '{link}',
      'The link works once and for {minutes} minutes. If it was not you, ignore this message: your password stays as it is.',
      ...FOOTER_EN,
    ].join('\n\n'),
  },
  announce: {
    subject: '{subject}',
    body: ['Hello, {name}.', '{reminder}', '{body}', '{link_hint}\n{link}', '{from}', ...FOOTER_EN].join('\n\n'),
  },
  device_offline: {
    subject: '{project}: device {device} is offline',
    body: [
      'The device "{device}" (serial number {serial_number}, group "{group}") went offline at {time}.',
      'Check its power and network. Tasks for it wait until it is back online.',
      'You receive this message because device notifications are on in the project settings of {project}.',
      ...FOOTER_EN,
    ].join('\n\n'),
  },
  device_task_failed: {
    subject: '{project}: a task of device {device} failed',
    body: [
      'The task "{task_type}" of the device "{device}" (serial number {serial_number}, group "{group}") failed at {time}.',
      'Error: {error}',
      'You receive this message because device notifications are on in the project settings of {project}.',
      ...FOOTER_EN,
    ].join('\n\n'),
  },
};

const ru: Defaults = {
  invite: {
    subject: 'Приглашение в {project}',
    body: [
      'Здравствуйте, {name}.',
      'Для вас создана учётная запись с логином «{login}» в {project}. Откройте ссылку, чтобы задать пароль и завершить регистрацию:',
      '{link}',
      'Ссылка действует один раз в течение {days} дн. Если вы не ждали этого письма, просто проигнорируйте его.',
      ...FOOTER_RU,
    ].join('\n\n'),
  },
  self_registration_code: {
    subject: 'Код подтверждения регистрации',
    body: [
      'Здравствуйте, {name}.',
      'Чтобы подтвердить регистрацию для объекта «{object_name}», введите код:',
      '{code}',
      'или откройте ссылку:',
      '{link}',
      'Код действует {minutes} мин. Если вы не регистрировались, проигнорируйте это письмо.',
      ...FOOTER_RU,
    ].join('\n\n'),
  },
  password_reset: {
    subject: 'Восстановление пароля',
    body: [
      'Здравствуйте, {name}.',
      'Поступил запрос на сброс пароля учётной записи «{login}». Откройте ссылку, чтобы задать новый пароль:',
      '{link}',
      'Ссылка действует один раз в течение {minutes} мин. Если это были не вы, проигнорируйте письмо: пароль останется прежним.',
      ...FOOTER_RU,
    ].join('\n\n'),
  },
  announce: {
    subject: '{subject}',
    body: ['Здравствуйте, {name}.', '{reminder}', '{body}', '{link_hint}\n{link}', '{from}', ...FOOTER_RU].join('\n\n'),
  },
  device_offline: {
    subject: '{project}: устройство {device} не в сети',
    body: [
      'Устройство «{device}» (серийный номер {serial_number}, группа «{group}») перешло в офлайн в {time}.',
      'Проверьте его питание и сеть. Задачи для него ждут, пока оно снова не появится в сети.',
      'Вы получили это письмо, потому что в настройках проекта {project} включены уведомления об устройствах.',
      ...FOOTER_RU,
    ].join('\n\n'),
  },
  device_task_failed: {
    subject: '{project}: задача устройства {device} завершилась ошибкой',
    body: [
      'Задача «{task_type}» устройства «{device}» (серийный номер {serial_number}, группа «{group}») завершилась ошибкой в {time}.',
      'Ошибка: {error}',
      'Вы получили это письмо, потому что в настройках проекта {project} включены уведомления об устройствах.',
      ...FOOTER_RU,
    ].join('\n\n'),
  },
};

/** The built-in text of a kind in a language (English unless Russian). */
export function defaultTemplate(kind: MailKind, locale: Locale | string): MailTemplateText {
  return (locale === 'ru' ? ru : en)[kind];
}

/** Sample values for previews; links lead to `linkBase` (the project's, when known). */
export function sampleParams(
  kind: MailKind,
  locale: Locale | string,
  project: string,
  linkBase = 'https://atrium.example',
): MailParams[MailKind] {
  const ruL = locale === 'ru';
  const name = ruL ? 'Иван Петров' : 'John Smith';
  const link = `${linkBase}/link/abc123`;
  switch (kind) {
    case 'invite':
      return { name, login: 'jsmith', link, project, days: 7 };
    case 'self_registration_code':
      return { name, code: '123 456', link, object_name: ruL ? 'Дом 1' : 'House 1', minutes: 15 };
    case 'password_reset':
      return { name, login: 'jsmith', link, minutes: 60 };
    case 'device_offline':
      return {
        project,
        device: ruL ? 'Подъезд 1' : 'Entrance 1',
        serial_number: 'AP100-0001',
        group: ruL ? 'Дом 1' : 'House 1',
        time: '2026-01-15 09:30',
      };
    case 'device_task_failed':
      return {
        project,
        device: ruL ? 'Подъезд 1' : 'Entrance 1',
        serial_number: 'AP100-0001',
        group: ruL ? 'Дом 1' : 'House 1',
        task_type: 'sync',
        error: 'timeout',
        time: '2026-01-15 09:30',
      };
    case 'announce': {
      const body = ruL ? 'Завтра с 10:00 до 12:00 не будет воды.' : 'There will be no water tomorrow from 10:00 to 12:00.';
      return {
        name,
        subject: ruL ? 'Отключение воды' : 'Water outage',
        body: { text: body, html: `<p>${escapeHtml(body)}</p>` },
        reminder: '',
        link_hint: ruL ? 'Объявление можно прочитать и на сайте:' : 'You can also read this announce online:',
        link,
        from: '',
      };
    }
  }
}

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const MARK = /\{([a-z_]+)\}/g;
type Values = Record<string, string | number | RichValue>;
const textOf = (v: string | number | RichValue | undefined) => (v === undefined ? undefined : typeof v === 'object' ? v.text : String(v));

const blank = (v: string | number | RichValue | undefined) =>
  v !== undefined && (textOf(v) ?? '').trim() === '' && (typeof v !== 'object' || v.html.trim() === '');

/**
 * Writes a mail from a template: each `{placeholder}` gets its value (unknown marks stay as they
 * are). The HTML part is built from the text: the template's own words and every value are escaped,
 * `{link}` becomes a link, a paragraph of only `{code}` a large code, a paragraph of only a rich
 * value (the announce body, the company logo) that value's own safe HTML. A line whose every
 * placeholder is empty is left out (no "Phone:" without a phone), and so are paragraphs left empty.
 */
export function renderTemplate(t: MailTemplateText, params: object): RenderedMail {
  const values = params as Values;
  const fill = (s: string) => s.replace(MARK, (m, k: string) => textOf(values[k]) ?? m);
  const subject = fill(t.subject).replace(/\s+/g, ' ').trim();
  const said = (line: string) => {
    const marks = [...line.matchAll(MARK)].map((m) => m[1] as string);
    return !(marks.length > 0 && marks.every((k) => blank(values[k])));
  };
  const paragraphs = t.body
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.split('\n').filter(said).join('\n').trim())
    .filter((p) => p !== '');
  const text = paragraphs
    .map((p) =>
      p
        .split('\n')
        .map(fill)
        .filter((l) => l.trim() !== '')
        .join('\n')
        .trim(),
    )
    .filter((p) => p !== '')
    .join('\n\n');
  const html = paragraphs
    .map((p) => {
      const only = /^\{([a-z_]+)\}$/.exec(p)?.[1];
      const v = only === undefined ? undefined : values[only];
      if (v !== undefined && typeof v === 'object') return v.inline && v.html ? `<p>${v.html}</p>` : v.html;
      if (only === 'code' && v !== undefined)
        return `<p style="font-size:24px;font-weight:bold;letter-spacing:4px">${escapeHtml(String(v))}</p>`;
      const lines = p.split('\n').map((line) =>
        line
          .split(MARK)
          .map((part, i) => {
            if (i % 2 === 0) return escapeHtml(part);
            const val = values[part];
            if (val === undefined) return escapeHtml(`{${part}}`);
            if (part === 'link') return `<a href="${escapeHtml(String(val))}">${escapeHtml(String(val))}</a>`;
            if (typeof val === 'object' && val.inline) return val.html;
            return escapeHtml(textOf(val) ?? '');
          })
          .join(''),
      );
      const kept = lines.filter((l) => l.trim() !== '');
      return kept.length ? `<p>${kept.join('<br>')}</p>` : '';
    })
    .filter((h) => h.trim() !== '')
    .join('\n');
  return { subject, text: `${text}\n`, html: `<!doctype html>\n<html><body>\n${html}\n</body></html>\n` };
}

/**
 * A mail of `kind` in the recipient's language from `template`, else its built-in text (English
 * unless Russian), with the project's management company (none: its lines are left out).
 */
export function renderMail<K extends MailKind>(
  kind: K,
  locale: Locale | string,
  params: MailParams[K],
  template?: MailTemplateText,
  company?: CompanyParams,
): RenderedMail {
  // The kind's own values win over the company's (no kind has one of those names today).
  return renderTemplate(template ?? defaultTemplate(kind, locale), { ...(company ?? companyParams(null)), ...params });
}
