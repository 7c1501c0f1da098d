import { z } from 'zod';
import { ACCESS_REFUSALS, WEEKDAYS } from './access.js';
import { DEVICE_TYPES, type DeviceEventType, type DeviceTaskType } from './devices.js';
import { INT4_MAX } from './list-query.js';
import { type DeviceTopicLeaf, MQTT_MAX_PACKET_BYTES } from './mqtt-topics.js';

/**
 * The device protocol, version 1: JSON messages on `atrium/v1/devices/{serial}/{leaf}`
 * (mqtt-topics.ts). docs/device-protocol.md describes it with an example of every message; the
 * server's gateway and the simulator (tools/device-sim) validate every message with these schemas.
 * Unknown fields are ignored (a newer device may say more); missing or mistyped ones refuse the message.
 */
export const DEVICE_PROTOCOL_VERSION = 1;

const time = z.iso.datetime({ offset: true });
// Atrium's ids (tasks, identifiers, schedules, rules) are PostgreSQL `integer` columns: an id past
// their range is refused with the message, never handed to the database.
const id = z.number().int().positive().max(INT4_MAX);
const text = (max: number) => z.string().min(1).max(max);
const lock = z.number().int().min(1).max(64);

// --- presence ------------------------------------------------------------------------------------

/** `status`, retained: published on connect (online) and as the last will or on a clean stop (offline). */
export const StatusOnlineMessageSchema = z.looseObject({
  state: z.literal('online'),
  type: z.enum(DEVICE_TYPES),
  model: text(64),
  firmware: text(64),
  /** What this unit can do (locks, face_recognition, lift_relays, sip, display, …). */
  capabilities: z.record(z.string().max(64), z.union([z.boolean(), z.number(), z.string().max(255)])).default({}),
  /** Seconds between heartbeats (the device's `management.heartbeat`). */
  heartbeat: z.number().int().min(5).max(3600),
  ip_address: z.ipv4().optional(),
  at: time.optional(),
});
export const StatusOfflineMessageSchema = z.looseObject({
  state: z.literal('offline'),
  /** `will`: the broker published the last will (connection lost); `shutdown`/`restart`: the device said so. */
  reason: z.enum(['will', 'shutdown', 'restart']).optional(),
  at: time.optional(),
});
export const StatusMessageSchema = z.discriminatedUnion('state', [StatusOnlineMessageSchema, StatusOfflineMessageSchema]);
export type StatusMessage = z.infer<typeof StatusMessageSchema>;

/** `heartbeat`: every `management.heartbeat` seconds while connected. */
export const HeartbeatMessageSchema = z.looseObject({
  /** Seconds since the device started. */
  uptime: z.number().int().min(0).optional(),
  at: time.optional(),
});
export type HeartbeatMessage = z.infer<typeof HeartbeatMessageSchema>;

// --- tasks (server → device) ----------------------------------------------------------------------

const settingsPayload = z.looseObject({
  /** The device's settings blocks (DeviceSettingsSchema): the device applies the blocks its model has. */
  device_settings: z.record(z.string(), z.unknown()),
  management: z.looseObject({ heartbeat: z.number().int().min(5).max(3600), realtime_logging: z.boolean() }).optional(),
});

const localDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const weekday = z.enum(WEEKDAYS);

/** One way an identifier reaches the device: a rule's locks and schedules (access.ts AccessGrant). */
export const SyncGrantSchema = z.looseObject({
  rule_id: id.optional(),
  /** Locks it opens (1-based); empty: every lock of the device. */
  locks: z.array(lock).max(64).default([]),
  /** Schedules of which any must be open; empty: at any time. */
  schedule_ids: z.array(id).max(64).default([]),
  /** A prohibition: refused on these locks while it applies, whatever else allows. */
  deny: z.boolean().optional(),
});

/** An identifier a device stores to decide access by itself (decided by access.ts decideAccess). */
export const SyncIdentifierSchema = z.looseObject({
  id,
  /** The identifier as the reader presents it (card number, PIN, QR code, plate). */
  value: text(128),
  kind: text(32).optional(),
  /** The rules that bring it to this device; absent: the flat form below, as one grant. */
  grants: z.array(SyncGrantSchema).max(256).optional(),
  /** Flat form: locks it opens (absent: every lock of the device). */
  locks: z.array(lock).max(64).optional(),
  /** Flat form: schedules of which any must be open now; absent or empty: at any time. */
  schedule_ids: z.array(id).max(64).optional(),
  valid_from: time.nullable().optional(),
  valid_to: time.nullable().optional(),
  revoked: z.boolean().optional(),
  /** Its pass limit is used up: refused until the limit changes. */
  exhausted: z.boolean().optional(),
});
export type SyncIdentifier = z.infer<typeof SyncIdentifierSchema>;

