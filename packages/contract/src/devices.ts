import { z } from 'zod';
import { IdValueSchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES } from './validators.js';

/** Device types of spec entities §3; a new device is a panel. */
export const DEVICE_TYPES = ['panel', 'monitor', 'accesscontroller', 'liftcontroller', 'ip_camera', 'barrier'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];
export const DEFAULT_DEVICE_TYPE: DeviceType = 'panel';

/** How the server talks to a device. `none`: not at all (no init, queue restart or sync). */
export const DEVICE_PROTOCOLS = ['mqtt', 'http', 'none'] as const;
export type DeviceProtocol = (typeof DEVICE_PROTOCOLS)[number];
/**
 * Protocols the server serves, which a device may be set to. `http` is part of the spec's model, but
 * no HTTP endpoint for devices exists yet: a device set to it would stay offline and its tasks would
 * wait forever, so it is refused (400, field `protocol`) until that endpoint exists.
 */
export const SERVED_DEVICE_PROTOCOLS = ['mqtt', 'none'] as const satisfies readonly DeviceProtocol[];
export const DEVICE_VALIDATION_MESSAGES = {
  /** "HTTP is not supported yet: use MQTT" */
  protocol_not_supported: 'validation.device_protocol_not_supported',
} as const;
/** A protocol in a request: any known one is parsed, and one the server does not serve is refused with a field message. */
const requestedProtocol = <P extends readonly [DeviceProtocol, ...DeviceProtocol[]]>(allowed: P) =>
  z
    .enum(allowed)
    .refine((p) => (SERVED_DEVICE_PROTOCOLS as readonly string[]).includes(p), DEVICE_VALIDATION_MESSAGES.protocol_not_supported);

/** Device defaults of spec entities §9. */
export const DEVICE_DEFAULTS = {
  port: 80,
  talk_timeout: 120,
  reregister_interval: 600,
  relay_open_time: 10,
  protocol: 'mqtt',
  button_slots: 4,
} as const;

/** What a model can do: the console shows only the settings blocks a model has. */
export interface DeviceModelCapabilities {
  /** Locks (relays for doors) the device drives. */
  locks: number;
  face_recognition: boolean;
  /** Relays of a lift controller (floors it can serve). */
  lift_relays: number;
  sip: boolean;
  display: boolean;
}

export interface DeviceModel {
  model: string;
  type: DeviceType;
  capabilities: DeviceModelCapabilities;
}

const cap = (c: Partial<DeviceModelCapabilities>): DeviceModelCapabilities => ({
  locks: 0,
  face_recognition: false,
  lift_relays: 0,
  sip: false,
  display: false,
  ...c,
});

/** The model catalogue, per type. */
export const DEVICE_MODELS: readonly DeviceModel[] = [
  { type: 'panel', model: 'AP-100', capabilities: cap({ locks: 1, sip: true, display: true }) },
  { type: 'panel', model: 'AP-200', capabilities: cap({ locks: 2, sip: true, display: true }) },
  { type: 'panel', model: 'AP-300F', capabilities: cap({ locks: 2, sip: true, display: true, face_recognition: true }) },
  { type: 'monitor', model: 'AM-7', capabilities: cap({ sip: true, display: true }) },
  { type: 'monitor', model: 'AM-10', capabilities: cap({ locks: 1, sip: true, display: true }) },
  { type: 'accesscontroller', model: 'AC-2', capabilities: cap({ locks: 2 }) },
  { type: 'accesscontroller', model: 'AC-4', capabilities: cap({ locks: 4 }) },
  { type: 'liftcontroller', model: 'LC-16', capabilities: cap({ lift_relays: 16 }) },
  { type: 'liftcontroller', model: 'LC-32', capabilities: cap({ lift_relays: 32 }) },
  { type: 'ip_camera', model: 'IC-2', capabilities: cap({}) },
  { type: 'ip_camera', model: 'IC-4F', capabilities: cap({ face_recognition: true }) },
  { type: 'barrier', model: 'BR-1', capabilities: cap({ locks: 1 }) },
];

