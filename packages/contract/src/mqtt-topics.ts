import { z } from 'zod';

/** Root of Atrium's versioned MQTT topic tree (docs/device-protocol.md). */
export const MQTT_ROOT = 'atrium/v1';

/** A serial number as it may appear in a topic: no MQTT wildcard or level separator. */
export const TOPIC_SAFE_SERIAL = /^[A-Za-z0-9_-]{1,64}$/;

/** The subtree a device owns and alone may publish and subscribe under: `atrium/v1/devices/{serial}`. */
export const deviceSubtree = (serial: string): string => `${MQTT_ROOT}/devices/${serial}`;

/** One topic of a device's subtree, e.g. `deviceTopic('SN1', 'status')`. */
export const deviceTopic = (serial: string, leaf: string): string => `${deviceSubtree(serial)}/${leaf}`;

/** Largest MQTT packet the embedded broker accepts (bytes); a device message is far smaller. */
export const MQTT_MAX_PACKET_BYTES = 256 * 1024;

/**
 * The leaves of a device's subtree and who publishes on each (docs/device-protocol.md):
 * `up` is device → server, `down` is server → device.
 */
export const DEVICE_TOPICS = {
  /** up, retained, QoS 1: `online` on connect, `offline` as the last will and on a clean stop. */
  status: 'status',
  /** up, QoS 0: every `management.heartbeat` seconds. */
  heartbeat: 'heartbeat',
  /** down, QoS 1: a task to run (apply settings, init, sync, restart, remote control, play audio, open lock). */
  tasks: 'tasks',
  /** up, QoS 1: a task's progress and result. */
  taskUpdates: 'task-updates',
  /** up, QoS 1: what happened at the device (door opened, access granted or denied, call, alarm, tamper, sensor). */
  events: 'events',
  /** up, QoS 1: a sync task's acknowledgement with the entities the device could not take. */
  syncAcks: 'sync-acks',
  /** up, QoS 1: the device asks for a full sync (it holds nothing, or no longer trusts what it holds). */
  syncRequests: 'sync-requests',
  /** up, QoS 0: a remote-control session's screen frames. */
  screen: 'screen',
  /** down, QoS 1: a remote-control session's taps, keys and door openings. */
  input: 'input',
} as const;
export type DeviceTopicLeaf = (typeof DEVICE_TOPICS)[keyof typeof DEVICE_TOPICS];

/** Leaves a device publishes on. */
export const DEVICE_UP_LEAVES: readonly DeviceTopicLeaf[] = [
  'status',
  'heartbeat',
  'task-updates',
  'events',
  'sync-acks',
  'sync-requests',
  'screen',
];
/** Leaves the server publishes on (and a device subscribes to). */
export const DEVICE_DOWN_LEAVES: readonly DeviceTopicLeaf[] = ['tasks', 'input'];

/** Topic builders, one per leaf: `mqttTopics.tasks('SN1')` → `atrium/v1/devices/SN1/tasks`. */
export const mqttTopics = {
  status: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.status),
  heartbeat: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.heartbeat),
  tasks: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.tasks),
  taskUpdates: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.taskUpdates),
  events: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.events),
  syncAcks: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.syncAcks),
  syncRequests: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.syncRequests),
  screen: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.screen),
  input: (serial: string) => deviceTopic(serial, DEVICE_TOPICS.input),
  /** What the server subscribes to: one leaf of every device (`atrium/v1/devices/+/events`). */
  allDevices: (leaf: DeviceTopicLeaf) => `${MQTT_ROOT}/devices/+/${leaf}`,
} as const;

const DEVICES_PREFIX = `${MQTT_ROOT}/devices/`;
const TOPIC_LEAVES: ReadonlySet<string> = new Set(Object.values(DEVICE_TOPICS));

/** Splits a device topic into its serial and leaf; null for anything else (another tree, a bad serial, a deeper level). */
export function parseDeviceTopic(topic: string): { serial: string; leaf: DeviceTopicLeaf } | null {
  // Called for every message a device sends: no allocation beyond the two strings it returns.
  if (!topic.startsWith(DEVICES_PREFIX)) return null;
  const slash = topic.indexOf('/', DEVICES_PREFIX.length);
  if (slash < 0 || topic.indexOf('/', slash + 1) >= 0) return null;
  const serial = topic.slice(DEVICES_PREFIX.length, slash);
  const leaf = topic.slice(slash + 1);
  if (!TOPIC_LEAVES.has(leaf) || !TOPIC_SAFE_SERIAL.test(serial)) return null;
  return { serial, leaf: leaf as DeviceTopicLeaf };
}

/**
 * What RabbitMQ's HTTP auth backend sends Atrium (form fields; docs/device-protocol.md, "RabbitMQ"):
 * a sign-in, a virtual host, a resource (exchange or queue) or a topic (a routing key on amq.topic).
 */
export const RabbitAuthUserSchema = z.object({ username: z.string().max(200), password: z.string().max(1000) });
export const RabbitAuthVhostSchema = z.object({
  username: z.string().max(200),
  vhost: z.string().max(200),
  ip: z.string().max(100).optional(),
});
export const RabbitAuthResourceSchema = z.object({
  username: z.string().max(200),
  vhost: z.string().max(200),
  resource: z.enum(['exchange', 'queue', 'topic']),
  name: z.string().max(300),
  permission: z.enum(['configure', 'write', 'read']),
});
export const RabbitAuthTopicSchema = RabbitAuthResourceSchema.extend({ routing_key: z.string().max(1000) }).passthrough();
