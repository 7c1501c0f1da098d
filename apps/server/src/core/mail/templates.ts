import type { Locale } from '@atrium/contract';

/** What each kind of mail needs to be written. */
export interface MailParams {
  invite: { name: string; login: string; link: string; project: string; days: number };
  self_registration_code: { name: string; code: string; link: string; object_name: string; minutes: number };
  password_reset: { name: string; login: string; link: string; minutes: number };
}
export type MailKind = keyof MailParams;

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

interface Text {
  subject: string;
  /** Paragraphs; `{link}` marks where the link goes, `{code}` where the code goes. */
  lines: string[];
}

type Texts = { [K in MailKind]: (p: MailParams[K]) => Text };

const en: Texts = {
  invite: (p) => ({
    subject: `Your invitation to ${p.project}`,
    lines: [
      `Hello, ${p.name}.`,
      `An account with the login "${p.login}" was made for you in ${p.project}. Open the link below to set your password and finish the registration:`,
      '{link}',
      `The link works once and for ${p.days} days. If you did not expect this message, ignore it.`,
    ],
  }),
  self_registration_code: (p) => ({
    subject: 'Your registration confirmation code',
    lines: [
      `Hello, ${p.name}.`,
      `To confirm your registration for "${p.object_name}", enter this code:`,
      '{code}',
      'or open the link:',
      '{link}',
      `The code works for ${p.minutes} minutes. If you did not register, ignore this message.`,
    ],
  }),
  password_reset: (p) => ({
    subject: 'Password recovery',
    lines: [
      `Hello, ${p.name}.`,
      `Someone asked to reset the password of the account "${p.login}". Open the link below to set a new password:`,
      '{link}',
      `The link works once and for ${p.minutes} minutes. If it was not you, ignore this message: your password stays as it is.`,
    ],
  }),
};

const ru: Texts = {
  invite: (p) => ({
    subject: `Приглашение в ${p.project}`,
    lines: [
      `Здравствуйте, ${p.name}.`,
      `Для вас создана учётная запись с логином «${p.login}» в ${p.project}. Откройте ссылку, чтобы задать пароль и завершить регистрацию:`,
      '{link}',
      `Ссылка действует один раз в течение ${p.days} дн. Если вы не ждали этого письма, просто проигнорируйте его.`,
    ],
  }),
  self_registration_code: (p) => ({
    subject: 'Код подтверждения регистрации',
    lines: [
      `Здравствуйте, ${p.name}.`,
      `Чтобы подтвердить регистрацию для объекта «${p.object_name}», введите код:`,
      '{code}',
      'или откройте ссылку:',
      '{link}',
      `Код действует ${p.minutes} мин. Если вы не регистрировались, проигнорируйте это письмо.`,
    ],
  }),
  password_reset: (p) => ({
    subject: 'Восстановление пароля',
    lines: [
      `Здравствуйте, ${p.name}.`,
      `Поступил запрос на сброс пароля учётной записи «${p.login}». Откройте ссылку, чтобы задать новый пароль:`,
      '{link}',
      `Ссылка действует один раз в течение ${p.minutes} мин. Если это были не вы, проигнорируйте письмо: пароль останется прежним.`,
    ],
  }),
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** A mail of `kind` in the recipient's language (English unless the recipient reads Russian). */
export function renderMail<K extends MailKind>(kind: K, locale: Locale | string, params: MailParams[K]): RenderedMail {
  const texts = (locale === 'ru' ? ru : en)[kind] as (p: MailParams[K]) => Text;
  const { subject, lines } = texts(params);
  const p = params as { link?: string; code?: string };
  const plain = lines.map((l) => (l === '{link}' ? (p.link ?? '') : l === '{code}' ? (p.code ?? '') : l));
  const html = lines
    .map((l) => {
      if (l === '{link}') return `<p><a href="${escapeHtml(p.link ?? '')}">${escapeHtml(p.link ?? '')}</a></p>`;
      if (l === '{code}') return `<p style="font-size:24px;font-weight:bold;letter-spacing:4px">${escapeHtml(p.code ?? '')}</p>`;
      return `<p>${escapeHtml(l)}</p>`;
    })
    .join('\n');
  return { subject, text: `${plain.join('\n\n')}\n`, html: `<!doctype html>\n<html><body>\n${html}\n</body></html>\n` };
}
