import type { ListQuery, MailStatus } from '@atrium/contract';
import { and, eq, ne, sql } from 'drizzle-orm';
import { qualifiedColumns } from '../../core/acl.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { filtersSql, type ListSpec, pageOffset, sortSql } from '../../core/list-query.js';
import type { OutboxRow } from '../../core/mail/mail.repository.js';
import { mailOutbox } from '../registration/registration.table.js';

const M = qualifiedColumns(mailOutbox);

export const OUTBOX_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${M.id}`, type: 'number' },
    to: { expr: sql`${M.to}`, type: 'text' },
    subject: { expr: sql`${M.subject}`, type: 'text' },
    status: { expr: sql`${M.status}`, type: 'text' },
    attempts: { expr: sql`${M.attempts}`, type: 'number' },
    created_at: { expr: sql`${M.createdAt}`, type: 'date' },
  },
  defaultSort: '-id',
  tiebreak: sql`${M.id} DESC`,
};

/** The project's outbox as administrators see it: list, put back for sending, delete. */
export class OutboxRepository {
  constructor(private readonly db: Db) {}

  /** Mail of one status, or all unsent mail (kept, failed, being sent) when none is given. */
  async list(projectId: number, q: ListQuery, status: MailStatus | undefined): Promise<{ rows: OutboxRow[]; total: number }> {
    const where = and(
      eq(mailOutbox.projectId, projectId),
      status ? eq(mailOutbox.status, status) : ne(mailOutbox.status, 'sent'),
      filtersSql(OUTBOX_LIST, q),
    );
    const rows = await this.db
      .select({ m: mailOutbox, total: sql<number>`(count(*) OVER ())::int` })
      .from(mailOutbox)
      .where(where)
      .orderBy(...sortSql(OUTBOX_LIST, q))
      .limit(q.size)
      .offset(pageOffset(q));
    let total = rows[0]?.total ?? 0;
    if (!rows.length && q.page > 1) {
      const [c] = await this.db.select({ n: sql<number>`count(*)::int` }).from(mailOutbox).where(where);
      total = c?.n ?? 0;
    }
    return { rows: rows.map((r) => r.m), total };
  }

  async byId(projectId: number, id: number, db: DbOrTx = this.db): Promise<OutboxRow | undefined> {
    const [row] = await db
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.projectId, projectId)));
    return row;
  }

  /** Puts an unsent mail back in line with a fresh count of attempts; false when it was sent or is gone. */
  async requeue(db: DbOrTx, projectId: number, id: number): Promise<boolean> {
    const rows = await db
      .update(mailOutbox)
      .set({ status: 'queued', attempts: 0, error: null, sentAt: null })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.projectId, projectId), ne(mailOutbox.status, 'sent')))
      .returning({ id: mailOutbox.id });
    return rows.length > 0;
  }

  async delete(db: DbOrTx, projectId: number, id: number): Promise<boolean> {
    const rows = await db
      .delete(mailOutbox)
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.projectId, projectId)))
      .returning({ id: mailOutbox.id });
    return rows.length > 0;
  }
}