/**
 * A schedule (time rule) as the device decides it (access.ts scheduleOpen): entries of weekdays
 * with from/to seconds of the local day (from > to spans midnight, from = to is the whole day), in
 * `time_zone`, between the valid dates, with exception days that close or open it.
 */
export const SyncScheduleSchema = z.looseObject({
  id,
  time_zone: text(64).default('UTC'),
  valid_from: localDate.nullable().optional(),
  valid_to: localDate.nullable().optional(),
  is_all_day: z.boolean().optional(),
  entries: z
    .array(
      z.object({
        days: z.array(weekday).min(1).max(7),
        from: z.number().int().min(0).max(86400),
        to: z.number().int().min(0).max(86400),
      }),
    )
    .max(64)
    .default([]),
  exceptions: z
    .array(z.object({ date: localDate, open: z.boolean() }))
    .max(366)
    .default([]),
});
export type SyncSchedule = z.infer<typeof SyncScheduleSchema>;

export const SyncPayloadSchema = z.looseObject({
  /** `full`: replace everything the device holds; `delta`: add or replace these, drop those in `removed`. */
  mode: z.enum(['full', 'delta']).default('full'),
  identifiers: z.array(SyncIdentifierSchema).default([]),
  schedules: z.array(SyncScheduleSchema).default([]),
  removed: z
    .object({ identifiers: z.array(id).default([]), schedules: z.array(id).default([]) })
    .partial()
    .optional(),
});
export type SyncPayload = z.infer<typeof SyncPayloadSchema>;

/** The payload of each task type. */
export const TASK_PAYLOAD_SCHEMAS = {
  apply_settings: settingsPayload.extend({ backup: z.boolean().optional() }),
  init: settingsPayload.extend({ reinit_of: id.optional() }),
  sync: SyncPayloadSchema,
  restart: z.looseObject({ delay_seconds: z.number().int().min(0).max(3600).optional() }),
  remote_control: z.looseObject({ session: z.uuid(), expires_at: time }),
  play_audio: z.looseObject({
    /** Where the device fetches the sound (http(s)); or the name of a sound it already has. */
    url: z.url({ protocol: /^https?$/ }).optional(),
    name: text(64).optional(),
    repeat: z.number().int().min(1).max(100).default(1),
    volume: z.number().int().min(0).max(100).optional(),
    /** Plays the sound over and over for this many seconds (an emergency alert's playback duration) instead of `repeat` times. */
    seconds: z.number().int().min(1).max(3600).optional(),
    /** The emergency alert it plays, so that a `stop_audio` of that alert ends it. */
    alert_id: id.optional(),
  }),
  /** Stops the sound playing (only that alert's when `alert_id` is given). */
  stop_audio: z.looseObject({ alert_id: id.optional() }),
  /**
   * Lockdown (`active` true): the doors (`locks`, empty: every lock) stay shut whatever the device's
   * identifiers, rules and schedules allow, and open tasks and remote opens are refused, until a
   * lockdown task with `active` false lifts it.
   */
  lockdown: z.looseObject({
    active: z.boolean(),
    locks: z.array(lock).max(64).default([]),
    lockdown_id: id.optional(),
  }),
  open_lock: z.looseObject({
    lock: lock.default(1),
    seconds: z.number().int().min(1).max(600).optional(),
    /**
     * Face ID (a guest's open with face ID licensed and the device recognising faces): the device opens
     * only once it sees this identifier's face (its photo at `photo_url`); otherwise the task fails with
     * error `face_not_recognized`.
     */
    face: z.object({ identifier_id: id, photo_url: z.url({ protocol: /^https?$/ }) }).optional(),
  }),
  /** A lift controller calls the lift to a floor: it closes the relays (`ports`) that serve it. */
  call_elevator: z.looseObject({
    floor: z.number().int().min(-20).max(300),
    ports: z.array(lock).min(1).max(8),
    direction: z.enum(['up', 'down']).default('up'),
    apartment: text(16).optional(),
  }),
  /**
   * The MQTT broker the device connects to, sent when the operator changes it (project settings,
   * broker tab) or sends it again: `url` is where plain MQTT listens; with `tls` the broker also
   * listens with the operator's own certificate at `tls.url`, and the device trusts that certificate
   * (PEM; `fingerprint` is its SHA-256, colon-separated hex, as the broker tab shows it). The device
   * answers `completed` once it keeps them (it reconnects with them on its next connect), `error`
   * when it cannot use them (an unreadable certificate, a fingerprint that does not match).
   */
  broker_settings: z.looseObject({
    url: z.url({ protocol: /^(mqtts?|wss?)$/ }),
    tls: z
      .looseObject({
        url: z.url({ protocol: /^mqtts$/ }),
        certificate: z
          .string()
          .min(1)
          .max(64 * 1024),
        fingerprint: z.string().regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
      })
      .nullable(),
  }),
} satisfies Record<DeviceTaskType, z.ZodType>;

