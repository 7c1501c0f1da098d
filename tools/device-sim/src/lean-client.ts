import { EventEmitter } from 'node:events';
import net from 'node:net';
import { ReasonCodes } from 'mqtt';
import mqttPacket, { type IConnectPacket, type Packet } from 'mqtt-packet';

/**
 * A lean MQTT 3.1.1/5 client for simulated fleets: the subset of mqtt.js's client a simulated
 * device uses (connect with a will, subscribe, publish QoS 0 and 1 both ways, keep-alive, reconnect,
 * end), on a plain TCP socket with mqtt-packet (mqtt.js's own encoder and parser) for the bytes.
 *
 * Why our own and not mqtt.js: a QoS 1 publish through mqtt.js costs its sender about 20 µs of CPU
 * (a promise, a cloned packet in the outgoing store, a keep-alive timer moved, several buffered
 * writes per packet, `debug` calls), which on a two-core machine takes from the server under
 * measurement as much CPU as the server spends storing the event. Here a publish is one buffer,
 * one socket write and one entry in a map of packets awaiting their PUBACK.
 *
 * What it leaves out, on purpose: QoS 2, persistent outgoing stores and resending after a
 * reconnect (a publish still waiting for its PUBACK fails when the connection closes, and the
 * caller sees it), topic aliases, enhanced authentication, websockets and TLS. Devices that need
 * those run on mqtt.js (SimDevice's default).
 */

export interface LeanClientOptions {
  username: string;
  password: string;
  clientId: string;
  clean?: boolean;
  /** 4 (3.1.1) or 5. */
  protocolVersion: 4 | 5;
  /** Reconnect this long after losing the connection (ms; 0: never). */
  reconnectPeriod: number;
  /** How long to wait for the CONNACK (ms). */
  connectTimeout: number;
  /** Seconds. */
  keepalive: number;
  will?: { topic: string; payload: Buffer; qos: 0 | 1; retain: boolean };
}

/** A refusal or failure carrying the broker's reason code (as mqtt.js's ErrorWithReasonCode). */
export class MqttReasonError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

const reason = (code: number) => (ReasonCodes as Record<number, string>)[code] ?? `reason code ${code}`;

type Settle = (error?: Error) => void;

/** What a simulated device asks of its MQTT client: mqtt.js's MqttClient and LeanMqttClient both are one. */
export interface DeviceClient {
  readonly connected: boolean;
  readonly stream?: { destroy(): void } | null;
  on(event: 'message', listener: (topic: string, payload: Buffer) => void): unknown;
  on(event: 'connect' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (e: Error) => void): unknown;
  once(event: 'connect' | 'close', listener: () => void): unknown;
  once(event: 'error', listener: (e: Error) => void): unknown;
  off(event: 'connect', listener: () => void): unknown;
  off(event: 'error', listener: (e: Error) => void): unknown;
  removeAllListeners(event: 'connect'): unknown;
  publish(topic: string, payload: string | Buffer, opts: { qos: 0 | 1; retain?: boolean }, done?: (error?: Error) => void): unknown;
  publishAsync(topic: string, payload: string | Buffer, opts: { qos: 0 | 1; retain?: boolean }): Promise<unknown>;
  subscribeAsync(filters: Record<string, { qos: 0 | 1 }>): Promise<unknown>;
  end(force?: boolean): unknown;
  endAsync(force?: boolean): Promise<unknown>;
}

export class LeanMqttClient extends EventEmitter {
  connected = false;
  /** The current connection's socket (null between connections). */
  stream: net.Socket | null = null;
  private ended = false;
  private lastId = 0;
  /** QoS 1 publishes and subscriptions waiting for their acknowledgement, by packet id. */
  private readonly publishes = new Map<number, Settle>();
  private readonly subscriptions = new Map<number, { resolve: (granted: number[]) => void; reject: (e: Error) => void }>();
  private connackTimer: NodeJS.Timeout | undefined;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private sentSinceTick = false;
  private pingOutstanding = false;
  /** Why this client itself ended the connection, if it did: what its unanswered publishes fail with. */
  private dropReason: string | null = null;
  private readonly host: string;
  private readonly port: number;

  constructor(
    url: string,
    private readonly opts: LeanClientOptions,
  ) {
    super();
    const u = new URL(url);
    if (u.protocol !== 'mqtt:' && u.protocol !== 'tcp:') throw new Error(`the lean MQTT client speaks mqtt:// only, not ${u.protocol}`);
    this.host = u.hostname;
    this.port = Number(u.port || 1883);
    this.open();
  }

