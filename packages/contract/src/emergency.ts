import { z } from 'zod';
import { DEVICE_TASK_STATES, DEVICE_TYPES } from './devices.js';
import { IdSchema, IdValueSchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Emergency alerts (spec comms §3, §5, §7): a sound played on the devices of groups, doors opened;
// and, beyond the spec, a group's lockdown and the muster list of who is inside.

/** Defaults and bounds of an emergency alert (spec comms §3, §5: device type monitor, 60 s, a file size within bounds in kb). */
export const EMERGENCY_DEFAULTS = {
  device_type: 'monitor',
  playback_duration: 60,
  playback_duration_max: 3600,
  /** Audio file bounds in kb. */
  file_min_kb: 1,
  file_max_kb: 5120,
  /** How long a door is held open when an alert opens locks (the device protocol's most). */
  open_lock_seconds_max: 600,
  /** The muster list looks this many hours back by default, and at most a week. */
  muster_hours: 24,
  muster_hours_max: 168,
} as const;

/** Sound formats an alert's file may have, recognised by their first bytes. */
export const EMERGENCY_AUDIO_TYPES = ['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac', 'audio/mp4'] as const;

/** Patterns the server can generate a sound of (POST /emergency/generate). */
export const EMERGENCY_TONES = ['siren', 'beeps', 'chime'] as const;
export type EmergencyTone = (typeof EMERGENCY_TONES)[number];

const ids = z.array(IdValueSchema).max(1000);
const recipients = (b: { domains?: number[] | undefined; devices?: number[] | undefined }) =>
  (b.domains?.length ?? 0) + (b.devices?.length ?? 0) > 0;

const alertFields = {
  name: z.string().trim().min(1).max(128),
  device_type: z.enum(DEVICE_TYPES).default(EMERGENCY_DEFAULTS.device_type),
  playback_duration: z.number().int().min(1).max(EMERGENCY_DEFAULTS.playback_duration_max).default(EMERGENCY_DEFAULTS.playback_duration),
  open_locks: z.boolean().default(false),
  domains: ids.default([]),
  devices: ids.default([]),
};

/** Create: an alert must have recipients (groups or devices, spec comms §5). */
export const CreateEmergencyAlertBodySchema = z.strictObject(alertFields).refine(recipients, { message: M.required, path: ['domains'] });
export type CreateEmergencyAlertBody = z.infer<typeof CreateEmergencyAlertBodySchema>;

/** Update: any field; the recipients left must still be some (checked against the stored ones). */
export const UpdateEmergencyAlertBodySchema = z.strictObject({
  name: alertFields.name.optional(),
  device_type: z.enum(DEVICE_TYPES).optional(),
  playback_duration: z.number().int().min(1).max(EMERGENCY_DEFAULTS.playback_duration_max).optional(),
  open_locks: z.boolean().optional(),
  domains: ids.optional(),
  devices: ids.optional(),
});
export type UpdateEmergencyAlertBody = z.infer<typeof UpdateEmergencyAlertBodySchema>;

export const EMERGENCY_ALERT_STATUSES = ['idle', 'playing'] as const;

export const EmergencyAlertSchema = z.object({
  id: z.number(),
  name: z.string(),
  device_type: z.enum(DEVICE_TYPES),
  playback_duration: z.number(),
  open_locks: z.boolean(),
  domains: z.array(z.number()),
  devices: z.array(z.number()),
  /** With `with=domains` / `with=devices`: the names of those the caller may see. */
  domains_info: z.array(z.object({ id: z.number(), name: z.string() })).optional(),
  devices_info: z.array(z.object({ id: z.number(), name: z.string(), type: z.string() })).optional(),
  filename: z.string().nullable(),
  file_size: z.number().nullable(),
  file_type: z.string().nullable(),
  /** The sound, by a link with its own token (an <audio> element and the devices fetch it without a sign-in). */
  audio_url: z.string().nullable(),
  status: z.enum(EMERGENCY_ALERT_STATUSES),
  started_at: z.string().nullable(),
  stopped_at: z.string().nullable(),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
  can_play: z.boolean(),
});
export type EmergencyAlert = z.infer<typeof EmergencyAlertSchema>;

export const EmergencyAlertListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

/** POST /emergency/generate: a sound made by the server, stored as the alert's file. */
export const GenerateEmergencyAudioBodySchema = z.strictObject({
  id: IdValueSchema,
  tone: z.enum(EMERGENCY_TONES).default('siren'),
  seconds: z.number().int().min(1).max(30).default(5),
});
export type GenerateEmergencyAudioBody = z.infer<typeof GenerateEmergencyAudioBodySchema>;

export const EmergencyAudioQuerySchema = z.object({ token: z.string().min(16).max(128) });

const taskState = z.object({ task_id: z.number(), state: z.enum(DEVICE_TASK_STATES), error: z.string().nullable() }).nullable();

/** One device of a playback: whether it played, and the doors it opened. */
export const EmergencyPlaybackDeviceSchema = z.object({
  device_id: z.number(),
  device_name: z.string(),
  device_type: z.string(),
  online: z.boolean(),
  play: taskState,
  stop: taskState,
  locks: z.array(z.object({ lock: z.number(), task_id: z.number(), state: z.enum(DEVICE_TASK_STATES), error: z.string().nullable() })),
});
export type EmergencyPlaybackDevice = z.infer<typeof EmergencyPlaybackDeviceSchema>;

/** The latest start of an alert, device by device (GET /emergency/{id}/playback). */
export const EmergencyPlaybackSchema = z.object({
  id: z.number(),
  alert_id: z.number(),
  started_at: z.string(),
  started_by: z.number().nullable(),
  stopped_at: z.string().nullable(),
  stopped_by: z.number().nullable(),
  devices: z.array(EmergencyPlaybackDeviceSchema),
  summary: z.object({ devices: z.number(), played: z.number(), failed: z.number(), pending: z.number(), locks_opened: z.number() }),
});
export type EmergencyPlayback = z.infer<typeof EmergencyPlaybackSchema>;

/**
 * Live playback (realtime): a console showing an alert's playback subscribes to its topic and reads
 * the playback again (GET /emergency/{id}/playback, within the reader's scope) on each event: a
 * start, a stop, or a task of the playback changing state on a device. The event carries ids only.
 */
export const EMERGENCY_REALTIME = {
  topicPrefix: 'emergency-playback.',
  topic: (alertId: number) => `emergency-playback.${alertId}`,
  events: { playback: 'EmergencyPlaybackChanged' },
} as const;
export interface EmergencyPlaybackChanged {
  alert_id: number;
  playback_id: number;
}

// --- lockdown --------------------------------------------------------------------------------------

/** Both the start and the lift of a lockdown must be confirmed (the console asks twice for the lift). */
const confirmed = z.literal(true, { message: M.required });

export const StartLockdownBodySchema = z.strictObject({
  domain_id: IdValueSchema,
  reason: z.string().trim().max(500).optional(),
  confirm: confirmed,
});
export type StartLockdownBody = z.infer<typeof StartLockdownBodySchema>;
export const LiftLockdownBodySchema = z.strictObject({ confirm: confirmed });

export const LockdownDeviceSchema = z.object({
  device_id: z.number(),
  device_name: z.string(),
  online: z.boolean(),
  lock: taskState,
  release: taskState,
});

export const LockdownSchema = z.object({
  id: z.number(),
  domain_id: z.number(),
  domain_name: z.string(),
  reason: z.string().nullable(),
  active: z.boolean(),
  started_at: z.string(),
  started_by: z.number().nullable(),
  started_by_name: z.string().nullable(),
  ended_at: z.string().nullable(),
  ended_by: z.number().nullable(),
  ended_by_name: z.string().nullable(),
  devices: z.array(LockdownDeviceSchema),
});
export type Lockdown = z.infer<typeof LockdownSchema>;

export const LockdownListQuerySchema = ListQuerySchema.extend({ active: z.enum(['true', 'false']).optional() });

// --- muster ----------------------------------------------------------------------------------------

export const MusterQuerySchema = z.object({
  domain_id: IdSchema,
  hours: z.coerce.number().int().min(1).max(EMERGENCY_DEFAULTS.muster_hours_max).default(EMERGENCY_DEFAULTS.muster_hours),
});
export type MusterQuery = z.infer<typeof MusterQuerySchema>;
export const MusterExportQuerySchema = MusterQuerySchema.extend({ export_format: z.enum(['csv', 'xlsx']).default('csv') });

/** One person the muster list believes inside: their last pass into the group, and nothing out since. */
export const MusterEntrySchema = z.object({
  user_id: z.number().nullable(),
  user_name: z.string().nullable(),
  identifier_id: z.number().nullable(),
  identifier_name: z.string().nullable(),
  value: z.string().nullable(),
  device_id: z.number(),
  device_name: z.string().nullable(),
  entered_at: z.string(),
  /** `in` when the reader said so; null when it does not know the way (counted as an entry). */
  direction: z.string().nullable(),
});
export type MusterEntry = z.infer<typeof MusterEntrySchema>;

export const MusterSchema = z.object({
  domain_id: z.number(),
  domain_name: z.string(),
  since: z.string(),
  generated_at: z.string(),
  total: z.number(),
  entries: z.array(MusterEntrySchema),
});
export type Muster = z.infer<typeof MusterSchema>;
