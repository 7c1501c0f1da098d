import { DIALER } from './constants';
import type { RegistrationState } from './types';

export type ButtonColor = 'info' | 'success' | 'warning' | 'error';
export type ButtonIcon = 'loading' | 'phone' | 'phone_locked' | 'phone_disabled' | 'ringing';

export interface ButtonLook {
  icon: ButtonIcon;
  color: ButtonColor;
  loading: boolean;
  /** The ring animation of an incoming call. */
  vibrate: boolean;
}

/** Spec comms §4: the dialer button's look for each registration state; a ring overrides it. */
export function buttonLook(state: RegistrationState, ringing = false): ButtonLook {
  if (ringing) return { icon: 'ringing', color: 'success', loading: false, vibrate: true };
  switch (state) {
    case 'registering':
    case 'unregistering':
      return { icon: 'loading', color: 'info', loading: true, vibrate: false };
    case 'registered':
      return { icon: 'phone', color: 'success', loading: false, vibrate: false };
    case 'unregistered':
      return { icon: 'phone_locked', color: 'warning', loading: false, vibrate: false };
    case 'error':
      return { icon: 'phone_disabled', color: 'error', loading: false, vibrate: false };
    case 'invalid_registration':
      return { icon: 'phone_locked', color: 'error', loading: false, vibrate: false };
  }
}

/** Spec comms §4: re-register 5 s after an error, 30 s after an invalid registration; otherwise not. */
export function retryDelay(state: RegistrationState): number | null {
  if (state === 'error') return DIALER.retryAfterErrorMs;
  if (state === 'invalid_registration') return DIALER.retryAfterInvalidRegistrationMs;
  return null;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * The re-registration policy: each state change reschedules; an error or an invalid registration
 * retries after its delay, and registering or unregistered (the user stopped) stop the retrying.
 */
export class RegistrationRetry {
  private handle: unknown = null;

  constructor(
    private readonly retry: () => void,
    private readonly timers: Timers = realTimers,
  ) {}

  onState(state: RegistrationState): void {
    const delay = retryDelay(state);
    if (delay === null) {
      if (state === 'registering' || state === 'unregistered' || state === 'registered') this.cancel();
      return;
    }
    this.cancel();
    this.handle = this.timers.setTimeout(() => {
      this.handle = null;
      this.retry();
    }, delay);
  }

  get pending(): boolean {
    return this.handle !== null;
  }

  cancel(): void {
    if (this.handle !== null) this.timers.clearTimeout(this.handle);
    this.handle = null;
  }
}
