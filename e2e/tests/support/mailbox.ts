import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { smtpLogin, smtpPort } from '../../playwright.config';

/** A received message: its recipients and its decoded source (headers and bodies, soft breaks joined). */
export interface Mail {
  to: string[];
  source: string;
}

/**
 * Where the run's mail relay files what it receives. The server relays to one fixed port, and specs
 * in two workers read mail at the same time, so one SMTP server for the whole run (started by the
 * runner, global-setup.ts) writes every message here and each spec reads the ones to its own
 * recipients (every spec's addresses are its own).
 */
const mailDir = () => path.join(process.env.E2E_DATA_DIR ?? '', 'e2e-mail');

/** A real SMTP server on the port the e2e server relays its mail to; resolves with its closer. */
export async function startMailRelay(): Promise<() => Promise<void>> {
  const dir = mailDir();
  mkdirSync(dir, { recursive: true });
  let seq = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === smtpLogin.user && auth.password === smtpLogin.password) return cb(null, { user: auth.username });
      return cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const quoted = Buffer.concat(chunks).toString('latin1');
        // Quoted-printable: join soft line breaks and decode =XX, enough to read links and words.
        const bytes = quoted
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_x, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
        const mail: Mail = {
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          source: Buffer.from(bytes, 'latin1').toString('utf8'),
        };
        // Named in arrival order, written whole before it is named .json: a reader never sees half a mail.
        const name = String(++seq).padStart(6, '0');
        writeFileSync(path.join(dir, `${name}.part`), JSON.stringify(mail));
        renameSync(path.join(dir, `${name}.part`), path.join(dir, `${name}.json`));
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(smtpPort, '127.0.0.1', () => resolve());
  });
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The mails this process has read from the relay's folder, by file name: a filed mail never changes. */
const read = new Map<string, Mail>();

/** The mails the run's relay has received for `to`, oldest first. */
function mailsFor(to: string): Mail[] {
  const dir = mailDir();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  for (const n of names) if (!read.has(n)) read.set(n, JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as Mail);
  const want = to.toLowerCase();
  return names
    .sort()
    .map((n) => read.get(n) as Mail)
    .filter((m) => m.to.includes(want));
}

/**
 * The mailbox a test reads the e-mails a person would get from (the run's relay, global-setup.ts).
 * Kept as an opened and closed thing so a spec reads as it did with a server of its own.
 */
export async function openMailbox() {
  return {
    /** The mails received so far for `to`. */
    for: (to: string) => mailsFor(to),
    close: async () => undefined,
  };
}
