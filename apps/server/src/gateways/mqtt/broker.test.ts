import net from 'node:net';
import { deviceTopic, MQTT_MAX_PACKET_BYTES } from '@atrium/contract';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedBroker, newInternalCredential, startEmbeddedBroker } from './broker.js';
import { indexedPersistence, topicMatches } from './retained.js';

// The embedded broker refuses every client without valid credentials and keeps each device inside its own topics.

const internal = newInternalCredential();
const devices = new Map([
  ['SN-1', { password: 'device-one-password', projectId: 1, deviceId: 1 }],
  ['SN-2', { password: 'device-two-password', projectId: 1, deviceId: 2 }],
]);
const credentials = {
  verify: async (serial: string, password: string) => {
    const d = devices.get(serial);
    return d && d.password === password ? { projectId: d.projectId, deviceId: d.deviceId } : null;
  },
};
const refusals: string[] = [];
let broker: EmbeddedBroker;
const url = () => `mqtt://127.0.0.1:${broker.port}`;

beforeAll(async () => {
  broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1', credentials, internal, onRefused: (r) => refusals.push(r) });
});
afterAll(async () => {
  await broker.close();
});

/** Connects and resolves the client, or rejects with the broker's refusal. */
function connect(options: mqtt.IClientOptions = {}): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url(), { reconnectPeriod: 0, connectTimeout: 3000, ...options });
    client.once('connect', () => resolve(client));
    client.once('error', (e) => {
      client.end(true);
      reject(e);
    });
    client.once('close', () => reject(new Error('closed')));
  });
}

/** Resolves the granted QoS of a subscription, or 'closed' when the broker ends the connection instead. */
function subscribe(client: MqttClient, topic: string): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    client.once('close', () => resolve('closed'));
    client.subscribe(topic, { qos: 1 }, (err, granted) => resolve(err ? 'closed' : (granted?.[0]?.qos ?? 'closed')));
  });
}

const device = (serial: string) => ({ username: serial, password: devices.get(serial)?.password });

