import { X509Certificate } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import {
  DEVICE_DISCOVERY_PATH,
  DEVICE_MESSAGE_MAX_BYTES,
  DEVICE_MODELS,
  type DeviceTopicLeaf,
  type DeviceType,
  type DiscoveryAnswerSchema,
  decodeDeviceMessage,
  deviceModel,
  deviceTopic,
  type EventMessage,
  mqttTopics,
  type RemoteInputMessage,
  type StatusMessage,
  type SyncAckMessage,
  type SyncRequestMessage,
  type TaskMessage,
  type TaskUpdateMessage,
} from '@atrium/contract';
import mqtt from 'mqtt';
import type { z } from 'zod';
import { type AccessDecision, decideAccess, SyncedData } from './access.js';
import { type DeviceClient, LeanMqttClient } from './lean-client.js';
import { bandsPng, type Rgb } from './screen.js';

const MQTT_DEBUG = /mqttjs/.test(process.env.DEBUG ?? '');

/**
 * One simulated device speaking Atrium's device protocol (docs/device-protocol.md): it signs in
 * with its serial number and password, keeps its presence (retained status, last will, heartbeats),
 * answers every task (with a configurable delay, failure rate and offline periods), keeps what was
 * synced to it and decides access from it, streams its screen during remote control, answers IP
 * discovery over HTTP, and misbehaves on request.
 */

export interface SimDeviceOptions {
  /** Broker URL, e.g. `mqtt://127.0.0.1:1883`. */
  url: string;
  serial: string;
  password: string;
  type?: DeviceType;
  /** A model of the catalogue for its type (the first one when absent). */
  model?: string;
  firmware?: string;
  /** Seconds between heartbeats until a settings task says otherwise (default 30). */
  heartbeatSeconds?: number;
  /** Overrides the heartbeat period in ms (tests). */
  heartbeatMs?: number;
  /** How long a task takes (ms), or a [min, max] range (default 20). */
  taskDelayMs?: number | readonly [number, number];
  /** Share of tasks that fail (0–1, default 0). */
  failureRate?: number;
  /** How long a restart keeps the device away (ms, default 300). */
  restartMs?: number;
  /** Time between screen frames during remote control (ms, default 500). */
  frameMs?: number;
  /** MQTT protocol version: 4 (3.1.1, default) or 5. */
  protocolVersion?: 4 | 5;
  /**
   * Its MQTT client: mqtt.js (default), or the lean client of `lean-client.ts` (mqtt:// only, no
   * QoS 2, no resending after a reconnect) whose publishes cost far less CPU, for large fleets.
   */
  client?: 'mqtt.js' | 'lean';
  /** MQTT keep-alive (seconds, default 30): the broker drops the device after 1.5 times this without a packet. */
  keepaliveSeconds?: number;
  /** Reconnect after losing the broker (ms, default 1000; 0: never). */
  reconnectMs?: number;
  /** How long a connection attempt waits for the broker's CONNACK before it fails (ms, default 5000). */
  connectTimeoutMs?: number;
  /** Answer discovery over HTTP on this address and port (127.0.0.x for IP search). */
  discovery?: { ip: string; port: number };
  /**
   * Ask for a full sync on connecting while it holds no full sync (default true, as a panel should:
   * a new, replaced or factory-reset unit holds nothing until one arrives).
   */
  askFullSync?: boolean;
  /** Which way people pass its reader (an entry or exit reader): reported as `direction` with each access granted. */
  direction?: 'in' | 'out';
  /** Random numbers in [0, 1) (for reproducible failure rates). */
  random?: () => number;
  log?: (line: string) => void;
}

type DiscoveryAnswer = z.infer<typeof DiscoveryAnswerSchema>;

