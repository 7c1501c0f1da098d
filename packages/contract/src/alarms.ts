import { z } from 'zod';
import { ListQuerySchema } from './list-query.js';

// Device alarms (spec comms §2, §3, §4, §7 "Device alarms"): raised and cleared by devices
// (events alarm_on / alarm_off / tamper, docs/device-protocol.md), processed by a person with a
// comment, then deleted; and the SOS call history (telephony's calls with the SOS flag).

/**
 * Where an alarm stands: `active` while the device reports it on, `cleared` once the device
 * reports it off (still to be processed), `processed` once a person processed it (whatever the
 * device says since).
 */
export const ALARM_STATUSES = ['active', 'cleared', 'processed'] as const;
export type AlarmStatus = (typeof ALARM_STATUSES)[number];

/** Kinds the console names; a device may send any other kind (up to 32 characters), shown as sent. */
export const KNOWN_ALARM_KINDS = ['device', 'sensor', 'group', 'tamper', 'fire', 'intrusion', 'flood', 'gas'] as const;

/** What happened to an alarm, one log entry each. */
export const ALARM_LOG_EVENTS = ['enabled', 'repeated', 'disabled', 'processed'] as const;
export type AlarmLogEvent = (typeof ALARM_LOG_EVENTS)[number];

/** A processing comment's length bounds. */
export const ALARM_COMMENT_MAX = 2000;

export const DeviceAlarmSchema = z.object({
  id: z.number().int(),
  /** What kind of alarm the device reported (`device` when it said none; `tamper` for a tamper event). */
  kind: z.string(),
  /** The zone, sensor or part the device named, if any. */
  zone: z.string().nullable(),
  status: z.enum(ALARM_STATUSES),
  is_active: z.boolean(),
  device_id: z.number().int(),
  device_name: z.string(),
  domain_id: z.number().int().nullable(),
  domain_name: z.string().nullable(),
  /** When the device raised it (its own clock), and when it cleared it. */
  raised_at: z.string(),
  cleared_at: z.string().nullable(),
  processed_at: z.string().nullable(),
  processed_by: z.object({ id: z.number().int().nullable(), name: z.string() }).nullable(),
  /** The comment given when it was processed. */
  comment: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_process: z.boolean(),
  can_delete: z.boolean(),
});
export type DeviceAlarm = z.infer<typeof DeviceAlarmSchema>;

/** One step of an alarm's life (GET /alarms/{id}/logs), oldest first. */
export const DeviceAlarmLogSchema = z.object({
  id: z.number().int(),
  alarm_id: z.number().int(),
  event: z.enum(ALARM_LOG_EVENTS),
  /** Who did it (processing); null for what the device did. */
  user: z.object({ id: z.number().int().nullable(), name: z.string() }).nullable(),
  comment: z.string().nullable(),
  /** The device's event data (zone, kind, part) for enabled, repeated and disabled. */
  info: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type DeviceAlarmLog = z.infer<typeof DeviceAlarmLogSchema>;

/**
 * GET /alarms. Filterable: status, is_active, kind, zone, device_id, domain_id, raised_at,
 * processed_at; sortable: the same and id, created_at. `search`: device name or zone contains it.
 */
export const DeviceAlarmListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

/** POST /alarms/{id}/process. */
export const ProcessAlarmBodySchema = z.strictObject({
  comment: z.string().trim().min(1).max(ALARM_COMMENT_MAX),
});
export type ProcessAlarmBody = z.infer<typeof ProcessAlarmBodySchema>;

/**
 * GET /alarms/calls: the SOS call history (calls with the SOS flag, from telephony's call history)
 * of numbers within the caller's device scope. Filterable: from_number, to_number, status,
 * created_at, duration; sortable: created_at, duration, status.
 */
export const SosCallListQuerySchema = ListQuerySchema;

/** Realtime: consoles showing alarms hear of each change (raised, cleared, processed, deleted). */
export const ALARM_REALTIME = { topic: 'device-alarms', events: { changed: 'DeviceAlarmChanged' } } as const;
export const DeviceAlarmChangedSchema = z.object({
  id: z.number().int(),
  device_id: z.number().int(),
  status: z.enum(ALARM_STATUSES).nullable(),
});
export type DeviceAlarmChanged = z.infer<typeof DeviceAlarmChangedSchema>;