export const deviceModel = (type: string, model: string): DeviceModel | undefined =>
  DEVICE_MODELS.find((m) => m.type === type && m.model === model);

const text = (max = 255) => z.string().max(max);
const port = z.number().int().min(1).max(65535);

/** Settings blocks of spec entities §3 with their defaults. */
export const DeviceSettingsSchema = z.object({
  mqtt: z.object({ enabled: z.boolean().default(true) }).default({ enabled: true }),
  sip: z
    .object({
      manual: z.boolean().default(false),
      enabled: z.boolean().default(false),
      proxy_address: text().nullable().default(null),
      realm_address: text().nullable().default(null),
      stun_address: text().nullable().default(null),
      stun_port: port.nullable().default(null),
      login: text(64).nullable().default(null),
      password: text(128).nullable().default(null),
      talk_timeout: z.number().int().min(1).max(3600).default(DEVICE_DEFAULTS.talk_timeout),
      transport: z.enum(['UDP', 'TCP', 'TLS']).default('UDP'),
      rtp_profile: z.enum(['AVP', 'SAVP']).default('AVP'),
      use_address: z.boolean().default(false),
    })
    .prefault({}),
  address: z
    .object({
      mode: z.enum(['building', 'apartment']).default('building'),
      building: text(31).nullable().default(null),
      unit: text(31).nullable().default(null),
      floor: text(31).nullable().default(null),
      apartment: text(31).nullable().default(null),
      reregister: z.boolean().default(false),
      reregister_interval: z.number().int().min(1).max(86400).default(DEVICE_DEFAULTS.reregister_interval),
    })
    .prefault({}),
  network: z
    .object({
      is_dhcp: z.boolean().default(true),
      ip: z.ipv4().nullable().default(null),
      subnet: z.ipv4().nullable().default(null),
      gateway: z.ipv4().nullable().default(null),
      dns: z.ipv4().nullable().default(null),
    })
    .prefault({}),
  additional: z
    .object({
      button_numbers: z
        .array(text(31).nullable())
        .length(DEVICE_DEFAULTS.button_slots)
        .default(Array.from({ length: DEVICE_DEFAULTS.button_slots }, () => null)),
      alpr_camera_interaction: z.boolean().default(false),
      remote_lock_opening: z.boolean().default(false),
    })
    .prefault({}),
  face_recognition: z
    .object({
      enabled: z.boolean().default(false),
      mode: z.enum(['2D', '3D']).default('3D'),
      similarity: z.enum(['low', 'medium', 'high']).default('high'),
      autostart: z.boolean().default(false),
    })
    .prefault({}),
  lift_controller: z
    .object({
      device_mode: z.enum(['call-up', 'call-down', 'access']).default('call-up'),
      relay_mode: z.enum(['COM-NC', 'COM-NO']).default('COM-NC'),
      invert_all_relays: z.boolean().default(false),
      relay_open_time: z.number().int().min(1).max(600).default(DEVICE_DEFAULTS.relay_open_time),
      lift_release_time: z
        .object({ card: z.number().int().min(0).max(600).default(0), api: z.number().int().min(0).max(600).default(0) })
        .prefault({}),
      floor_map: z
        .array(z.object({ relay: z.number().int().min(1).max(64), floor: text(31) }))
        .max(64)
        .default([]),
    })
    .prefault({}),
  alpr_camera: z.record(z.string(), z.unknown()).default({}),
  /**
   * The Axxon One camera watching this device (issue 14): an integration available to the device's
   * group (GET /integrations/available) and one of its cameras (its access point and name).
   */
  integration_axxon: z
    .object({
      enabled: z.boolean().default(false),
      integration_id: z.number().int().positive().nullable().default(null),
      camera_access_point: text(300).nullable().default(null),
      camera_display_name: text(300).nullable().default(null),
    })
    .prefault({}),
});
export type DeviceSettings = z.infer<typeof DeviceSettingsSchema>;
/** The settings of a device no one has changed yet. */
export const defaultDeviceSettings = (): DeviceSettings => DeviceSettingsSchema.parse({});

