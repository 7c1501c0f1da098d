import { randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { deviceSubtree, MQTT_MAX_PACKET_BYTES, MQTT_ROOT, TOPIC_SAFE_SERIAL } from '@atrium/contract';
import type { DeviceAccounts, DeviceCredentials } from '../../modules/devices/devices.gateway.js';
import { indexedPersistence } from './retained.js';

/** How the embedded broker knows Atrium's own client: it alone may use the whole tree. */
export interface InternalCredential {
  username: string;
  password: string;
}

/** A fresh credential for the server's own connection to its embedded broker (kept in memory only). */
export const newInternalCredential = (): InternalCredential => ({
  username: `atrium-server-${randomBytes(6).toString('hex')}`,
  password: randomBytes(32).toString('base64url'),
});

/** Who a connected client is, as the hooks decided at sign-in. */
type Identity = { kind: 'server' } | { kind: 'device'; serial: string; projectId: number; deviceId: number };

const BAD_CREDENTIALS = 4; // MQTT CONNACK 0x04 / 0x86: bad user name or password
const NOT_AUTHORIZED = 5;

function authError(code: number, message: string) {
  return Object.assign(new Error(message), { returnCode: code });
}

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** May a device with this serial touch this topic or filter? Only inside its own subtree, never by a wildcard above it. */
export function insideDeviceSubtree(serial: string, topic: string): boolean {
  const own = deviceSubtree(serial);
  return topic === own || topic.startsWith(`${own}/`);
}

/** May the server's own client touch this topic or filter? Anything under Atrium's root. */
const insideRoot = (topic: string) => topic === MQTT_ROOT || topic.startsWith(`${MQTT_ROOT}/`);

/**
 * Reads MQTT fixed headers off a connection and destroys it when a packet announces more than
 * `max` bytes, before the parser buffers it. Aedes 1.x has no packet size limit of its own, and a
 * client that has not signed in yet could otherwise make the broker hold any amount of memory.
 */
export function guardPacketSize(socket: net.Socket, max = MQTT_MAX_PACKET_BYTES): void {
  let skip = 0; // bytes of the current packet's body still to pass
  let header = -1; // -1: expecting a packet's first byte; >= 0: reading its remaining length
  let length = 0;
  let multiplier = 1;
  socket.on('data', (chunk: Buffer) => {
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
        continue;
      }
      const byte = chunk[i++] as number;
      if (header === -1) {
        header = 0;
        length = 0;
        multiplier = 1;
        continue;
      }
      length += (byte & 0x7f) * multiplier;
      multiplier *= 128;
      header++;
      if (length > max || (byte & 0x80 && header >= 4)) {
        socket.destroy();
        return;
      }
      if (!(byte & 0x80)) {
        skip = length;
        header = -1;
      }
    }
  });
}

export interface EmbeddedBrokerOptions {
  port: number;
  host: string;
  credentials: DeviceCredentials;
  internal: InternalCredential;
  onRefused?: (reason: string, who: string | undefined) => void;
  /** MQTT over TLS beside the plain port, with the project's own certificate (issue 14, broker tab). */
  tls?: BrokerTls | null;
}

/** The MQTTS listener: its port (0: any free one) and the PEM certificate (chain) and key it presents. */
export interface BrokerTls {
  port: number;
  cert: string;
  key: string;
}

/** What the in-process link hands its subscriber: a message as a subscription would get it. */
export type LocalMessageHandler = (topic: string, payload: Buffer, retained: boolean) => void;

/**
 * Atrium's own link to its embedded broker inside the process: the gateway subscribes and publishes
 * through aedes' own API, without MQTT encoding, a socket or a second parser for every message. It
 * may do what Atrium's internal account may do over TCP (everything under `atrium/v1`), no more.
 */
