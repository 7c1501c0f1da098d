import { randomBytes } from 'node:crypto';
import { deviceSubtree, MQTT_ROOT, TOPIC_SAFE_SERIAL } from '@atrium/contract';
import mqtt, { type MqttClient } from 'mqtt';
import { finishesWithin } from '../../core/settle.js';
import type { DeviceAccounts } from '../../modules/devices/devices.gateway.js';

/**
 * Device accounts on an external Mosquitto 2 broker, kept by Atrium through Mosquitto's
 * dynamic-security plugin (`$CONTROL/dynamic-security/v1`, with the plugin's admin account).
 * Each device gets a client (username = serial number, password = device password) and a role of
 * its own allowing only its subtree `atrium/v1/devices/{serial}/#`; Atrium's own account gets the
 * role `atrium-server` (the whole `atrium/v1/#` tree). Mosquitto 2.0's ACLs have no `%u`
 * substitution, hence one role per device. README "Running on Mosquitto" shows the broker's side.
 */

export const DYNSEC_TOPIC = '$CONTROL/dynamic-security/v1';
export const SERVER_ROLE = 'atrium-server';
export const deviceRole = (serial: string) => `atrium-device-${serial}`;

export class DynsecError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(`mosquitto dynamic-security ${command}: ${message}`);
  }
}

interface Response {
  command: string;
  error?: string;
  data?: unknown;
  correlationData?: string;
}

type Command = { command: string } & Record<string, unknown>;

export interface MosquittoDynsecOptions {
  /** The broker (MQTT_URL); credentials in the URL or below: the dynamic-security admin account. */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  /** How long to wait for the plugin's answer (ms). */
  timeoutMs?: number;
}

