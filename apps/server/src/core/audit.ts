import { auditEvents } from '../modules/audit/audit.table.js';
import type { RequestContext } from './context.js';
import type { DbOrTx } from './db/client.js';

export interface AuditEntry {
  entity: string;
  entityId?: string | number | null;
  action: 'create' | 'update' | 'delete' | string;
  before?: unknown;
  after?: unknown;
}

const SECRET_KEYS = /password|secret|token|hash/i;
/** Audit rows never hold secrets: masked before they are written. */
function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) ? '***' : scrub(v)]));
  }
  return value;
}

/** Records who did what; called inside the same transaction as the change it describes. */
export async function recordAudit(
  db: DbOrTx,
  ctx: Pick<RequestContext, 'ip' | 'requestId'> & { actor: { userId: number; projectId: number; apiKeyId?: number } | null },
  entry: AuditEntry,
): Promise<void> {
  await db.insert(auditEvents).values({
    projectId: ctx.actor?.projectId ?? null,
    userId: ctx.actor?.userId ?? null,
    apiKeyId: ctx.actor?.apiKeyId ?? null,
    entity: entry.entity,
    entityId: entry.entityId == null ? null : String(entry.entityId),
    action: entry.action,
    before: entry.before === undefined ? null : scrub(entry.before),
    after: entry.after === undefined ? null : scrub(entry.after),
    ip: ctx.ip,
    requestId: ctx.requestId,
  });
}
