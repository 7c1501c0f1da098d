import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message as the test SMTP peer received it, with the parts tests read decoded. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Parts that are neither the text nor the HTML (inline images), by Content-ID. */
  parts: MailPart[];
  raw: string;
}

/** A non-text part of a message. */
export interface MailPart {
  contentType: string;
  /** The Content-ID without its angle brackets, or null. */
  cid: string | null;
  disposition: string | null;
  content: Buffer;
}

export interface SmtpPeer {
  host: string;
  port: number;
  user: string;
  password: string;
  received: ReceivedMail[];
  /** Resolves with the next message to `to` (or the first already received and not yet taken). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** Refuses every message with this SMTP reply until cleared. */
  refuse(reply: string | null): void;
  close(): Promise<void>;
}

function decodeWords(value: string): string {
  return value.replace(/\s*=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*/g, (_m, _charset, enc: string, data: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

function splitHeaders(part: string): { headers: Map<string, string>; body: string } {
  const at = part.indexOf('\r\n\r\n');
  const head = at < 0 ? part : part.slice(0, at);
  const body = at < 0 ? '' : part.slice(at + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** Reads the subject, the text and HTML bodies and the other parts of a message as nodemailer writes it. */
export function parseMail(raw: string): { subject: string; text: string; html: string; parts: MailPart[] } {
  const { headers, body } = splitHeaders(raw);
  const out = { subject: decodeWords(headers.get('subject') ?? ''), text: '', html: '', parts: [] as MailPart[] };
  const visit = (h: Map<string, string>, b: string) => {
    const type = h.get('content-type') ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (type.toLowerCase().startsWith('multipart/') && boundary) {
      for (const piece of b.split(`--${boundary}`).slice(1)) {
        if (piece.startsWith('--')) break;
        const sub = splitHeaders(piece.replace(/^\r\n/, ''));
        visit(sub.headers, sub.body);
      }
      return;
    }
    const lower = type.toLowerCase();
    if (!lower.startsWith('text/')) {
      const enc = (h.get('content-transfer-encoding') ?? '').toLowerCase();
      out.parts.push({
        contentType: lower.split(';')[0]?.trim() ?? lower,
        cid: h.get('content-id')?.replace(/^<|>$/g, '') ?? null,
        disposition: h.get('content-disposition')?.split(';')[0]?.trim().toLowerCase() ?? null,
        content: enc === 'base64' ? Buffer.from(b.replace(/\s+/g, ''), 'base64') : Buffer.from(b, 'latin1'),
      });
      return;
    }
    const decoded = decodeBody(b, h.get('content-transfer-encoding')).replace(/\r\n/g, '\n');
    if (lower.startsWith('text/html')) out.html = decoded;
    else out.text = decoded;
  };
  visit(headers, body);
  return out;
}

/**
 * A real SMTP server on a free loopback port, for tests: it asks for a login, accepts (or refuses)
 * every message and keeps what it received.
 */
export async function startSmtpPeer(): Promise<SmtpPeer> {
  const received: ReceivedMail[] = [];
  const waiters: { to: string; resolve: (m: ReceivedMail) => void }[] = [];
  const taken = new Set<ReceivedMail>();
  let refusal: string | null = null;
  const user = 'mailer';
  const password = `smtp-secret-${Math.random().toString(36).slice(2)}`;

  const take = (to: string): ReceivedMail | undefined => {
    const m = received.find((r) => !taken.has(r) && r.to.includes(to.toLowerCase()));
    if (m) taken.add(m);
    return m;
  };

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === password) return cb(null, { user });
      return cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusal) {
          const err = new Error(refusal) as Error & { responseCode: number };
          err.responseCode = 554;
          return cb(err);
        }
        const raw = Buffer.concat(chunks).toString('latin1');
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          ...parseMail(raw),
          raw,
        };
        received.push(mail);
        for (const w of [...waiters]) {
          if (mail.to.includes(w.to) && !taken.has(mail)) {
            taken.add(mail);
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(mail);
          }
        }
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    received,
    next(to, timeoutMs = 10_000) {
      const ready = take(to);
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const waiter = { to: to.toLowerCase(), resolve };
        waiters.push(waiter);
        setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
          }
        }, timeoutMs).unref();
      });
    },
    refuse(reply) {
      refusal = reply;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
