import { z } from 'zod';
import { ListQuerySchema } from './list-query.js';

// Audit events (spec entities §2, §7: /audit-events, GET /audit/items): the row every change records.

/** Fields an audit list may filter on (the list's `filters` JSON). */
export const AUDIT_FILTER_FIELDS = ['id', 'user_id', 'api_key_id', 'entity', 'entity_id', 'action', 'request_id', 'created_at'] as const;
/** Fields an audit list may sort on. */
export const AUDIT_SORT_FIELDS = ['created_at', 'id'] as const;

/** The permission that shows the whole project's audit log. */
export const AUDIT_PERMISSION = 'can_view_audit';

/** An audit event id in a path: a bigserial, so beyond the int4 bound of other ids. */
export const AuditIdParamsSchema = z.object({ id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });

/** Who made a change: null when nobody signed in did (a system task) or the person is gone. */
export const AuditUserSchema = z.object({ id: z.number(), name: z.string(), login: z.string() });

export const AuditEventSchema = z.object({
  id: z.number(),
  created_at: z.string(),
  /** The author's id as recorded, kept when the person has since been deleted. */
  user_id: z.number().nullable(),
  user: AuditUserSchema.nullable(),
  /** The API key the change was made with (issue 14): then `user` is the key's creator. Null for a sign-in. */
  api_key: z.object({ id: z.number(), name: z.string(), prefix: z.string() }).nullable(),
  entity: z.string(),
  entity_id: z.string().nullable(),
  action: z.string(),
  /** The record before the change (secrets masked); null for a create. */
  before: z.unknown(),
  /** What the change set (secrets masked); null for a delete. */
  after: z.unknown(),
  ip: z.string().nullable(),
  request_id: z.string().nullable(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

/** `GET /audit/items`: page, size, sort (`-created_at` by default), filters on {@link AUDIT_FILTER_FIELDS}. */
export const AuditListQuerySchema = ListQuerySchema;
export type AuditListQuery = z.infer<typeof AuditListQuerySchema>;

/** `GET /audit/items/download`: the list's filters and sort, every page, as csv or xlsx. */
export const AuditDownloadQuerySchema = ListQuerySchema.omit({ page: true, size: true, with: true }).extend({
  export_format: z.enum(['csv', 'xlsx']).default('csv'),
});
export type AuditDownloadQuery = z.infer<typeof AuditDownloadQuerySchema>;

/** Columns of the download, in order; before and after are JSON text. */
export const AUDIT_EXPORT_COLUMNS = [
  'id',
  'created_at',
  'user_id',
  'user_login',
  'user_name',
  'entity',
  'entity_id',
  'action',
  'before',
  'after',
  'ip',
  'request_id',
] as const;

/** Fields that name a record, in the order an audit sentence prefers them. */
const AUDIT_NAME_FIELDS = ['name', 'number', 'login', 'title', 'serial_number', 'value', 'subject', 'kind'] as const;

/**
 * What an audit event's record is called, from what the change recorded (after, else before): its
 * name, number, login… so a sentence reads "created the virtual number 1001", not "sip_number 7".
 * Null when nothing names it; the record's id stands in then.
 */
export function auditSubject(before: unknown, after: unknown): string | null {
  for (const side of [after, before]) {
    if (!side || typeof side !== 'object' || Array.isArray(side)) continue;
    for (const field of AUDIT_NAME_FIELDS) {
      const v = (side as Record<string, unknown>)[field];
      if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') return String(v);
    }
  }
  return null;
}
