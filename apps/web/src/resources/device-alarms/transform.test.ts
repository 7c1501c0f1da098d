import { describe, expect, it } from 'vitest';
import { en } from './messages';
import { alarmTitle, callDuration, kindText, logInfo, logText } from './transform';

const translate = (key: string, options?: Record<string, unknown>) => {
  const value = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], en);
  if (typeof value !== 'string') return key;
  return value.replace(/%\{(\w+)\}/g, (_, name: string) => String(options?.[name] ?? ''));
};

describe('device alarm texts', () => {
  it('name known kinds and keep a device’s own kind as it said it', () => {
    expect(kindText('fire', translate)).toBe('Fire');
    expect(kindText('tamper', translate)).toBe('Tamper');
    expect(kindText('smoke-2', translate)).toBe('smoke-2');
    expect(alarmTitle({ kind: 'sensor', zone: 'door_contact_1' }, translate)).toBe('Sensor · door_contact_1');
    expect(alarmTitle({ kind: 'device', zone: null }, translate)).toBe('Device alarm');
  });

  it('tell each log step, with who processed it and the device’s words without its event id', () => {
    expect(logText({ event: 'processed', user: { id: 3, name: 'Anna' } }, translate)).toBe('Processed by Anna');
    expect(logText({ event: 'disabled', user: null }, translate)).toBe('The device cleared the alarm');
    expect(logInfo({ event_id: 'AP-1', kind: 'fire', zone: 'entrance' })).toBe('fire · entrance');
    expect(logInfo({ part: 'front cover' })).toBe('front cover');
    expect(logInfo({})).toBe('');
  });

  it('give a call’s length as m:ss or h:mm:ss', () => {
    expect(callDuration(0)).toBe('');
    expect(callDuration(65)).toBe('1:05');
    expect(callDuration(3725)).toBe('1:02:05');
  });
});
