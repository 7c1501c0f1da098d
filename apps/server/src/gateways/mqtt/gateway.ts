import { randomBytes } from 'node:crypto';
import {
  DEVICE_UP_LEAVES,
  type DeviceMessage,
  type DeviceTopicLeaf,
  decodeDeviceMessage,
  mqttTopics,
  parseDeviceTopic,
  type RemoteInputMessage,
  RemoteInputMessageSchema,
  type ScreenFrameMessage,
  TaskMessageSchema,
  TOPIC_SAFE_SERIAL,
} from '@atrium/contract';
import amqp from 'amqplib';
import mqtt, { type MqttClient } from 'mqtt';
import { finishesWithin } from '../../core/settle.js';
import {
  type DeviceGateway,
  type DeviceMessageHandlers,
  type DeviceTaskMessage,
  type EventReport,
  type EventStored,
  InvalidTaskError,
} from '../../modules/devices/devices.gateway.js';
import type { LocalBrokerLink } from './broker.js';

/**
 * The device gateway: Atrium's own client of the MQTT broker — MQTT_URL over TCP, or the embedded
 * broker through its in-process link (no MQTT encoding or socket in between). It validates
 * every message a device sends against its schema (docs/device-protocol.md) and calls the devices
 * service; a malformed, oversized or unexpected message is counted, logged and dropped, never a crash.
 * Presence lives in memory: a heartbeat costs no database write; last-seen times are handed over in
 * one batch per flush.
 */

/** What the gateway calls; the devices service implements it (the optional ones when it has them). */
export type GatewayHandlers = DeviceMessageHandlers;

export interface GatewayLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface MqttGatewayOptions {
  /** `mqtt://host:port` (credentials may be in the URL, or given below). Either this or `local`. */
  url?: string;
  /** The embedded broker's in-process link: used instead of an MQTT connection. */
  local?: LocalBrokerLink;
  /**
   * `amqp://user:password@host:port/vhost` of a RabbitMQ whose MQTT plugin the devices use: Atrium
   * reads their messages over AMQP (see linkAmqp) instead of as an MQTT client.
   */
  amqp?: string;
  /** The durable quorum queue the instances share at `amqp` (AMQP_QUEUE; default atrium.devices). */
  amqpQueue?: string;
  username?: string | undefined;
  password?: string | undefined;
  handlers: GatewayHandlers;
  /**
   * Subscribe to tasks updates, events, sync acknowledgements and screens through a shared
   * subscription (`$share/atrium-server/…`) so that with several instances each message reaches one.
   * Presence (status, heartbeat) is always read by every instance. Mosquitto and EMQX have them; aedes does not.
   */
  shared?: boolean;
  /** How often last-seen times are handed over (ms). */
  flushMs?: number;
  /** Longest wait between two looks for silent devices (ms); a look is also due when the first device may have gone silent. */
  presenceCheckMs?: number;
  /** A device not heard from for this many heartbeat periods is offline (its will should have said so already). */
  staleHeartbeats?: number;
  /**
   * Most unacknowledged-free messages (QoS 0, or already answered) of one device waiting to be
   * handled; beyond it they are dropped (a flood). A QoS 1 event is never dropped: it is held
   * unacknowledged, and the device waits with its in-flight window full.
   */
  maxQueuePerDevice?: number;
  /** Atrium's client id at `url`: stable across restarts, so its session (and what the broker keeps for it) is found again. */
  clientId?: string;
  log?: GatewayLogger;
  /** Connect time-out and reconnect period (ms). */
  connectTimeoutMs?: number;
  reconnectMs?: number;
  /** Longest wait for each stage of close (the broker link, messages being handled, the last-seen flush) before it goes on (ms). */
  closeMs?: number;
}

export type DropReason = 'too_large' | 'not_json' | 'invalid' | 'unknown_topic' | 'overloaded' | 'handler_failed';

export interface GatewayStats {
  received: number;
  handled: number;
  dropped: Record<DropReason, number>;
  tasksSent: number;
  /** QoS 1 events taken and not acknowledged yet (their PUBACK waits for the commit). */
  awaitingAck: number;
  /** Events acknowledged after their commit. */
  acknowledged: number;
  /**
   * Acknowledgements that could not go because the connection they belonged to closed first (an
   * external broker restarted): the broker sends those events again, and their event ids match.
   */
  acksOfClosedConnections: number;
  /** Times reading from the broker stopped because the intake was full (an external broker keeps the rest). */
  readPaused: number;
  /**
   * Embedded broker: events read past, neither taken nor acknowledged, while the intake was full and
   * could not store; and connections closed once there was room again, so that their devices send
   * those events again.
   */
  deferred: number;
  reconnectAsked: number;
}

