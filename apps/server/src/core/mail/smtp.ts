import { type SmtpSettings, SmtpSettingsSchema } from '@atrium/contract';
import nodemailer from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string | null;
}

/** The project's SMTP settings when they are complete, otherwise null (mail is then only stored). */
export function parseSmtpSettings(raw: unknown): SmtpSettings | null {
  if (!raw || typeof raw !== 'object') return null;
  const parsed = SmtpSettingsSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

const MAX_ERROR_LENGTH = 500;

/** An SMTP failure as the outbox records it: short, and never holding the SMTP password. */
export function describeSmtpError(err: unknown, settings: Pick<SmtpSettings, 'password'>): string {
  const e = err as { message?: unknown; code?: unknown; responseCode?: unknown };
  const parts = [typeof e?.code === 'string' ? e.code : null, typeof e?.message === 'string' ? e.message : String(err)];
  let text = parts.filter(Boolean).join(': ');
  const secret = settings.password;
  if (secret) text = text.split(secret).join('***');
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_LENGTH);
}

/** Hands one message to the SMTP server; throws on any refusal. */
export async function sendSmtp(settings: SmtpSettings, mail: OutgoingMail): Promise<void> {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail({
      from: settings.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html ? { html: mail.html } : {}),
    });
  } finally {
    transport.close();
  }
}
