import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { type EmbeddedBroker, newInternalCredential, startEmbeddedBroker } from '../../gateways/mqtt/broker.js';

// The devices table behind the real embedded broker: the password set at init is the one a device signs in with.

let t: TestApp;
let broker: EmbeddedBroker;
beforeAll(async () => {
  t = await buildTestApp();
  broker = await startEmbeddedBroker({
    port: 0,
    host: '127.0.0.1',
    credentials: t.app.services.devices,
    internal: newInternalCredential(),
  });
});
afterAll(async () => {
  await broker.close();
  await t.close();
});

function connect(username: string, password: string): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(`mqtt://127.0.0.1:${broker.port}`, { username, password, reconnectPeriod: 0, connectTimeout: 3000 });
    client.once('connect', () => resolve(client));
    client.once('error', (e) => {
      client.end(true);
      reject(e);
    });
    client.once('close', () => reject(new Error('closed')));
  });
}

describe('device sign-in to the embedded broker', () => {
  it('accepts the password set at init, and refuses a wrong one, an uninitialised device and one on another protocol', async () => {
    const admin = await adminClient(t);
    const d = (
      await admin.put('/devices', { name: 'Door', model: 'AP-100', serial_number: 'BRK-1', domain_id: t.project.rootGroupId })
    ).json().data as { id: number };
    await expect(connect('BRK-1', 'anything-at-all')).rejects.toThrow();
    const { password } = (await admin.post(`/devices/${d.id}/init/apply`, {})).json().data as { password: string };
    const client = await connect('BRK-1', password);
    await client.endAsync();
    await expect(connect('BRK-1', `${password}x`)).rejects.toThrow();
    await admin.post(`/devices/${d.id}/protocol`, { protocol: 'none' });
    await expect(connect('BRK-1', password)).rejects.toThrow();
  });
});
