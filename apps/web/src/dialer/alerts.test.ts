import { describe, expect, it, vi } from 'vitest';
import { type NotificationApi, notifyIncoming, patternLength, RingTone, ringPattern } from './alerts';

function fakeApi(permission: NotificationPermission) {
  const shown: { title: string; options?: NotificationOptions }[] = [];
  const requestPermission = vi.fn(async () => 'granted' as NotificationPermission);
  class N {
    static permission = permission;
    static requestPermission = requestPermission;
    onclick: ((ev: unknown) => unknown) | null = null;
    close = vi.fn();
    constructor(title: string, options?: NotificationOptions) {
      shown.push({ title, options });
    }
  }
  return { api: N as unknown as NotificationApi, shown, requestPermission };
}

describe('incoming call alerts', () => {
  it('rings in bursts, and an SOS call sounds a siren without pause', () => {
    expect(patternLength(ringPattern(false))).toBe(3000);
    expect(ringPattern(true).steps.every((s) => s.freqs.length > 0)).toBe(true);
  });

  it('shows a desktop notification only when permitted, asks when undecided, none without support', () => {
    const text = { title: 'Incoming call', body: '500', tag: 'call-1' };
    const granted = fakeApi('granted');
    const onClick = vi.fn();
    const n = notifyIncoming(text, onClick, granted.api);
    expect(granted.shown).toEqual([{ title: 'Incoming call', options: { body: '500', tag: 'call-1', requireInteraction: true } }]);
    n?.onclick?.call(null, {});
    expect(onClick).toHaveBeenCalled();
    const undecided = fakeApi('default');
    expect(notifyIncoming(text, onClick, undecided.api)).toBeNull();
    expect(undecided.requestPermission).toHaveBeenCalled();
    expect(notifyIncoming(text, onClick, fakeApi('denied').api)).toBeNull();
    expect(notifyIncoming(text, onClick, null)).toBeNull();
  });

  it('plays tones through WebAudio and stops them', () => {
    vi.useFakeTimers();
    const osc = { frequency: { value: 0 }, type: '', connect: vi.fn(), start: vi.fn(), stop: vi.fn() };
    const gainNode = { gain: { setValueAtTime: vi.fn(), linearRampToValueAtTime: vi.fn() }, connect: vi.fn() };
    osc.connect.mockReturnValue(gainNode);
    const ctx = {
      currentTime: 0,
      destination: {},
      createOscillator: vi.fn(() => osc),
      createGain: vi.fn(() => gainNode),
      resume: vi.fn(async () => undefined),
      close: vi.fn(async () => undefined),
    };
    const tone = new RingTone(() => ctx as unknown as AudioContext);
    tone.play(false);
    expect(ctx.createOscillator).toHaveBeenCalledTimes(4);
    vi.advanceTimersByTime(3000);
    expect(ctx.createOscillator).toHaveBeenCalledTimes(8);
    tone.stop();
    expect(ctx.close).toHaveBeenCalled();
    vi.advanceTimersByTime(9000);
    expect(ctx.createOscillator).toHaveBeenCalledTimes(8);
    vi.useRealTimers();
  });
});