  private open(): void {
    const socket = net.connect({ host: this.host, port: this.port });
    this.stream = socket;
    const parser = mqttPacket.parser({ protocolVersion: this.opts.protocolVersion });
    parser.on('packet', (p: Packet) => this.handle(p));
    parser.on('error', (e: Error) => {
      this.fail(e);
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => parser.parse(chunk));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.closed(socket));
    socket.on('connect', () => {
      const connect: IConnectPacket = {
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: this.opts.protocolVersion,
        clean: this.opts.clean ?? true,
        clientId: this.opts.clientId,
        keepalive: this.opts.keepalive,
        username: this.opts.username,
        password: Buffer.from(this.opts.password),
        ...(this.opts.will ? { will: this.opts.will } : {}),
      };
      this.write(connect);
    });
    this.connackTimer = setTimeout(() => {
      this.fail(new Error('connack timeout'));
      socket.destroy();
    }, this.opts.connectTimeout);
  }

  private encode(packet: Packet): Buffer {
    return mqttPacket.generate(packet, { protocolVersion: this.opts.protocolVersion });
  }

  /** An error for whoever listens (an EventEmitter throws an 'error' nobody listens to). */
  private fail(e: Error): void {
    if (this.listenerCount('error')) this.emit('error', e);
  }

  private handle(p: Packet): void {
    switch (p.cmd) {
      case 'connack': {
        clearTimeout(this.connackTimer);
        const code = (this.opts.protocolVersion === 5 ? p.reasonCode : p.returnCode) ?? 0;
        if (code !== 0) {
          // Refused (bad password, not authorised, …): trying again would change nothing.
          this.ended = true;
          this.fail(new MqttReasonError(`Connection refused: ${reason(code)}`, code));
          this.stream?.destroy();
          return;
        }
        this.connected = true;
        this.startKeepalive();
        this.emit('connect', p);
        return;
      }
      case 'publish': {
        this.emit('message', p.topic, p.payload as Buffer, p);
        if (p.qos === 1) this.write({ cmd: 'puback', messageId: p.messageId as number });
        else if (p.qos === 2) this.fail(new Error('QoS 2 is not spoken by the lean client'));
        return;
      }
      case 'puback': {
        const settle = this.publishes.get(p.messageId as number);
        this.publishes.delete(p.messageId as number);
        const code = p.reasonCode ?? 0;
        settle?.(code >= 0x80 ? new MqttReasonError(`Publish error: ${reason(code)}`, code) : undefined);
        return;
      }
      case 'suback': {
        const waiting = this.subscriptions.get(p.messageId as number);
        this.subscriptions.delete(p.messageId as number);
        waiting?.resolve(p.granted.map((g) => (typeof g === 'number' ? g : (g as { qos: number }).qos)));
        return;
      }
      case 'pingresp':
        this.pingOutstanding = false;
        return;
      case 'disconnect':
        // MQTT 5: the broker says why before it closes the connection.
        this.fail(new MqttReasonError(`Disconnected by the broker: ${reason(p.reasonCode ?? 0)}`, p.reasonCode ?? 0));
        return;
      default:
        return;
    }
  }

  /**
   * Keep-alive, checked every half period: a PINGREQ when nothing was sent since the last check (so
   * the broker never waits more than one period, well inside its 1.5), and the connection dropped
   * when the broker did not answer the last one by the next check.
   */
  private startKeepalive(): void {
    clearInterval(this.keepaliveTimer);
    if (!this.opts.keepalive) return;
    this.pingOutstanding = false;
    this.keepaliveTimer = setInterval(() => {
      if (this.pingOutstanding) {
        // Timers run before the turn's reads: a process short of CPU may hold the PINGRESP unread in
        // its socket. Judged again once this turn's reads are done.
        setImmediate(() => {
          if (!this.pingOutstanding || !this.stream) return;
          this.dropReason = 'Keepalive timeout';
          this.fail(new Error(this.dropReason));
          this.stream.destroy();
        });
        return;
      }
      if (!this.sentSinceTick) {
        this.pingOutstanding = true;
        this.write({ cmd: 'pingreq' });
      }
      this.sentSinceTick = false;
    }, this.opts.keepalive * 500);
    this.keepaliveTimer.unref();
  }

  private write(packet: Packet): void {
    this.send(this.encode(packet));
  }

  private send(bytes: Buffer): void {
    this.sentSinceTick = true;
    const socket = this.stream;
    if (!socket) return;
    // Written at the end of the current tick (as mqtt.js's writeToStream does): what a fleet sends in
    // one turn leaves in one run of system calls, not interleaved with building the next messages.
    if (!socket.writableCorked) {
      socket.cork();
      process.nextTick(uncork, socket);
    }
    socket.write(bytes);
  }

  private closed(socket: net.Socket): void {
    if (this.stream !== socket) return;
    this.stream = null;
    this.connected = false;
    clearTimeout(this.connackTimer);
    clearInterval(this.keepaliveTimer);
    // Ended by this client (its keep-alive) or from outside (the broker, the network): a fleet's report says which.
    const gone = new Error(this.dropReason ?? 'Connection closed');
    this.dropReason = null;
    for (const settle of this.publishes.values()) settle(gone);
    this.publishes.clear();
    for (const waiting of this.subscriptions.values()) waiting.reject(gone);
    this.subscriptions.clear();
    this.emit('close');
    if (!this.ended && this.opts.reconnectPeriod > 0) {
      this.reconnectTimer = setTimeout(() => {
        if (this.ended) return;
        this.emit('reconnect');
        this.open();
      }, this.opts.reconnectPeriod);
    } else {
      this.ended = true;
      this.emit('end');
    }
  }

