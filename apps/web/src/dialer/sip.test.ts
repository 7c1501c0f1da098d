import { describe, expect, it, vi } from 'vitest';
import {
  headerLines,
  type PhoneCall,
  readHeaders,
  registrationFailureState,
  type SessionLike,
  SipPhone,
  type UALike,
  type UAOptions,
} from './sip';
import type { RegistrationState } from './types';

class Emitter {
  private readonly handlers = new Map<string, ((...a: never[]) => void)[]>();
  on(event: string, fn: (...a: never[]) => void) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
    return this;
  }
  emit(event: string, arg?: unknown) {
    for (const fn of this.handlers.get(event) ?? []) (fn as (a: unknown) => void)(arg);
  }
}

class FakeSession extends Emitter implements SessionLike {
  id = 's1';
  connection = null;
  remote_identity = { uri: { user: '500' } };
  answer = vi.fn();
  terminate = vi.fn();
  sendDTMF = vi.fn();
  mute = vi.fn();
  unmute = vi.fn();
  held = false;
  hold = vi.fn(() => {
    if (this.held) return false;
    this.held = true;
    return true;
  });
  unhold = vi.fn((_o?: object, done?: () => void) => {
    if (!this.held) return false;
    this.held = false;
    done?.();
    return true;
  });
  isOnHold = () => ({ local: this.held, remote: false });
  isEnded = () => false;
}

class FakeUA extends Emitter implements UALike {
  connected = false;
  start = vi.fn(() => this.emit('connecting'));
  stop = vi.fn();
  register = vi.fn();
  isConnected = () => this.connected;
  session = new FakeSession();
  call = vi.fn(() => this.session);
}

function phone() {
  const states: RegistrationState[] = [];
  const incoming: PhoneCall[] = [];
  let options: UAOptions | null = null;
  const ua = new FakeUA();
  const p = new SipPhone(
    { number: '100', password: 'Secret1', domain: 'atrium.test', socketUrl: 'wss://atrium.test:8443' },
    { onRegistration: (s) => states.push(s), onIncoming: (c) => incoming.push(c) },
    (o) => {
      options = o;
      return ua;
    },
  );
  return { p, ua, states, incoming, options: () => options as UAOptions | null };
}

describe('SIP phone', () => {
  it('registers number@domain with the number and password, expiry 30 s, recovery 1..30 s', () => {
    const { p, ua, states, options } = phone();
    p.start();
    expect(options()).toMatchObject({
      socketUrl: 'wss://atrium.test:8443',
      uri: 'sip:100@atrium.test',
      authorization_user: '100',
      password: 'Secret1',
      register: true,
      register_expires: 30,
      connection_recovery_min_interval: 1,
      connection_recovery_max_interval: 30,
    });
    ua.emit('registered');
    expect(states).toEqual(['registering', 'registered']);
  });

  it('turns a socket drop into error and a refused registration into invalid_registration', () => {
    const { p, ua, states } = phone();
    p.start();
    ua.emit('disconnected');
    expect(states.at(-1)).toBe('error');
    ua.emit('registrationFailed', { cause: 'Authentication Error' });
    expect(states.at(-1)).toBe('invalid_registration');
    expect(registrationFailureState('Connection Error')).toBe('error');
    expect(registrationFailureState('Rejected')).toBe('invalid_registration');
  });

  it('retries by registering when connected, by starting otherwise', () => {
    const { p, ua } = phone();
    p.start();
    p.retry();
    expect(ua.start).toHaveBeenCalledTimes(2);
    ua.connected = true;
    p.retry();
    expect(ua.register).toHaveBeenCalledTimes(1);
  });

  it('stops on sign-out: unregistered, and late events are ignored', () => {
    const { p, ua, states } = phone();
    p.start();
    p.stop();
    expect(ua.stop).toHaveBeenCalled();
    expect(states.slice(-2)).toEqual(['unregistering', 'unregistered']);
    ua.emit('disconnected');
    expect(states.at(-1)).toBe('unregistered');
  });

  it('calls with the custom headers of spec §7', () => {
    const { p, ua } = phone();
    p.start();
    p.call('200', { video: true, headers: { speechId: 'abc', sos: false, speechType: 'normal', targetCallee: '200' } });
    const [target, options] = ua.call.mock.calls[0] as unknown as [string, { extraHeaders: string[]; mediaConstraints: object }];
    expect(target).toBe('sip:200@atrium.test');
    expect(options.mediaConstraints).toEqual({ audio: true, video: true });
    expect(options.extraHeaders).toEqual(['X-Speech-Id: abc', 'X-Sos-Call: 0', 'X-Speech-Type: normal', 'X-Target-Callee: 200']);
  });

  it('reads the headers and video offer of an incoming call', () => {
    const { p, ua, incoming } = phone();
    p.start();
    const headers: Record<string, string> = { 'X-Speech-Id': '77', 'X-Sos-Call': '1', 'X-Speech-Type': 'awaiting' };
    ua.emit('newRTCSession', {
      originator: 'remote',
      session: ua.session,
      request: { getHeader: (n: string) => headers[n], body: 'v=0\r\nm=audio 1 RTP/AVP 0\r\nm=video 2 RTP/AVP 96\r\n' },
    });
    expect(incoming).toHaveLength(1);
    expect(incoming[0]?.headers).toEqual({ speechId: '77', sos: true, speechType: 'awaiting', targetCallee: null });
    expect(incoming[0]?.video).toBe(true);
    expect(incoming[0]?.remoteNumber).toBe('500');
    expect(readHeaders(null)).toEqual({ speechId: null, sos: false, speechType: null, targetCallee: null });
  });

  it("opens a door with '#' over SIP INFO, 160 ms, gap 1200 ms, and mutes the microphone", () => {
    const { p, ua } = phone();
    p.start();
    const call = p.call('200', { video: false, headers: {} });
    call.openDoor();
    expect(ua.session.sendDTMF).toHaveBeenCalledWith('#', { duration: 160, interToneGap: 1200, transportType: 'INFO' });
    call.setMicMuted(true);
    expect(ua.session.mute).toHaveBeenCalledWith({ audio: true });
    call.setMicMuted(false);
    expect(ua.session.unmute).toHaveBeenCalledWith({ audio: true });
    call.end({ speechType: 'awaiting' });
    expect(ua.session.terminate).toHaveBeenCalledWith({ extraHeaders: ['X-Speech-Type: awaiting'] });
  });

  it('holds and resumes in the session (re-INVITEs), so the call survives in the proxy', () => {
    const { p, ua } = phone();
    p.start();
    const call = p.call('200', { video: false, headers: {} });
    expect(call.hold()).toBe(true);
    // a second hold while held: still held, no new re-INVITE
    expect(call.hold()).toBe(true);
    expect(ua.session.hold).toHaveBeenCalledTimes(2);
    const done = vi.fn();
    call.unhold(done);
    expect(ua.session.unhold).toHaveBeenCalledTimes(1);
    expect(done).toHaveBeenCalledTimes(1);
    // not held: nothing to send, done at once
    call.unhold(done);
    expect(done).toHaveBeenCalledTimes(2);
    expect(ua.session.terminate).not.toHaveBeenCalled();
  });

  it('writes no header it was not given', () => {
    expect(headerLines({})).toEqual([]);
    expect(headerLines({ sos: true })).toEqual(['X-Sos-Call: 1']);
  });
});
