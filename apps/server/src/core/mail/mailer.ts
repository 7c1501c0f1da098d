import type { Locale, SmtpSettings } from '@atrium/contract';
import type { DbOrTx } from '../db/client.js';
import type { InlineImage, ProjectInfo } from '../project-info.js';
import { composeMail, type MailRecipient } from './compose.js';
import type { MailRepository, OutboxRow, OutboxStatus } from './mail.repository.js';
import { describeSmtpError, type OutgoingMail, parseSmtpSettings, sendSmtpPooled } from './smtp.js';
import { COMPANY_LOGO_CID, type MailKind, type MailParams } from './templates.js';

/** Sent messages marked in one statement at a time by `deliverMany`. */
const MARK_EVERY = 50;

/** The project has no SMTP settings and the server none either. */
export class SmtpMissingError extends Error {}
/** The SMTP server refused or could not be reached; the message describes why. */
export class SmtpSendError extends Error {}

export interface QueuedMail {
  id: number;
  status: OutboxStatus;
}

/** Hands one message to the SMTP server; `connections`: how many connections its pool may open. */
export type SendMail = (settings: SmtpSettings, mail: OutgoingMail, opts?: { connections?: number }) => Promise<void>;

export interface MailerOptions {
  /** How often the retry worker looks for due messages; 0 disables it. */
  retryIntervalMs?: number;
  /** Replaces SMTP delivery (tests of the retry logic). */
  send?: SendMail;
  log?: { warn(obj: object, msg: string): void };
  /** The server's SMTP (SMTP_URL), used for projects that have no SMTP settings of their own. */
  defaultSmtp?: SmtpSettings | null;
  /** The projects' management company (mail footers) and logo (sent inside the mails that show it). */
  projectInfo?: Pick<ProjectInfo, 'of' | 'logo'>;
}

/** The logo's image tag as templates.ts writes it, whatever its attributes. */
const LOGO_TAG = new RegExp(`<p><img src="cid:${COMPANY_LOGO_CID}"[^>]*></p>|<img src="cid:${COMPANY_LOGO_CID}"[^>]*>`, 'g');

/**
 * Mail goes through the outbox: a message is written in the caller's transaction (so it exists
 * exactly when the change it announces does), then sent through the project's SMTP settings right
 * after the commit. Failures are retried by a worker that claims due rows with
 * `FOR UPDATE SKIP LOCKED`, so any number of instances share the work without sending twice.
 * Without SMTP settings a message is 'stored': kept in the outbox for the console to show.
 */
export class Mailer {
  private readonly inflight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private readonly send: SendMail;

  constructor(
    private readonly repo: MailRepository,
    private readonly opts: MailerOptions = {},
  ) {
    this.send = opts.send ?? sendSmtpPooled;
  }

  /** The project's own SMTP settings, else the server's, else none (mail is only stored). */
  private async smtpFor(projectId: number, db?: DbOrTx): Promise<SmtpSettings | null> {
    return parseSmtpSettings(await this.repo.smtpSettings(projectId, db)) ?? this.opts.defaultSmtp ?? null;
  }

  /** Writes a `kind` mail in the recipient's language to the outbox; call `deliverSoon` after the commit. */
  async queue<K extends MailKind>(
    db: DbOrTx,
    v: {
      projectId: number | null;
      to: string;
      locale: Locale | string;
      kind: K;
      params: MailParams[K];
      /** Whose groups choose the template (issue 14, mail templates): a user, or groups. */
      recipient?: MailRecipient;
    },
  ): Promise<QueuedMail> {
    const company = v.projectId === null ? null : ((await this.opts.projectInfo?.of(v.projectId, db))?.company ?? null);
    return this.queueRaw(db, v.projectId, await composeMail(db, { ...v, company }));
  }

  /** The project's logo as a mail's inline part, or null. */
  private logoOf(projectId: number | null): Promise<InlineImage | null> {
    if (projectId === null || !this.opts.projectInfo) return Promise.resolve(null);
    return this.opts.projectInfo.logo(projectId, COMPANY_LOGO_CID);
  }

  /**
   * The mail as it is sent: a mail showing the company logo gets the project's logo as its inline
   * part; when the project has no logo any more, the image is taken out rather than left broken.
   */
  private async withLogo(mail: OutgoingMail, logo: () => Promise<InlineImage | null>): Promise<OutgoingMail> {
    if (!mail.html?.includes(`cid:${COMPANY_LOGO_CID}`)) return mail;
    const image = await logo();
    if (image) return { ...mail, attachments: [image] };
    return { ...mail, html: mail.html.replace(LOGO_TAG, '') };
  }

  /** Sends a mail now through the project's SMTP (a template's send-preview); throws when it cannot. */
  async sendNow(projectId: number, mail: OutgoingMail): Promise<void> {
    const smtp = await this.smtpFor(projectId);
    if (!smtp) throw new SmtpMissingError();
    try {
      await this.send(smtp, await this.withLogo(mail, () => this.logoOf(projectId)));
    } catch (err) {
      throw new SmtpSendError(describeSmtpError(err, smtp));
    }
  }