  /** The next free packet id (1–65535). */
  private packetId(): number {
    if (this.publishes.size + this.subscriptions.size >= 65535) throw new Error('65535 packets already wait for their acknowledgement');
    do this.lastId = (this.lastId % 65535) + 1;
    while (this.publishes.has(this.lastId) || this.subscriptions.has(this.lastId));
    return this.lastId;
  }

  /** Publishes; `done` is called once it is handed to the socket (QoS 0) or acknowledged by the broker (QoS 1). */
  publish(topic: string, payload: string | Buffer, opts: { qos?: 0 | 1; retain?: boolean } = {}, done?: Settle): this {
    if (!this.connected) {
      done?.(new Error('not connected'));
      return this;
    }
    const qos = opts.qos ?? 0;
    const retain = opts.retain ?? false;
    if (qos === 1) {
      const messageId = this.packetId();
      this.publishes.set(messageId, done ?? noop);
      this.send(encodePublish(topic, payload, 1, retain, messageId, this.opts.protocolVersion));
    } else {
      this.send(encodePublish(topic, payload, 0, retain, 0, this.opts.protocolVersion));
      done?.();
    }
    return this;
  }

  publishAsync(topic: string, payload: string | Buffer, opts: { qos?: 0 | 1; retain?: boolean } = {}): Promise<void> {
    return new Promise((resolve, reject) => this.publish(topic, payload, opts, (e) => (e ? reject(e) : resolve())));
  }

  /** Subscribes to topic filters (QoS 0 or 1); resolves with the granted QoS per filter (128: refused). */
  subscribeAsync(filters: Record<string, { qos: 0 | 1 }>): Promise<number[]> {
    if (!this.connected) return Promise.reject(new Error('not connected'));
    return new Promise((resolve, reject) => {
      const messageId = this.packetId();
      this.subscriptions.set(messageId, { resolve, reject });
      this.write({
        cmd: 'subscribe',
        messageId,
        subscriptions: Object.entries(filters).map(([topic, { qos }]) => ({ topic, qos })),
      });
    });
  }

  /** Ends the connection: a DISCONNECT first unless `force`; no reconnect after it. */
  end(force = false): this {
    this.ended = true;
    clearTimeout(this.reconnectTimer);
    const socket = this.stream;
    if (!socket) return this;
    if (!force && this.connected) {
      this.write({ cmd: 'disconnect' });
      socket.end();
    } else socket.destroy();
    return this;
  }

  endAsync(force = false): Promise<void> {
    const socket = this.stream;
    this.end(force);
    if (!socket || socket.closed) return Promise.resolve();
    return new Promise((resolve) => socket.once('close', () => resolve()));
  }
}

const noop = () => undefined;
const uncork = (socket: net.Socket) => socket.uncork();

/**
 * A PUBLISH packet in one buffer (MQTT 3.1.1 §3.3, 5.0 §3.3: fixed header, remaining length,
 * topic, packet id for QoS 1, no properties). Encoded here rather than by mqtt-packet's generate,
 * which builds it from several intermediate buffers: this is the one packet a fleet sends by the
 * hundred thousand. The other packets go through mqtt-packet.
 */
export function encodePublish(
  topic: string,
  payload: string | Buffer,
  qos: 0 | 1,
  retain: boolean,
  messageId: number,
  protocolVersion: 4 | 5,
): Buffer {
  const topicBytes = Buffer.byteLength(topic);
  const payloadBytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  const v5 = protocolVersion === 5;
  const remaining = 2 + topicBytes + (qos ? 2 : 0) + (v5 ? 1 : 0) + payloadBytes;
  let lengthBytes = 1;
  for (let n = remaining; n > 127; n = Math.floor(n / 128)) lengthBytes++;
  if (lengthBytes > 4) throw new Error(`a PUBLISH of ${remaining} bytes is beyond MQTT's limit`);
  const buf = Buffer.allocUnsafe(1 + lengthBytes + remaining);
  let at = 0;
  buf[at++] = 0x30 | (qos << 1) | (retain ? 1 : 0);
  for (let n = remaining; ; ) {
    const digit = n % 128;
    n = Math.floor(n / 128);
    buf[at++] = n > 0 ? digit | 0x80 : digit;
    if (n === 0) break;
  }
  buf.writeUInt16BE(topicBytes, at);
  at += 2;
  at += buf.write(topic, at);
  if (qos) {
    buf.writeUInt16BE(messageId, at);
    at += 2;
  }
  if (v5) buf[at++] = 0; // no properties
  if (typeof payload === 'string') buf.write(payload, at);
  else payload.copy(buf, at);
  return buf;
}
