import { SMTPServer } from 'smtp-server';
import { smtpLogin, smtpPort } from '../../playwright.config';

/** A received message: its recipients and its decoded source (headers and bodies, soft breaks joined). */
export interface Mail {
  to: string[];
  source: string;
}

/**
 * A real SMTP server on the port the e2e server relays its mail to (playwright.config.ts), so a
 * test can read the e-mails a person would get. Start it before the action that sends mail.
 */
export async function openMailbox() {
  const received: Mail[] = [];
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
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          source: Buffer.from(bytes, 'latin1').toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(smtpPort, '127.0.0.1', () => resolve());
  });
  return {
    /** The mails received so far for `to`. */
    for: (to: string) => received.filter((m) => m.to.includes(to.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