  async queueRaw(db: DbOrTx, projectId: number | null, mail: OutgoingMail): Promise<QueuedMail> {
    const smtp = projectId === null ? null : await this.smtpFor(projectId, db);
    const row = await this.repo.insert(db, {
      projectId,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html ?? null,
      status: smtp ? 'queued' : 'stored',
    });
    return { id: row.id, status: row.status };
  }

  /** Writes several mails of one project to the outbox in one statement; answers them in the order given. */
  async queueMany(db: DbOrTx, projectId: number | null, mails: readonly OutgoingMail[]): Promise<QueuedMail[]> {
    if (!mails.length) return [];
    const smtp = projectId === null ? null : await this.smtpFor(projectId, db);
    const status: OutboxStatus = smtp ? 'queued' : 'stored';
    return this.repo.insertMany(
      db,
      mails.map((m) => ({ projectId, to: m.to, subject: m.subject, text: m.text, html: m.html ?? null, status })),
    );
  }

  /**
   * Claims several messages in one statement and sends them, `connections` at a time over pooled
   * SMTP connections; the sent ones are marked in batches (every `MARK_EVERY` or when all are done).
   * Answers how many were sent. A message another sender holds is left to it.
   */
  async deliverMany(ids: readonly number[], opts: { connections?: number } = {}): Promise<number> {
    const rows = await this.repo.claimMany(ids);
    if (!rows.length) return 0;
    const connections = Math.max(1, opts.connections ?? 5);
    const smtpOf = new Map<number | null, SmtpSettings | null>();
    for (const r of rows)
      if (!smtpOf.has(r.projectId)) smtpOf.set(r.projectId, r.projectId === null ? null : await this.smtpFor(r.projectId));
    // The logo is read once per project for the whole batch.
    const logos = new Map<number | null, Promise<InlineImage | null>>();
    const logoOf = (projectId: number | null) => {
      const known = logos.get(projectId);
      if (known) return known;
      const logo = this.logoOf(projectId);
      logos.set(projectId, logo);
      return logo;
    };
    let sent: number[] = [];
    let total = 0;
    let marking: Promise<void> = Promise.resolve();
    // Marks are written one after the other, off the sending path.
    const mark = () => {
      const ids = sent;
      sent = [];
      marking = marking.then(() => this.repo.markSentMany(ids));
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(connections, rows.length) }, async () => {
        while (next < rows.length) {
          const row = rows[next++] as OutboxRow;
          const smtp = smtpOf.get(row.projectId) ?? null;
          if (!smtp) {
            await this.repo.markStored(row.id);
            continue;
          }
          try {
            await this.send(smtp, await this.withLogo(row, () => logoOf(row.projectId)), { connections });
            sent.push(row.id);
            total++;
            if (sent.length >= MARK_EVERY) mark();
          } catch (err) {
            const text = describeSmtpError(err, smtp);
            this.opts.log?.warn({ mailId: row.id, attempt: row.attempts, error: text }, 'mail not sent');
            await this.repo.markError(row.id, text);
          }
        }
      }),
    );
    mark();
    await marking;
    return total;
  }

  /** Sends queued messages in the background; the request that queued them does not wait. */
  deliverSoon(mails: QueuedMail[]): void {
    for (const m of mails) if (m.status === 'queued') this.track(this.deliver(m.id));
  }

  /** Claims and sends one message now; answers its status afterwards (unchanged when another sender holds it). */
  async deliver(id: number): Promise<OutboxStatus | undefined> {
    const row = await this.repo.claim(id);
    if (!row) return (await this.repo.byId(id))?.status;
    return this.sendClaimed(row);
  }

  /** Sends every due message (new ones and failed ones whose retry time has come); answers how many were tried. */
  async processDue(limit = 20): Promise<number> {
    const rows = await this.repo.claimDue(limit);
    for (const row of rows) await this.sendClaimed(row);
    return rows.length;
  }

  private async sendClaimed(row: OutboxRow): Promise<OutboxStatus> {
    const smtp = row.projectId === null ? null : await this.smtpFor(row.projectId);
    if (!smtp) {
      await this.repo.markStored(row.id);
      return 'stored';
    }
    try {
      await this.send(smtp, await this.withLogo(row, () => this.logoOf(row.projectId)));
      await this.repo.markSent(row.id);
      return 'sent';
    } catch (err) {
      const text = describeSmtpError(err, smtp);
      this.opts.log?.warn({ mailId: row.id, attempt: row.attempts, error: text }, 'mail not sent');
      await this.repo.markError(row.id, text);
      return 'error';
    }
  }

  private track(p: Promise<unknown>): void {
    const guarded = p.catch((err) => this.opts.log?.warn({ err }, 'mail delivery failed'));
    this.inflight.add(guarded);
    void guarded.finally(() => this.inflight.delete(guarded));
  }

  /** Whether the retry worker is running (System info). */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Starts the retry worker. */
  start(): void {
    const every = this.opts.retryIntervalMs ?? 30_000;
    if (!every || this.timer) return;
    this.timer = setInterval(() => {
      if (this.inflight.size > 20) return;
      this.track(this.processDue());
    }, every);
    this.timer.unref();
  }

  /** Stops the worker and waits for messages being sent. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.idle();
  }

  /** Resolves when no message is being sent by this instance. */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight]);
  }
}
