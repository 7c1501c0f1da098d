import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CallHandle, DialerEngine, type EngineDeps } from './engine';
import type { CallHeaders } from './sip';
import type { ServerCall } from './types';

type Listener = (e: { originator?: string; cause?: string }) => void;

class FakeHandle implements CallHandle {
  readonly listeners = new Map<string, Listener[]>();
  answer = vi.fn(() => this.fire('accepted'));
  end = vi.fn((_h?: CallHeaders) => this.fire('ended', { originator: 'local' }));
  setMicMuted = vi.fn();
  hold = vi.fn(() => true);
  /** The far side accepts the re-INVITE when the test says so. */
  unhold = vi.fn((done: () => void) => {
    this.unholdDone = done;
  });
  unholdDone: (() => void) | null = null;
  openDoor = vi.fn();
  sendDtmf = vi.fn();
  constructor(
    readonly direction: 'incoming' | 'outgoing',
    readonly remoteNumber: string,
    readonly headers: Required<CallHeaders>,
    readonly video = false,
  ) {}
  on(event: string, listener: Listener) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }
  fire(event: string, e: { originator?: string } = {}) {
    for (const l of this.listeners.get(event) ?? []) l(e);
  }
}

const OWN = '100';
const headers = (h: Partial<CallHeaders> = {}): Required<CallHeaders> => ({
  speechId: null,
  sos: false,
  speechType: null,
  targetCallee: null,
  ...h,
});
const record = (id: string, status: ServerCall['status'], extra: Partial<ServerCall> = {}): ServerCall => ({
  id,
  status,
  type: 'awaiting',
  caller: '500',
  callee: '900',
  answered_by: null,
  sos: false,
  created_at: 1,
  answered_at: null,
  info: { address: 'Door 1', user: 'Panel' },
  ...extra,
});

function setup(serverCalls: ServerCall[] = []) {
  let events: Parameters<EngineDeps['createPhone']>[0] | null = null;
  const outgoing: FakeHandle[] = [];
  const phone = {
    start: vi.fn(),
    stop: vi.fn(),
    retry: vi.fn(),
    call: vi.fn((target: string, o: { video: boolean; headers: CallHeaders }) => {
      const h = new FakeHandle('outgoing', target, headers(o.headers), o.video);
      outgoing.push(h);
      return h;
    }),
  };
  const ring = { play: vi.fn(), stop: vi.fn() };
  const closed = vi.fn();
  const notify = vi.fn(() => ({ close: closed }));
  const api = {
    stopCall: vi.fn(async () => undefined),
    managedCalls: vi.fn(async () => serverCalls),
    callInfo: vi.fn(async () => ({ address: 'A', user: 'U' })),
  };
  let n = 0;
  const engine = new DialerEngine({
    ownNumber: OWN,
    api,
    createPhone: (e) => {
      events = e;
      return phone;
    },
    ring,
    notify,
    onError: vi.fn(),
    newSpeechId: () => `sp${++n}`,
  });
  engine.start();
  const incoming = (h: FakeHandle) => events?.onIncoming(h);
  const register = (s: Parameters<NonNullable<typeof events>['onRegistration']>[0]) => events?.onRegistration(s);
  return { engine, phone, ring, notify, closed, api, outgoing, incoming, register };
}