/** Settings as sent on save: any block, any part of it; defaults fill the rest. */
export const DeviceSettingsBodySchema = z.strictObject({
  mqtt: DeviceSettingsSchema.shape.mqtt.unwrap().partial().optional(),
  sip: DeviceSettingsSchema.shape.sip.unwrap().partial().optional(),
  address: DeviceSettingsSchema.shape.address.unwrap().partial().optional(),
  network: DeviceSettingsSchema.shape.network.unwrap().partial().optional(),
  additional: DeviceSettingsSchema.shape.additional.unwrap().partial().optional(),
  face_recognition: DeviceSettingsSchema.shape.face_recognition.unwrap().partial().optional(),
  lift_controller: DeviceSettingsSchema.shape.lift_controller.unwrap().partial().optional(),
  alpr_camera: z.record(z.string(), z.unknown()).optional(),
  integration_axxon: DeviceSettingsSchema.shape.integration_axxon.unwrap().partial().optional(),
});

const ManagementSchema = z.object({
  heartbeat: z.number().int().min(5).max(3600).default(30),
  realtime_logging: z.boolean().default(false),
});

export const DeviceSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(DEVICE_TYPES),
  model: z.string(),
  ip_address: z.string().nullable(),
  port: z.number(),
  serial_number: z.string(),
  /** The broker login: the serial number. */
  login: z.string(),
  /** Masked: set or not. */
  password_set: z.boolean(),
  device_login: z.string().nullable(),
  device_password_set: z.boolean(),
  domain_id: z.number().nullable(),
  protocol: z.enum(DEVICE_PROTOCOLS),
  get_logs: z.boolean(),
  location_latitude: z.number().nullable(),
  location_longitude: z.number().nullable(),
  management: ManagementSchema,
  device_settings: DeviceSettingsSchema,
  capabilities: z.object({
    locks: z.number(),
    face_recognition: z.boolean(),
    lift_relays: z.number(),
    sip: z.boolean(),
    display: z.boolean(),
  }),
  online: z.boolean(),
  last_seen_at: z.string().nullable(),
  firmware: z.string().nullable(),
  initialized_at: z.string().nullable(),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type Device = z.infer<typeof DeviceSchema>;

const serial = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, VALIDATION_MESSAGES.alphanumeric_dash_underscore);
const latitude = z.number().min(-90).max(90).nullable();
const longitude = z.number().min(-180).max(180).nullable();

const deviceFields = {
  name: z.string().trim().min(1).max(31),
  description: z.string().max(1000).nullable().optional(),
  ip_address: z.ipv4().nullable().optional(),
  port: port.optional(),
  device_login: z.string().max(64).nullable().optional(),
  /** Sent only to change it; null or absent keeps the stored one. */
  device_password: z.string().max(128).nullable().optional(),
  domain_id: IdValueSchema.nullable().optional(),
  protocol: requestedProtocol(['mqtt', 'http']).optional(),
  get_logs: z.boolean().optional(),
  location_latitude: latitude.optional(),
  location_longitude: longitude.optional(),
  management: ManagementSchema.partial().optional(),
  device_settings: DeviceSettingsBodySchema.optional(),
};

export const CreateDeviceBodySchema = z.strictObject({
  ...deviceFields,
  type: z.enum(DEVICE_TYPES).default(DEFAULT_DEVICE_TYPE),
  model: z.string().min(1).max(64),
  serial_number: serial,
  domain_id: IdValueSchema,
});
export type CreateDeviceBody = z.infer<typeof CreateDeviceBodySchema>;

export const UpdateDeviceBodySchema = z.strictObject({
  ...deviceFields,
  name: deviceFields.name.optional(),
  type: z.enum(DEVICE_TYPES).optional(),
  model: z.string().min(1).max(64).optional(),
  serial_number: serial.optional(),
});
export type UpdateDeviceBody = z.infer<typeof UpdateDeviceBodySchema>;

export const DeviceListQuerySchema = ListQuerySchema.extend({
  /** Name, serial number, description or IP address contains the text. */
  search: z.string().trim().min(1).max(100).optional(),
});

export const RawDeviceSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(DEVICE_TYPES),
  model: z.string(),
});

