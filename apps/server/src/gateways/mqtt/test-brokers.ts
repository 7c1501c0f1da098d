import type { DeviceCredentials } from '../../modules/devices/devices.gateway.js';
import { type EmbeddedBroker, type LocalBrokerLink, newInternalCredential, startEmbeddedBroker } from './broker.js';

/**
 * Brokers the device suite runs against: the embedded one always, and Mosquitto with its
 * dynamic-security plugin when the machine has it (mosquitto.test-broker.ts). Each knows how to
 * give a device an account and Atrium's server its own.
 */
export interface TestBroker {
  name: string;
  url: string;
  /** The account Atrium's server signs in with. */
  server: { username: string; password: string };
  /** The embedded broker's in-process link, when Atrium's gateway is to use it instead of signing in (as `npm start` does). */
  local?: LocalBrokerLink;
  /** Whether shared subscriptions work (several server instances). */
  shared: boolean;
  /** Whether devices may speak MQTT 5 (aedes 1.x speaks 3.1.1 only). */
  mqtt5: boolean;
  addDevice(serial: string, password: string): Promise<void>;
  removeDevice(serial: string): Promise<void>;
  /** What the broker refused, when it says (the embedded one does). */
  refusals: string[];
  close(): Promise<void>;
}

/** In-memory device accounts: what the devices table does in the server, for tests of the wire alone. */
export class MemoryCredentials implements DeviceCredentials {
  private readonly accounts = new Map<string, { password: string; deviceId: number }>();
  private next = 1;

  set(serial: string, password: string): void {
    this.accounts.set(serial, { password, deviceId: this.accounts.get(serial)?.deviceId ?? this.next++ });
  }

  delete(serial: string): void {
    this.accounts.delete(serial);
  }

  async verify(serial: string, password: string) {
    const a = this.accounts.get(serial);
    return a && a.password === password ? { projectId: 1, deviceId: a.deviceId } : null;
  }
}

/** How a gateway under test reaches this broker: in-process when it offers that, else over TCP with the server's account. */
export const gatewayLink = (b: TestBroker) => (b.local ? { local: b.local } : { url: b.url, ...b.server });

/** The embedded broker; `inProcess`: the gateway links to it in-process as `npm start` does, not over TCP. */
export async function embeddedTestBroker(opts: { inProcess?: boolean } = {}): Promise<TestBroker> {
  const credentials = new MemoryCredentials();
  const internal = newInternalCredential();
  const refusals: string[] = [];
  const broker: EmbeddedBroker = await startEmbeddedBroker({
    port: 0,
    host: '127.0.0.1',
    credentials,
    internal,
    onRefused: (reason, who) => refusals.push(`${reason} (${who ?? '?'})`),
  });
  return {
    name: opts.inProcess ? 'embedded, in-process' : 'embedded',
    url: `mqtt://127.0.0.1:${broker.port}`,
    server: internal,
    ...(opts.inProcess ? { local: broker.local } : {}),
    shared: false,
    mqtt5: false,
    refusals,
    addDevice: async (serial, password) => credentials.set(serial, password),
    removeDevice: async (serial) => credentials.delete(serial),
    close: () => broker.close(),
  };
}