describe('dialer engine', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('refuses the own number and dials others with the speech id headers', () => {
    const { engine, phone } = setup();
    expect(engine.dial('100', { video: false })).toEqual({ kind: 'refused', message: 'interface.unable_to_call_your_number' });
    expect(engine.dial('200', { video: true })).toEqual({ kind: 'started', speechId: 'sp1' });
    expect(phone.call).toHaveBeenCalledWith('200', {
      video: true,
      headers: { speechId: 'sp1', sos: false, speechType: 'normal', targetCallee: '200' },
    });
    expect(engine.get().calls[0]).toMatchObject({ status: 'calling', video: true });
  });

  it('asks before interrupting the active call, then cancels it', () => {
    const { engine, outgoing } = setup();
    engine.dial('200', { video: false });
    outgoing[0]?.fire('accepted');
    expect(engine.dial('300', { video: false })).toEqual({ kind: 'confirm', wording: 'cancel', number: '200' });
    expect(engine.dial('300', { video: false, confirmed: true }).kind).toBe('started');
    expect(outgoing[0]?.end).toHaveBeenCalled();
    expect(engine.get().calls.map((c) => [c.number, c.status])).toEqual([
      ['200', 'destroyed'],
      ['300', 'calling'],
    ]);
  });

  it('removes an ended call 5 s later', () => {
    const { engine, outgoing } = setup();
    engine.dial('200', { video: false });
    outgoing[0]?.fire('ended', { originator: 'remote' });
    expect(engine.get().calls[0]?.status).toBe('destroyed');
    vi.advanceTimersByTime(4999);
    expect(engine.get().calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(engine.get().calls).toHaveLength(0);
  });

  it('rings and notifies for an incoming call, silences both on answer', () => {
    const { engine, ring, notify, closed, incoming } = setup();
    const h = new FakeHandle('incoming', '500', headers({ speechId: 'x1', sos: true }));
    incoming(h);
    expect(ring.play).toHaveBeenLastCalledWith(true);
    expect(notify).toHaveBeenCalledTimes(1);
    engine.accept('x1');
    expect(h.answer).toHaveBeenCalled();
    expect(ring.stop).toHaveBeenCalled();
    expect(closed).toHaveBeenCalled();
    expect(engine.get().calls[0]).toMatchObject({ status: 'active', sosCall: true });
  });

  it('holds an answered awaiting call in its session and resumes it through joining', () => {
    const { engine, phone, incoming, api } = setup();
    const h = new FakeHandle('incoming', '500', headers({ speechId: 'q1', speechType: 'awaiting' }));
    incoming(h);
    engine.accept('q1');
    engine.hold('q1');
    // the session stays (the call lives in it through the proxy), held as the server's answered_waiting
    expect(h.hold).toHaveBeenCalledTimes(1);
    expect(h.end).not.toHaveBeenCalled();
    expect(engine.get().calls[0]).toMatchObject({ status: 'processed_paused', hasSIPSession: true, type: 'awaiting' });
    engine.serverUpdate(record('q1', 'answered_waiting', { answered_by: OWN }));
    expect(engine.get().calls[0]?.status).toBe('processed_paused');
    engine.resume('q1');
    expect(h.unhold).toHaveBeenCalledTimes(1);
    expect(phone.call).not.toHaveBeenCalled();
    // the server still says answered_waiting until the re-INVITE is accepted
    engine.serverUpdate(record('q1', 'answered_waiting', { answered_by: OWN }));
    expect(engine.get().calls[0]?.status).toBe('joining');
    h.unholdDone?.();
    expect(engine.get().calls[0]?.status).toBe('active');
    engine.end('q1');
    expect(h.end).toHaveBeenCalled();
    expect(api.stopCall).not.toHaveBeenCalled();
  });

  it('holds the awaiting call when another is answered, and ends a held call whose other side hangs up', () => {
    const { engine, incoming } = setup();
    const first = new FakeHandle('incoming', '500', headers({ speechId: 'q1', speechType: 'awaiting' }));
    const second = new FakeHandle('incoming', '501', headers({ speechId: 'q2', speechType: 'awaiting' }));
    incoming(first);
    engine.accept('q1');
    incoming(second);
    engine.accept('q2');
    expect(first.hold).toHaveBeenCalled();
    expect(engine.get().calls.map((c) => [c.speechId, c.status])).toEqual([
      ['q1', 'processed_paused'],
      ['q2', 'active'],
    ]);
    first.fire('ended', { originator: 'remote' });
    expect(engine.get().calls[0]).toMatchObject({ status: 'destroyed', hasSIPSession: false });
  });

  it('stops on the server an awaiting call it only knows from the server', async () => {
    const { engine, api } = setup([record('q1', 'answered_waiting', { answered_by: '200' })]);
    await vi.runOnlyPendingTimersAsync();
    expect(engine.get().calls[0]).toMatchObject({ status: 'processed_paused', hasSIPSession: false });
    // Answered by someone else: not this user's to resume.
    engine.resume('q1');
    expect(engine.get().calls[0]?.status).toBe('processed_paused');
    engine.end('q1');
    expect(api.stopCall).toHaveBeenCalledWith('q1');
  });

  it('resumes a call it held before the page was loaded with a new INVITE naming it, and falls back when refused', async () => {
    const { engine, phone, outgoing, api } = setup([record('q1', 'answered_waiting', { answered_by: OWN })]);
    await vi.runOnlyPendingTimersAsync();
    engine.resume('q1');
    expect(phone.call).toHaveBeenCalledWith('500', { video: false, headers: { resume: 'q1' } });
    expect(engine.get().calls[0]).toMatchObject({ status: 'joining', hasSIPSession: true });
    // Refused (not parked any more): the call is as the server lists it, and the list is asked again.
    outgoing[0]?.fire('failed', { originator: 'remote' });
    expect(engine.get().calls[0]).toMatchObject({ status: 'processed_paused', hasSIPSession: false });
    expect(api.managedCalls).toHaveBeenCalledTimes(2);
    await vi.runOnlyPendingTimersAsync();
    engine.resume('q1');
    outgoing[1]?.fire('accepted');
    expect(engine.get().calls[0]).toMatchObject({ status: 'active', hasSIPSession: true });
    engine.hold('q1');
    expect(outgoing[1]?.hold).toHaveBeenCalled();
    outgoing[1]?.fire('ended', { originator: 'remote' });
    expect(engine.get().calls[0]).toMatchObject({ status: 'destroyed', hasSIPSession: false });
  });

  it('offers to return to the held call when the other side hangs up', () => {
    const { engine, outgoing, incoming } = setup();
    const h = new FakeHandle('incoming', '500', headers({ speechId: 'q1', speechType: 'awaiting' }));
    incoming(h);
    engine.accept('q1');
    engine.dial('200', { video: false, confirmed: true });
    expect(h.hold).toHaveBeenCalled();
    outgoing[0]?.fire('accepted');
    outgoing[0]?.fire('ended', { originator: 'remote' });
    expect(engine.get().returnTo?.speechId).toBe('q1');
    engine.resume('q1');
    expect(engine.get().returnTo).toBeNull();
    expect(h.unhold).toHaveBeenCalled();
  });

  it('mutes the microphone of one call through its session', () => {
    const { engine, outgoing } = setup();
    engine.dial('200', { video: false });
    engine.toggleMute('sp1', 'mic');
    expect(outgoing[0]?.setMicMuted).toHaveBeenCalledWith(true);
    engine.toggleMute('sp1', 'volume');
    expect(engine.get().calls[0]?.settings).toEqual({ mic: { muted: true }, volume: { muted: true } });
  });

  it('retries registration 5 s after an error and stops everything on sign-out', () => {
    const { engine, phone, register } = setup();
    register('error');
    vi.advanceTimersByTime(5000);
    expect(phone.retry).toHaveBeenCalledTimes(1);
    register('invalid_registration');
    engine.stop();
    vi.advanceTimersByTime(60_000);
    expect(phone.retry).toHaveBeenCalledTimes(1);
    expect(phone.stop).toHaveBeenCalled();
    expect(engine.get().registration).toBe('unregistered');
  });
});