export const DeviceInitBodySchema = z.strictObject({
  /** The device password the device signs in to the broker with; generated when absent. */
  password: z.string().min(8).max(128).optional(),
});
export const DeviceInitResultSchema = z.object({
  task: z.lazy(() => DeviceTaskSchema),
  /** The device password, answered once when the server generated it. */
  password: z.string().nullable(),
});

export const SetProtocolBodySchema = z.strictObject({ protocol: requestedProtocol(DEVICE_PROTOCOLS) });

/**
 * Realtime topics of the devices area (any signed-in console of the project may subscribe): live
 * online/offline status, task states, and the results of one IP search under its request id.
 */
export const DEVICE_REALTIME = {
  statusTopic: 'devices',
  tasksTopic: 'device-tasks',
  searchTopic: (requestId: string) => `devices-search.${requestId}`,
  /** The frames of one remote-control session, for the operator who opened it. */
  screenTopic: (session: string) => `device-screen.${session}`,
  events: {
    status: 'DeviceStatusChanged',
    task: 'DeviceTaskChanged',
    found: 'DeviceFound',
    searchDone: 'DeviceSearchDone',
    screen: 'DeviceScreenFrame',
    sessionEnded: 'RemoteControlEnded',
    /** The device reports a door opened from a remote-control screen: `{ session, lock, at }`. */
    doorOpened: 'RemoteDoorOpened',
  },
} as const;

// --- tasks ---------------------------------------------------------------------------------------

/** Task states of spec entities §3–4. */
export const DEVICE_TASK_STATES = ['new', 'queued', 'started', 'stopped', 'error', 'completed', 'waiting'] as const;
export type DeviceTaskState = (typeof DEVICE_TASK_STATES)[number];
/** States a task never leaves by itself. */
export const FINAL_TASK_STATES: readonly DeviceTaskState[] = ['stopped', 'error', 'completed'];

export const DEVICE_TASK_TYPES = [
  'apply_settings',
  'init',
  'sync',
  'restart',
  'remote_control',
  'play_audio',
  'open_lock',
  'call_elevator',
  // emergency: an alert's sound stopped; doors held shut in a lockdown
  'stop_audio',
  'lockdown',
  // the MQTT broker the device connects to: where, and the certificate to trust
  'broker_settings',
] as const;
export type DeviceTaskType = (typeof DEVICE_TASK_TYPES)[number];

/** An entity a task carries (a sync task's identifiers and schedules). */
export const TaskEntitySchema = z.object({ type: z.string(), id: z.number() });

export const DeviceTaskSchema = z.object({
  id: z.number(),
  device_id: z.number(),
  device_name: z.string(),
  serial_number: z.string(),
  type: z.enum(DEVICE_TASK_TYPES),
  state: z.enum(DEVICE_TASK_STATES),
  error: z.string().nullable(),
  attempts: z.number(),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type DeviceTask = z.infer<typeof DeviceTaskSchema>;

export const DeviceTaskListQuerySchema = ListQuerySchema;

// --- events --------------------------------------------------------------------------------------

export const DEVICE_EVENT_TYPES = [
  'door_opened',
  'access_granted',
  'access_denied',
  'call',
  'alarm_on',
  'alarm_off',
  'tamper',
  'sensor',
  'floor_called',
] as const;
export type DeviceEventType = (typeof DEVICE_EVENT_TYPES)[number];

export const DeviceEventSchema = z.object({
  id: z.number(),
  device_id: z.number(),
  device_name: z.string(),
  type: z.string(),
  identifier: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  occurred_at: z.string(),
  received_at: z.string(),
});
export type DeviceEvent = z.infer<typeof DeviceEventSchema>;

export const DeviceEventListQuerySchema = ListQuerySchema;
export const DeviceEventDownloadQuerySchema = ListQuerySchema.omit({ page: true, size: true, with: true }).extend({
  export_format: z.enum(['csv', 'xlsx']).default('csv'),
});

export const SyncErrorsSchema = z.object({
  identifiers: z.array(z.object({ id: z.number(), message: z.string() })),
  schedules: z.array(z.object({ id: z.number(), message: z.string() })),
});

// --- remote control ------------------------------------------------------------------------------

/** A remote-control session lasts this long unless kept alive (spec entities §9). */
export const REMOTE_CONTROL_SESSION_SECONDS = 60;

export const RemoteControlBodySchema = z.strictObject({
  serial_number: z.string().trim().min(1).max(64),
  login: z.string().max(64).nullable().optional(),
  password: z.string().max(128).nullable().optional(),
});
export const RemoteControlSessionSchema = z.object({
  session: z.string(),
  device_id: z.number(),
  task_id: z.number(),
  expires_at: z.string(),
});
export const SessionParamsSchema = z.object({ session: z.uuid() });

/** What the operator does on the remote screen (`POST /devices/remote-control/{session}/input`). */
export const RemoteInputBodySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('tap'), x: z.number().int().min(0).max(4096), y: z.number().int().min(0).max(4096) }),
  z.strictObject({ kind: z.literal('key'), key: z.string().trim().min(1).max(32) }),
  z.strictObject({ kind: z.literal('open_door'), lock: z.number().int().min(1).max(64).default(1) }),
]);
export type RemoteInputBody = z.infer<typeof RemoteInputBodySchema>;

