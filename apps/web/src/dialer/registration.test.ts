import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buttonLook, RegistrationRetry, retryDelay } from './registration';

describe('registration button look', () => {
  it('maps every state to the look of spec §4', () => {
    expect(buttonLook('registering')).toMatchObject({ loading: true, color: 'info' });
    expect(buttonLook('unregistering')).toMatchObject({ loading: true, color: 'info' });
    expect(buttonLook('registered')).toMatchObject({ icon: 'phone', color: 'success', loading: false });
    expect(buttonLook('unregistered')).toMatchObject({ icon: 'phone_locked', color: 'warning' });
    expect(buttonLook('error')).toMatchObject({ icon: 'phone_disabled', color: 'error' });
    expect(buttonLook('invalid_registration')).toMatchObject({ icon: 'phone_locked', color: 'error' });
  });

  it('vibrates with a ring icon while a call rings', () => {
    expect(buttonLook('registered', true)).toMatchObject({ icon: 'ringing', vibrate: true });
  });
});

describe('re-registration', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits 5 s after an error and 30 s after an invalid registration', () => {
    expect(retryDelay('error')).toBe(5000);
    expect(retryDelay('invalid_registration')).toBe(30_000);
    expect(retryDelay('registered')).toBeNull();
    const retry = vi.fn();
    const policy = new RegistrationRetry(retry);
    policy.onState('error');
    vi.advanceTimersByTime(4999);
    expect(retry).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(retry).toHaveBeenCalledTimes(1);
    policy.onState('invalid_registration');
    vi.advanceTimersByTime(29_999);
    expect(retry).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(retry).toHaveBeenCalledTimes(2);
  });

  it('stops retrying when the state becomes registering or unregistered', () => {
    const retry = vi.fn();
    const policy = new RegistrationRetry(retry);
    policy.onState('error');
    policy.onState('registering');
    vi.advanceTimersByTime(60_000);
    expect(retry).not.toHaveBeenCalled();
    policy.onState('invalid_registration');
    policy.onState('unregistered');
    vi.advanceTimersByTime(60_000);
    expect(retry).not.toHaveBeenCalled();
    expect(policy.pending).toBe(false);
  });

  it('keeps one pending retry when errors repeat', () => {
    const retry = vi.fn();
    const policy = new RegistrationRetry(retry);
    policy.onState('error');
    vi.advanceTimersByTime(3000);
    policy.onState('error');
    vi.advanceTimersByTime(3000);
    expect(retry).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2000);
    expect(retry).toHaveBeenCalledTimes(1);
  });
});