export interface RemoteSession {
  session: string;
  expiresAt: number;
  frames: number;
  taps: { x: number; y: number }[];
  keys: string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A sound an emergency alert made it play (fetched from the alert's link). */
export interface PlayedSound {
  url: string;
  alertId: number | null;
  /** How long it plays (the alert's playback duration), or null for `repeat` times. */
  seconds: number | null;
  /** Bytes of the sound it fetched. */
  bytes: number;
  startedAt: Date;
  /** When a stop_audio task ended it early. */
  stoppedAt: Date | null;
}

/** A decision at the reader: the synced data's, or a lockdown's refusal. */
export type ReaderDecision = AccessDecision | { granted: false; reason: 'lockdown' };

/** A task the device could not do, with the error it answers (e.g. `face_not_recognized`). */
class TaskFailure extends Error {}

export class SimDevice extends EventEmitter {
  readonly serial: string;
  readonly type: DeviceType;
  readonly model: string;
  readonly firmware: string;
  /** What sync tasks gave the device. */
  readonly synced = new SyncedData();
  /** Whether a full sync reached it since it started (or was reset): until then it asks for one on each connect. */
  fullSynced = false;
  /** The full syncs it asked for (`sync-requests`), in order. */
  readonly syncRequests: SyncRequestMessage[] = [];
  /** The last settings an apply_settings or init task gave it. */
  settings: Record<string, unknown> | null = null;
  /** The broker a broker_settings task told it of (used on its next connect by a real unit). */
  broker: { url: string; tls: { url: string; fingerprint: string } | null } | null = null;
  initialized = false;
  /** Every task received, in order (repeats included). */
  readonly received: TaskMessage[] = [];
  /** Final answers per task id: a repeated task gets the same answer, and `replayResults` sends them again. */
  readonly results = new Map<number, TaskUpdateMessage>();
  /** Sounds played and locks opened, for tests. */
  readonly played: string[] = [];
  /** Lift calls a lift controller was given (floor, relays closed, direction). */
  readonly calls: { floor: number; ports: readonly number[]; direction: string }[] = [];
  readonly opened: { lock: number; by: string; at: Date }[] = [];
  /** Sounds fetched and played from a URL, in order; `playing` is the one still sounding. */
  readonly sounds: PlayedSound[] = [];
  playing: PlayedSound | null = null;
  /** While a lockdown task holds its doors shut: the locks held (empty: every lock), and which lockdown. */
  lockdown: { locks: readonly number[]; lockdownId: number | null } | null = null;
  /** Identifiers whose holders' faces are in front of its camera (an open_lock with `face` needs its one there). */
  readonly faces = new Set<number>();
  session: RemoteSession | null = null;
  /** Options that may change while it runs. */
  failureRate: number;
  taskDelayMs: number | readonly [number, number];

  private client: DeviceClient | null = null;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private frameTimer: NodeJS.Timeout | undefined;
  private heartbeatSeconds: number;
  private chain: Promise<void> = Promise.resolve();
  private readonly running = new Set<number>();
  private discoveryServer: http.Server | null = null;
  private eventSeq = 0;
  private startedAt = Date.now();
  private stopped = false;
  /** Hung (freeze): it keeps its connection but sends nothing. */
  private frozen = false;
  private lastDoorOpen = 0;
  private readonly random: () => number;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: SimDeviceOptions) {
    super();
    this.serial = opts.serial;
    this.type = opts.type ?? 'panel';
    const model = opts.model ?? defaultModel(this.type);
    if (!deviceModel(this.type, model)) throw new Error(`${model} is not a ${this.type} model of the catalogue`);
    this.model = model;
    this.firmware = opts.firmware ?? 'sim-1.0.0';
    this.heartbeatSeconds = opts.heartbeatSeconds ?? 30;
    this.failureRate = opts.failureRate ?? 0;
    this.taskDelayMs = opts.taskDelayMs ?? 20;
    this.random = opts.random ?? Math.random;
    this.log = opts.log ?? (() => undefined);
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  /** Capabilities of its model, as announced when it comes online. */
  get capabilities(): Record<string, number | boolean> {
    return { ...(deviceModel(this.type, this.model)?.capabilities ?? {}) };
  }

  /** The answer it gives to IP discovery. */
  get discoveryAnswer(): DiscoveryAnswer {
    return { serial_number: this.serial, type: this.type, model: this.model, firmware: this.firmware };
  }

  // --- connection and presence -------------------------------------------------------------------

  /** Signs in and comes online; rejects when the broker refuses it (wrong password, unknown device). */
  /** Answers IP discovery only (a device on the network, not yet given its password). */
  async listen(): Promise<void> {
    if (this.opts.discovery && !this.discoveryServer) await this.startDiscovery(this.opts.discovery);
  }

  /** Connects with `password` (as an installer types it on the device), or the one it was made with. */
  async start(password?: string): Promise<void> {
    this.stopped = false;
    if (password !== undefined) this.opts.password = password;
    await this.listen();
    await this.connect(this.opts.password);
  }

  /** A client connecting to the broker (mqtt.js or the lean one, as the options say). */
  private mqttClient(password: string, clientId: string, extra: { reconnectPeriod: number; will?: boolean }): DeviceClient {
    const offline: StatusMessage = { state: 'offline', reason: 'will' };
    const options = {
      username: this.serial,
      password,
      clientId,
      clean: true,
      protocolVersion: this.opts.protocolVersion ?? 4,
      reconnectPeriod: extra.reconnectPeriod,
      connectTimeout: this.opts.connectTimeoutMs ?? 5000,
      keepalive: this.opts.keepaliveSeconds ?? 30,
      ...(extra.will
        ? { will: { topic: mqttTopics.status(this.serial), payload: Buffer.from(JSON.stringify(offline)), qos: 1 as const, retain: true } }
        : {}),
    };
    if (this.opts.client === 'lean') return new LeanMqttClient(this.opts.url, options);
    // mqtt.js logs every packet through `debug`: costly in a fleet of thousands, so only when DEBUG asks for it.
    return mqtt.connect(this.opts.url, { ...options, ...(MQTT_DEBUG ? {} : { log: () => undefined }) });
  }

  private connect(password: string): Promise<void> {
    const client = this.mqttClient(password, `sim-${this.serial}`, { reconnectPeriod: this.opts.reconnectMs ?? 1000, will: true });
    this.client = client;
    client.on('message', (topic, payload) => this.receive(topic, payload));
    client.on('connect', () => {
      // Every (re)connect: subscribe to its own downward topics, say it is online, beat.
      void this.online(client).catch((e: Error) => this.log(`${this.serial}: ${e.message}`));
    });
    client.on('close', () => {
      this.stopHeartbeat();
      this.emit('disconnected');
    });
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => {
        client.off('connect', onConnect);
        client.end(true);
        if (this.client === client) this.client = null;
        reject(e);
      };
      const onConnect = () => {
        client.off('error', onError);
        client.on('error', (e) => this.log(`${this.serial}: ${e.message}`));
        this.once('online', () => resolve());
      };
      client.once('error', onError);
      client.once('connect', onConnect);
    });
  }

