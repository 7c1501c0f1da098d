/**
 * What crosses between the main thread (host.ts: the supervisor and the devices service on the
 * database) and the device plane's thread (thread.ts: the embedded broker or Atrium's client of an
 * external one, the gateway that parses and validates what devices send, and the event intake).
 * See docs/decisions.md, "The device plane in its own thread".
 */
import type { Answer, LogLevel, WireError } from '../../../core/worker-threads.js';
import type { IntakeSnapshot } from '../../../modules/devices/event-intake.js';
import type { BrokerTls, InternalCredential } from '../broker.js';
import type { GatewayStats } from '../gateway.js';

export type { Answer } from '../../../core/worker-threads.js';

/** Where devices connect: the embedded broker in the plane's thread, or an external one Atrium is a client of. */
export type PlaneBroker =
  | { kind: 'embedded'; port: number; host: string; internal: InternalCredential; tls: BrokerTls | null }
  | { kind: 'external'; url: string; clientId?: string; shared: boolean }
  /** RabbitMQ: devices on its MQTT plugin, Atrium over AMQP (competing consumers of one durable queue). */
  | { kind: 'amqp'; url: string; queue: string };

export interface DevicePlaneData {
  broker: PlaneBroker;
  /**
   * PostgreSQL: the plane stores events itself on connections of its own, and tells the main thread
   * of each committed batch; null (PGlite, which only the main thread can reach): batches cross to
   * the main thread, which answers once they are stored.
   */
  databaseUrl: string | null;
  statementTimeoutMs: number;
  /** Unstored events past which the gateway stops reading. */
  eventsHeldMax: number;
  /** Log levels the main thread writes: the others are not even sent. */
  logLevels: LogLevel[];
  /** How long a call on the main thread may take before it fails here (ms). */
  callTimeoutMs: number;
  /**
   * The plane thread's nice value (0–19; 0 leaves it at the process's priority): under a flood on a
   * busy machine the HTTP thread runs before it.
   */
  nice: number;
}

/**
 * The devices service's methods the plane calls (sign-in, and every device message but events on
 * PostgreSQL). `takeEvents` carries a whole batch as one JSON text of [serial, report, receivedAt]
 * tuples and answers once every one of them is stored.
 */
export type PlaneCallMethod =
  | 'verify'
  | 'onPresence'
  | 'onTaskUpdate'
  | 'onSyncAck'
  | 'onSyncRequest'
  | 'onScreenFrame'
  | 'onLastSeen'
  | 'takeEvents';

export interface PlaneCall {
  id: number;
  method: PlaneCallMethod;
  args: unknown[];
}

/** What the main thread asks of the running plane. */
export type PlaneControl = 'sendTask' | 'sendInput' | 'endSessions' | 'setTls' | 'restartBroker' | 'holdsOnline' | 'close';

export type ToPlane =
  /** The first message a worker gets (its code is loaded by then). */
  | { type: 'start'; data: DevicePlaneData }
  | { type: 'control'; id: number; method: PlaneControl; args: unknown[] }
  /** Answers to the plane's calls, those of one turn together. */
  | { type: 'answers'; answers: Answer[] }
  /** Tests of the supervisor: 'throw' throws inside the worker outside every handler, as a bug would. */
  | { type: 'crash'; how: 'throw'; message: string };

export type FromPlane =
  /** Its code is loaded: it can start at once. */
  | { type: 'loaded' }
  | { type: 'ready'; port: number | null; tlsPort: number | null }
  | { type: 'failed'; error: WireError }
  /** Calls of one turn together: a fleet's sign-ins and status changes cost one message, not one each. */
  | { type: 'calls'; calls: PlaneCall[] }
  /**
   * A batch committed by the plane itself (PostgreSQL), for the main thread's listeners (access
   * decisions, alarms, webhooks, integrations): one JSON text of the stored rows, and the event
   * types among them (so that a piece no listener wants is not read at all).
   */
  | { type: 'stored'; events: string; types: string[] }
  | { type: 'counters'; gateway: GatewayStats; intake: IntakeSnapshot; tlsPort: number | null; heap: { used: number; limit: number } }
  | { type: 'log'; level: LogLevel; obj: object; msg?: string }
  | ({ type: 'answer' } & Answer);

/** A stored row as `stored` carries it: [projectId, deviceId, type, identifier, eventId, data, occurredAt ms, receivedAt ms]. */
export type StoredRow = [number, number, string, string | null, string | null, Record<string, unknown>, number, number];