/**
 * Which API calls create each task type (`calls`: method and path under /api/v0), and what else does
 * (`also`). docs/device-protocol.md lists them; a server test checks that every call is a route.
 */
export const DEVICE_TASK_ORIGINS: Record<DeviceTaskType, { calls: readonly string[]; also?: string }> = {
  apply_settings: { calls: ['POST /devices/{id}/settings/apply', 'POST /devices/backup/import'] },
  init: { calls: ['POST /devices/{id}/init/apply', 'POST /devices/tasks/{id}/reinit'] },
  sync: {
    calls: [
      'PUT /identifiers',
      'PATCH /identifiers/{id}',
      'DELETE /identifiers/{id}',
      'POST /identifiers/delete',
      'POST /identifiers/{id}/revoke',
      'PUT /access-rules',
      'PATCH /access-rules/{id}',
      'DELETE /access-rules/{id}',
      'PATCH /time-rules/{id}',
      'PUT /guest-access',
      'PATCH /guest-access/{id}',
      'PUT /elevators/access-rules',
      'PATCH /elevators/access-rules/{id}',
      'PUT /amenities/reservations',
      'POST /backups/{id}/apply',
    ],
    also: 'full: after every init task, when the device asks on `sync-requests`, and for every device on a backup restore; delta: for every other change, to the devices concerned, and when an identifier reaches its pass limit',
  },
  restart: { calls: [], also: 'no API call queues it in this version' },
  remote_control: { calls: ['PUT /devices/remote-control'] },
  play_audio: { calls: ['POST /emergency/{id}/start'] },
  stop_audio: { calls: ['POST /emergency/{id}/stop'] },
  lockdown: { calls: ['POST /emergency/lockdowns', 'POST /emergency/lockdowns/{id}/lift'] },
  open_lock: {
    calls: ['POST /calls/management/devices/open/{token}', 'POST /guest-access/key/{key}/open'],
    also: 'DTMF `#` during a call',
  },
  call_elevator: { calls: ['POST /elevators/{id}/call'] },
  broker_settings: {
    calls: ['POST /settings/broker', 'POST /settings/broker/send', 'PATCH /settings/general'],
    also: 'to every initialised mqtt device of the project; a save only when it changes what devices are told (the certificate or its switch, the server URL)',
  },
};

const taskOf = <T extends DeviceTaskType>(type: T) =>
  z.object({ id, type: z.literal(type), payload: TASK_PAYLOAD_SCHEMAS[type], sent_at: time.optional() });

/** `tasks`: one task; its id is the task's own, and a device runs a repeated id once (answering its result again). */
export const TaskMessageSchema = z.discriminatedUnion('type', [
  taskOf('apply_settings'),
  taskOf('init'),
  taskOf('sync'),
  taskOf('restart'),
  taskOf('remote_control'),
  taskOf('play_audio'),
  taskOf('open_lock'),
  taskOf('call_elevator'),
  taskOf('stop_audio'),
  taskOf('lockdown'),
  taskOf('broker_settings'),
]);
export type TaskMessage = z.infer<typeof TaskMessageSchema>;

// --- task progress and results, events, sync acknowledgements (device → server) --------------------