  private async online(client: DeviceClient): Promise<void> {
    await client.subscribeAsync({ [mqttTopics.tasks(this.serial)]: { qos: 1 }, [mqttTopics.input(this.serial)]: { qos: 1 } });
    const status: StatusMessage = {
      state: 'online',
      type: this.type,
      model: this.model,
      firmware: this.firmware,
      capabilities: this.capabilities,
      heartbeat: this.heartbeatSeconds,
      ...(this.opts.discovery ? { ip_address: this.opts.discovery.ip } : {}),
      at: new Date().toISOString(),
    };
    await client.publishAsync(mqttTopics.status(this.serial), JSON.stringify(status), { qos: 1, retain: true });
    // A unit holding no full sync (new, replaced, factory reset) asks for one, on every connect until it comes.
    if (!this.fullSynced && this.opts.askFullSync !== false) {
      await this.requestFullSync(this.synced.identifiers.size ? 'reset' : 'empty').catch((e: Error) =>
        this.log(`${this.serial}: ${e.message}`),
      );
    }
    this.frozen = false;
    this.startHeartbeat();
    this.log(`${this.serial}: online`);
    this.emit('online');
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    const ms = this.opts.heartbeatMs ?? this.heartbeatSeconds * 1000;
    this.heartbeatTimer = setInterval(() => {
      const client = this.client;
      if (!client?.connected || this.frozen) return;
      client.publish(
        mqttTopics.heartbeat(this.serial),
        JSON.stringify({ uptime: Math.floor((Date.now() - this.startedAt) / 1000), at: new Date().toISOString() }),
        { qos: 0 },
      );
      this.emit('heartbeat');
    }, ms);
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  /** Asks Atrium for a full sync (`sync-requests`). */
  async requestFullSync(reason: SyncRequestMessage['reason'] = 'inconsistent'): Promise<void> {
    const request: SyncRequestMessage = { reason, identifiers: this.synced.identifiers.size, at: new Date().toISOString() };
    this.syncRequests.push(request);
    await this.publish('sync-requests', request, 1);
  }

  /**
   * A factory reset: it forgets what it was given (synced data, settings, finished tasks) and, once
   * connected again, asks for a full sync like a new unit.
   */
  factoryReset(): void {
    this.synced.clear();
    this.fullSynced = false;
    this.settings = null;
    this.initialized = false;
    this.results.clear();
  }

  /** Misbehaviour: stays connected but says nothing more (a hung unit): no heartbeats, no will. */
  freeze(): void {
    this.stopHeartbeat();
    this.frozen = true;
  }

  /** Beats now (tests that do not want to wait for the period). */
  async beat(): Promise<void> {
    await this.client?.publishAsync(mqttTopics.heartbeat(this.serial), JSON.stringify({ uptime: 1 }), { qos: 0 });
  }

  /**
   * Stops. `graceful` (default): says it goes offline and disconnects cleanly; otherwise the
   * connection just drops (power cut) and the broker publishes its last will.
   */
  async stop({ graceful = true }: { graceful?: boolean } = {}): Promise<void> {
    this.stopped = true;
    await this.disconnect(graceful ? 'shutdown' : null);
    this.endSession();
    if (this.discoveryServer) {
      const server = this.discoveryServer;
      this.discoveryServer = null;
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  private async disconnect(reason: 'shutdown' | 'restart' | null): Promise<void> {
    this.stopHeartbeat();
    const client = this.client;
    this.client = null;
    if (!client) return;
    client.removeAllListeners('connect');
    if (reason && client.connected) {
      const status: StatusMessage = { state: 'offline', reason, at: new Date().toISOString() };
      await client.publishAsync(mqttTopics.status(this.serial), JSON.stringify(status), { qos: 1, retain: true }).catch(() => undefined);
      await client.endAsync().catch(() => undefined);
    } else {
      // No DISCONNECT packet: the broker sees the connection lost and publishes the will.
      client.stream?.destroy();
      await client.endAsync(true).catch(() => undefined);
    }
    this.emit('offline');
  }

  /** An offline period: the connection drops (last will), and the device comes back after `ms`. */
  async goOffline(ms: number): Promise<void> {
    await this.disconnect(null);
    setTimeout(() => {
      if (!this.stopped) void this.connect(this.opts.password).catch((e: Error) => this.log(`${this.serial}: ${e.message}`));
    }, ms).unref();
  }

  // --- tasks -------------------------------------------------------------------------------------

  private receive(topic: string, payload: Buffer): void {
    if (topic === mqttTopics.tasks(this.serial)) this.onTask(payload);
    else if (topic === mqttTopics.input(this.serial)) this.onInput(payload);
  }

  private onTask(payload: Buffer): void {
    const decoded = decodeDeviceMessage('tasks', payload);
    if (!decoded.ok) {
      // A task it cannot read: refused with the reason, when at least its id is there.
      let taskId: unknown;
      try {
        taskId = (JSON.parse(payload.toString('utf8')) as { id?: unknown }).id;
      } catch {
        taskId = undefined;
      }
      if (typeof taskId === 'number' && Number.isInteger(taskId) && taskId > 0) {
        void this.answer({ task_id: taskId, state: 'error', error: `invalid task: ${decoded.detail ?? decoded.reason}` });
      }
      this.log(`${this.serial}: unreadable task (${decoded.reason})`);
      return;
    }
    const task = decoded.message;
    this.received.push(task);
    this.emit('task', task);
    const done = this.results.get(task.id);
    if (done) {
      // A repeated task runs once: the device answers what it answered before.
      void this.answer(done);
      return;
    }
    if (this.running.has(task.id)) return;
    this.running.add(task.id);
    this.chain = this.chain.then(() => this.run(task)).catch((e: Error) => this.log(`${this.serial}: ${e.message}`));
  }

  private delay(): number {
    const d = this.taskDelayMs;
    return typeof d === 'number' ? d : d[0] + Math.floor(this.random() * (d[1] - d[0] + 1));
  }

  private async run(task: TaskMessage): Promise<void> {
    try {
      await this.answer({ task_id: task.id, state: 'started', progress: 0 });
      const ms = this.delay();
      if (ms > 0) {
        await sleep(ms / 2);
        await this.answer({ task_id: task.id, state: 'started', progress: 50 });
        await sleep(ms / 2);
      }
      if (this.random() < this.failureRate) {
        await this.finish({ task_id: task.id, state: 'error', error: 'simulated failure' });
        return;
      }
      let after: (() => Promise<void>) | undefined;
      try {
        after = await this.perform(task);
      } catch (e) {
        if (!(e instanceof TaskFailure)) throw e;
        await this.finish({ task_id: task.id, state: 'error', error: e.message });
        return;
      }
      await this.finish({ task_id: task.id, state: 'completed' });
      await after?.();
    } finally {
      this.running.delete(task.id);
    }
  }

  /** Does what the task says; may return what to do once its result is sent (a restart). */
  private async perform(task: TaskMessage): Promise<(() => Promise<void>) | undefined> {
    switch (task.type) {
      case 'init':
        this.initialized = true;
        this.applySettings(task.payload.device_settings, task.payload.management?.heartbeat);
        return;
      case 'apply_settings':
        this.applySettings(task.payload.device_settings, task.payload.management?.heartbeat);
        return;
      case 'sync': {
        const p = task.payload;
        if (p.mode === 'full') {
          this.synced.clear();
          this.fullSynced = true;
        }
        for (const id of p.removed?.identifiers ?? []) this.synced.removeIdentifier(id);
        for (const id of p.removed?.schedules ?? []) this.synced.schedules.delete(id);
        for (const s of p.schedules) this.synced.schedules.set(s.id, s);
        const errors: SyncAckMessage['errors'] = [];
        for (const i of p.identifiers) {
          const wanted = [...(i.schedule_ids ?? []), ...(i.grants ?? []).flatMap((g) => g.schedule_ids)];
          const missing = [...new Set(wanted)].filter((s) => !this.synced.schedules.has(s));
          if (missing.length) errors.push({ entity: 'identifier', id: i.id, message: `unknown schedule ${missing.join(', ')}` });
          else this.synced.putIdentifier(i);
        }
        const ack: SyncAckMessage = {
          task_id: task.id,
          identifiers: this.synced.identifiers.size,
          schedules: this.synced.schedules.size,
          errors,
        };
        await this.publish('sync-acks', ack, 1);
        this.emit('synced', ack);
        return;
      }
      case 'restart':
        return async () => {
          await this.disconnect('restart');
          await sleep(this.opts.restartMs ?? 300);
          if (!this.stopped) await this.connect(this.opts.password);
        };
      case 'remote_control':
        this.startSession(task.payload.session, Date.parse(task.payload.expires_at));
        return;
      case 'play_audio': {
        const p = task.payload;
        if (p.url) {
          // The sound is fetched as a real device would; a link that does not answer fails the task.
          const bytes = await fetchSound(p.url);
          if (bytes === null) throw new TaskFailure('audio_unavailable');
          const sound: PlayedSound = {
            url: p.url,
            alertId: p.alert_id ?? null,
            seconds: p.seconds ?? null,
            bytes,
            startedAt: new Date(),
            stoppedAt: null,
          };
          this.sounds.push(sound);
          this.playing = sound;
          if (p.seconds) {
            setTimeout(() => {
              if (this.playing === sound) this.playing = null;
            }, p.seconds * 1000).unref();
          }
        }
        this.played.push(p.url ?? p.name ?? 'default');
        return;
      }
      case 'stop_audio': {
        const playing = this.playing;
        if (playing && (task.payload.alert_id === undefined || task.payload.alert_id === playing.alertId)) {
          playing.stoppedAt = new Date();
          this.playing = null;
        }
        return;
      }
      case 'lockdown':
        this.lockdown = task.payload.active ? { locks: task.payload.locks, lockdownId: task.payload.lockdown_id ?? null } : null;
        this.emit('lockdown', this.lockdown);
        return;
      case 'open_lock': {
        if (this.lockedDown(task.payload.lock)) throw new TaskFailure('locked_down');
        // Face ID: the door opens only for the face it was told to see.
        const face = task.payload.face;
        if (face && !this.faces.has(face.identifier_id)) throw new TaskFailure('face_not_recognized');
        await this.openDoor(task.payload.lock, 'task');
        return;
      }
      case 'broker_settings': {
        const tls = task.payload.tls;
        if (tls) {
          // As a device would before trusting it: the certificate must read, and be the one named.
          let fingerprint: string;
          try {
            fingerprint = new X509Certificate(tls.certificate).fingerprint256;
          } catch {
            throw new TaskFailure('certificate_unreadable');
          }
          if (fingerprint !== tls.fingerprint) throw new TaskFailure('certificate_mismatch');
        }
        this.broker = { url: task.payload.url, tls: tls ? { url: tls.url, fingerprint: tls.fingerprint } : null };
        this.emit('broker', this.broker);
        return;
      }
      case 'call_elevator':
        this.calls.push({ floor: task.payload.floor, ports: task.payload.ports, direction: task.payload.direction });
        await this.event({ type: 'floor_called', data: { floor: task.payload.floor, ports: task.payload.ports } }).catch(() => undefined);
        return;
    }
  }

  private applySettings(settings: Record<string, unknown>, heartbeat: number | undefined): void {
    this.settings = settings;
    if (heartbeat && heartbeat !== this.heartbeatSeconds) {
      this.heartbeatSeconds = heartbeat;
      if (this.connected) this.startHeartbeat();
    }
    this.emit('settings', settings);
  }

  private async finish(update: TaskUpdateMessage): Promise<void> {
    this.results.set(update.task_id, update);
    await this.answer(update);
    this.emit('task-done', update);
  }

  private async answer(update: TaskUpdateMessage): Promise<void> {
    await this.publish('task-updates', { ...update, at: new Date().toISOString() }, 1);
  }

  // --- events and access -------------------------------------------------------------------------

  /** Publishes an event (its id and time filled in when absent). */
  event(e: EventMessage): Promise<void> {
    const full = { event_id: `${this.serial}-${++this.eventSeq}`, time: new Date().toISOString(), ...e };
    return this.publish('events', full, 1);
  }

  private async openDoor(lock: number, by: 'identifier' | 'button' | 'remote' | 'task', identifier?: string): Promise<void> {
    this.lastDoorOpen = Date.now();
    this.opened.push({ lock, by, at: new Date() });
    await this.event({ type: 'door_opened', identifier: identifier ?? null, data: { lock, by } });
  }

  /**
   * Someone presents an identifier at the reader: the device decides from its synced data alone,
   * reports access granted (and the door opening) or denied with the reason, and returns the decision.
   */
  async present(
    value: string,
    {
      lock = 1,
      at = new Date(),
      direction = this.opts.direction,
      kind: read,
    }: {
      lock?: number;
      at?: Date;
      direction?: 'in' | 'out';
      /** What the reader took the value for (a card reader: `card`), reported when no synced identifier says. */
      kind?: string;
    } = {},
  ): Promise<ReaderDecision> {
    const kind = this.synced.find(value)?.kind ?? read;
    if (this.lockedDown(lock)) {
      // A lockdown holds the door shut whatever the synced data allows.
      await this.event({
        type: 'access_denied',
        time: at.toISOString(),
        identifier: value,
        data: { lock, reason: 'lockdown', ...(kind ? { kind } : {}) },
      });
      return { granted: false, reason: 'lockdown' };
    }
    const decision = decideAccess(this.synced, value, lock, at);
    if (decision.granted) {
      // Stamped with the instant of the decision: a test clock (`at`) is the door's clock.
      await this.event({
        type: 'access_granted',
        time: at.toISOString(),
        identifier: value,
        data: {
          lock,
          ...(kind ? { kind } : {}),
          ...(decision.grant.rule_id ? { rule_id: decision.grant.rule_id } : {}),
          ...(direction ? { direction } : {}),
        },
      });
      await this.openDoor(lock, 'identifier', value);
    } else {
      await this.event({
        type: 'access_denied',
        time: at.toISOString(),
        identifier: value,
        data: { lock, reason: decision.reason, ...(kind ? { kind } : {}) },
      });
    }
    return decision;
  }

  /** Whether a lockdown holds this lock shut. */
  lockedDown(lock: number): boolean {
    return this.lockdown !== null && (this.lockdown.locks.length === 0 || this.lockdown.locks.includes(lock));
  }

  /**
   * A face in front of the camera: the holder of this identifier (added to those already there), or
   * `null` when everyone walks away. An open_lock task with `face` completes only while its face is shown.
   */
  showFace(identifierId: number | null): void {
    if (identifierId === null) this.faces.clear();
    else this.faces.add(identifierId);
    this.emit('faces', [...this.faces]);
  }

  /** One face leaves the camera. */
  hideFace(identifierId: number): void {
    this.faces.delete(identifierId);
    this.emit('faces', [...this.faces]);
  }

  /** A visitor calls an apartment or a number from the panel. */
  async call(to: string): Promise<void> {
    await this.event({ type: 'call', data: { to, state: 'started' } });
  }

  /** An alarm goes on (a sensor, the device itself, a group alarm line): `kind` and `zone` as the device names them. */
  async alarmOn(alarm: { kind?: string; zone?: string } = {}): Promise<void> {
    await this.event({ type: 'alarm_on', data: alarm });
  }

  /** An alarm goes off: of this zone (and kind) when named, every alarm of the device otherwise. */
  async alarmOff(alarm: { kind?: string; zone?: string } = {}): Promise<void> {
    await this.event({ type: 'alarm_off', data: alarm });
  }

  /** Someone opens the casing or pulls the unit off the wall. */
  async tamper(part?: string): Promise<void> {
    await this.event({ type: 'tamper', data: part ? { part } : {} });
  }

  // --- remote control ----------------------------------------------------------------------------

  private startSession(session: string, expiresAt: number): void {
    if (this.session?.session === session) {
      this.session.expiresAt = expiresAt;
      return;
    }
    this.endSession();
    this.session = { session, expiresAt, frames: 0, taps: [], keys: [] };
    const tick = () => {
      const s = this.session;
      if (!s || s.session !== session) return;
      if (Date.now() >= s.expiresAt) {
        this.endSession();
        return;
      }
      void this.sendFrame(s);
    };
    tick();
    this.frameTimer = setInterval(tick, this.opts.frameMs ?? 500);
    this.frameTimer.unref();
  }

  private endSession(): void {
    if (this.frameTimer) clearInterval(this.frameTimer);
    this.frameTimer = undefined;
    if (this.session) this.emit('session-ended', this.session);
    this.session = null;
  }

  /** The screen: a status bar, the door (green for three seconds after it opens) and a band that changes with each tap or key. */
  private screen(s: RemoteSession): Buffer {
    const door: Rgb = Date.now() - this.lastDoorOpen < 3000 ? [46, 160, 67] : [90, 90, 100];
    const shade = (s.taps.length + s.keys.length) % 2 ? 200 : 120;
    return bandsPng(120, 160, [[25, 60, 120], door, door, [shade, shade, 60]]);
  }

  private async sendFrame(s: RemoteSession): Promise<void> {
    s.frames++;
    await this.publish(
      'screen',
      { session: s.session, seq: s.frames, width: 120, height: 160, format: 'png', data: this.screen(s).toString('base64') },
      0,
    ).catch(() => undefined);
  }

  private onInput(payload: Buffer): void {
    const decoded = decodeDeviceMessage('input', payload);
    if (!decoded.ok) return;
    const input: RemoteInputMessage = decoded.message;
    this.emit('input', input);
    const s = this.session;
    if (!s || s.session !== input.session) return;
    switch (input.kind) {
      case 'tap':
        s.taps.push({ x: input.x, y: input.y });
        break;
      case 'key':
        s.keys.push(input.key);
        break;
      case 'open_door':
        if (!this.lockedDown(input.lock)) void this.openDoor(input.lock, 'remote');
        break;
      case 'keepalive':
        s.expiresAt = Date.parse(input.expires_at);
        return;
      case 'end':
        this.endSession();
        return;
    }
    void this.sendFrame(s);
  }

  // --- discovery ---------------------------------------------------------------------------------

  private async startDiscovery({ ip, port }: { ip: string; port: number }): Promise<void> {
    const server = http.createServer((req, res) => {
      if (req.method === 'GET' && req.url?.split('?')[0] === DEVICE_DISCOVERY_PATH) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(this.discoveryAnswer));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, ip, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.discoveryServer = server;
  }

  // --- publishing and misbehaviour -----------------------------------------------------------------

  /** Publishes a message on one of its topics; resolves once sent (QoS 0) or acknowledged (QoS 1). */
  private publish(leaf: DeviceTopicLeaf, message: unknown, qos: 0 | 1): Promise<void> {
    const client = this.client;
    if (!client?.connected) return Promise.reject(new Error(`${this.serial} is not connected`));
    const payload = JSON.stringify(message);
    return new Promise((resolve, reject) => client.publish(this.topic(leaf), payload, { qos }, (e) => (e ? reject(e) : resolve())));
  }

  private readonly topics = new Map<string, string>();

  /** Its topic for a leaf (kept: a device publishing thousands of events builds it once). */
  private topic(leaf: DeviceTopicLeaf): string {
    let topic = this.topics.get(leaf);
    if (topic === undefined) {
      topic = deviceTopic(this.serial, leaf);
      this.topics.set(leaf, topic);
    }
    return topic;
  }

  /**
   * Publishes on a topic; resolves `sent` once the broker acknowledged it, `closed` when the broker
   * ended the connection instead (what a broker may do to a client breaking its rules).
   */
  private publishOrClose(topic: string, payload: string | Buffer, retain = false): Promise<'sent' | 'closed'> {
    const client = this.client;
    if (!client?.connected) throw new Error(`${this.serial} is not connected`);
    return Promise.race([
      client.publishAsync(topic, payload, { qos: 1, retain }).then(
        () => 'sent' as const,
        () => 'closed' as const,
      ),
      new Promise<'closed'>((r) => client.once('close', () => r('closed'))),
    ]);
  }

  /** Publishes any bytes on one of its own topics (QoS 1). */
  async sendRaw(leaf: string, payload: string | Buffer, { retain = false }: { retain?: boolean } = {}): Promise<'sent' | 'closed'> {
    return this.publishOrClose(deviceTopic(this.serial, leaf), payload, retain);
  }

  /** Misbehaviour: a message that is not JSON. */
  sendMalformed(leaf: DeviceTopicLeaf = 'events'): Promise<'sent' | 'closed'> {
    return this.sendRaw(leaf, '{"type": "door_opened", "data": {');
  }

  /** Misbehaviour: JSON that does not match the message's schema. */
  sendInvalid(leaf: DeviceTopicLeaf = 'events'): Promise<'sent' | 'closed'> {
    return this.sendRaw(leaf, JSON.stringify({ type: 'access_granted', identifier: 42, data: 'yes' }));
  }

  /** Misbehaviour: a message larger than the protocol allows on that topic (by default just over it). */
  sendOversized(leaf: DeviceTopicLeaf = 'events', bytes = DEVICE_MESSAGE_MAX_BYTES[leaf] + 1): Promise<'sent' | 'closed'> {
    const frame = JSON.stringify({ type: 'sensor', data: { sensor: 'spam', value: '' } });
    return this.sendRaw(leaf, frame.replace('""', `"${'x'.repeat(Math.max(0, bytes - frame.length))}"`));
  }

  /**
   * Misbehaviour: publishes on another device's topic. Resolves `sent` or `closed` (a broker may drop
   * the message silently or close the connection); whether it arrived is for the other side to tell.
   */
  async publishAs(otherSerial: string, leaf: DeviceTopicLeaf, message: unknown): Promise<'sent' | 'closed'> {
    return this.publishOrClose(deviceTopic(otherSerial, leaf), JSON.stringify(message));
  }

  /** Misbehaviour: signs in with a wrong password (a second connection). Resolves true when the broker refused it. */
  async signInWithWrongPassword(): Promise<boolean> {
    const client = this.mqttClient(`${this.opts.password}-wrong`, `sim-${this.serial}-wrong`, { reconnectPeriod: 0 });
    const refused = await new Promise<boolean>((resolve) => {
      client.once('connect', () => resolve(false));
      client.once('error', () => resolve(true));
      client.once('close', () => resolve(true));
    });
    await client.endAsync(true).catch(() => undefined);
    return refused;
  }

  /** Misbehaviour: sends every task result it already sent once more. */
  async replayResults(): Promise<number> {
    for (const r of this.results.values()) await this.answer(r);
    return this.results.size;
  }

  /** Misbehaviour: a flood of `count` events as fast as it can (QoS 0). Resolves with how many were handed to the socket. */
  async flood(count: number, type: 'sensor' | 'door_opened' = 'sensor'): Promise<number> {
    const client = this.client;
    if (!client?.connected) throw new Error(`${this.serial} is not connected`);
    const topic = mqttTopics.events(this.serial);
    for (let i = 0; i < count; i++) {
      const e = type === 'sensor' ? { type, data: { sensor: 'flood', value: i } } : { type, data: { lock: 1 } };
      client.publish(topic, JSON.stringify(e), { qos: 0 });
      if (i % 500 === 499) await sleep(0);
    }
    await new Promise<void>((r) => (client.connected ? client.publish(topic, '{"type":"tamper"}', { qos: 1 }, () => r()) : r()));
    return count + 1;
  }
}

/** Fetches a sound; answers its size in bytes, or null when the link does not give one. */
async function fetchSound(url: string): Promise<number | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) return null;
    return (await res.arrayBuffer()).byteLength;
  } catch {
    return null;
  }
}

/** The first model of the catalogue for a type. */
export function defaultModel(type: DeviceType): string {
  const m = DEVICE_MODELS.find((d) => d.type === type);
  if (!m) throw new Error(`no model of type ${type} in the catalogue`);
  return m.model;
}
