import { AUDIT_PERMISSION, type AuditEvent, type ListMeta, type ListQuery, VALIDATION_MESSAGES as M } from '@atrium/contract';
import type { Actor } from '../../core/context.js';
import { invalidField, notFound, prohibited } from '../../core/errors.js';
import type { AuditRepository, AuditRow } from './audit.repository.js';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

export const toAuditEvent = (r: AuditRow): AuditEvent => ({
  id: Number(r.id),
  created_at: iso(r.createdAt),
  user_id: r.userId,
  user: r.userId !== null && r.userLogin !== null ? { id: r.userId, name: r.userName ?? '', login: r.userLogin } : null,
  api_key: r.apiKeyId !== null ? { id: r.apiKeyId, name: r.apiKeyName ?? `#${r.apiKeyId}`, prefix: r.apiKeyPrefix ?? '' } : null,
  entity: r.entity,
  entity_id: r.entityId,
  action: r.action,
  before: r.before ?? null,
  after: r.after ?? null,
  ip: r.ip,
  request_id: r.requestId,
});

/**
 * The audit log (spec entities §2, §6, §7): every change of the caller's project, whoever made it.
 * One permission shows it all ("Audit view"), so there is no scope by group: it is the whole project or nothing.
 */
export class AuditService {
  constructor(private readonly repo: AuditRepository) {}

  private assertView(actor: Actor) {
    if (!actor.permissions.has(AUDIT_PERMISSION)) throw prohibited([{ permission: AUDIT_PERMISSION }]);
  }

  async list(actor: Actor, q: ListQuery): Promise<{ data: AuditEvent[]; meta: ListMeta }> {
    this.assertView(actor);
    if (q.with.length) throw invalidField('with', M.invalid_value, { value: q.with[0] });
    const { rows, total, estimated } = await this.repo.page(actor.projectId, q);
    return { data: rows.map(toAuditEvent), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  async get(actor: Actor, id: number): Promise<AuditEvent> {
    this.assertView(actor);
    const r = await this.repo.find(actor.projectId, id);
    if (!r) throw notFound();
    return toAuditEvent(r);
  }

  /** Pages of events for a download; the first page is read before the answer starts, so a bad filter is still a 400. */
  async pages(actor: Actor, q: Pick<ListQuery, 'filters' | 'sort'>): Promise<AsyncGenerator<AuditEvent[]>> {
    this.assertView(actor);
    const pages = this.repo.pages(actor.projectId, q);
    const first = await pages.next();
    return (async function* () {
      if (first.done) return;
      yield first.value.map(toAuditEvent);
      for await (const page of pages) yield page.map(toAuditEvent);
    })();
  }
}
