import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('has the embedded defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: undefined,
      mqttUrl: undefined,
      mqttPort: 1883,
      publicUrl: 'http://localhost:8080',
      logLevel: 'info',
    });
    expect(c.dataDir).toMatch(/data$/);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ MQTT_PORT: '0' }, 'MQTT_PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ MQTT_URL: 'http://broker' }, 'MQTT_URL'],
    [{ MQTT_DYNSEC: 'yes', MQTT_URL: 'mqtt://admin:pw@broker' }, 'MQTT_DYNSEC'],
    [{ MQTT_DYNSEC: 'true' }, 'MQTT_DYNSEC'],
    [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ADMIN_PASSWORD: 'short' }, 'ADMIN_PASSWORD'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.1,proxy.example' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '-1' }, 'TRUST_PROXY'],
    // Fastify 5.12.1 ignores hop counts (trusts no one): refused rather than silently meaningless.
    [{ TRUST_PROXY: '1' }, 'TRUST_PROXY'],
  ])('stops with a message naming the variable for %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(name));
  });

  it('reads the server SMTP from SMTP_URL', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://mailer:p%40ss@mail.example.org', SMTP_FROM: 'Atrium <a@example.org>' }).smtp).toEqual({
      host: 'mail.example.org',
      port: 465,
      secure: true,
      user: 'mailer',
      password: 'p@ss',
      from: 'Atrium <a@example.org>',
    });
    expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).smtp).toMatchObject({
      port: 2525,
      secure: false,
      user: null,
      from: 'Atrium <atrium@127.0.0.1>',
    });
    expect(loadConfig({}).smtp).toBeNull();
    expect(() => loadConfig({ SMTP_URL: 'http://mail' })).toThrow(/SMTP_URL/);
  });

  it("takes the device plane thread's nice value from 0 to 19, 0 by default", () => {
    expect(loadConfig({}).devicePlaneNice).toBe(0);
    expect(loadConfig({ DEVICE_PLANE_NICE: '10' }).devicePlaneNice).toBe(10);
    for (const bad of ['20', '-1', '2.5', 'low']) expect(() => loadConfig({ DEVICE_PLANE_NICE: bad })).toThrow(/DEVICE_PLANE_NICE/);
  });

  it('believes no X-Forwarded-For unless TRUST_PROXY says whose', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'TRUE' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,192.168.0.0/255.255.0.0,loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      '192.168.0.0/255.255.0.0',
      'loopback',
    ]);
  });

  it('refuses a production server (NODE_ENV=production) without LICENSE_PUBLIC_KEY, naming the variable; with it, or not in production, it starts', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'Production' })).toThrow(/LICENSE_PUBLIC_KEY is required when NODE_ENV=production/);
    expect(() => loadConfig({ NODE_ENV: 'production', LICENSE_PUBLIC_KEY: '' })).toThrow(/LICENSE_PUBLIC_KEY/);
    const key = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const prod = loadConfig({ NODE_ENV: 'production', LICENSE_PUBLIC_KEY: key });
    expect(prod.production).toBe(true);
    expect(prod.license.publicKey).toBe(key);
    expect(loadConfig({ NODE_ENV: 'development' }).production).toBe(false);
    expect(loadConfig({}).production).toBe(false);
  });

  it('reads the RabbitMQ queue name and the shared subscription switch for several instances', () => {
    const rabbit = { AMQP_URL: 'amqp://atrium:secret@127.0.0.1:5672', MQTT_URL: 'mqtt://127.0.0.1:1883' };
    expect(loadConfig(rabbit).amqpQueue).toBe('atrium.devices');
    expect(loadConfig({ ...rabbit, AMQP_QUEUE: 'site-2.devices' }).amqpQueue).toBe('site-2.devices');
    expect(() => loadConfig({ ...rabbit, AMQP_QUEUE: 'amq.devices' })).toThrow(/AMQP_QUEUE must be/);
    expect(() => loadConfig({ ...rabbit, AMQP_QUEUE: 'two words' })).toThrow(/AMQP_QUEUE must be/);
    expect(loadConfig({ MQTT_URL: 'mqtt://127.0.0.1:1883' }).mqttShared).toBe(false);
    expect(loadConfig({ MQTT_URL: 'mqtt://127.0.0.1:1883', MQTT_SHARED_SUBSCRIPTION: 'true' }).mqttShared).toBe(true);
  });

  it('puts Kamailio at the SIP edge only when asked, on PostgreSQL, answering only SIP_EDGE_FROM', () => {
    expect(loadConfig({}).sip.edge).toBeNull();
    const db = { DATABASE_URL: 'postgres://atrium@10.0.0.2/atrium' };
    expect(loadConfig({ ...db, SIP_EDGE: 'kamailio' }).sip.edge).toEqual({ from: ['loopback'], rpc: [], wsUrl: null });
    expect(loadConfig({ ...db, SIP_EDGE: 'kamailio', SIP_EDGE_FROM: '10.0.0.5, 10.1.0.0/16' }).sip.edge).toEqual({
      from: ['10.0.0.5', '10.1.0.0/16'],
      rpc: [],
      wsUrl: null,
    });
    const ws = { SIP_EDGE_WS_URL: 'wss://sip.example.org:8443' };
    expect(loadConfig({ ...db, SIP_EDGE: 'kamailio', ...ws }).sip.edge?.wsUrl).toBe('wss://sip.example.org:8443');
    expect(() => loadConfig({ ...db, SIP_EDGE: 'kamailio', SIP_EDGE_WS_URL: 'sip.example.org:8443' })).toThrow(/SIP_EDGE_WS_URL/);
    const rpc = { SIP_EDGE_RPC: 'http://10.0.0.5:5071/RPC, http://10.0.0.6:5071/RPC' };
    expect(loadConfig({ ...db, SIP_EDGE: 'kamailio', ...rpc }).sip.edge?.rpc).toEqual([
      'http://10.0.0.5:5071/RPC',
      'http://10.0.0.6:5071/RPC',
    ]);
    expect(() => loadConfig({ ...db, SIP_EDGE: 'kamailio', SIP_EDGE_RPC: '10.0.0.5:5071' })).toThrow(/SIP_EDGE_RPC/);
    expect(() => loadConfig({ SIP_EDGE: 'kamailio' })).toThrow(/SIP_EDGE=kamailio needs DATABASE_URL/);
    expect(() => loadConfig({ ...db, SIP_EDGE: 'opensips' })).toThrow(/SIP_EDGE must be embedded or kamailio/);
    expect(() => loadConfig({ ...db, SIP_EDGE: 'kamailio', SIP_EDGE_FROM: 'kamailio.local' })).toThrow(/SIP_EDGE_FROM/);
  });

  it('treats empty variables as absent', () => {
    expect(loadConfig({ DATABASE_URL: '' }).databaseUrl).toBeUndefined();
  });
});
