import { z } from 'zod';
import { ListQuerySchema } from './list-query.js';

/**
 * Where a mail stands: `queued` (being sent), `sent`, `error` (the last attempt failed; retried
 * later while attempts remain) or `stored` (no SMTP is configured: kept in the outbox only).
 */
export const MailStatusSchema = z.enum(['queued', 'sent', 'error', 'stored']);
export type MailStatus = z.infer<typeof MailStatusSchema>;

/** The permission that shows the outbox and lets its mail be retried or deleted. */
export const OUTBOX_PERMISSION = 'can_change_project_settings';

/** A mail of the project's outbox (its body is not listed). */
export const OutboxMailSchema = z.object({
  id: z.number().int(),
  to: z.string(),
  subject: z.string(),
  status: MailStatusSchema,
  error: z.string().nullable(),
  attempts: z.number().int(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
});
export type OutboxMail = z.infer<typeof OutboxMailSchema>;

/** The outbox lists unsent mail (kept, failed, being sent) unless `status` asks for another one. */
export const OutboxListQuerySchema = ListQuerySchema.extend({
  status: MailStatusSchema.optional(),
});
export type OutboxListQuery = z.infer<typeof OutboxListQuerySchema>;

/** What became of a mail just written: relayed to SMTP (`queued`) or kept in the outbox (`stored`). */
export const MailDeliverySchema = z.object({
  email: z.string(),
  mail_status: MailStatusSchema,
});
export type MailDelivery = z.infer<typeof MailDeliverySchema>;