export interface LocalBrokerLink {
  /** False once the broker is closed (a restart gives a new link). */
  readonly open: boolean;
  /**
   * Hands `onMessage` every message published on these filters from now on, and first the retained
   * messages that match them (as a new MQTT subscription would get them). Resolves with the way to
   * unsubscribe.
   */
  subscribe(filters: readonly string[], onMessage: LocalMessageHandler): Promise<() => Promise<void>>;
  /** Publishes as Atrium's server; resolves once the broker has handed the message to its subscribers' queues. */
  publish(topic: string, payload: string | Buffer, qos: 0 | 1): Promise<void>;
  /** Calls `listener` once when the broker closes. */
  onClose(listener: () => void): void;
  /**
   * Offers every device's QoS 1 publish to `take` before the broker acknowledges it. When `take`
   * returns true the PUBACK waits until it calls `answer` (with an error: none goes, and the
   * device's connection is closed so that it sends the message again), and the message goes to no
   * subscriber afterwards, neither this link's own subscription nor the device's. The
   * connection is read on meanwhile (its pings answered, its next events taken) unless `full` says
   * the taker holds all it may. While it holds all it may and cannot store (`away`), a device's
   * further events are neither taken nor acknowledged, only read past, and its connection is closed
   * once there is room again so that it sends them again (`deferred` hears of both). `answered`
   * hears of every answer: whether its PUBACK went, and the error it was given, if any. Returns the
   * way to stop.
   */
  holdPublishes(take: PublishTaker, full?: () => boolean, away?: AwayOptions, answered?: AnswerHeard): () => void;
}

/**
 * See LocalBrokerLink.holdPublishes. `answer` returns whether the PUBACK went (false: refused, or
 * its connection closed meanwhile, so the device sends the event again on its next one).
 */
export type PublishTaker = (topic: string, payload: Buffer, answer: (notTaken?: Error) => boolean) => boolean;

/**
 * Told of each answer a taker gave: whether its PUBACK went, and the error it was given. One function
 * for all, given to the broker once: a closure per event wrapping the answer for its counts was a
 * fifth of what a held event kept alive.
 */
export type AnswerHeard = (acknowledged: boolean, notTaken: Error | undefined) => void;

export interface EmbeddedBroker {
  port: number;
  /** The in-process link for Atrium's own gateway (no TCP connection). */
  local: LocalBrokerLink;
  /**
   * The devices' accounts as this broker keeps them: passwords are checked against the devices table
   * at each sign-in, so there is nothing to store; a device disabled or removed loses its connection.
   */
  accounts: DeviceAccounts;
  /** The aedes instance, for diagnostics and tests. */
  readonly aedes: NodeJS.EventEmitter;
  /** The port MQTT over TLS listens on, or null when it does not. */
  tlsPort(): number | null;
  /**
   * Opens (or reopens with another certificate) the MQTTS listener, or closes it (null). Only TLS
   * clients are dropped; devices on the plain port stay connected. Throws when the port cannot be
   * bound or the pair is unusable, leaving no TLS listener.
   */
  setTls(tls: BrokerTls | null): Promise<void>;
  close(): Promise<void>;
}

/**
 * A device's QoS 1 payload the gateway took before its PUBACK is marked on the buffer itself, so
 * that aedes' publishing it afterwards ends at once (the wrapped `broker.publish` below) instead of
 * being stored, matched and handed to the gateway again. A property, not a WeakSet: a weak
 * collection cost 3–6 µs per event, most of it in the garbage collector (against 0.4 µs for the
 * property, 200,000 payloads, five rounds).
 */
const TAKEN = Symbol('taken by the gateway');
type MarkedPayload = Buffer & { [TAKEN]?: boolean };

/**
 * Events of one connection whose PUBACK the broker holds while it reads on. A device's in-flight
 * window bounds them (mqtt.js: as many as it sends before waiting); past this many, one that ignores
 * its window is read no further until its events are stored.
 */
const HELD_PER_CONNECTION = 1000;
const HELD = Symbol('events held on this connection');
const CORKED = Symbol('PUBACKs gathered for one write');
/** Events of this connection were read past, unacknowledged: it is closed once there is room, so that the device sends them again. */
const OWES = Symbol('events read past on this connection');
type HeldConnection = {
  [HELD]?: number;
  [CORKED]?: boolean;
  [OWES]?: boolean;
  _disconnected?: boolean;
  closed: boolean;
  connected: boolean;
  conn: { write(b: Buffer): boolean; cork(): void; uncork(): void; destroyed: boolean };
  close(): void;
};

/** How the broker hears that the taker cannot store, and tells what it read past. */
export interface AwayOptions {
  /** Whether the taker would take a publish on this topic (only those are ever read past). */
  takes: (topic: string) => boolean;
  /** Whether the taker, full, cannot store now (its writes fail): further events are read past. */
  away: () => boolean;
  /** An event read past (`event`), or a connection closed so that its device sends such events again (`reconnect`). */
  deferred?: (what: 'event' | 'reconnect') => void;
}

