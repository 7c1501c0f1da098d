/**
 * What the devices area and the device gateway (gateways/mqtt) offer each other. The gateway turns
 * MQTT messages into these calls and sends what the service hands it; neither side touches the
 * other's storage.
 */

/** A task as handed to a device. The id is the task's own: a device answers a repeated id once. */
export interface DeviceTaskMessage {
  id: number;
  type: string;
  payload: Record<string, unknown>;
}

/** The gateway, as the devices service uses it. */
export interface DeviceGateway {
  /** Publishes a task to the device; rejects when it cannot be handed over (no broker, device unknown to it). */
  sendTask(serial: string, task: DeviceTaskMessage): Promise<void>;
}

/** Broker sign-in of a device: username = serial number, password = device password (set at init). */
export interface DeviceCredentials {
  verify(serial: string, password: string): Promise<{ projectId: number; deviceId: number } | null>;
}

export interface PresenceReport {
  online: boolean;
  model?: string | undefined;
  firmware?: string | undefined;
  capabilities?: Record<string, unknown> | undefined;
}

export interface TaskUpdateReport {
  task_id: number;
  state: 'started' | 'completed' | 'error';
  error?: string | undefined;
}

export interface EventReport {
  type: string;
  identifier?: string | null | undefined;
  /** ISO-8601; the arrival time when absent. */
  time?: string | undefined;
  data?: Record<string, unknown> | undefined;
}

export interface SyncAckReport {
  task_id: number;
  errors?: { entity: 'identifier' | 'schedule'; id: number; message: string }[] | undefined;
}

/** What the gateway calls on the devices service when a device speaks. */
export interface DeviceMessageHandlers {
  onPresence(serial: string, report: PresenceReport): Promise<void>;
  onTaskUpdate(serial: string, report: TaskUpdateReport): Promise<void>;
  onEvent(serial: string, report: EventReport): Promise<void>;
  onSyncAck(serial: string, report: SyncAckReport): Promise<void>;
}
