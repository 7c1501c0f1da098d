// Devices on RabbitMQ (AMQP_URL): a RabbitMQ node of the test's own (its MQTT plugin for the devices,
// its HTTP auth backend asking Atrium who may sign in), two Atrium processes (src/main.ts) on one
// PostgreSQL database reading the devices' messages over AMQP as competing consumers of one durable
// queue. A simulated device signs in with the password init gave, runs its init task (published over
// AMQP, delivered by the plugin), and sends events while one instance is killed (-9): every event is
// stored exactly once.
import { SimDevice } from '@atrium/device-sim';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RabbitNode, rabbitmqAvailable, startRabbitNode } from '../src/gateways/mqtt/rabbitmq.test-broker.js';
import { freePort, type Instance, InstanceRig, kill9, waitFor } from './instances.js';

const PG = process.env.TEST_DATABASE_URL;
if (!rabbitmqAvailable())
  console.warn('rabbitmq-devices.test: skipped, no rabbitmq-server (Debian package rabbitmq-server) on this machine');
if (!PG) console.warn('rabbitmq-devices.test: skipped, needs TEST_DATABASE_URL (PostgreSQL: two instances share it)');

const rig = new InstanceRig(
  PG ?? '',
  'rabbit',
  { login: 'admin', password: 'rabbit-admin-pass-1' },
  'rabbit-test-secret-rabbit-test-secret-1',
);
const sims: SimDevice[] = [];
let node: (RabbitNode & { cookie: string; epmdPort: number }) | null = null;
let second: RabbitNode | null = null;
let authUrl = '';

const psql = (sqlText: string) => rig.psql(sqlText);
const signIn = async (base: string) => (await rig.signIn(base)).api;

let a: Instance;
let b: Instance;

