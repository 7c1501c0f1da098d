import net from 'node:net';
import { mqttTopics } from '@atrium/contract';
import { encodePublish, LeanMqttClient, SimDevice } from '@atrium/device-sim';
import mqttPacket from 'mqtt-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { newInternalCredential, startEmbeddedBroker } from './broker.js';
import { MemoryCredentials } from './test-brokers.js';

// device-sim's lean MQTT client (the benchmark fleet's) on its own, where the device suite
// (gateway.test.ts) does not reach: keep-alive, a lost broker and its return, publishes in flight
// when the connection drops, a refusal. Against the embedded broker, a real one on TCP.

const credentials = new MemoryCredentials();
credentials.set('LEAN-1', 'lean-secret');

async function broker(port = 0) {
  return startEmbeddedBroker({ port, host: '127.0.0.1', credentials, internal: newInternalCredential() });
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
});

const client = (port: number, opts: Partial<ConstructorParameters<typeof LeanMqttClient>[1]> = {}) => {
  const c = new LeanMqttClient(`mqtt://127.0.0.1:${port}`, {
    username: 'LEAN-1',
    password: 'lean-secret',
    clientId: 'sim-LEAN-1',
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 3000,
    keepalive: 30,
    ...opts,
  });
  c.on('error', () => undefined);
  closers.push(() => c.endAsync(true));
  return c;
};

const connected = (c: LeanMqttClient) => new Promise<void>((resolve) => c.once('connect', () => resolve()));

describe('the lean MQTT client', () => {
  it('keeps an idle connection alive with PINGREQ (the broker drops a client silent for 1.5 × keep-alive)', async () => {
    const b = await broker();
    closers.push(() => b.close());
    const c = client(b.port, { keepalive: 1 });
    await connected(c);
    let closed = false;
    c.on('close', () => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 3500));
    expect(closed).toBe(false);
    expect(c.connected).toBe(true);
    await c.publishAsync(mqttTopics.heartbeat('LEAN-1'), '{"uptime":1}', { qos: 1 });
  });

  it('drops a connection whose broker stops answering PINGREQ, and says so', async () => {
    // A broker that accepts the connection and then goes silent (a half-open link).
    const silent = net.createServer((socket) => {
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      parser.on('packet', (p) => {
        if (p.cmd === 'connect') socket.write(mqttPacket.generate({ cmd: 'connack', returnCode: 0, sessionPresent: false }));
      });
      socket.on('data', (d) => parser.parse(d));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    closers.push(() => new Promise((r) => silent.close(r)));
    const c = client((silent.address() as net.AddressInfo).port, { keepalive: 1 });
    const errors: string[] = [];
    c.on('error', (e) => errors.push(e.message));
    await connected(c);
    const t0 = Date.now();
    await new Promise<void>((r) => c.once('close', () => r()));
    expect(errors).toContain('Keepalive timeout');
    // A ping after half a period of silence, dropped unanswered half a period later.
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it('fails the publishes still waiting for their PUBACK when the connection drops, then reconnects when the broker is back', async () => {
    const b = await broker();
    const port = b.port;
    const c = client(port, { reconnectPeriod: 200 });
    await connected(c);
    // Published and, before any PUBACK can arrive, the connection is cut.
    const inFlight = c.publishAsync(mqttTopics.events('LEAN-1'), JSON.stringify({ type: 'tamper', data: {} }), { qos: 1 });
    c.stream?.destroy();
    await expect(inFlight).rejects.toThrow(/Connection closed/);
    await connected(c);
    await b.close();
    await expect.poll(() => c.connected).toBe(false);
    await expect(c.publishAsync(mqttTopics.events('LEAN-1'), '{}', { qos: 1 })).rejects.toThrow(/not connected/);
    const again = await broker(port);
    closers.push(() => again.close());
    await connected(c);
    await c.publishAsync(mqttTopics.events('LEAN-1'), JSON.stringify({ type: 'tamper', data: {} }), { qos: 1 });
  });

  it('says why the broker refused it, and does not try again', async () => {
    const b = await broker();
    closers.push(() => b.close());
    const c = new LeanMqttClient(`mqtt://127.0.0.1:${b.port}`, {
      username: 'LEAN-1',
      password: 'wrong',
      clientId: 'sim-LEAN-1',
      protocolVersion: 4,
      reconnectPeriod: 100,
      connectTimeout: 3000,
      keepalive: 30,
    });
    closers.push(() => c.endAsync(true));
    const error = await new Promise<Error>((resolve) => c.once('error', resolve));
    expect(error.message).toMatch(/^Connection refused: (Bad username or password|Not authorized)$/);
    let reconnects = 0;
    c.on('reconnect', () => reconnects++);
    await new Promise((r) => setTimeout(r, 400));
    expect(reconnects).toBe(0);
    expect(c.connected).toBe(false);
  });

  it('runs a simulated device: online, a task answered, events acknowledged', async () => {
    const b = await broker();
    closers.push(() => b.close());
    const d = new SimDevice({
      url: `mqtt://127.0.0.1:${b.port}`,
      serial: 'LEAN-1',
      password: 'lean-secret',
      client: 'lean',
      reconnectMs: 0,
    });
    closers.push(() => d.stop({ graceful: false }));
    await d.start();
    expect(d.connected).toBe(true);
    await Promise.all(Array.from({ length: 100 }, (_, i) => d.event({ type: 'sensor', data: { sensor: 'lean', value: i } })));
    await d.stop();
    expect(d.connected).toBe(false);
  });

  it('encodes PUBLISH byte for byte as mqtt-packet does (3.1.1 and 5, QoS 0 and 1, retained, every length class)', () => {
    for (const protocolVersion of [4, 5] as const)
      for (const qos of [0, 1] as const)
        for (const retain of [false, true])
          for (const size of [0, 10, 120, 127, 128, 16_000, 16_384, 70_000, 2_100_000]) {
            const payload = 'é'.repeat(Math.floor(size / 2)) + 'x'.repeat(size % 2);
            for (const p of [payload, Buffer.from(payload)]) {
              const messageId = qos ? 1 + (size % 65535) : 0;
              const expected = mqttPacket.generate(
                {
                  cmd: 'publish',
                  topic: 'atrium/v1/devices/SN-ü/events',
                  payload: p,
                  qos,
                  retain,
                  dup: false,
                  ...(qos ? { messageId } : {}),
                },
                { protocolVersion },
              );
              expect(encodePublish('atrium/v1/devices/SN-ü/events', p, qos, retain, messageId, protocolVersion).equals(expected)).toBe(
                true,
              );
            }
          }
  });

  it('refuses a URL it cannot speak', () => {
    expect(
      () =>
        new LeanMqttClient('mqtts://127.0.0.1:8883', {
          username: 'x',
          password: 'y',
          clientId: 'z',
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 1000,
          keepalive: 30,
        }),
    ).toThrow(/mqtt:\/\/ only/);
  });
});
