import { z } from 'zod';
import { IdSchema } from './list-query.js';

/** Notification types of spec core §3. */
export const NOTIFICATION_TYPES = [
  'announce_received',
  'conversation_received',
  'announce_status_changed',
  'conversation_message_received',
  'sip_reboot_started',
  'sip_reboot_completed',
  'device_broker_settings_sent',
  'user_used_identifier',
  'user_used_revoked_identifier',
  'device_alarm_enabled',
  'device_alarm_disabled',
  'device_alarm_processed',
  'device_offline',
  'device_task_failed',
  'system',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Tabs of the notifications page; each maps to a set of types or a significance. */
export const NOTIFICATION_CLASSES = ['all', 'normal', 'important', 'acs', 'alarm'] as const;
export type NotificationClass = (typeof NOTIFICATION_CLASSES)[number];
export const ACS_TYPES: readonly NotificationType[] = ['user_used_identifier', 'user_used_revoked_identifier'];
export const ALARM_TYPES: readonly NotificationType[] = ['device_alarm_enabled', 'device_alarm_disabled', 'device_alarm_processed'];

export const SIGNIFICANCES = ['important', 'other'] as const;

export const NotificationSchema = z.object({
  id: z.number().int(),
  type: z.enum(NOTIFICATION_TYPES),
  data: z.record(z.string(), z.unknown()),
  significance: z.enum(SIGNIFICANCES),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  popup_action: z
    .object({ code: z.literal('goto:page'), params: z.object({ page: z.string(), query: z.record(z.string(), z.string()).optional() }) })
    .nullable(),
  sound: z.object({ file: z.string(), mode: z.enum(['once', 'loop']) }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  read_at: z.string().nullable(),
});
export type Notification = z.infer<typeof NotificationSchema>;

export const NotificationListQuerySchema = z.object({
  type: z.enum(NOTIFICATION_CLASSES).default('all'),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const MarkReadQuerySchema = z.object({ id: IdSchema.optional() });
export const NotificationSettingsBodySchema = z.strictObject({ acs: z.boolean() });