describe('embedded MQTT broker', () => {
  it('keeps QoS 1 messages for a device that keeps its session (clean session off) while it is away', async () => {
    const topic = deviceTopic('SN-2', 'tasks');
    const session = { ...device('SN-2'), clientId: 'sim-SN-2-kept', clean: false };
    const first = await connect(session);
    expect(await subscribe(first, topic)).toBe(1);
    await first.endAsync();
    // Published while the device is away: held for its session.
    await broker.local.publish(topic, '{"id":1}', 1);
    const received = new Promise<string>((resolve) => {
      const again = mqtt.connect(url(), { ...session, reconnectPeriod: 0, connectTimeout: 3000 });
      again.on('message', (_t, payload) => {
        resolve(payload.toString());
        again.end(true);
      });
    });
    expect(await received).toBe('{"id":1}');
  });

  it('refuses an anonymous client, a wrong password and an unknown device', async () => {
    await expect(connect()).rejects.toThrow();
    await expect(connect({ username: 'SN-1', password: 'wrong-password' })).rejects.toThrow();
    await expect(connect({ username: 'SN-404', password: 'whatever-password' })).rejects.toThrow();
    await expect(connect({ username: internal.username, password: 'not-the-internal-one' })).rejects.toThrow();
    await expect(connect({ username: 'SN/#', password: 'x' })).rejects.toThrow();
    expect(refusals).toEqual(expect.arrayContaining(['anonymous', 'bad password', 'bad user name']));
  });

  it('survives the error aedes raises for a will refused after its client left, and keeps serving', async () => {
    // aedes' will sweep authorises a will with no client; the refusal comes back as an 'error' event.
    const aedes = broker.aedes as unknown as { authorizePublish: (c: null, p: object, cb: (e?: Error | null) => void) => void };
    const refused = await new Promise<Error | null | undefined>((resolve) =>
      aedes.authorizePublish(null, { topic: 'atrium/v1/devices/SN-1/status', payload: Buffer.from('{}') }, resolve),
    );
    expect(refused).toBeInstanceOf(Error);
    broker.aedes.emit('error', new Error('not authorized'));
    expect(refusals).toContain('broker error: not authorized');
    const client = await connect(device('SN-1'));
    await client.endAsync();
  });

  it('lets a device use its own subtree only: no #, no other device, no wildcard above its own', async () => {
    const one = await connect(device('SN-1'));
    expect(await subscribe(one, `${deviceTopic('SN-1', 'tasks')}/#`)).toBe(1);
    const spy = await connect(device('SN-2'));
    for (const topic of ['#', 'atrium/v1/#', 'atrium/v1/devices/+/events', deviceTopic('SN-1', 'tasks')]) {
      const again = spy.connected ? spy : await connect(device('SN-2'));
      expect(await subscribe(again, topic), topic).not.toBe(1);
      again.end(true);
    }
    one.end(true);
  });

  it("drops a device's publish on another device's topic and delivers its own to the server", async () => {
    const server = await connect({ username: internal.username, password: internal.password });
    const seen: string[] = [];
    server.on('message', (topic) => seen.push(topic));
    expect(await subscribe(server, 'atrium/v1/devices/#')).toBe(1);
    const rogue = await connect(device('SN-2'));
    await new Promise<void>((resolve) => {
      rogue.once('close', () => resolve());
      rogue.publish(deviceTopic('SN-1', 'events'), JSON.stringify({ type: 'door_opened' }), { qos: 1 }, () => resolve());
    });
    const own = await connect(device('SN-1'));
    await new Promise<void>((resolve) => own.publish(deviceTopic('SN-1', 'events'), '{}', { qos: 1 }, () => resolve()));
    await expect.poll(() => seen).toContain(deviceTopic('SN-1', 'events'));
    expect(seen.filter((t) => t === deviceTopic('SN-1', 'events'))).toHaveLength(1);
    // The server's own client stays inside Atrium's tree as well.
    expect(await subscribe(server, '#')).not.toBe(1);
    own.end(true);
    rogue.end(true);
    server.end(true);
  });

  it('closes a connection whose packet announces more than the limit, before it is buffered', async () => {
    const socket = net.connect(broker.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    // A CONNECT header announcing MQTT_MAX_PACKET_BYTES + 1 bytes of body (variable-length encoding).
    let n = MQTT_MAX_PACKET_BYTES + 1;
    const len: number[] = [];
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      len.push(b);
    } while (n > 0);
    socket.write(Buffer.from([0x10, ...len]));
    socket.write(Buffer.alloc(1024));
    await new Promise((r) => socket.once('close', r));
    expect(socket.destroyed).toBe(true);
  });

  it('hands a QoS 1 publish the gateway took before its PUBACK to no subscriber again; one it left goes on as usual', async () => {
    const one = await connect(device('SN-1'));
    // The device itself listens on its own subtree: a taken event is not echoed to it either.
    const echoed: string[] = [];
    expect(await subscribe(one, 'atrium/v1/devices/SN-1/#')).toBe(1);
    one.on('message', (_topic, payload) => echoed.push(payload.toString()));
    const held: string[] = [];
    const release = broker.local.holdPublishes((_topic, payload, answer) => {
      const text = payload.toString();
      if (text.includes('leave')) return false;
      held.push(text);
      answer();
      return true;
    });
    const seen: string[] = [];
    const off = await broker.local.subscribe(['atrium/v1/devices/+/events'], (_topic, payload) => seen.push(payload.toString()));
    try {
      const publish = (payload: string) =>
        new Promise<void>((resolve) => one.publish(deviceTopic('SN-1', 'events'), payload, { qos: 1 }, () => resolve()));
      await publish('{"type":"take"}');
      await publish('{"type":"leave"}');
      await expect.poll(() => seen).toEqual(['{"type":"leave"}']);
      await expect.poll(() => echoed).toEqual(['{"type":"leave"}']);
      expect(held).toEqual(['{"type":"take"}']);
    } finally {
      release();
      await off();
      one.end(true);
    }
  });

  it('reads on from a connection whose PUBACKs it holds (pings answered, later events taken), unless the taker is full', async () => {
    const answers: ((notTaken?: Error) => boolean)[] = [];
    let full = false;
    const release = broker.local.holdPublishes(
      (_topic, _payload, answer) => {
        answers.push(answer);
        return true;
      },
      () => full,
    );
    const one = await connect({ ...device('SN-1'), keepalive: 1 });
    let pongs = 0;
    one.on('packetreceive', (p) => {
      if (p.cmd === 'pingresp') pongs++;
    });
    try {
      const acked: number[] = [];
      for (const i of [1, 2, 3]) one.publish(deviceTopic('SN-1', 'events'), `{"n":${i}}`, { qos: 1 }, (err) => !err && acked.push(i));
      await expect.poll(() => answers.length).toBe(3);
      // Three keep-alive periods with all three held: the client's pings are answered, it stays.
      await new Promise((r) => setTimeout(r, 3000));
      expect(pongs).toBeGreaterThanOrEqual(2);
      expect(one.connected).toBe(true);
      expect(acked).toEqual([]);
      expect(answers.map((a, i) => (i === 1 ? a() : true))).toEqual([true, true, true]);
      await expect.poll(() => acked).toEqual([2]);
      answers[0]?.();
      answers[2]?.();
      await expect.poll(() => acked.sort()).toEqual([1, 2, 3]);
      // A full taker: the connection waits for its events' commit, so nothing more is read from it
      // (aedes reads on after one more socket read per packet it waits for: three are held here).
      full = true;
      const closed = new Promise<void>((r) => one.once('close', () => r()));
      for (const i of [4, 5, 6]) one.publish(deviceTopic('SN-1', 'events'), `{"n":${i}}`, { qos: 1 }, (err) => !err && acked.push(i));
      await expect.poll(() => answers.length).toBe(6);
      const before = pongs;
      await closed; // its pings go unanswered: the client, or the broker, gives up on it
      expect(pongs).toBe(before);
      expect(acked).toEqual([1, 2, 3]);
    } finally {
      release();
      one.end(true);
    }
  });

  it("reads a device's events past, unacknowledged, while the taker is full and cannot store; once there is room it closes the connection (no will) and the device sends them again", async () => {
    const answers: ((notTaken?: Error) => boolean)[] = [];
    const deferred: string[] = [];
    let full = true;
    const release = broker.local.holdPublishes(
      (topic, _payload, answer) => {
        if (!topic.endsWith('/events')) return false;
        answers.push(answer);
        return true;
      },
      () => full,
      { takes: (topic) => topic.endsWith('/events'), away: () => true, deferred: (what) => deferred.push(what) },
    );
    const wills: string[] = [];
    const off = await broker.local.subscribe(['atrium/v1/devices/+/status'], (_topic, payload) => wills.push(payload.toString()));
    const will = {
      topic: deviceTopic('SN-1', 'status'),
      payload: Buffer.from('{"state":"offline","reason":"will"}'),
      qos: 1 as const,
      retain: false,
    };
    const one = await connect({ ...device('SN-1'), keepalive: 1, reconnectPeriod: 200, will });
    let pongs = 0;
    let reconnects = 0;
    one.on('packetreceive', (p) => {
      if (p.cmd === 'pingresp') pongs++;
    });
    one.on('reconnect', () => reconnects++);
    try {
      const acked: number[] = [];
      for (const i of [1, 2, 3]) one.publish(deviceTopic('SN-1', 'events'), `{"n":${i}}`, { qos: 1 }, (err) => !err && acked.push(i));
      await expect.poll(() => deferred.length).toBe(3);
      // Read past: nothing taken, nothing acknowledged, and the connection stays up, its pings answered.
      await new Promise((r) => setTimeout(r, 3000));
      expect(answers).toHaveLength(0);
      expect(acked).toEqual([]);
      expect(pongs).toBeGreaterThanOrEqual(2);
      expect(reconnects).toBe(0);
      // A status is no event: handled as ever while events are read past.
      await new Promise<void>((r) => one.publish(deviceTopic('SN-1', 'status'), '{"state":"online"}', { qos: 1 }, () => r()));
      await expect.poll(() => wills).toEqual(['{"state":"online"}']);
      // Room again: the connection is closed without its will, and the device sends its events again.
      full = false;
      await expect.poll(() => deferred).toEqual(['event', 'event', 'event', 'reconnect']);
      // mqtt.js sends its stored publishes again one at a time, each after the last one's PUBACK.
      for (const n of [1, 2, 3]) {
        await expect.poll(() => answers.length, { timeout: 5000 }).toBe(n);
        expect(answers[n - 1]?.()).toBe(true);
      }
      expect(reconnects).toBe(1);
      await expect.poll(() => acked.sort()).toEqual([1, 2, 3]);
      expect(wills).toEqual(['{"state":"online"}']);
    } finally {
      release();
      await off();
      one.end(true);
    }
  });

  it("links Atrium's gateway in-process: retained messages first, then what is published live, inside atrium/v1 only", async () => {
    const one = await connect(device('SN-1'));
    const status = JSON.stringify({ state: 'online' });
    await new Promise<void>((resolve) => one.publish(deviceTopic('SN-1', 'status'), status, { qos: 1, retain: true }, () => resolve()));
    const seen: { topic: string; payload: string; retained: boolean }[] = [];
    const off = await broker.local.subscribe(['atrium/v1/devices/+/status', 'atrium/v1/devices/+/events'], (topic, payload, retained) =>
      seen.push({ topic, payload: payload.toString(), retained }),
    );
    expect(seen).toEqual([{ topic: deviceTopic('SN-1', 'status'), payload: status, retained: true }]);
    await new Promise<void>((resolve) => one.publish(deviceTopic('SN-1', 'events'), '{"type":"tamper"}', { qos: 1 }, () => resolve()));
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toEqual({ topic: deviceTopic('SN-1', 'events'), payload: '{"type":"tamper"}', retained: false });

    // The server's publishes reach the device's subscription; nothing outside Atrium's tree is allowed.
    const tasks: string[] = [];
    one.on('message', (topic, payload) => tasks.push(`${topic} ${payload}`));
    expect(await subscribe(one, deviceTopic('SN-1', 'tasks'))).toBe(1);
    await broker.local.publish(deviceTopic('SN-1', 'tasks'), '{"id":1}', 1);
    await expect.poll(() => tasks).toEqual([`${deviceTopic('SN-1', 'tasks')} {"id":1}`]);
    await expect(broker.local.publish('elsewhere/topic', '{}', 0)).rejects.toThrow(/not authorized/);
    await expect(broker.local.subscribe(['#'], () => undefined)).rejects.toThrow(/not authorized/);

    // Unsubscribed: nothing more arrives. A cleared retained status is gone for the next subscriber.
    await off();
    await new Promise<void>((resolve) => one.publish(deviceTopic('SN-1', 'events'), '{"type":"tamper"}', { qos: 1 }, () => resolve()));
    await new Promise<void>((resolve) => one.publish(deviceTopic('SN-1', 'status'), '', { qos: 1, retain: true }, () => resolve()));
    const later: string[] = [];
    const off2 = await broker.local.subscribe(['atrium/v1/devices/+/status'], (topic) => later.push(topic));
    expect(seen).toHaveLength(2);
    expect(later).toEqual([]);
    await off2();
    one.end(true);
  });

  it('sends a new subscriber the retained message of its topic, found by topic, and those of a wildcard filter', async () => {
    const one = await connect(device('SN-1'));
    const two = await connect(device('SN-2'));
    for (const [c, serial] of [
      [one, 'SN-1'],
      [two, 'SN-2'],
    ] as const) {
      await new Promise<void>((resolve) =>
        c.publish(deviceTopic(serial, 'status'), `{"who":"${serial}"}`, { qos: 1, retain: true }, () => resolve()),
      );
    }
    const got: string[] = [];
    one.on('message', (topic, payload, packet) => got.push(`${topic} ${payload} ${packet.retain}`));
    expect(await subscribe(one, deviceTopic('SN-1', 'status'))).toBe(1);
    await expect.poll(() => got).toEqual([`${deviceTopic('SN-1', 'status')} {"who":"SN-1"} true`]);
    const server = await connect({ username: internal.username, password: internal.password });
    const all: string[] = [];
    server.on('message', (topic, _p, packet) => all.push(`${topic} ${packet.retain}`));
    expect(await subscribe(server, 'atrium/v1/devices/+/status')).toBe(1);
    await expect.poll(() => all.sort()).toEqual([`${deviceTopic('SN-1', 'status')} true`, `${deviceTopic('SN-2', 'status')} true`]);
    for (const [c, serial] of [
      [one, 'SN-1'],
      [two, 'SN-2'],
    ] as const) {
      await new Promise<void>((resolve) => c.publish(deviceTopic(serial, 'status'), '', { qos: 1, retain: true }, () => resolve()));
    }
    one.end(true);
    two.end(true);
    server.end(true);
  });
});