/** `task-updates`: `started` (again with `progress` 0–100 while it runs), then `completed` or `error`. */
export const TaskUpdateMessageSchema = z
  .looseObject({
    task_id: id,
    state: z.enum(['started', 'completed', 'error']),
    progress: z.number().int().min(0).max(100).optional(),
    /** Why it failed (required with `error`). */
    error: text(500).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    at: time.optional(),
  })
  .refine((m) => m.state !== 'error' || m.error !== undefined, { message: 'an error update says why', path: ['error'] });
export type TaskUpdateMessage = z.infer<typeof TaskUpdateMessageSchema>;

const eventBase = {
  /** The device's own id of the event (optional; lets a re-sent event be recognised). */
  event_id: text(64).optional(),
  /** When it happened at the device; the arrival time when absent. */
  time: time.optional(),
};
const eventOf = <T extends DeviceEventType, D extends z.ZodType, I extends z.ZodType>(type: T, data: D, identifier: I) =>
  z.looseObject({ ...eventBase, type: z.literal(type), identifier, data });
const noIdentifier = z.null().optional();
const identifier = text(128);

/** Why a device refused an identifier (`lockdown`: a lockdown task holds its doors shut). */
export const ACCESS_DENIED_REASONS = [...ACCESS_REFUSALS, 'lockdown'] as const;

/** `events`: one thing that happened at the device. */
export const EventMessageSchema = z.discriminatedUnion('type', [
  eventOf(
    'door_opened',
    z.looseObject({ lock: lock.default(1), by: z.enum(['identifier', 'button', 'remote', 'task', 'emergency']).optional() }).prefault({}),
    z.union([identifier, z.null()]).optional(),
  ),
  eventOf(
    'access_granted',
    // direction: which way the holder passed, from a reader that knows (an entry or exit reader, a turnstile).
    z.looseObject({ lock: lock.default(1), kind: text(32).optional(), direction: z.enum(['in', 'out']).optional() }).prefault({}),
    identifier,
  ),
  eventOf('access_denied', z.looseObject({ reason: z.enum(ACCESS_DENIED_REASONS), kind: text(32).optional() }), identifier),
  eventOf(
    'call',
    z.looseObject({ to: text(64), state: z.enum(['started', 'answered', 'ended', 'missed']).default('started') }),
    noIdentifier,
  ),
  eventOf('alarm_on', z.looseObject({ zone: text(64).optional(), kind: text(32).optional() }).prefault({}), noIdentifier),
  eventOf('alarm_off', z.looseObject({ zone: text(64).optional(), kind: text(32).optional() }).prefault({}), noIdentifier),
  eventOf('tamper', z.looseObject({ part: text(64).optional() }).prefault({}), noIdentifier),
  /** A lift controller called the lift to a floor (a call task, or a resident's identifier on its reader). */
  eventOf(
    'floor_called',
    z.looseObject({ floor: z.number().int().min(-20).max(300), ports: z.array(lock).max(8).optional() }),
    z.union([identifier, z.null()]).optional(),
  ),
  eventOf(
    'sensor',
    z.looseObject({ sensor: text(64), value: z.union([z.number(), z.boolean(), z.string().max(255)]), unit: text(16).optional() }),
    noIdentifier,
  ),
]);
export type EventMessage = z.infer<typeof EventMessageSchema>;
// Every event type of the devices area has a schema here (a compile error names the one missing).
const _everyEventHasASchema: Record<Exclude<DeviceEventType, EventMessage['type']>, never> = {};
void _everyEventHasASchema;

/** `sync-acks`: a sync task's acknowledgement: how much the device now holds, and what it could not take. */
export const SyncAckMessageSchema = z.looseObject({
  task_id: id,
  identifiers: z.number().int().min(0).optional(),
  schedules: z.number().int().min(0).optional(),
  errors: z
    .array(z.object({ entity: z.enum(['identifier', 'schedule']), id, message: text(255) }))
    .max(10_000)
    .default([]),
});
export type SyncAckMessage = z.infer<typeof SyncAckMessageSchema>;

/** Why a device asks for a full sync. */
export const SYNC_REQUEST_REASONS = ['empty', 'reset', 'replaced', 'inconsistent'] as const;

/**
 * `sync-requests`: the device asks for a full sync: it holds nothing (first start, factory reset, a
 * replaced unit) or no longer trusts what it holds. Atrium queues one unless one is already on its way.
 */
