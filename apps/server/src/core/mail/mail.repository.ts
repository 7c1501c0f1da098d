import { and, eq, sql } from 'drizzle-orm';
import { projects } from '../../modules/projects/projects.table.js';
import { mailOutbox } from '../../modules/registration/registration.table.js';
import type { Db, DbOrTx } from '../db/client.js';

export type OutboxRow = typeof mailOutbox.$inferSelect;
export type OutboxStatus = OutboxRow['status'];

/** After this long a claimed message whose sender vanished (crash, restart) may be claimed again. */
export const CLAIM_LEASE_SECONDS = 300;
/** A failed message is retried this many seconds after it was queued, by attempts made so far. */
export const RETRY_AFTER_SECONDS = [0, 60, 300, 1800, 7200] as const;
export const MAX_ATTEMPTS = RETRY_AFTER_SECONDS.length;

// A claimed message stays 'queued' with `sent_at` holding the claim time until it is sent or fails:
// the lease that keeps other instances from sending it twice.
const claimable = sql`(
  (${mailOutbox.status} = 'queued' AND (${mailOutbox.sentAt} IS NULL OR ${mailOutbox.sentAt} < now() - make_interval(secs => ${CLAIM_LEASE_SECONDS})))
  OR (${mailOutbox.status} = 'error' AND ${mailOutbox.attempts} < ${MAX_ATTEMPTS}
      AND ${mailOutbox.createdAt} + make_interval(secs => (${sql.raw(`(ARRAY[${RETRY_AFTER_SECONDS.join(',')}])`)})[${mailOutbox.attempts} + 1]) <= now())
)`;

/** The outbox and the SMTP settings it is sent through. */
export class MailRepository {
  constructor(private readonly db: Db) {}

  /** The raw `settings.smtp` of a project, or undefined when the project has none. */
  async smtpSettings(projectId: number, db: DbOrTx = this.db): Promise<unknown> {
    const [row] = await db
      .select({ smtp: sql<unknown>`${projects.settings} -> 'smtp'` })
      .from(projects)
      .where(eq(projects.id, projectId));
    return row?.smtp ?? undefined;
  }

  async insert(
    db: DbOrTx,
    v: { projectId: number | null; to: string; subject: string; text: string; html: string | null; status: OutboxStatus },
  ): Promise<OutboxRow> {
    const [row] = await db.insert(mailOutbox).values(v).returning();
    if (!row) throw new Error('outbox insert returned nothing');
    return row;
  }

  /** Writes several messages in one statement; answers them in the order given. */
  async insertMany(
    db: DbOrTx,
    v: { projectId: number | null; to: string; subject: string; text: string; html: string | null; status: OutboxStatus }[],
  ): Promise<{ id: number; status: OutboxStatus }[]> {
    if (!v.length) return [];
    const rows = await db.insert(mailOutbox).values(v).returning({ id: mailOutbox.id, status: mailOutbox.status });
    // Serial ids follow the order of the rows written.
    return rows.sort((a, b) => a.id - b.id);
  }

  /** Claims several messages for sending at once, skipping those another sender holds or that are not due. */
  async claimMany(ids: readonly number[]): Promise<OutboxRow[]> {
    if (!ids.length) return [];
    return this.db
      .update(mailOutbox)
      .set({ attempts: sql`${mailOutbox.attempts} + 1`, sentAt: sql`now()`, status: 'queued' })
      .where(
        sql`${mailOutbox.id} IN (SELECT id FROM ${mailOutbox} WHERE ${mailOutbox.id} = ANY(${`{${ids.map((i) => Math.trunc(i)).join(',')}}`}::int[]) AND ${claimable} FOR UPDATE SKIP LOCKED)`,
      )
      .returning();
  }

  async markSentMany(ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    await this.db
      .update(mailOutbox)
      .set({ status: 'sent', error: null, sentAt: sql`now()` })
      .where(sql`${mailOutbox.id} = ANY(${`{${ids.map((i) => Math.trunc(i)).join(',')}}`}::int[])`);
  }

  /** Claims one message for sending, unless another sender holds it or it is not due. */
  async claim(id: number): Promise<OutboxRow | undefined> {
    const rows = await this.db
      .update(mailOutbox)
      .set({ attempts: sql`${mailOutbox.attempts} + 1`, sentAt: sql`now()`, status: 'queued' })
      .where(sql`${mailOutbox.id} = (SELECT id FROM ${mailOutbox} WHERE ${mailOutbox.id} = ${id} AND ${claimable} FOR UPDATE SKIP LOCKED)`)
      .returning();
    return rows[0];
  }

  /** Claims up to `limit` due messages; instances running this together never claim the same row. */
  async claimDue(limit: number): Promise<OutboxRow[]> {
    return this.db
      .update(mailOutbox)
      .set({ attempts: sql`${mailOutbox.attempts} + 1`, sentAt: sql`now()`, status: 'queued' })
      .where(sql`${mailOutbox.id} IN (SELECT id FROM ${mailOutbox} WHERE ${claimable} ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)`)
      .returning();
  }

  async markSent(id: number): Promise<void> {
    await this.db.update(mailOutbox).set({ status: 'sent', error: null, sentAt: sql`now()` }).where(eq(mailOutbox.id, id));
  }

  async markError(id: number, error: string): Promise<void> {
    await this.db
      .update(mailOutbox)
      .set({ status: 'error', error, sentAt: null })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'queued')));
  }

  /** The project has no SMTP settings (any more): the message is kept in the outbox only. */
  async markStored(id: number): Promise<void> {
    await this.db.update(mailOutbox).set({ status: 'stored', sentAt: null }).where(eq(mailOutbox.id, id));
  }

  async byId(id: number): Promise<OutboxRow | undefined> {
    const [row] = await this.db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
    return row;
  }
}