/** A frame of the device's screen as the console receives it on `device-screen.{session}`. */
export const ScreenFrameEventSchema = z.object({
  session: z.string(),
  seq: z.number(),
  width: z.number(),
  height: z.number(),
  format: z.enum(['jpeg', 'png']),
  data: z.string(),
});
export type ScreenFrameEvent = z.infer<typeof ScreenFrameEventSchema>;

// --- IP search -----------------------------------------------------------------------------------

/** Most addresses one search may probe. */
export const DEVICE_SEARCH_MAX_ADDRESSES = 1024;
/** Where a device answers discovery over HTTP: GET http://<ip>:<port><path> → DiscoveryAnswer. */
export const DEVICE_DISCOVERY_PATH = '/atrium/discovery';

export const DeviceSearchBodySchema = z.strictObject({
  start_ip: z.ipv4(),
  end_ip: z.ipv4(),
  request_id: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, VALIDATION_MESSAGES.alphanumeric_dash_underscore),
  /** The devices' HTTP port (default 80). */
  port: z.number().int().min(1).max(65535).optional(),
});

export const DiscoveryAnswerSchema = z.object({
  serial_number: z.string().min(1).max(64),
  type: z.enum(DEVICE_TYPES),
  model: z.string().min(1).max(64),
  firmware: z.string().max(64).optional(),
});

export const FoundDeviceSchema = DiscoveryAnswerSchema.extend({
  ip_address: z.string(),
  port: z.number(),
  /** Already a device of this server. */
  known: z.boolean(),
});
export type FoundDevice = z.infer<typeof FoundDeviceSchema>;

export const AddFoundDevicesBodySchema = z.strictObject({
  items: z
    .array(
      z.strictObject({
        serial_number: z
          .string()
          .trim()
          .min(1)
          .max(64)
          .regex(/^[A-Za-z0-9_-]+$/, VALIDATION_MESSAGES.alphanumeric_dash_underscore),
        type: z.enum(DEVICE_TYPES),
        model: z.string().min(1).max(64),
        ip_address: z.ipv4(),
        port: z.number().int().min(1).max(65535).optional(),
        name: z.string().trim().min(1).max(31).optional(),
        domain_id: IdValueSchema,
      }),
    )
    .min(1)
    .max(DEVICE_SEARCH_MAX_ADDRESSES),
});

/** Numeric value of a dotted IPv4 address. */
export const ipv4ToNumber = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
export const numberToIpv4 = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

// --- backup --------------------------------------------------------------------------------------

/** A device's backup image (JSON, optionally gzipped): its settings, restored onto the device with this serial number. */
export const DeviceBackupImageSchema = z.object({
  format: z.literal('atrium-device-backup'),
  version: z.literal(1),
  serial_number: z.string().min(1).max(64),
  device_settings: DeviceSettingsBodySchema,
});