interface Presence {
  online: boolean;
  lastSeen: number;
  /** Heartbeat period (s) the device announced. */
  heartbeat: number;
  /**
   * Its last online status was refused (another model or type than its record): its heartbeats
   * neither bring it online nor ask the service again, until a status it accepts.
   */
  refused?: boolean;
}

const SHARE_GROUP = 'atrium-server';

/**
 * An event message as the devices service takes it (its id kept among the data). The message is
 * the schema's fresh output, the gateway's own: its data object is handed on, not copied.
 */
function eventReport(m: DeviceMessage<'events'>): EventReport {
  const data: Record<string, unknown> = m.data;
  const report: EventReport = { type: m.type, identifier: m.identifier ?? null, data };
  if (m.event_id !== undefined) {
    data.event_id = m.event_id;
    report.event_id = m.event_id;
  }
  if (m.time !== undefined) report.time = m.time;
  return report;
}

/** What acknowledges a held QoS 1 event: without an argument once stored (or refused); with an error when it could not be taken. */
type Answer = (notTaken?: Error) => void;

/** How the gateway reaches the broker: an MQTT client, or the embedded broker's in-process link. */
interface Link {
  readonly connected: boolean;
  publish(topic: string, payload: string, qos: 0 | 1): Promise<void>;
  close(): Promise<void>;
}
const silentLog: GatewayLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export class MqttGateway implements DeviceGateway {
  readonly stats: GatewayStats = {
    received: 0,
    handled: 0,
    dropped: { too_large: 0, not_json: 0, invalid: 0, unknown_topic: 0, overloaded: 0, handler_failed: 0 },
    tasksSent: 0,
    awaitingAck: 0,
    acknowledged: 0,
    acksOfClosedConnections: 0,
    readPaused: 0,
    deferred: 0,
    reconnectAsked: 0,
  };
  private readonly presence = new Map<string, Presence>();
  /** Last-seen times (ms) not handed over yet. */
  private seen = new Map<string, number>();
  /** Per device: the tail of its chain of handler calls and how many wait on it (messages of a device are handled in order). */
  private readonly queues = new Map<string, { tail: Promise<void>; size: number }>();
  /** When a device's last malformed message was logged (a flood logs once per window). */
  private readonly lastComplaint = new Map<string, number>();
  private link: Link;
  private readonly log: GatewayLogger;
  private readonly flushTimer: NodeJS.Timeout;
  private presenceTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly opts: Required<Omit<MqttGatewayOptions, 'username' | 'password' | 'log' | 'url' | 'local' | 'clientId' | 'amqp'>>;

  private constructor(options: MqttGatewayOptions) {
    this.opts = {
      shared: false,
      amqpQueue: 'atrium.devices',
      flushMs: 30_000,
      presenceCheckMs: 1000,
      staleHeartbeats: 3,
      maxQueuePerDevice: 1000,
      connectTimeoutMs: 5000,
      reconnectMs: 1000,
      closeMs: 10_000,
      ...options,
    };
    this.log = options.log ?? silentLog;
    if (options.local) this.link = this.linkLocal(options.local);
    else if (options.amqp) this.link = this.linkAmqp(options.amqp);
    else if (options.url) this.link = this.connectClient(options.url, options.username, options.password, options.clientId);
    else throw new Error('the MQTT gateway needs a broker URL or the embedded broker');
    this.flushTimer = setInterval(() => void this.flush(), this.opts.flushMs);
    this.flushTimer.unref();
    this.schedulePresenceCheck(this.opts.presenceCheckMs);
    // Started in the background, nobody may wait for the first subscription: its failure is logged.
    this.firstSubscription.catch(() => undefined);
  }

  /**
   * Atrium's MQTT client of the broker at `url`, reconnecting and subscribing again on its own.
   *
   * A QoS 1 event is acknowledged (PUBACK) once stored, not on arrival, so that the broker keeps what
   * Atrium has not stored: its session is persistent (clean session off, a client id stable across
   * restarts) and the broker sends again, after a reconnect, whatever it has no PUBACK for. mqtt.js
   * handles incoming packets one at a time and sends each PUBACK before reading the next, so holding
   * its acknowledgement callback would store one event per commit; instead its PUBACK of a held event
   * is kept aside as it is written (the packet handling goes on) and sent once the event is committed,
   * on the same connection only: a PUBACK names a packet id of its connection.
   */
  private connectClient(
    url: string,
    username: string | undefined,
    password: string | undefined,
    clientId: string | undefined,
  ): Link & { client: MqttClient } {
    const client = mqtt.connect(url, {
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
      clientId: clientId ?? `atrium-server-${randomBytes(8).toString('hex')}`,
      // Without a stable id a kept session would be an orphan after a restart, holding events nobody reads.
      clean: clientId === undefined,
      protocolVersion: 4,
      connectTimeout: this.opts.connectTimeoutMs,
      reconnectPeriod: this.opts.reconnectMs,
    });
    /** Held events of the current connection by packet id: committed yet, and the PUBACK mqtt.js wrote meanwhile. */
    let held = new Map<number, { stored: boolean; puback: (() => void) | null }>();
    type SendPacket = (packet: { cmd: string; messageId?: number }, cb?: () => void, ...rest: unknown[]) => void;
    const internals = client as unknown as { _sendPacket: SendPacket };
    const send = internals._sendPacket.bind(client);
    internals._sendPacket = (packet, cb, ...rest) => {
      const h = packet.cmd === 'puback' && packet.messageId !== undefined ? held.get(packet.messageId) : undefined;
      if (h && !h.stored) {
        h.puback = () => send(packet, undefined, ...rest);
        cb?.();
        return;
      }
      if (h) held.delete(packet.messageId as number);
      send(packet, cb, ...rest);
    };
    client.on('close', () => {
      // Their packet ids meant something on that connection only: the broker sends those events again.
      this.stats.acksOfClosedConnections += held.size;
      this.stats.awaitingAck -= held.size;
      held = new Map();
    });
    // Read no further while the intake is full: the broker keeps the rest (its queue for Atrium's session).
    client.handleMessage = (_packet, callback) => {
      const room = this.opts.handlers.eventRoom?.();
      if (!room) return callback();
      this.stats.readPaused++;
      room.then(
        () => callback(),
        () => callback(),
      );
    };
    client.on('connect', () => void this.subscribeClient(client));
    client.on('message', (topic, payload, packet) => {
      if (packet.qos !== 1 || packet.messageId === undefined || !topic.endsWith('/events')) {
        this.receive(topic, payload, packet.retain);
        return;
      }
      const id = packet.messageId;
      const entry = { stored: false, puback: null as (() => void) | null };
      const connection = held;
      connection.set(id, entry);
      this.stats.awaitingAck++;
      this.receive(topic, payload, packet.retain, (refused) => {
        if (held !== connection || entry.stored) return;
        if (refused) {
          // Not stored and not to be acknowledged: the broker sends it again after a reconnect.
          held.delete(id);
          this.stats.awaitingAck--;
          return;
        }
        entry.stored = true;
        this.stats.awaitingAck--;
        this.stats.acknowledged++;
        if (entry.puback) {
          held.delete(id);
          entry.puback();
        }
      });
    });
    client.on('error', (e) => this.log.warn({ err: e.message }, 'mqtt gateway: broker connection error'));
    client.on('offline', () => this.log.warn({}, 'mqtt gateway: broker unreachable, retrying'));
    return {
      client,
      get connected() {
        return client.connected;
      },
      publish: async (topic, payload, qos) => {
        await client.publishAsync(topic, payload, { qos });
      },
      close: async () => {
        await client.endAsync(true).catch(() => undefined);
      },
    };
  }

  /**
   * The embedded broker's in-process link: every device → server leaf, no shared subscriptions (one
   * instance owns an embedded broker). A broker restart hands a new link over (`useLocalBroker`).
   * Devices' QoS 1 events are taken before the broker acknowledges them, and acknowledged once stored.
   */
  private linkLocal(local: LocalBrokerLink): Link {
    let unsubscribe: (() => Promise<void>) | null = null;
    let closed = false;
    const release = local.holdPublishes(
      (topic, payload, answer) => {
        if (!topic.endsWith('/events')) return false;
        this.stats.awaitingAck++;
        // The broker's answer itself: the counts below hear of it (a closure per event here was kept
        // alive with the event until its commit).
        this.receive(topic, payload, false, answer);
        return true;
      },
      () => this.opts.handlers.eventsFull?.() ?? false,
      {
        takes: (topic) => topic.endsWith('/events'),
        away: () => this.opts.handlers.eventsAway?.() ?? false,
        deferred: (what) => {
          if (what === 'event') this.stats.deferred++;
          else this.stats.reconnectAsked++;
        },
      },
      (acknowledged, notTaken) => {
        this.stats.awaitingAck--;
        if (acknowledged) this.stats.acknowledged++;
        else if (!notTaken) this.stats.acksOfClosedConnections++;
      },
    );
    const subscribed = local.subscribe(
      DEVICE_UP_LEAVES.map((l) => mqttTopics.allDevices(l)),
      (topic, payload, retained) => this.receive(topic, payload, retained),
    );
    subscribed.then(
      (off) => {
        unsubscribe = off;
        if (closed) void off();
        this.log.info({}, 'mqtt gateway: linked to the embedded broker');
        this.firstSettled = true;
        this.settleFirst.resolve();
      },
      (e: Error) => {
        this.log.error({ err: e.message }, 'mqtt gateway: subscribing on the embedded broker failed');
        if (!this.firstSettled) this.settleFirst.reject(e);
      },
    );
    local.onClose(() => {
      if (!closed) this.log.warn({}, 'mqtt gateway: the embedded broker closed');
    });
    return {
      get connected() {
        return !closed && unsubscribe !== null && local.open;
      },
      publish: (topic, payload, qos) => local.publish(topic, payload, qos),
      close: async () => {
        closed = true;
        release();
        await unsubscribe?.().catch(() => undefined);
      },
    };
  }

  /**
   * RabbitMQ (its MQTT plugin for the devices; Atrium over AMQP). The plugin publishes what devices
   * send to `amq.topic` with the topic as routing key (`/` becomes `.`), and delivers to a device what
   * is published there for its subscription. Atrium instances read:
   *
   * - the devices' events, task results, sync answers and requests, screens from one durable quorum
   *   queue (AMQP_QUEUE) as competing consumers: each message reaches one instance, and an event is
   *   acknowledged only once committed; what an instance took and did not acknowledge when it died
   *   goes to another (stored once per device and event id);
   * - status and heartbeats from a queue of their own (exclusive, gone with the connection): every
   *   instance judges presence, as with MQTT.
   *
   * Tasks and remote inputs are published to `amq.topic` persistent, with publisher confirms, and the
   * QoS 1 header the MQTT plugin reads. RabbitMQ before 3.13 has no MQTT 5 and no shared
   * subscriptions: this is how several instances share the devices' messages there.
   */
  private linkAmqp(url: string): Link {
    const exchange = 'amq.topic';
    const queue = this.opts.amqpQueue;
    const toKey = (filter: string) => filter.replaceAll('/', '.').replaceAll('+', '*');
    const toTopic = (key: string) => key.replaceAll('.', '/');
    let connection: amqp.ChannelModel | null = null;
    let publisher: amqp.ConfirmChannel | null = null;
    let closed = false;
    let retry: NodeJS.Timeout | undefined;
    const connect = async () => {
      const conn = await amqp.connect(url, { timeout: this.opts.connectTimeoutMs });
      const lost = () => {
        if (connection !== conn) return;
        connection = null;
        publisher = null;
        if (!closed) {
          this.log.warn({}, 'amqp gateway: broker connection lost, retrying');
          retry = setTimeout(() => void attempt(), this.opts.reconnectMs);
        }
      };
      conn.on('error', (e: Error) => this.log.warn({ err: e.message }, 'amqp gateway: broker connection error'));
      conn.on('close', lost);
      try {
        const shared = await conn.createChannel();
        shared.on('error', () => undefined);
        await shared.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
        for (const leaf of DEVICE_UP_LEAVES.filter((l) => l !== 'status' && l !== 'heartbeat'))
          await shared.bindQueue(queue, exchange, toKey(mqttTopics.allDevices(leaf)));
        // As many unacknowledged as the intake batches at once: the rest waits in the queue.
        await shared.prefetch(2000);
        const confirms = await conn.createConfirmChannel();
        confirms.on('error', () => undefined);
        publisher = confirms;
        connection = conn;
        const mine = await conn.createChannel();
        mine.on('error', () => undefined);
        const presence = await mine.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
        for (const leaf of ['status', 'heartbeat'] as const)
          await mine.bindQueue(presence.queue, exchange, toKey(mqttTopics.allDevices(leaf)));
        await mine.consume(presence.queue, (msg) => msg && this.receive(toTopic(msg.fields.routingKey), msg.content, false), {
          noAck: true,
        });
        await shared.consume(queue, (msg) => {
          if (!msg) return;
          const topic = toTopic(msg.fields.routingKey);
          if (!topic.endsWith('/events')) {
            shared.ack(msg);
            this.receive(topic, msg.content, false);
            return;
          }
          this.stats.awaitingAck++;
          let answered = false;
          this.receive(topic, msg.content, false, (notTaken) => {
            if (answered) return;
            answered = true;
            this.stats.awaitingAck--;
            // A channel gone meanwhile: the broker gives the event to another consumer (stored once by its id).
            if (connection !== conn) {
              this.stats.acksOfClosedConnections++;
              return;
            }
            if (notTaken) shared.nack(msg, false, true);
            else {
              this.stats.acknowledged++;
              shared.ack(msg);
            }
          });
        });
        this.log.info({ queue }, 'amqp gateway: connected and consuming');
        this.firstSettled = true;
        this.settleFirst.resolve();
      } catch (e) {
        await conn.close().catch(() => undefined);
        throw e;
      }
    };
    const attempt = async () => {
      if (closed) return;
      try {
        await connect();
      } catch (e) {
        this.log.warn({ err: (e as Error).message }, 'amqp gateway: broker unreachable, retrying');
        if (!closed) retry = setTimeout(() => void attempt(), this.opts.reconnectMs);
      }
    };
    void attempt();
    return {
      get connected() {
        return connection !== null && publisher !== null;
      },
      publish: async (topic, payload, qos) => {
        const ch = publisher;
        if (!ch) throw new Error('not connected to the AMQP broker');
        await new Promise<void>((resolve, reject) =>
          ch.publish(
            exchange,
            toKey(topic),
            Buffer.from(payload),
            { persistent: true, headers: { 'x-mqtt-publish-qos': { '!': 'byte', value: qos } } },
            (err: unknown) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve()),
          ),
        );
      },
      close: async () => {
        closed = true;
        clearTimeout(retry);
        const conn = connection;
        connection = null;
        publisher = null;
        await conn?.close().catch(() => undefined);
      },
    };
  }

  /** The embedded broker was started again (broker tab, restart): the gateway follows it. */
  async useLocalBroker(local: LocalBrokerLink): Promise<void> {
    if (this.closed) return;
    const before = this.link;
    this.link = this.linkLocal(local);
    await before.close();
  }

  /** Connects to the broker; resolves once connected and subscribed, rejects when the first attempt fails. */
  static async connect(options: MqttGatewayOptions): Promise<MqttGateway> {
    const gateway = new MqttGateway(options);
    try {
      await new Promise<void>((resolve, reject) => {
        // Over TCP the first connection error (refused, bad credentials) ends the attempt.
        const client = 'client' in gateway.link ? (gateway.link.client as MqttClient) : null;
        const failed = (e: Error) => reject(e);
        client?.once('error', failed);
        gateway.firstSubscription.then(() => {
          client?.off('error', failed);
          resolve();
        }, reject);
      });
    } catch (e) {
      await gateway.close();
      throw e;
    }
    return gateway;
  }

  /** A gateway that connects in the background and keeps retrying: the server starts whether or not the broker is up. */
  static start(options: MqttGatewayOptions): MqttGateway {
    return new MqttGateway(options);
  }

  private settleFirst!: { resolve: () => void; reject: (e: Error) => void };
  /** Whether the first subscription has settled (later failures are only logged). */
  private firstSettled = false;
  /** Settles with the first subscription after the first connect. */
  private readonly firstSubscription = new Promise<void>((resolve, reject) => {
    this.settleFirst = { resolve, reject };
  });

  /** Resolves once connected and subscribed for the first time. */
  ready(): Promise<void> {
    return this.firstSubscription;
  }

  get connected(): boolean {
    return this.link.connected;
  }

  private subscribeClient(client: MqttClient): Promise<void> {
    const filter = (leaf: DeviceTopicLeaf) => {
      const t = mqttTopics.allDevices(leaf);
      return this.opts.shared && leaf !== 'status' && leaf !== 'heartbeat' ? `$share/${SHARE_GROUP}/${t}` : t;
    };
    const topics = Object.fromEntries(
      DEVICE_UP_LEAVES.map((l) => [filter(l), { qos: l === 'heartbeat' || l === 'screen' ? 0 : 1 }]),
    ) as Record<string, { qos: 0 | 1 }>;
    return client
      .subscribeAsync(topics)
      .then((granted) => {
        const refused = granted.filter((g) => g.qos === 128).map((g) => g.topic);
        if (refused.length) throw new Error(`the broker refused the subscriptions ${refused.join(', ')}`);
        this.log.info({ topics: Object.keys(topics) }, 'mqtt gateway: connected and subscribed');
        this.firstSettled = true;
        this.settleFirst.resolve();
      })
      .catch((e: Error) => {
        this.log.error({ err: e.message }, 'mqtt gateway: subscribing failed');
        if (!this.firstSettled) this.settleFirst.reject(e);
      });
  }

  // --- server → device ---------------------------------------------------------------------------

  /** Is the device connected, as far as its status and heartbeats say? */
  isOnline(serial: string): boolean {
    return this.presence.get(serial)?.online === true;
  }

  /** When the device was last heard from (null: not since this gateway started). */
  lastSeen(serial: string): Date | null {
    const p = this.presence.get(serial);
    return p ? new Date(p.lastSeen) : null;
  }

  onlineCount(): number {
    let n = 0;
    for (const p of this.presence.values()) if (p.online) n++;
    return n;
  }

  /**
   * Publishes a task to the device (QoS 1). Rejects when it cannot be handed over: the broker is not
   * connected, the device is not online, or the task does not match the protocol (a bug: logged).
   */
  async sendTask(serial: string, task: DeviceTaskMessage): Promise<void> {
    if (!TOPIC_SAFE_SERIAL.test(serial)) throw new Error(`serial ${JSON.stringify(serial)} cannot be a topic level`);
    if (!this.link.connected) throw new Error('not connected to the MQTT broker');
    if (!this.isOnline(serial)) throw new Error(`device ${serial} is not online`);
    const parsed = TaskMessageSchema.safeParse({ ...task, sent_at: new Date().toISOString() });
    if (!parsed.success) {
      this.log.error(
        { serial, task_id: task.id, type: task.type, issues: parsed.error.issues.slice(0, 5) },
        'mqtt gateway: task does not match the protocol',
      );
      throw new InvalidTaskError(`task ${task.id} does not match the device protocol: ${parsed.error.issues[0]?.path.join('.') ?? ''}`);
    }
    await this.link.publish(mqttTopics.tasks(serial), JSON.stringify(parsed.data), 1);
    this.stats.tasksSent++;
  }

  /** Sends a remote-control input (tap, key, open door, end) to a device in a session. */
  async sendInput(serial: string, input: RemoteInputMessage): Promise<void> {
    if (!TOPIC_SAFE_SERIAL.test(serial)) throw new Error(`serial ${JSON.stringify(serial)} cannot be a topic level`);
    if (!this.link.connected) throw new Error('not connected to the MQTT broker');
    if (!this.isOnline(serial)) throw new Error(`device ${serial} is not online`);
    const message = RemoteInputMessageSchema.parse(input);
    await this.link.publish(mqttTopics.input(serial), JSON.stringify(message), 1);
  }

  // --- device → server ---------------------------------------------------------------------------

  private drop(reason: DropReason, serial: string | undefined, detail: object = {}): void {
    this.stats.dropped[reason]++;
    const key = serial ?? '?';
    const now = Date.now();
    if ((this.lastComplaint.get(key) ?? 0) > now - 10_000) return;
    if (this.lastComplaint.size > 10_000) this.lastComplaint.clear();
    this.lastComplaint.set(key, now);
    this.log.warn({ serial, reason, ...detail, dropped: this.stats.dropped }, 'mqtt gateway: device message dropped');
  }

  /**
   * Handles a device's message. `answer`, given for a QoS 1 event whose acknowledgement waits, is
   * called once the event is stored, or at once when it is refused by the protocol (a bad message
   * stays bad however often it is sent); called with an error when it could not be taken (the
   * service stopping): then it is not acknowledged, and the device sends it again.
   */
  private receive(topic: string, payload: Buffer, retained: boolean, answer?: Answer): void {
    this.stats.received++;
    const at = parseDeviceTopic(topic);
    if (!at || !DEVICE_UP_LEAVES.includes(at.leaf)) {
      this.drop('unknown_topic', undefined, { topic: topic.slice(0, 200) });
      answer?.();
      return;
    }
    const { serial, leaf } = at;
    // A retained status is history: the device was heard from then, not now.
    if (!retained) this.touch(serial);
    if (leaf === 'status' && payload.length === 0) return; // a cleared retained status (device removed)
    const decoded = decodeDeviceMessage(leaf, payload);
    if (!decoded.ok) {
      this.drop(decoded.reason, serial, { leaf, detail: decoded.detail });
      answer?.();
      return;
    }
    if (leaf === 'heartbeat') {
      this.heartbeat(serial);
      return;
    }
    // An event of a device with nothing else waiting is handed over at once when the handler can
    // take it synchronously (a flood's common case): no promise chain per event, order kept.
    if (leaf === 'events') {
      const report = eventReport(decoded.message as DeviceMessage<'events'>);
      // The answer itself, not a closure made here: this function's context holds the decoded
      // message (for the queued path below), which a held event would keep alive until its commit.
      const stored: EventStored | undefined = answer;
      if (this.opts.handlers.acceptEvent && !this.queues.has(serial)) {
        let taken: boolean;
        try {
          taken = this.opts.handlers.acceptEvent(serial, report, stored);
        } catch (e) {
          this.drop('handler_failed', serial, { err: e instanceof Error ? e.message : String(e) });
          answer?.(e instanceof Error ? e : new Error(String(e)));
          return;
        }
        if (taken) {
          this.stats.handled++;
          return;
        }
      }
      this.enqueue(serial, () => this.opts.handlers.onEvent(serial, report, stored), answer);
      return;
    }
    this.enqueue(serial, () => this.dispatch(serial, leaf, decoded.message, retained));
  }

  private touch(serial: string): void {
    const now = Date.now();
    const p = this.presence.get(serial);
    if (p) p.lastSeen = now;
    this.seen.set(serial, now);
  }

  private heartbeat(serial: string): void {
    const p = this.presence.get(serial);
    if (p?.online) return; // the common case: nothing but the in-memory last-seen time
    if (p?.refused) return;
    // Heard from a device this gateway thought offline (or never saw come online): it is online.
    this.presence.set(serial, { online: true, lastSeen: Date.now(), heartbeat: p?.heartbeat ?? 60 });
    this.enqueue(serial, async () => {
      // A device whose status was refused (another model or type) is not brought online by its heartbeats.
      if ((await this.opts.handlers.onPresence(serial, { online: true })) === false) {
        const now = this.presence.get(serial);
        if (now) now.online = false;
      }
    });
  }

  /**
   * Handles a device's messages one after the other. A device that floods past the limit loses the
   * excess of what needs no acknowledgement; a held event (`answer`) is never dropped: it is already
   * bounded by the device's in-flight window, which stays full until Atrium acknowledges.
   */
  private enqueue(serial: string, work: () => Promise<void>, answer?: Answer): void {
    let q = this.queues.get(serial);
    if (!q) {
      q = { tail: Promise.resolve(), size: 0 };
      this.queues.set(serial, q);
    }
    if (!answer && q.size >= this.opts.maxQueuePerDevice) {
      this.drop('overloaded', serial);
      return;
    }
    const queue = q;
    queue.size++;
    queue.tail = queue.tail
      .then(work)
      .then(
        () => {
          this.stats.handled++;
        },
        (e: unknown) => {
          this.drop('handler_failed', serial, { err: e instanceof Error ? e.message : String(e) });
          answer?.(e instanceof Error ? e : new Error(String(e)));
        },
      )
      .finally(() => {
        queue.size--;
        if (queue.size === 0 && this.queues.get(serial) === queue) this.queues.delete(serial);
      });
  }

  private async dispatch(serial: string, leaf: DeviceTopicLeaf, message: unknown, retained: boolean): Promise<void> {
    const h = this.opts.handlers;
    switch (leaf) {
      case 'status': {
        const m = message as DeviceMessage<'status'>;
        const now = Date.now();
        if (m.state === 'online') {
          const before = this.presence.get(serial);
          const presence = { online: true, lastSeen: retained ? (before?.lastSeen ?? now) : now, heartbeat: m.heartbeat };
          this.presence.set(serial, presence);
          const accepted = await h.onPresence(serial, {
            online: true,
            type: m.type,
            model: m.model,
            firmware: m.firmware,
            capabilities: m.capabilities,
          });
          // A status the device's record refuses (another model or type) does not make it online here either.
          if (accepted === false) Object.assign(presence, { online: false, refused: true });
        } else {
          const before = this.presence.get(serial);
          this.presence.set(serial, { online: false, lastSeen: before?.lastSeen ?? now, heartbeat: before?.heartbeat ?? 60 });
          await h.onPresence(serial, { online: false });
        }
        return;
      }
      case 'task-updates': {
        const m = message as DeviceMessage<'task-updates'>;
        await h.onTaskUpdate(serial, { task_id: m.task_id, state: m.state, ...(m.error !== undefined ? { error: m.error } : {}) });
        return;
      }
      case 'events': {
        await h.onEvent(serial, eventReport(message as DeviceMessage<'events'>));
        return;
      }
      case 'sync-acks': {
        const m = message as DeviceMessage<'sync-acks'>;
        await h.onSyncAck(serial, { task_id: m.task_id, errors: m.errors });
        return;
      }
      case 'sync-requests': {
        const m = message as DeviceMessage<'sync-requests'>;
        await h.onSyncRequest?.(serial, { reason: m.reason });
        return;
      }
      case 'screen': {
        await h.onScreenFrame?.(serial, message as ScreenFrameMessage);
        return;
      }
      default:
        this.drop('unknown_topic', serial, { leaf });
    }
  }

  // --- periodic work -----------------------------------------------------------------------------

  /**
   * Declares offline the devices not heard from for `staleHeartbeats` of their periods, and looks
   * again when the next one would be due (at most `presenceCheckMs` later): a lost device is seen
   * within three heartbeats of its last word, not at the next last-seen flush.
   */
  private checkPresence(): void {
    const now = Date.now();
    let next = this.opts.presenceCheckMs;
    for (const [serial, p] of this.presence) {
      if (!p.online) continue;
      const due = p.lastSeen + p.heartbeat * 1000 * this.opts.staleHeartbeats - now;
      if (due <= 0) {
        p.online = false;
        this.enqueue(serial, async () => {
          await this.opts.handlers.onPresence(serial, { online: false });
        });
      } else if (due < next) next = due;
    }
    this.schedulePresenceCheck(next);
  }

  private schedulePresenceCheck(ms: number): void {
    clearTimeout(this.presenceTimer);
    if (this.closed) return;
    this.presenceTimer = setTimeout(() => this.checkPresence(), Math.max(20, ms));
    this.presenceTimer.unref();
  }

  /** Hands over last-seen times. Runs every `flushMs`. */
  async flush(): Promise<void> {
    this.checkPresence();
    if (!this.seen.size || !this.opts.handlers.onLastSeen) {
      this.seen.clear();
      return;
    }
    const batch = new Map<string, Date>();
    for (const [serial, at] of this.seen) batch.set(serial, new Date(at));
    this.seen = new Map();
    try {
      await this.opts.handlers.onLastSeen(batch);
    } catch (e) {
      this.log.warn({ err: e instanceof Error ? e.message : String(e), devices: batch.size }, 'mqtt gateway: last-seen flush failed');
    }
  }

  /** Waits until every message received so far has been handled (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()].map((q) => q.tail));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.flushTimer);
    clearTimeout(this.presenceTimer);
    // A close never hangs: a broker link that does not end, or a device's handler that never settles,
    // is given up after a while with a warning that names it (the devices still waiting), and the
    // last-seen times are still handed over.
    const bounded = async (stage: string, work: Promise<void>, ms: number) => {
      if (await finishesWithin(work, ms)) return;
      const waiting = [...this.queues.keys()].slice(0, 20);
      this.log.warn({ stage, devices: waiting, queued: this.queues.size }, `mqtt gateway: still closing after ${ms / 1000} s, going on`);
    };
    await bounded('broker link', this.link.close(), this.opts.closeMs);
    await bounded('device messages', this.idle(), this.opts.closeMs);
    await bounded('last-seen flush', this.flush(), this.opts.closeMs);
  }
}
