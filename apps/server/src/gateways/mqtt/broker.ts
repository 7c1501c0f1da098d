import { randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import { deviceSubtree, MQTT_MAX_PACKET_BYTES, MQTT_ROOT, TOPIC_SAFE_SERIAL } from '@atrium/contract';
import type { DeviceAccounts, DeviceCredentials } from '../../modules/devices/devices.gateway.js';

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
}

export interface EmbeddedBroker {
  port: number;
  /**
   * The devices' accounts as this broker keeps them: passwords are checked against the devices table
   * at each sign-in, so there is nothing to store; a device disabled or removed loses its connection.
   */
  accounts: DeviceAccounts;
  /** The aedes instance, for diagnostics and tests. */
  readonly aedes: NodeJS.EventEmitter;
  close(): Promise<void>;
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
  const broker = await Aedes.createBroker({
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
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    broker.handle(socket);
    guardPacketSize(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const kick = async (serial: string) => {
    for (const client of connected.get(serial) ?? []) client.close();
  };
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    aedes: broker as unknown as NodeJS.EventEmitter,
    accounts: {
      upsertDevice: async () => undefined,
      enableDevice: async () => undefined,
      disableDevice: kick,
      removeDevice: kick,
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
  };
}
