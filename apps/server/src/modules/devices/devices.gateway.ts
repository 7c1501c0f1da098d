/**
 * What the devices area and the device gateway (gateways/mqtt) offer each other. The gateway turns
 * MQTT messages into these calls and sends what the service hands it; neither side touches the
 * other's storage.
 */
import type { RemoteInputMessage, ScreenFrameMessage } from '@atrium/contract';

/** A task as handed to a device. The id is the task's own: a device answers a repeated id once. */
export interface DeviceTaskMessage {
  id: number;
  type: string;
  payload: Record<string, unknown>;
}

/** What an operator does on a remote-control screen (docs/device-protocol.md, `input`). */
export type DeviceInputMessage = RemoteInputMessage;

/** A task the device protocol cannot carry (a payload that does not match its schema): it will never go. */
export class InvalidTaskError extends Error {}

/** The gateway, as the devices service uses it. */
export interface DeviceGateway {
  /** Publishes a task to the device; rejects when it cannot be handed over (no broker, device unknown to it). */
  sendTask(serial: string, task: DeviceTaskMessage): Promise<void>;
  /** Publishes a remote-control input (tap, key, open door, keep-alive, end) to the device. */
  sendInput(serial: string, input: DeviceInputMessage): Promise<void>;
  /**
   * Of these serial numbers, those whose device this gateway hears now (its status and heartbeats):
   * the liveness sweep takes over those of a dead instance instead of declaring them offline.
   */
  holdsOnline?(serials: readonly string[]): Promise<string[]>;
  /** Whether the gateway is connected to its broker now (absent: always, as a test's fake). */
  readonly connected?: boolean;
  /** Its counters of device messages (absent: a test's fake). */
  readonly stats?: GatewayIntakeStats;
  /** The event intake of the device plane's thread, when events are stored there (PostgreSQL) or wait there. */
  readonly eventIntake?: PlaneIntakeStats;
  /** The device plane thread's heap and how often it died (absent: no plane of its own, as a test's fake). */
  readonly planeHealth?: PlaneHealth;
}

/** The device plane thread's heap (bytes, as its last counters said) and how often it died and was started again. */
export interface PlaneHealth {
  readonly heapUsed: number;
  readonly heapLimit: number;
  readonly crashes: number;
}

/** What the device plane's own intake counts (modules/devices/event-intake.ts). */
export interface PlaneIntakeStats {
  readonly backlog: number;
  readonly oldestUnstoredMs: number;
  readonly stored: number;
  readonly writeRetries: number;
  readonly intakeFull: number;
  readonly unstoredAtStop: number;
}

/** What the gateway counts of the messages devices send (system information, /metrics). */
export interface GatewayIntakeStats {
  /** Refused messages per reason. */
  readonly dropped: Readonly<Record<string, number>>;
  readonly awaitingAck: number;
  readonly acknowledged: number;
  readonly acksOfClosedConnections: number;
  readonly readPaused: number;
  /** Events read past unacknowledged while the intake was full and could not store, and connections closed afterwards so that their devices send them again. */
  readonly deferred: number;
  readonly reconnectAsked: number;
}

/**
 * The broker's accounts of devices, kept in step with the devices table: Mosquitto's dynamic
 * security (gateways/mqtt/mosquitto-dynsec.ts) or the embedded broker, which checks passwords
 * against the table itself and only drops the connections of a device that changed.
 */
export interface DeviceAccounts {
  /** Creates the device's account, or sets its password and enables it when it exists (init). */
  upsertDevice(serial: string, password: string): Promise<void>;
  /** The device may sign in again with the password it has (protocol set back to mqtt). */
  enableDevice(serial: string): Promise<void>;
  /** The device may no longer sign in (protocol changed); its account stays for a later init. */
  disableDevice(serial: string): Promise<void>;
  /** Deletes the account (device deleted, or its serial number changed). */
  removeDevice(serial: string): Promise<void>;
  /** Ends the device's connections now (it was initialised again: it must sign in with its new password). */
  endSessions(serial: string): Promise<void>;
}

/** Broker sign-in of a device: username = serial number, password = device password (set at init). */
export interface DeviceCredentials {
  verify(serial: string, password: string): Promise<{ projectId: number; deviceId: number } | null>;
}

export interface PresenceReport {
  online: boolean;
  /** What an online status names; the device's record must say the same. */
  type?: string | undefined;
  model?: string | undefined;
  firmware?: string | undefined;
  capabilities?: Record<string, unknown> | undefined;
  /**
   * Why it went offline when no will or silence of its own said so: `reinit`, Atrium ended its
   * session (initialised again); `instance_gone`, the instance that heard it died and no other hears it.
   */
  reason?: 'reinit' | 'instance_gone' | undefined;
}

export interface TaskUpdateReport {
  task_id: number;
  state: 'started' | 'completed' | 'error';
  error?: string | undefined;
}

export interface EventReport {
  /** The device's own id of the event: one already stored for the device is not stored again. */
  event_id?: string | undefined;
  type: string;
  identifier?: string | null | undefined;
  /** ISO-8601; the arrival time when absent. */
  time?: string | undefined;
  data?: Record<string, unknown> | undefined;
}

/** Called once an event is committed: the acknowledgement (PUBACK) to its device may go. */
export type EventStored = () => void;

/** A device asks for a full sync (docs/device-protocol.md, `sync-requests`). */
export interface SyncRequestReport {
  reason: string;
}

export interface SyncAckReport {
  task_id: number;
  errors?: { entity: 'identifier' | 'schedule'; id: number; message: string }[] | undefined;
}

/** What the gateway calls on the devices service when a device speaks. */
export interface DeviceMessageHandlers {
  /** Resolves with false when the device's record refuses the report (a status naming another model or type). */
  onPresence(serial: string, report: PresenceReport): Promise<unknown>;
  onTaskUpdate(serial: string, report: TaskUpdateReport): Promise<void>;
  /** Takes an event for storage; `stored` is called once it is committed (then, and only then, the device is told). */
  onEvent(serial: string, report: EventReport, stored?: EventStored): Promise<void>;
  /**
   * Optional fast path of onEvent: takes the event synchronously and returns true when it can (its
   * sender is known), false when onEvent must be called. Spares a flood a promise chain per event.
   */
  acceptEvent?(serial: string, report: EventReport, stored?: EventStored): boolean;
  /**
   * Null while events may be read; a promise resolved once there is room again while the intake holds
   * all the unstored events it may (the database is slow or away): the gateway stops reading meanwhile.
   */
  eventRoom?(): Promise<void> | null;
  /** Whether the intake holds all the unstored events it may (eventRoom would wait), without waiting. */
  eventsFull?(): boolean;
  /**
   * Whether the intake holds all it may and cannot store them now (its writes fail): the embedded
   * broker then reads a device's further events past, unacknowledged, and has it send them again later.
   */
  eventsAway?(): boolean;
  onSyncAck(serial: string, report: SyncAckReport): Promise<void>;
  /** The device asks for a full sync. */
  onSyncRequest?(serial: string, report: SyncRequestReport): Promise<void>;
  /** A remote-control screen frame (only while a session runs). */
  onScreenFrame?(serial: string, frame: ScreenFrameMessage): Promise<void>;
  /** When each device was last heard from, since the previous flush: one call per flush, never per heartbeat. */
  onLastSeen?(seen: ReadonlyMap<string, Date>): Promise<void>;
}
