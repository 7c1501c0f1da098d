import type { EmergencyPlayback, Lockdown } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { en, ru } from './messages';
import { alertBody, lockdownInMotion, playbackInMotion, soundFileProblem, validateRecipients } from './shared';

const device = (play: string | null, stop: string | null = null, locks: string[] = []) => ({
  device_id: 1,
  device_name: 'Monitor',
  device_type: 'monitor',
  online: true,
  play: play ? { task_id: 1, state: play as 'completed', error: null } : null,
  stop: stop ? { task_id: 2, state: stop as 'completed', error: null } : null,
  locks: locks.map((s, i) => ({ lock: i + 1, task_id: 10 + i, state: s as 'completed', error: null })),
});
const playback = (stopped: boolean, devices: ReturnType<typeof device>[]): EmergencyPlayback => ({
  id: 1,
  alert_id: 1,
  started_at: '2026-11-23T10:00:00Z',
  started_by: 1,
  stopped_at: stopped ? '2026-11-23T10:01:00Z' : null,
  stopped_by: null,
  devices,
  summary: { devices: devices.length, played: 0, failed: 0, pending: 0, locks_opened: 0 },
});

describe('the emergency alert form', () => {
  it('sends only the alert’s own fields, with numbers and empty lists as the server takes them', () => {
    expect(
      alertBody({
        id: 4,
        name: 'Fire',
        device_type: 'monitor',
        playback_duration: '90',
        open_locks: true,
        domains: [3],
        devices: null,
        audio_url: '/x',
        status: 'idle',
        domains_info: [{ id: 3, name: 'A' }],
      }),
    ).toEqual({ name: 'Fire', device_type: 'monitor', playback_duration: 90, open_locks: true, domains: [3], devices: [] });
  });

  it('asks for recipients: a group or a device', () => {
    expect(validateRecipients({ domains: [], devices: [] })).toEqual({ domains: 'validation.required' });
    expect(validateRecipients({})).toEqual({ domains: 'validation.required' });
    expect(validateRecipients({ domains: [], devices: [7] })).toEqual({});
    expect(validateRecipients({ domains: [1] })).toEqual({});
  });

  it('refuses a sound file outside the bounds in kb before sending it', () => {
    expect(soundFileProblem({ size: 5120 * 1024 + 1 })).toBe('too_large');
    expect(soundFileProblem({ size: 1023 })).toBe('too_small');
    expect(soundFileProblem({ size: 5120 * 1024 })).toBeNull();
    expect(soundFileProblem({ size: 1024 })).toBeNull();
  });
});

describe('the live playback', () => {
  it('is read again while it plays or a device has not answered, and no longer once all is told', () => {
    expect(playbackInMotion(null)).toBe(false);
    expect(playbackInMotion(playback(false, [device('completed')]))).toBe(true);
    expect(playbackInMotion(playback(true, [device('completed', 'queued')]))).toBe(true);
    expect(playbackInMotion(playback(true, [device('completed', 'completed', ['started'])]))).toBe(true);
    expect(playbackInMotion(playback(true, [device('completed', 'completed', ['completed']), device('stopped')]))).toBe(false);
  });

  it('follows a lockdown until every door answered', () => {
    const l = (lock: string, release: string | null): Lockdown => ({
      id: 1,
      domain_id: 1,
      domain_name: 'A',
      reason: null,
      active: true,
      started_at: '2026-11-23T10:00:00Z',
      started_by: 1,
      started_by_name: 'Admin',
      ended_at: null,
      ended_by: null,
      ended_by_name: null,
      devices: [
        {
          device_id: 1,
          device_name: 'Door',
          online: true,
          lock: { task_id: 1, state: lock as 'completed', error: null },
          release: release ? { task_id: 2, state: release as 'completed', error: null } : null,
        },
      ],
    });
    expect(lockdownInMotion(l('waiting', null))).toBe(true);
    expect(lockdownInMotion(l('completed', null))).toBe(false);
    expect(lockdownInMotion(l('completed', 'queued'))).toBe(true);
  });
});

describe('the texts', () => {
  it('exist in Russian for every English key', () => {
    const keys = (o: object, p = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v, `${p}${k}.`) : [`${p}${k}`]));
    expect(keys(ru).sort()).toEqual(keys(en).sort());
  });
});