export const SyncRequestMessageSchema = z.looseObject({
  reason: z.enum(SYNC_REQUEST_REASONS),
  /** Identifiers it holds now (0 when empty). */
  identifiers: z.number().int().min(0).optional(),
  at: time.optional(),
});
export type SyncRequestMessage = z.infer<typeof SyncRequestMessageSchema>;

// --- remote control -----------------------------------------------------------------------------

/** `screen`: one frame of the device's screen during a remote-control session (base64 image). */
export const ScreenFrameMessageSchema = z.looseObject({
  session: z.uuid(),
  seq: z.number().int().min(0),
  width: z.number().int().min(1).max(4096),
  height: z.number().int().min(1).max(4096),
  format: z.enum(['jpeg', 'png']),
  data: z.base64().max(192 * 1024),
});
export type ScreenFrameMessage = z.infer<typeof ScreenFrameMessageSchema>;

/** `input`: what the operator does on the remote screen, and the session's keep-alive and end. */
export const RemoteInputMessageSchema = z.discriminatedUnion('kind', [
  z.object({ session: z.uuid(), kind: z.literal('tap'), x: z.number().int().min(0).max(4096), y: z.number().int().min(0).max(4096) }),
  z.object({ session: z.uuid(), kind: z.literal('key'), key: text(32) }),
  z.object({ session: z.uuid(), kind: z.literal('open_door'), lock: lock.default(1) }),
  /** The session was kept alive (PATCH): the device streams on until the new expiry. */
  z.object({ session: z.uuid(), kind: z.literal('keepalive'), expires_at: time }),
  z.object({ session: z.uuid(), kind: z.literal('end') }),
]);
export type RemoteInputMessage = z.infer<typeof RemoteInputMessageSchema>;

// --- one schema and one size limit per topic ------------------------------------------------------

/** The schema of the messages on each leaf. */
export const DEVICE_MESSAGE_SCHEMAS = {
  status: StatusMessageSchema,
  heartbeat: HeartbeatMessageSchema,
  tasks: TaskMessageSchema,
  'task-updates': TaskUpdateMessageSchema,
  events: EventMessageSchema,
  'sync-acks': SyncAckMessageSchema,
  'sync-requests': SyncRequestMessageSchema,
  screen: ScreenFrameMessageSchema,
  input: RemoteInputMessageSchema,
} as const satisfies Record<DeviceTopicLeaf, z.ZodType>;
export type DeviceMessage<L extends DeviceTopicLeaf> = z.infer<(typeof DEVICE_MESSAGE_SCHEMAS)[L]>;

/** Largest message (bytes of JSON) accepted on each leaf; anything larger is dropped unread. */
export const DEVICE_MESSAGE_MAX_BYTES: Record<DeviceTopicLeaf, number> = {
  status: 4 * 1024,
  heartbeat: 1024,
  tasks: MQTT_MAX_PACKET_BYTES,
  'task-updates': 8 * 1024,
  events: 8 * 1024,
  'sync-acks': 128 * 1024,
  'sync-requests': 1024,
  screen: 200 * 1024,
  input: 1024,
};

export type DecodeResult<L extends DeviceTopicLeaf> =
  | { ok: true; message: DeviceMessage<L> }
  | { ok: false; reason: 'too_large' | 'not_json' | 'invalid'; detail?: string };

const utf8 = new TextDecoder();

/** Checks a message's size, parses its JSON and validates it against its leaf's schema; never throws. */
export function decodeDeviceMessage<L extends DeviceTopicLeaf>(leaf: L, payload: Uint8Array | string): DecodeResult<L> {
  const size = typeof payload === 'string' ? payload.length : payload.byteLength;
  if (size > DEVICE_MESSAGE_MAX_BYTES[leaf]) return { ok: false, reason: 'too_large', detail: `${size} bytes` };
  let json: unknown;
  try {
    json = JSON.parse(typeof payload === 'string' ? payload : utf8.decode(payload));
  } catch {
    return { ok: false, reason: 'not_json' };
  }
  const parsed = DEVICE_MESSAGE_SCHEMAS[leaf].safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return { ok: false, reason: 'invalid', detail: first ? `${first.path.join('.') || '(message)'}: ${first.message}` : undefined };
  }
  return { ok: true, message: parsed.data as DeviceMessage<L> };
}
