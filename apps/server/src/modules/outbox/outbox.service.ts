import { type ListMeta, OUTBOX_PERMISSION, type OutboxListQuery, type OutboxMail } from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError } from '../../core/errors.js';
import type { OutboxRow } from '../../core/mail/mail.repository.js';
import type { Mailer } from '../../core/mail/mailer.js';
import type { OutboxRepository } from './outbox.repository.js';

const toMail = (r: OutboxRow): OutboxMail => ({
  id: r.id,
  to: r.to,
  subject: r.subject,
  status: r.status,
  error: r.error,
  attempts: r.attempts,
  created_at: r.createdAt.toISOString(),
  sent_at: r.sentAt?.toISOString() ?? null,
});

/** Administrators see the mail the server could not send (or keeps for lack of SMTP), retry it or drop it. */
export class OutboxService {
  constructor(
    private readonly db: Db,
    private readonly repo: OutboxRepository,
    private readonly mailer: Pick<Mailer, 'deliver'>,
  ) {}

  private allowed(actor: Actor): void {
    if (!actor.permissions.has(OUTBOX_PERMISSION)) throw new AppError('action_prohibited');
  }

  async list(actor: Actor, q: OutboxListQuery): Promise<{ data: OutboxMail[]; meta: ListMeta }> {
    this.allowed(actor);
    const { rows, total } = await this.repo.list(actor.projectId, q, q.status);
    return { data: rows.map(toMail), meta: { total, page: q.page, size: q.size } };
  }

  /** Sends the mail again now (with a fresh count of attempts); answers it as it stands afterwards. */
  async retry(ctx: RequestContext, id: number): Promise<OutboxMail> {
    this.allowed(ctx.actor);
    const before = await this.repo.byId(ctx.actor.projectId, id);
    if (!before) throw new AppError('not_found');
    if (before.status === 'sent') throw new AppError('cannot_perform_action', [{ field: 'status', message: 'mail already sent' }]);
    await this.db.transaction(async (tx) => {
      if (!(await this.repo.requeue(tx, ctx.actor.projectId, id))) throw new AppError('not_found');
      await recordAudit(tx, ctx, { entity: 'mail', entityId: id, action: 'retry' });
    });
    await this.mailer.deliver(id);
    const after = await this.repo.byId(ctx.actor.projectId, id);
    if (!after) throw new AppError('not_found');
    return toMail(after);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    this.allowed(ctx.actor);
    await this.db.transaction(async (tx) => {
      const row = await this.repo.byId(ctx.actor.projectId, id, tx);
      if (!row) throw new AppError('not_found');
      if (!(await this.repo.delete(tx, ctx.actor.projectId, id))) throw new AppError('not_found');
      await recordAudit(tx, ctx, { entity: 'mail', entityId: id, action: 'delete', before: { to: row.to, subject: row.subject } });
    });
  }
}
