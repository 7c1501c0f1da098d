import { deviceTopic } from '@atrium/contract';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mosquittoAvailable, type RunningMosquitto, startMosquitto } from './mosquitto.test-broker.js';
import { deviceRole, MosquittoDynsec, SERVER_ROLE } from './mosquitto-dynsec.js';

// Atrium keeping device accounts in a real Mosquitto 2 through its dynamic-security plugin, and
// Mosquitto then refusing what the embedded broker refuses (gateways/mqtt/broker.test.ts).

describe.skipIf(!mosquittoAvailable())('Mosquitto dynamic security managed by Atrium', () => {
  let m: RunningMosquitto;
  let dynsec: MosquittoDynsec;
  const open: MqttClient[] = [];

  beforeAll(async () => {
    m = await startMosquitto();
    dynsec = await MosquittoDynsec.connect({ url: m.url, ...m.admin });
    await dynsec.setup();
    await dynsec.setup(); // at every start: nothing changes the second time
  });
  afterAll(async () => {
    for (const c of open) c.end(true);
    await dynsec?.close();
    await m?.stop();
  });

  function connect(options: mqtt.IClientOptions = {}): Promise<MqttClient> {
    return new Promise((resolve, reject) => {
      const client = mqtt.connect(m.url, { reconnectPeriod: 0, connectTimeout: 3000, ...options });
      client.once('connect', () => {
        open.push(client);
        resolve(client);
      });
      client.once('error', (e) => {
        client.end(true);
        reject(e);
      });
      client.once('close', () => reject(new Error('closed')));
    });
  }

  /** The QoS granted, or 128 when refused (MQTT 5 clients see a refusal as an error). */
  const granted = async (client: MqttClient, topic: string) =>
    client.subscribeAsync(topic, { qos: 1 }).then(
      (g) => g[0]?.qos,
      () => 128,
    );

  it('refuses anonymous clients, wrong passwords and unknown devices', async () => {
    await dynsec.upsertDevice('MQ-1', 'mq-one-password');
    await expect(connect()).rejects.toThrow();
    await expect(connect({ username: 'MQ-1', password: 'wrong-password' })).rejects.toThrow();
    await expect(connect({ username: 'MQ-404', password: 'mq-one-password' })).rejects.toThrow();
    const ok = await connect({ username: 'MQ-1', password: 'mq-one-password' });
    expect(ok.connected).toBe(true);
  });

  it('keeps each device inside its own subtree: no #, no other device, own topics allowed', async () => {
    await dynsec.upsertDevice('MQ-2', 'mq-two-password');
    await dynsec.upsertDevice('MQ-3', 'mq-three-password');
    const server = await connect({ username: m.admin.username, password: m.admin.password });
    const seen: string[] = [];
    server.on('message', (topic, payload) => seen.push(`${topic} ${payload}`));
    expect(await granted(server, 'atrium/v1/devices/+/events')).toBe(1);

    for (const protocolVersion of [4, 5] as const) {
      const two = await connect({ username: 'MQ-2', password: 'mq-two-password', protocolVersion });
      expect(await granted(two, `${deviceTopic('MQ-2', 'tasks')}`)).toBe(1);
      for (const topic of ['#', 'atrium/v1/#', 'atrium/v1/devices/+/events', deviceTopic('MQ-3', 'tasks'), '$CONTROL/dynamic-security/#']) {
        expect(await granted(two, topic), topic).toBe(128);
      }
      // Publishing on another device's topic: refused (MQTT 5 says so; 3.1.1 is dropped silently).
      const foreign = two.publishAsync(deviceTopic('MQ-3', 'events'), `forged-${protocolVersion}`, { qos: 1 });
      if (protocolVersion === 5) await expect(foreign).rejects.toThrow(/Not authorized/i);
      else await foreign;
      await two.publishAsync(deviceTopic('MQ-2', 'events'), `own-${protocolVersion}`, { qos: 1 });
      await expect.poll(() => seen).toContain(`${deviceTopic('MQ-2', 'events')} own-${protocolVersion}`);
      two.end(true);
    }
    expect(seen.filter((s) => s.includes('forged'))).toEqual([]);
    // A device may not administer the broker either.
    const two = await connect({ username: 'MQ-2', password: 'mq-two-password', protocolVersion: 5 });
    await expect(
      two.publishAsync('$CONTROL/dynamic-security/v1', JSON.stringify({ commands: [{ command: 'deleteClient', username: 'MQ-3' }] }), {
        qos: 1,
      }),
    ).rejects.toThrow(/Not authorized/i);
    await connect({ username: 'MQ-3', password: 'mq-three-password' });
  });

  it('follows the device: a new password replaces the old, a disabled device is refused and cut off, a removed one is gone', async () => {
    await dynsec.upsertDevice('MQ-4', 'first-password');
    const first = await connect({ username: 'MQ-4', password: 'first-password' });
    await dynsec.upsertDevice('MQ-4', 'second-password'); // re-initialised
    await expect(connect({ username: 'MQ-4', password: 'first-password' })).rejects.toThrow();
    const second = await connect({ username: 'MQ-4', password: 'second-password' });
    expect(await granted(second, `${deviceTopic('MQ-4', 'tasks')}`)).toBe(1);

    const cut = new Promise<void>((r) => second.once('close', () => r()));
    await dynsec.disableDevice('MQ-4'); // switched to another protocol
    await cut;
    await expect(connect({ username: 'MQ-4', password: 'second-password' })).rejects.toThrow();
    await dynsec.upsertDevice('MQ-4', 'third-password'); // initialised again: enabled
    await connect({ username: 'MQ-4', password: 'third-password' });

    expect(await dynsec.listDevices()).toEqual(expect.arrayContaining(['MQ-1', 'MQ-4']));
    await dynsec.removeDevice('MQ-4');
    await dynsec.removeDevice('MQ-4'); // already gone: fine
    await expect(connect({ username: 'MQ-4', password: 'third-password' })).rejects.toThrow();
    expect(await dynsec.listDevices()).not.toContain('MQ-4');
    expect(first.connected).toBe(false);
  });

  it('ends the sessions of a re-initialised device: at the new password, and when asked; it signs in again with its current password', async () => {
    const closed = (clients: MqttClient[]) => Promise.all(clients.map((c) => new Promise<void>((r) => c.once('close', () => r()))));
    await dynsec.upsertDevice('MQ-7', 'old-password');
    const old = [
      await connect({ username: 'MQ-7', password: 'old-password', clientId: 'mq-7-a' }),
      await connect({ username: 'MQ-7', password: 'old-password', clientId: 'mq-7-b', protocolVersion: 5 }),
    ];
    const oldCut = closed(old);
    await dynsec.upsertDevice('MQ-7', 'new-password'); // Mosquitto ends what signed in with the old one
    await oldCut;
    await expect(connect({ username: 'MQ-7', password: 'old-password' })).rejects.toThrow();
    const current = [
      await connect({ username: 'MQ-7', password: 'new-password', clientId: 'mq-7-c' }),
      await connect({ username: 'MQ-7', password: 'new-password', clientId: 'mq-7-d', protocolVersion: 5 }),
    ];
    const cut = closed(current);
    await dynsec.endSessions('MQ-7');
    await cut;
    await connect({ username: 'MQ-7', password: 'new-password' });
    await dynsec.endSessions('MQ-404'); // no such account: nothing to end
  });

  it('removes the accounts of devices deleted while Atrium was away, and never touches its own', async () => {
    await dynsec.upsertDevice('MQ-5', 'mq-five-password');
    await dynsec.upsertDevice('MQ-6', 'mq-six-password');
    const keep = new Set((await dynsec.listDevices()).filter((s) => s !== 'MQ-6'));
    expect(await dynsec.reconcile(keep)).toEqual(['MQ-6']);
    await expect(connect({ username: 'MQ-6', password: 'mq-six-password' })).rejects.toThrow();
    await connect({ username: 'MQ-5', password: 'mq-five-password' });
    await expect(dynsec.upsertDevice(m.admin.username, 'x')).rejects.toThrow(/own account/);
    await expect(dynsec.upsertDevice('bad/#', 'x')).rejects.toThrow(/cannot be an MQTT account/);
    const roles = await dynsec.send([{ command: 'listRoles' }]);
    expect(JSON.stringify(roles)).toContain(SERVER_ROLE);
    expect(JSON.stringify(roles)).toContain(deviceRole('MQ-5'));
  });
});