/** How often connections that owe events are looked at for room to take them again (ms). */
const OWING_SWEEP_MS = 500;

/** A PUBACK for this packet id: remaining length 2, which MQTT 5 reads as success without properties. */
const puback = (id: number) => Buffer.from([0x40, 0x02, id >> 8, id & 0xff]);

/**
 * The answer to an event taken while its connection reads on: its PUBACK once stored, or the
 * connection closed. Made here, not in authorizePublish, so that the closure's context holds the
 * connection, the packet id and the broker's one AnswerHeard alone: one made there would share a
 * context with aedes' callback, and through it keep the whole packet and its payload alive until
 * the commit (a database outage holds a fleet's windows: 2,000 × 100 events).
 */
function heldAnswer(conn: HeldConnection, messageId: number, heard: AnswerHeard | null): (notTaken?: Error) => boolean {
  return (notTaken) => {
    const acknowledged = writeHeldAnswer(conn, messageId, notTaken);
    heard?.(acknowledged, notTaken);
    return acknowledged;
  };
}

function writeHeldAnswer(conn: HeldConnection, messageId: number, notTaken: Error | undefined): boolean {
  conn[HELD] = (conn[HELD] ?? 1) - 1;
  if (notTaken) {
    // Not stored: no PUBACK, and the connection ends so that the device sends it again.
    conn.close();
    return false;
  }
  if (conn.closed || !conn.connected || conn.conn.destroyed) return false;
  // A committed batch answers many events of one connection in the same turn: corked
  // until the next tick, they leave in one write (as aedes' own packets do).
  if (!conn[CORKED]) {
    conn[CORKED] = true;
    conn.conn.cork();
    process.nextTick(() => {
      conn[CORKED] = false;
      conn.conn.uncork();
    });
  }
  conn.conn.write(puback(messageId));
  return true;
}

/**
 * An event whose connection waits, unread, for its commit (the taker was full, or the connection
 * past HELD_PER_CONNECTION). Should the taker then be unable to store (`free`), waiting would leave
 * the connection's pings unanswered for the whole outage, and the device would drop it: the event
 * is then held as a read-on connection's is (its PUBACK written by the broker once stored) and the
 * connection read on, its further events read past.
 */
interface WaitingEvent {
  conn: HeldConnection;
  /** Undefined only for a QoS 1 packet without an id (which MQTT does not allow): never freed, aedes answers it. */
  messageId: number | undefined;
  /** aedes' packet and callback until the event is answered or freed (dropped then: nothing of the packet stays alive with it). */
  packet: { qos: number } | null;
  callback: ((err: Error | null) => void) | null;
  /** The broker writes its PUBACK (freed), not aedes. */
  held: ((notTaken?: Error) => boolean) | null;
  answered: boolean;
  heard: AnswerHeard | null;
}

/** The answer to an event whose connection waits for its commit: aedes' own callback, which writes the PUBACK; once freed, as heldAnswer. */
function waitingAnswer(w: WaitingEvent): (notTaken?: Error) => boolean {
  return (notTaken) => {
    w.answered = true;
    if (w.held) return w.held(notTaken);
    const callback = w.callback as (err: Error | null) => void;
    w.packet = null;
    w.callback = null;
    callback(notTaken ?? null);
    const acknowledged = !notTaken && !w.conn.closed;
    w.heard?.(acknowledged, notTaken);
    return acknowledged;
  };
}

/** Lets a waiting event's connection read on (see WaitingEvent); its PUBACK goes once it is stored. */
function freeWaiting(w: WaitingEvent): void {
  if (w.answered || w.held || !w.packet || !w.callback || w.messageId === undefined) return;
  w.conn[HELD] = (w.conn[HELD] ?? 0) + 1;
  w.held = heldAnswer(w.conn, w.messageId, w.heard);
  // aedes reads the QoS after this callback: at 0 it writes no PUBACK, and the payload, taken, is published nowhere.
  w.packet.qos = 0;
  const callback = w.callback;
  w.packet = null;
  w.callback = null;
  callback(null);
}

/**
 * The embedded broker (aedes) of `npm start`. No anonymous client: a device signs in with its serial
 * number and device password and may publish and subscribe only under `atrium/v1/devices/{serial}`;
 * Atrium's own client signs in with the in-memory internal credential and may use `atrium/v1/#`.
 */
