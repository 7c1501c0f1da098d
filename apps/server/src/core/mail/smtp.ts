import { type SmtpSettings, SmtpSettingsSchema } from '@atrium/contract';
import nodemailer, { type Transporter } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  /** Images the HTML part shows by `cid:` (the company logo), added when the mail is sent. */
  attachments?: readonly { cid: string; filename: string; contentType: string; content: Buffer }[];
}

/** The message as nodemailer takes it. */
const message = (from: string, mail: OutgoingMail) => ({
  from,
  to: mail.to,
  subject: mail.subject,
  text: mail.text,
  ...(mail.html ? { html: mail.html } : {}),
  ...(mail.attachments?.length
    ? {
        attachments: mail.attachments.map((a) => ({
          cid: a.cid,
          filename: a.filename,
          contentType: a.contentType,
          content: a.content,
          contentDisposition: 'inline' as const,
        })),
      }
    : {}),
});

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
    await transport.sendMail(message(settings.from, mail));
  } finally {
    transport.close();
  }
}

/** Pooled connections per SMTP server, kept while mail flows and closed after a short quiet time. */
const pools = new Map<string, { transport: Transporter; idle: NodeJS.Timeout | undefined; busy: number }>();
const POOL_IDLE_MS = 2000;

/**
 * Hands one message to the SMTP server over a pooled connection (up to 5 per server unless asked for more, 100 messages
 * each): an announce to thousands is not a new TCP and TLS handshake and login per message. The
 * settings test (project settings) uses sendSmtp, so a wrong password shows on a fresh connection.
 */
export async function sendSmtpPooled(settings: SmtpSettings, mail: OutgoingMail, opts: { connections?: number } = {}): Promise<void> {
  const connections = Math.min(50, Math.max(1, Math.trunc(opts.connections ?? 5)));
  const key = JSON.stringify([
    settings.host,
    settings.port,
    settings.secure,
    settings.user ?? null,
    settings.password ?? null,
    connections,
  ]);
  let pool = pools.get(key);
  if (!pool) {
    pool = {
      transport: nodemailer.createTransport({
        pool: true,
        maxConnections: connections,
        maxMessages: 100,
        host: settings.host,
        port: settings.port,
        secure: settings.secure,
        ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
      idle: undefined,
      busy: 0,
    };
    pools.set(key, pool);
  }
  const p = pool;
  if (p.idle) clearTimeout(p.idle);
  p.idle = undefined;
  p.busy++;
  try {
    await p.transport.sendMail(message(settings.from, mail));
  } finally {
    p.busy--;
    if (p.busy === 0) {
      p.idle = setTimeout(() => {
        if (p.busy > 0 || pools.get(key) !== p) return;
        pools.delete(key);
        p.transport.close();
      }, POOL_IDLE_MS);
      p.idle.unref();
    }
  }
}