describe('retained messages by topic', () => {
  it('matches MQTT filters: + one level, # the rest and its parent, no wildcard into $ topics', () => {
    expect(topicMatches('a/b', 'a/b')).toBe(true);
    expect(topicMatches('a/b', 'a/b/c')).toBe(false);
    expect(topicMatches('a/+/c', 'a/b/c')).toBe(true);
    expect(topicMatches('a/+/c', 'a//c')).toBe(true);
    expect(topicMatches('a/+', 'a/b/c')).toBe(false);
    expect(topicMatches('a/#', 'a')).toBe(true);
    expect(topicMatches('a/#', 'a/b/c')).toBe(true);
    expect(topicMatches('#', 'a/b')).toBe(true);
    expect(topicMatches('#', '$SYS/x')).toBe(false);
    expect(topicMatches('+/x', '$SYS/x')).toBe(false);
    expect(topicMatches('$SYS/#', '$SYS/x')).toBe(true);
    expect(topicMatches('a/b/+', 'a/b')).toBe(false);
  });

  it('keeps the last retained message of a topic, clears it on an empty payload, and finds it by topic among many', async () => {
    const p = indexedPersistence();
    for (let i = 0; i < 10_000; i++) await p.storeRetained({ topic: `atrium/v1/devices/D${i}/status`, payload: Buffer.from(`s${i}`) });
    await p.storeRetained({ topic: 'atrium/v1/devices/D7/status', payload: Buffer.from('again') });
    let found = 0;
    for (let i = 0; i < 10_000; i++) found += p.retainedMatching([`atrium/v1/devices/D${i}/status`]).length;
    expect(found).toBe(10_000);
    // Ten thousand exact lookups tested no message (a scan per lookup would have tested 10^8).
    expect(p.retainedStats.tested).toBe(0);
    expect(p.retainedMatching(['atrium/v1/devices/D7/status']).map((m) => String(m.payload))).toEqual(['again']);
    expect(p.retainedMatching(['atrium/v1/devices/+/status'])).toHaveLength(10_000);
    expect(p.retainedStats.tested).toBe(10_000);
    expect(p.retainedMatching(['atrium/v1/devices/D1/#', 'atrium/v1/devices/D2/tasks'])).toHaveLength(1);
    await p.storeRetained({ topic: 'atrium/v1/devices/D7/status', payload: Buffer.alloc(0) });
    expect(p.retainedMatching(['atrium/v1/devices/D7/status'])).toEqual([]);
    const streamed: unknown[] = [];
    for await (const m of p.createRetainedStreamCombi(['atrium/v1/devices/D8/status', 'atrium/v1/devices/D9/status'])) streamed.push(m);
    expect(streamed).toHaveLength(2);
  });
});