export async function startEmbeddedBroker(opts: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const { Aedes } = await import('aedes');
  const identities = new WeakMap<object, Identity>();
  const refuse = opts.onRefused ?? (() => undefined);
  /** The connections of each device, to close them when the device is disabled or removed. */
  const connected = new Map<string, Set<{ close(): void }>>();
  const persistence = indexedPersistence();
  /** Who takes devices' QoS 1 publishes before they are acknowledged (the gateway), and the payloads it took. */
  let taker: PublishTaker | null = null;
  /** Whether the taker holds all it may: then a connection waits for its event's commit before it is read on. */
  let takerFull: (() => boolean) | null = null;
  let takerAway: AwayOptions | null = null;
  let takerHeard: AnswerHeard | null = null;
  /** Connections some of whose events were read past, closed once the taker has room and their taken events are answered. */
  const owing = new Set<HeldConnection>();
  /** Events whose connections wait unread for their commit, freed should the taker be away. */
  const waiting = new Set<WaitingEvent>();
  let owingSweep: NodeJS.Timeout | null = null;
  const startSweep = () => {
    owingSweep ??= setInterval(sweepOwing, OWING_SWEEP_MS).unref();
  };
  const sweepOwing = () => {
    const away = takerFull?.() === true && takerAway?.away() === true;
    for (const w of waiting) {
      if (w.answered || w.held || w.conn.closed) waiting.delete(w);
      else if (away) {
        waiting.delete(w);
        freeWaiting(w);
      }
    }
    for (const conn of owing) {
      if (conn.closed || !conn.connected) owing.delete(conn);
      else if (!takerFull?.() && !(conn[HELD] ?? 0)) {
        owing.delete(conn);
        // As a clean disconnect: no will, so the device is not reported offline for the moment it
        // takes to reconnect; one that does not come back is found silent by its heartbeats.
        conn._disconnected = true;
        conn.close();
        takerAway?.deferred?.('reconnect');
      }
    }
    if (!owing.size && !waiting.size && owingSweep) {
      clearInterval(owingSweep);
      owingSweep = null;
    }
  };
  const broker = await Aedes.createBroker({
    persistence,
    // Messages in delivery at once (aedes' default is 100). Beyond it aedes queues them in an array it
    // shifts one by one, which costs more the longer the queue: a flood of events from thousands of
    // devices spent a tenth of the server's CPU there (bench/devices.ts profile).
    concurrency: 5000,
    authenticate: (client, username, password, done) => {
      const pass = password?.toString('utf8') ?? '';
      if (!username || !pass) {
        refuse('anonymous', username);
        return done(authError(NOT_AUTHORIZED, 'not authorized'), false);
      }
      if (username === opts.internal.username) {
        if (!sameSecret(pass, opts.internal.password)) {
          refuse('bad password', username);
          return done(authError(BAD_CREDENTIALS, 'bad user name or password'), false);
        }
        identities.set(client, { kind: 'server' });
        return done(null, true);
      }
      if (!TOPIC_SAFE_SERIAL.test(username)) {
        refuse('bad user name', username);
        return done(authError(BAD_CREDENTIALS, 'bad user name or password'), false);
      }
      opts.credentials.verify(username, pass).then(
        (found) => {
          if (!found) {
            refuse('bad password', username);
            return done(authError(BAD_CREDENTIALS, 'bad user name or password'), false);
          }
          identities.set(client, { kind: 'device', serial: username, ...found });
          connected.set(username, new Set([...(connected.get(username) ?? []), client]));
          done(null, true);
        },
        () => done(authError(3, 'server unavailable'), false),
      );
    },
    authorizePublish: (client, packet, callback) => {
      // No client: a will the broker publishes long after its client left (aedes' will sweep). Whose
      // it was cannot be told any more, so it is refused; silence tells the gateway the same.
      const who = client ? identities.get(client) : undefined;
      if (!who) return callback(new Error('not authorized'));
      const ok = who.kind === 'server' ? insideRoot(packet.topic) : insideDeviceSubtree(who.serial, packet.topic);
      if (!ok) refuse(`publish ${packet.topic}`, who.kind === 'device' ? who.serial : 'server');
      // A device's QoS 1 event the gateway takes is acknowledged when the gateway says (once stored).
      // aedes writes a QoS 1 PUBACK right after this callback, and reads nothing more from the
      // connection until it has (it finishes a socket read's packets before the next read), so the
      // broker writes that PUBACK itself and lets aedes go on as for QoS 0 (publishing it no further:
      // see broker.publish below): the device's later packets are read, its PINGREQ
      // answered and its further events taken and held too, up to its in-flight window. Past
      // HELD_PER_CONNECTION on one connection, or while the taker is full, the old way holds: the
      // callback waits for the event's commit and the connection is not read meanwhile.
      if (ok && who.kind === 'device' && packet.qos === 1 && taker && Buffer.isBuffer(packet.payload)) {
        const payload = packet.payload as MarkedPayload;
        const conn = client as unknown as HeldConnection;
        const messageId = packet.messageId;
        // The taker is full and cannot store (the database away): holding more would grow memory with
        // the outage, and leaving the connection unread would leave its pings unanswered. So the event
        // is read past, neither taken nor acknowledged, as are the connection's later ones; once there
        // is room the connection is closed, and the device sends again what has no PUBACK.
        if (takerAway?.takes(packet.topic) && (conn[OWES] || (takerFull?.() && takerAway.away()))) {
          if (!conn[OWES]) {
            conn[OWES] = true;
            owing.add(conn);
            startSweep();
          }
          takerAway.deferred?.('event');
          payload[TAKEN] = true;
          packet.qos = 0;
          return callback(null);
        }
        const readOn = messageId !== undefined && (conn[HELD] ?? 0) < HELD_PER_CONNECTION && !takerFull?.();
        payload[TAKEN] = true;
        const wait: WaitingEvent | null = readOn
          ? null
          : { conn, messageId, packet, callback, held: null, answered: false, heard: takerHeard };
        const answer = wait ? waitingAnswer(wait) : heldAnswer(conn, messageId as number, takerHeard);
        if (readOn) conn[HELD] = (conn[HELD] ?? 0) + 1;
        if (taker(packet.topic, payload, answer)) {
          if (!readOn) {
            if (wait && !wait.answered && wait.messageId !== undefined) {
              waiting.add(wait);
              startSweep();
            }
            return;
          }
          packet.qos = 0;
          return callback(null);
        }
        if (wait) {
          wait.packet = null;
          wait.callback = null;
        }
        if (readOn) conn[HELD] = (conn[HELD] ?? 1) - 1;
        payload[TAKEN] = false;
      }
      callback(ok ? null : new Error('not authorized'));
    },
    authorizeSubscribe: (client, subscription, callback) => {
      const who = identities.get(client);
      const ok =
        who !== undefined && (who.kind === 'server' ? insideRoot(subscription.topic) : insideDeviceSubtree(who.serial, subscription.topic));
      if (!ok) {
        refuse(`subscribe ${subscription.topic}`, who?.kind === 'device' ? who.serial : undefined);
        return callback(new Error('not authorized'), null);
      }
      callback(null, subscription);
    },
  });
  // A device's event the gateway took goes to no one else: the only subscriber that could want it is
  // the gateway's own link (the internal account lives in this process's memory alone), which skips
  // taken payloads, and a device may subscribe only under its own subtree. aedes would still store
  // it as retained if so flagged, match it against every subscription and hand it to the link, some
  // 8 % of the device plane's CPU in a flood (bench/devices.ts profile), so it ends here.
  const publish = broker.publish.bind(broker);
  broker.publish = ((packet: { payload?: unknown }, client: unknown, done?: (err?: Error | null) => void) => {
    if (typeof client !== 'function' && Buffer.isBuffer(packet.payload) && (packet.payload as MarkedPayload)[TAKEN] === true) {
      done?.(null);
      return;
    }
    (publish as (p: unknown, c: unknown, d?: unknown) => void)(packet, client, done);
  }) as typeof broker.publish;
  // A refused clientless will (above) makes aedes emit 'error' from its will sweep: an unheard
  // 'error' would end the process, so every broker error is reported and the broker goes on.
  (broker as unknown as NodeJS.EventEmitter).on('error', (err: Error) => refuse(`broker error: ${err.message}`, undefined));
  broker.on('clientDisconnect', (client) => {
    const who = identities.get(client);
    if (who?.kind !== 'device') return;
    const set = connected.get(who.serial);
    set?.delete(client);
    if (set && !set.size) connected.delete(who.serial);
  });
  // Every open connection, so close() ends them: a server waits for its connections before it closes.
  const sockets = new Set<net.Socket>();
  const accept = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    broker.handle(socket);
    guardPacketSize(socket);
  };
  const server = net.createServer(accept);
  // MQTT over TLS: the same broker behind a TLS server; the packet guard reads the decrypted stream.
  let secure: { server: tls.Server; sockets: Set<net.Socket> } | null = null;
  const closeTls = async () => {
    const s = secure;
    secure = null;
    if (!s) return;
    const closed = new Promise<void>((resolve) => s.server.close(() => resolve()));
    for (const socket of s.sockets) socket.destroy();
    await closed;
  };
  const openTls = async (options: BrokerTls) => {
    const own = new Set<net.Socket>();
    const tlsServer = tls.createServer({ cert: options.cert, key: options.key, minVersion: 'TLSv1.2' }, (socket) => {
      own.add(socket);
      socket.once('close', () => own.delete(socket));
      accept(socket);
    });
    // A client that fails its handshake must not end the process.
    tlsServer.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      tlsServer.once('error', reject);
      tlsServer.listen(options.port, opts.host, () => {
        tlsServer.off('error', reject);
        resolve();
      });
    });
    secure = { server: tlsServer, sockets: own };
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (opts.tls) {
    try {
      await openTls(opts.tls);
    } catch (e) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      throw e;
    }
  }
  const kick = async (serial: string) => {
    for (const client of connected.get(serial) ?? []) client.close();
  };
  const local: LocalBrokerLink = {
    get open() {
      return !broker.closed;
    },
    async subscribe(filters, onMessage) {
      if (broker.closed) throw new Error('the embedded broker is closed');
      const refused = filters.filter((f) => !insideRoot(f));
      if (refused.length) throw new Error(`not authorized to subscribe to ${refused.join(', ')}`);
      // A subscriber of aedes' message bus: called with each message as it is published, and asked to
      // say when it is done with it (at once: the gateway queues what it keeps). The message is
      // aedes' own object, shared with the other subscribers: read, never changed. An event the
      // gateway took never arrives here: its publish ended in the wrapped `broker.publish`.
      const deliver = (packet: { topic: string; payload: Buffer | string }, done: () => void) => {
        try {
          onMessage(packet.topic, typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload, false);
        } finally {
          done();
        }
      };
      const added = filters.map((f) => new Promise<void>((resolve) => broker.subscribe(f, deliver, resolve)));
      // Registered above synchronously, the retained messages are read in the same turn: a message
      // published meanwhile is either among them (stored before it is delivered) or delivered next.
      for (const p of persistence.retainedMatching(filters)) {
        onMessage(p.topic, typeof p.payload === 'string' ? Buffer.from(p.payload) : p.payload, true);
      }
      await Promise.all(added);
      return async () => {
        if (broker.closed) return;
        await Promise.all(filters.map((f) => new Promise<void>((resolve) => broker.unsubscribe(f, deliver, resolve))));
      };
    },
    publish(topic, payload, qos) {
      if (broker.closed) return Promise.reject(new Error('the embedded broker is closed'));
      if (!insideRoot(topic)) return Promise.reject(new Error(`not authorized to publish on ${topic}`));
      return new Promise<void>((resolve, reject) =>
        broker.publish(
          { cmd: 'publish', topic, payload: typeof payload === 'string' ? Buffer.from(payload) : payload, qos, retain: false, dup: false },
          (err) => (err ? reject(err) : resolve()),
        ),
      );
    },
    onClose(listener) {
      if (broker.closed) queueMicrotask(listener);
      else broker.once('closed', listener);
    },
    holdPublishes(take, full, away, answered) {
      taker = take;
      takerFull = full ?? null;
      takerAway = away ?? null;
      takerHeard = answered ?? null;
      return () => {
        if (taker === take) {
          taker = null;
          takerFull = null;
          takerAway = null;
          takerHeard = null;
        }
      };
    },
  };
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    local,
    aedes: broker as unknown as NodeJS.EventEmitter,
    accounts: {
      upsertDevice: async () => undefined,
      enableDevice: async () => undefined,
      disableDevice: kick,
      removeDevice: kick,
      endSessions: kick,
    },
    tlsPort: () => {
      const a = secure?.server.address();
      return typeof a === 'object' && a ? a.port : null;
    },
    setTls: async (next) => {
      await closeTls();
      if (next) await openTls(next);
    },
    close: async () => {
      if (owingSweep) clearInterval(owingSweep);
      owingSweep = null;
      owing.clear();
      waiting.clear();
      await closeTls();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
  };
}
