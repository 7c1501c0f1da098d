import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers.js';
import { brokerAuthCallers } from './broker-auth.routes.js';

describe('who may ask the RabbitMQ auth backend', () => {
  it('takes addresses, CIDRs and loopback, IPv4 callers on a dual-stack socket included', () => {
    const allowed = brokerAuthCallers(['loopback', '10.1.0.0/16', '192.0.2.7', 'fd00::/8']);
    expect(allowed('127.0.0.1')).toBe(true);
    expect(allowed('::1')).toBe(true);
    expect(allowed('::ffff:127.0.0.1')).toBe(true);
    expect(allowed('10.1.200.3')).toBe(true);
    expect(allowed('192.0.2.7')).toBe(true);
    expect(allowed('fd00::1')).toBe(true);
    expect(allowed('10.2.0.1')).toBe(false);
    expect(allowed('192.0.2.8')).toBe(false);
    expect(allowed('::ffff:203.0.113.5')).toBe(false);
  });
});

// The routes exist only with AMQP_URL; the broker itself is never reached in these calls.
describe('/broker-auth/rabbitmq', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      env: { AMQP_URL: 'amqp://127.0.0.1:1/', MQTT_URL: 'mqtt://127.0.0.1:1', TRUST_PROXY: 'false', BROKER_AUTH_FROM: '192.0.2.7' },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const ask = (path: string, body: Record<string, string>, from: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v0/broker-auth/rabbitmq/${path}`,
      remoteAddress: from,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(body).toString(),
    });

  it('answers the broker, and nobody else, not even whether a device exists', async () => {
    const other = await ask('user', { username: 'SN1', password: 'guess' }, '203.0.113.5');
    expect(other.statusCode).toBe(404);
    const broker = await ask('user', { username: 'SN1', password: 'guess' }, '192.0.2.7');
    expect(broker.statusCode).toBe(200);
    expect(broker.body).toBe('deny');
  });

  it("lets a device read its own subscription queue only, never another device's", async () => {
    const queue = (name: string) =>
      ask('resource', { username: 'SN1', vhost: '/', resource: 'queue', name, permission: 'read' }, '192.0.2.7').then((r) => r.body);
    expect(await queue('mqtt-subscription-SN1qos1')).toBe('allow');
    expect(await queue('mqtt-subscription-sim-SN1qos0')).toBe('allow');
    expect(await queue('mqtt-subscription-SN2qos1')).toBe('deny');
    expect(await queue('mqtt-subscription-sim-SN2qos1')).toBe('deny');
    expect(await queue('mqtt-subscription-xSN1qos1')).toBe('deny');
  });
});