export class MosquittoDynsec implements DeviceAccounts {
  private readonly pending = new Map<string, { resolve: (r: Response) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private seq = 0;
  /** Commands sent and not yet all answered, by their first correlation id. */
  private readonly inflight = new Map<string, string>();
  private readonly prefix = randomBytes(4).toString('hex');

  private constructor(
    private readonly client: MqttClient,
    private readonly timeoutMs: number,
    /** The username Atrium signs in with (it gets the server role). */
    readonly adminUsername: string,
  ) {
    client.on('message', (topic, payload) => {
      if (topic !== `${DYNSEC_TOPIC}/response`) return;
      let body: { responses?: Response[] };
      try {
        body = JSON.parse(payload.toString('utf8')) as { responses?: Response[] };
      } catch {
        return;
      }
      for (const r of body.responses ?? []) {
        const p = r.correlationData ? this.pending.get(r.correlationData) : undefined;
        if (!p || !r.correlationData) continue;
        clearTimeout(p.timer);
        this.pending.delete(r.correlationData);
        p.resolve(r);
      }
    });
  }

  /** Connects with the admin account and listens for the plugin's answers. */
  static async connect(opts: MosquittoDynsecOptions): Promise<MosquittoDynsec> {
    const url = new URL(opts.url);
    const username = opts.username ?? decodeURIComponent(url.username);
    if (!username) throw new Error('the Mosquitto dynamic-security admin account needs a username (in MQTT_URL)');
    const client = await mqtt.connectAsync(opts.url, {
      username,
      ...(opts.password !== undefined ? { password: opts.password } : {}),
      clientId: `atrium-dynsec-${randomBytes(6).toString('hex')}`,
      reconnectPeriod: 1000,
      connectTimeout: 5000,
    });
    const dynsec = new MosquittoDynsec(client, opts.timeoutMs ?? 5000, username);
    try {
      await dynsec.subscribeResponses();
    } catch (e) {
      await client.endAsync(true);
      throw e;
    }
    // clean: true, so a reconnect subscribes again; commands whose answers the lost connection
    // took with it are sent again (Mosquitto kicks every client of an account whose roles change,
    // and our commands are safe to repeat: a repeat answers "already exists" or "not found").
    client.on('connect', () => {
      void dynsec
        .subscribeResponses()
        .then(() => Promise.all([...dynsec.inflight.values()].map((p) => client.publishAsync(DYNSEC_TOPIC, p, { qos: 1 }))))
        .catch(() => undefined);
    });
    return dynsec;
  }

  /** Sends commands in one message; resolves with each answer in order (errors included, not thrown). */
  async send(commands: readonly Command[]): Promise<Response[]> {
    const tagged = commands.map((c) => ({ ...c, correlationData: `${this.prefix}-${++this.seq}` }));
    const answers = tagged.map(
      (c) =>
        new Promise<Response>((resolve, reject) => {
          const timer = setTimeout(() => {
            this.pending.delete(c.correlationData);
            reject(new DynsecError(c.command, 'no answer (is the dynamic-security plugin loaded?)'));
          }, this.timeoutMs);
          this.pending.set(c.correlationData, { resolve, reject, timer });
        }),
    );
    const key = tagged[0]?.correlationData ?? '';
    const payload = JSON.stringify({ commands: tagged });
    this.inflight.set(key, payload);
    try {
      await this.client.publishAsync(DYNSEC_TOPIC, payload, { qos: 1 });
      return await Promise.all(answers);
    } finally {
      this.inflight.delete(key);
    }
  }

  /** Sends commands and throws on the first error that is not among the `tolerated` ones. */
  private async run(commands: readonly Command[], tolerated: readonly RegExp[] = []): Promise<Response[]> {
    const answers = await this.send(commands);
    for (const a of answers) {
      if (a.error && !tolerated.some((t) => t.test(a.error as string))) throw new DynsecError(a.command, a.error);
    }
    return answers;
  }

  /**
   * Makes the broker ready for Atrium: devices may do nothing by default, and Atrium's own account
   * may use the whole `atrium/v1/#` tree. Safe to run at every start.
   */
  async setup(): Promise<void> {
    await this.run(
      [
        {
          command: 'setDefaultACLAccess',
          acls: [
            { acltype: 'publishClientSend', allow: false },
            { acltype: 'publishClientReceive', allow: false },
            { acltype: 'subscribe', allow: false },
            { acltype: 'unsubscribe', allow: true },
          ],
        },
        { command: 'createRole', rolename: SERVER_ROLE, textname: 'Atrium server: the whole Atrium topic tree' },
      ],
      [/already exists/i],
    );
    await this.run(
      ['publishClientSend', 'publishClientReceive', 'subscribePattern'].map((acltype) => ({
        command: 'addRoleACL',
        rolename: SERVER_ROLE,
        acltype,
        topic: `${MQTT_ROOT}/#`,
        allow: true,
      })),
      [/already exists/i],
    );
    if (!(await this.hasServerRole())) {
      // Changing a client's roles makes Mosquitto disconnect it (to apply them): the answer to our
      // own change is lost with the connection, so the change is checked after reconnecting.
      const reconnected = new Promise<void>((resolve) => this.client.once('connect', () => resolve()));
      await this.client.publishAsync(
        DYNSEC_TOPIC,
        JSON.stringify({ commands: [{ command: 'addClientRole', username: this.adminUsername, rolename: SERVER_ROLE, priority: 10 }] }),
        { qos: 1 },
      );
      await finishesWithin(reconnected, this.timeoutMs);
      await this.subscribeResponses();
      if (!(await this.hasServerRole()))
        throw new DynsecError('addClientRole', `${this.adminUsername} did not get the role ${SERVER_ROLE}`);
    }
  }

  private async hasServerRole(): Promise<boolean> {
    return (await this.rolesOf(this.adminUsername)).includes(SERVER_ROLE);
  }

  /** The roles of an account. */
  private async rolesOf(username: string): Promise<string[]> {
    const [r] = await this.run([{ command: 'getClient', username }]);
    const roles = (r?.data as { client?: { roles?: { rolename: string }[] } } | undefined)?.client?.roles ?? [];
    return roles.map((x) => x.rolename);
  }

  /**
   * Subscribes to the plugin's answers. Mosquitto disconnects every client of an account whose roles
   * change (another Atrium instance's setup, for one), so a connection closed before the SUBACK is
   * waited out (the client reconnects by itself) and the subscription asked again, a few times.
   */
  private async subscribeResponses(): Promise<void> {
    let granted: mqtt.ISubscriptionGrant[];
    for (let attempt = 1; ; attempt++) {
      try {
        granted = await this.client.subscribeAsync(`${DYNSEC_TOPIC}/response`, { qos: 1 });
        break;
      } catch (e) {
        if (attempt >= 5 || this.client.disconnecting) throw e;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.client.off('connect', done);
            resolve();
          };
          const timer = setTimeout(done, this.timeoutMs);
          if (this.client.connected) setTimeout(done, 100);
          else this.client.once('connect', done);
        });
      }
    }
    if (granted.some((g) => g.qos === 128)) {
      throw new Error(`${this.adminUsername} may not use the dynamic-security plugin (is it the plugin's admin account?)`);
    }
  }

  private assertSerial(serial: string): void {
    if (!TOPIC_SAFE_SERIAL.test(serial)) throw new Error(`serial ${JSON.stringify(serial)} cannot be an MQTT account`);
    if (serial === this.adminUsername) throw new Error(`serial ${serial} is Atrium's own account`);
  }

  async upsertDevice(serial: string, password: string): Promise<void> {
    this.assertSerial(serial);
    const own = `${deviceSubtree(serial)}/#`;
    await this.run(
      [
        {
          command: 'createRole',
          rolename: deviceRole(serial),
          textname: `Atrium device ${serial}`,
          acls: [
            { acltype: 'publishClientSend', topic: own, allow: true },
            { acltype: 'publishClientReceive', topic: own, allow: true },
            { acltype: 'subscribePattern', topic: own, allow: true },
          ],
        },
      ],
      [/already exists/i],
    );
    const [created] = await this.run(
      [
        {
          command: 'createClient',
          username: serial,
          password,
          textname: `Atrium device ${serial}`,
          roles: [{ rolename: deviceRole(serial) }],
        },
      ],
      [/already exists/i],
    );
    if (created?.error) {
      await this.run([
        { command: 'setClientPassword', username: serial, password },
        { command: 'enableClient', username: serial },
      ]);
      if (!(await this.rolesOf(serial)).includes(deviceRole(serial))) {
        await this.run([{ command: 'addClientRole', username: serial, rolename: deviceRole(serial) }]);
      }
    }
  }

  async enableDevice(serial: string): Promise<void> {
    this.assertSerial(serial);
    await this.run([{ command: 'enableClient', username: serial }], [/not found/i]);
  }

  async disableDevice(serial: string): Promise<void> {
    this.assertSerial(serial);
    await this.run([{ command: 'disableClient', username: serial }], [/not found/i]);
  }

  /** Mosquitto 2.0's dynamic security ends an account's connections when it is disabled: disabled and enabled again. */
  async endSessions(serial: string): Promise<void> {
    this.assertSerial(serial);
    await this.run(
      [
        { command: 'disableClient', username: serial },
        { command: 'enableClient', username: serial },
      ],
      [/not found/i],
    );
  }

  async removeDevice(serial: string): Promise<void> {
    this.assertSerial(serial);
    await this.run(
      [
        { command: 'deleteClient', username: serial },
        { command: 'deleteRole', rolename: deviceRole(serial) },
      ],
      [/not found/i],
    );
  }

  /** The serial numbers of the device accounts Atrium made. */
  async listDevices(): Promise<string[]> {
    const [r] = await this.run([{ command: 'listRoles', verbose: false }]);
    const roles = ((r?.data as { roles?: unknown[] } | undefined)?.roles ?? []).map((x) =>
      typeof x === 'string' ? x : String((x as { rolename?: string }).rolename),
    );
    const prefix = deviceRole('');
    return roles.filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length));
  }

  /** Removes the accounts of devices that are not in `keep` (deleted while Atrium was not connected). */
  async reconcile(keep: ReadonlySet<string>): Promise<string[]> {
    const gone = (await this.listDevices()).filter((s) => !keep.has(s));
    for (const s of gone) await this.removeDevice(s);
    return gone;
  }

  async close(): Promise<void> {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('closed'));
      this.pending.delete(id);
    }
    await this.client.endAsync(true).catch(() => undefined);
  }
}