describe.runIf(PG && rabbitmqAvailable())('devices on RabbitMQ (AMQP_URL)', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    rig.createDatabase();
    const [portA, portB] = [await freePort(), await freePort()];
    // RabbitMQ asks the instance that stays (in a deployment: the proxy in front of them all).
    authUrl = `http://127.0.0.1:${portB}/api/v0/broker-auth/rabbitmq`;
    node = await startRabbitNode({ authUrl });
    const env = { AMQP_URL: node.amqpUrl, MQTT_URL: node.mqttUrl };
    a = await rig.start('rabbit-a', { port: portA, env });
    b = await rig.start('rabbit-b', { port: portB, env });
  }, 320_000);

  afterAll(async () => {
    for (const s of sims.splice(0)) await s.stop({ graceful: false }).catch(() => undefined);
    // The instances first (they consume from the nodes), then the nodes, then the database.
    await rig.close();
    await second?.stop();
    await node?.stop();
  }, 60_000);

  it('a device signs in through Atrium, runs its init task, and its events are stored once across a kill -9 of a consuming instance', async () => {
    const rabbit = node as RabbitNode;
    expect(a.output()).toContain('(RabbitMQ; Atrium reads over AMQP');
    const api = await signIn(b.base);
    const root = ((await api('GET', '/domains')).data as unknown as { id: number }[])[0]!.id;
    const created = await api('PUT', '/devices', { name: 'Rabbit gate', model: 'AP-100', serial_number: 'RABBIT-1', domain_id: root });
    expect(created.status).toBe(200);
    const id = created.data.id as number;
    const init = (await api('POST', `/devices/${id}/init/apply`, {})).data as { password: string; task: { id: number } };

    // A wrong password, or another device's topics, are refused by RabbitMQ on Atrium's word.
    const wrong = new SimDevice({ url: rabbit.mqttUrl, serial: 'RABBIT-1', password: 'not-the-password', reconnectMs: 0 });
    await expect(wrong.start()).rejects.toThrow();
    await wrong.stop({ graceful: false });

    const sim = new SimDevice({ url: rabbit.mqttUrl, serial: 'RABBIT-1', password: init.password, heartbeatMs: 500 });
    sims.push(sim);
    await sim.start();
    const task = async () => {
      const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'id', operator: 'equals', value: init.task.id }] }));
      return ((await api('GET', `/devices/tasks?filters=${filters}`)).data as unknown as { state: string }[])[0]?.state;
    };
    // The task went out over AMQP to amq.topic, the plugin delivered it, the result came back on the queue.
    await waitFor(
      async () => (await task()) === 'completed',
      () => `init task completed (${sim.initialized})`,
      30_000,
    );
    await waitFor(
      async () => (await api('GET', `/devices/${id}`)).data.online === true,
      () => 'device online',
      10_000,
    );

    // Not its topics: RabbitMQ refuses a publish under another device's subtree on Atrium's word
    // (topic authorization; the plugin closes the connection), so nothing is stored for RABBIT-2.
    expect((await api('PUT', '/devices', { name: 'Other', model: 'AP-100', serial_number: 'RABBIT-2', domain_id: root })).status).toBe(200);
    const intruder = await mqtt.connectAsync(rabbit.mqttUrl, {
      username: 'RABBIT-1',
      password: init.password,
      clientId: 'intruder',
      reconnectPeriod: 0,
    });
    const sent = intruder.publishAsync('atrium/v1/devices/RABBIT-2/events', JSON.stringify({ type: 'door_opened', event_id: 'x' }), {
      qos: 1,
    });
    await Promise.race([sent.catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
    await intruder.endAsync(true).catch(() => undefined);

    // Both instances consume the one queue.
    await waitFor(
      async () =>
        (await rabbit.ctl('list_consumers', '-q', 'queue_name')).split('\n').filter((l) => l.trim() === 'atrium.devices').length === 2,
      () => 'two consumers of atrium.devices',
      20_000,
    );
    const log = (what: string) => console.log(`rabbitmq-devices: ${what}`);
    log('consumed by both instances; sending');
    const total = 400;
    for (let i = 0; i < total; i++) {
      if (i === 150) await kill9(a);
      await sim.event({ type: 'door_opened', identifier: null, data: { lock: 1, by: 'button', n: i } });
    }
    const counts = () =>
      psql(`SELECT count(*) || '/' || count(DISTINCT event_id) FROM device_events WHERE device_id = ${id} AND type = 'door_opened'`);
    await waitFor(
      () => counts() === `${total}/${total}`,
      () => `events stored ${counts()} of ${total}`,
      30_000,
    );
    // And none more after a while (a message taken by the killed instance is not stored twice).
    await new Promise((r) => setTimeout(r, 1000));
    expect(counts()).toBe(`${total}/${total}`);
    console.log(`RabbitMQ: ${total} events, stored ${counts()} (rows/distinct) across a kill -9 of one of two consuming instances`);
    expect(Number(psql(`SELECT count(*) FROM device_events WHERE event_id = 'x'`))).toBe(0);
  });

  it('two clustered nodes, a device on each: the second node’s device signs in, runs its init task and its events are stored', async () => {
    const first = node as RabbitNode & { cookie: string; epmdPort: number };
    second = await startRabbitNode({ authUrl, joinOf: first });
    const members = await first.ctl('cluster_status', '--formatter', 'json');
    expect(members).toContain(second.name);
    const api = await signIn(b.base);
    const root = ((await api('GET', '/domains')).data as unknown as { id: number }[])[0]!.id;
    const created = await api('PUT', '/devices', { name: 'Second node gate', model: 'AP-100', serial_number: 'RABBIT-3', domain_id: root });
    expect(created.status).toBe(200);
    const id = created.data.id as number;
    const init = (await api('POST', `/devices/${id}/init/apply`, {})).data as { password: string; task: { id: number } };
    // Atrium reads from the first node; this device is on the second: the cluster routes both ways.
    const sim = new SimDevice({ url: second.mqttUrl, serial: 'RABBIT-3', password: init.password, heartbeatMs: 500 });
    sims.push(sim);
    await sim.start();
    await waitFor(
      () => sim.initialized,
      () => 'init task delivered through the other node',
      30_000,
    );
    for (let i = 0; i < 50; i++) await sim.event({ type: 'door_opened', identifier: null, data: { lock: 1, by: 'button', n: i } });
    const counts = () => psql(`SELECT count(*) || '/' || count(DISTINCT event_id) FROM device_events WHERE device_id = ${id}`);
    await waitFor(
      () => counts() === '50/50',
      () => `events of the second node’s device stored ${counts()}`,
      30_000,
    );
  }, 240_000);
});
