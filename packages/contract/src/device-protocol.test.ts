import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEVICE_MESSAGE_MAX_BYTES, DEVICE_MESSAGE_SCHEMAS, decodeDeviceMessage, TaskMessageSchema } from './device-protocol.js';
import { DEVICE_EVENT_TYPES, DEVICE_TASK_TYPES, DiscoveryAnswerSchema } from './devices.js';
import { DEVICE_TOPICS, type DeviceTopicLeaf, mqttTopics, parseDeviceTopic } from './mqtt-topics.js';

// docs/device-protocol.md is the protocol's description: every example in it must be a valid
// message, and every topic, task type and event type must have one.

const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/device-protocol.md'), 'utf8');
const examples = [...doc.matchAll(/```json ([a-z-]+)\n([\s\S]*?)```/g)].map((m) => ({ leaf: m[1] as string, json: m[2] as string }));

describe('docs/device-protocol.md', () => {
  it('has an example on every topic, of every task type and of every event type', () => {
    const leaves = new Set(examples.map((e) => e.leaf));
    for (const leaf of Object.values(DEVICE_TOPICS)) expect(leaves, leaf).toContain(leaf);
    const tasks = examples.filter((e) => e.leaf === 'tasks').map((e) => JSON.parse(e.json).type);
    expect(new Set(tasks)).toEqual(new Set(DEVICE_TASK_TYPES));
    const events = examples.filter((e) => e.leaf === 'events').map((e) => JSON.parse(e.json).type);
    expect(new Set(events)).toEqual(new Set(DEVICE_EVENT_TYPES));
  });

  it.each(examples.map((e, i) => [i + 1, e.leaf, e.json] as const))('example %i (%s) is a valid message', (_i, leaf, json) => {
    if (leaf === 'discovery') {
      expect(DiscoveryAnswerSchema.safeParse(JSON.parse(json)).error).toBeUndefined();
      return;
    }
    const decoded = decodeDeviceMessage(leaf as DeviceTopicLeaf, json);
    expect(decoded, JSON.stringify(decoded)).toMatchObject({ ok: true });
  });
});

describe('device messages', () => {
  it('refuses what is too large, not JSON or not the schema, without throwing', () => {
    expect(decodeDeviceMessage('events', 'x'.repeat(DEVICE_MESSAGE_MAX_BYTES.events + 1))).toMatchObject({
      ok: false,
      reason: 'too_large',
    });
    expect(decodeDeviceMessage('events', '{"type":')).toMatchObject({ ok: false, reason: 'not_json' });
    expect(decodeDeviceMessage('events', '{"type":"explosion"}')).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decodeDeviceMessage('events', '{"type":"access_granted"}')).toMatchObject({
      ok: false,
      reason: 'invalid',
      detail: expect.stringContaining('identifier'),
    });
    expect(decodeDeviceMessage('task-updates', '{"task_id":1,"state":"error"}')).toMatchObject({
      ok: false,
      reason: 'invalid',
      detail: expect.stringContaining('error'),
    });
    expect(decodeDeviceMessage('status', '{"state":"online","type":"toaster","model":"T","firmware":"1","heartbeat":30}')).toMatchObject({
      ok: false,
    });
    expect(decodeDeviceMessage('heartbeat', 'null')).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('takes ids only within the integer columns they name (1 to 2147483647), and sync requests only with a known reason', () => {
    const update = (id: string) => decodeDeviceMessage('task-updates', `{"task_id":${id},"state":"completed"}`);
    expect(update('2147483647')).toMatchObject({ ok: true });
    for (const id of ['2147483648', '9007199254740993', '1e300', '0', '-1', '1.5', '"7"']) {
      expect(update(id), id).toMatchObject({ ok: false, reason: 'invalid' });
    }
    expect(decodeDeviceMessage('sync-acks', '{"task_id":4294967296}')).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decodeDeviceMessage('sync-requests', '{"reason":"empty","identifiers":0}')).toMatchObject({ ok: true });
    expect(decodeDeviceMessage('sync-requests', '{"reason":"bored"}')).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decodeDeviceMessage('sync-requests', '{}')).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('fills defaults and keeps fields it does not know', () => {
    const m = decodeDeviceMessage('events', '{"type":"door_opened","firmware_extra":1}');
    expect(m).toMatchObject({ ok: true, message: { type: 'door_opened', data: { lock: 1 }, firmware_extra: 1 } });
    expect(TaskMessageSchema.parse({ id: 1, type: 'play_audio', payload: { name: 'chime' } }).payload).toMatchObject({ repeat: 1 });
    expect(TaskMessageSchema.safeParse({ id: 1, type: 'open_lock', payload: { lock: 0 } }).success).toBe(false);
    expect(TaskMessageSchema.safeParse({ id: 1, type: 'self_destruct', payload: {} }).success).toBe(false);
  });

  it('builds and parses topics, refusing anything outside a device subtree', () => {
    expect(mqttTopics.tasks('SN-1')).toBe('atrium/v1/devices/SN-1/tasks');
    expect(mqttTopics.allDevices('events')).toBe('atrium/v1/devices/+/events');
    expect(parseDeviceTopic('atrium/v1/devices/SN-1/task-updates')).toEqual({ serial: 'SN-1', leaf: 'task-updates' });
    for (const bad of [
      'atrium/v2/devices/SN-1/events',
      'atrium/v1/devices/SN-1/events/x',
      'atrium/v1/devices/S N/events',
      'atrium/v1/devices/SN-1/nope',
      'other',
    ]) {
      expect(parseDeviceTopic(bad), bad).toBeNull();
    }
    expect(Object.keys(DEVICE_MESSAGE_SCHEMAS).sort()).toEqual(Object.values(DEVICE_TOPICS).sort());
  });
});
