import { describe, expect, it } from 'vitest';
import {
  activeCall,
  answeredNumber,
  callsReducer,
  canHold,
  canResume,
  isDisabled,
  mapServerStatus,
  nextSweepIn,
  returnCandidate,
  ringingCall,
  startConfirmation,
} from './calls';
import type { DialerCall, ServerCall } from './types';

const OWN = '100';
const server = (id: number, status: ServerCall['status'], extra: Partial<ServerCall> = {}): ServerCall => ({
  id: String(id),
  status,
  type: 'awaiting',
  caller: '500',
  callee: '900',
  answered_by: null,
  sos: false,
  created_at: 1_700_000_000,
  answered_at: null,
  info: { address: null, user: null },
  ...extra,
});
const run = (...actions: Parameters<typeof callsReducer>[1][]): DialerCall[] => actions.reduce<DialerCall[]>(callsReducer, []);
const one = (calls: DialerCall[], id: string) => calls.find((c) => c.speechId === id) as DialerCall;

describe('server status map', () => {
  it('maps each server status', () => {
    expect(['new', 'calling', 'destroyed', 'answered', 'waiting', 'answered_waiting'].map(mapServerStatus)).toEqual([
      'new',
      'calling',
      'destroyed',
      'active',
      'paused',
      'processed_paused',
    ]);
  });

  it('reads the number before the dash of answered_by', () => {
    expect(answeredNumber('101-abc')).toBe('101');
    expect(answeredNumber('101')).toBe('101');
    expect(answeredNumber(null)).toBeNull();
  });
});

describe('outgoing call', () => {
  it('is calling, accepted makes it active with a start time, an end destroys it and it leaves 5 s later', () => {
    let calls = run({ type: 'outgoing', speechId: 'a', number: '200', video: false, now: 0 });
    expect(one(calls, 'a')).toMatchObject({ status: 'calling', direction: 'outgoing', hasSIPSession: true, isSelected: true });
    calls = callsReducer(calls, { type: 'accepted', speechId: 'a', now: 1000 });
    expect(one(calls, 'a')).toMatchObject({ status: 'active', started: 1000 });
    calls = callsReducer(calls, { type: 'sessionEnded', speechId: 'a', now: 2000 });
    expect(one(calls, 'a')).toMatchObject({ status: 'destroyed', hasSIPSession: false, endedAt: 2000 });
    expect(nextSweepIn(calls, 3000)).toBe(4000);
    expect(callsReducer(calls, { type: 'sweep', now: 6999 })).toHaveLength(1);
    expect(callsReducer(calls, { type: 'sweep', now: 7000 })).toHaveLength(0);
  });
});

describe('incoming call', () => {
  it('rings until accepted', () => {
    let calls = run({
      type: 'incoming',
      speechId: 'b',
      number: '300',
      callee: OWN,
      callType: 'normal',
      sosCall: true,
      parentId: null,
      video: false,
      now: 0,
    });
    expect(ringingCall(calls)?.speechId).toBe('b');
    expect(one(calls, 'b').sosCall).toBe(true);
    calls = callsReducer(calls, { type: 'accepted', speechId: 'b', now: 10 });
    expect(ringingCall(calls)).toBeNull();
    expect(activeCall(calls)?.speechId).toBe('b');
  });
});

describe('awaiting calls', () => {
  it('adds queued calls from the server, holds an answered one in its session and resumes it through joining', () => {
    let calls = run({
      type: 'serverList',
      calls: [server(1, 'waiting'), server(2, 'answered_waiting', { answered_by: `${OWN}-x`, answered_at: 1_700_000_030 })],
      ownNumber: OWN,
      now: 0,
    });
    expect(calls.map((c) => [c.speechId, c.type, c.status])).toEqual([
      ['1', 'awaiting', 'paused'],
      ['2', 'awaiting', 'processed_paused'],
    ]);
    // Held by this user before the page loaded: the server parked it, a new INVITE takes it back.
    expect(canResume(one(calls, '2'), OWN)).toBe(true);
    // A queued call nobody answered is not a parked one.
    expect(canResume(one(calls, '1'), OWN)).toBe(false);
    calls = callsReducer(calls, { type: 'joining', speechId: '2' });
    expect(one(calls, '2')).toMatchObject({ status: 'joining', hasSIPSession: true });
    // A refused resume leaves it as the server lists it.
    calls = callsReducer(calls, { type: 'detached', speechId: '2' });
    expect(one(calls, '2')).toMatchObject({ status: 'processed_paused', hasSIPSession: false });
    // Its timer counts from the answer the server recorded, before the page loaded, also once resumed.
    expect(one(calls, '2').started).toBe(1_700_000_030_000);
    expect(one(calls, '1').started).toBeNull();
    calls = callsReducer(calls, { type: 'joining', speechId: '2' });
    calls = callsReducer(calls, { type: 'accepted', speechId: '2', now: 1_700_000_090_000 });
    expect(one(calls, '2')).toMatchObject({ status: 'active', started: 1_700_000_030_000 });
    calls = callsReducer(calls, { type: 'sessionEnded', speechId: '2', now: 1_700_000_100_000 });
    calls = callsReducer(calls, {
      type: 'incoming',
      speechId: '3',
      number: '500',
      callee: OWN,
      callType: 'awaiting',
      sosCall: false,
      parentId: null,
      video: false,
      now: 1,
    });
    calls = callsReducer(calls, { type: 'accepted', speechId: '3', now: 2 });
    expect(canHold(one(calls, '3'), OWN)).toBe(true);
    calls = callsReducer(calls, { type: 'held', speechId: '3' });
    // held in its session: answered and waiting, the session kept
    expect(one(calls, '3')).toMatchObject({ status: 'processed_paused', hasSIPSession: true, endedAt: null });
    expect(canResume(one(calls, '3'), OWN)).toBe(true);
    calls = callsReducer(calls, { type: 'joining', speechId: '3' });
    // the server still says answered_waiting while the re-INVITE goes
    calls = callsReducer(calls, { type: 'server', call: server(3, 'answered_waiting', { answered_by: OWN }), ownNumber: OWN, now: 3 });
    expect(one(calls, '3').status).toBe('joining');
    calls = callsReducer(calls, { type: 'accepted', speechId: '3', now: 4 });
    expect(one(calls, '3').status).toBe('active');
    // the session is the call: when it ends, the call has ended
    calls = callsReducer(calls, { type: 'held', speechId: '3' });
    calls = callsReducer(calls, { type: 'sessionEnded', speechId: '3', now: 5 });
    expect(one(calls, '3')).toMatchObject({ status: 'destroyed', hasSIPSession: false, endedAt: 5 });
  });

  it('disables a call answered by another user and offers no hold', () => {
    let calls = run({ type: 'server', call: server(7, 'answered', { answered_by: '101-q' }), ownNumber: OWN, now: 0 });
    const call = one(calls, '7');
    expect(call.answeredBy).toBe('101');
    expect(isDisabled(call, OWN)).toBe(true);
    expect(canHold(call, OWN)).toBe(false);
    expect(canResume(call, OWN)).toBe(false);
    calls = callsReducer(calls, { type: 'server', call: server(7, 'destroyed'), ownNumber: OWN, now: 50 });
    expect(one(calls, '7')).toMatchObject({ status: 'destroyed', endedAt: 50 });
  });

  it('keeps a call the user placed to a concierge normal, though it waits in the concierge’s queue', () => {
    const calls = run({ type: 'server', call: server(11, 'answered', { caller: OWN, callee: '900' }), ownNumber: OWN, now: 0 });
    expect(one(calls, '11')).toMatchObject({ direction: 'outgoing', type: 'normal' });
  });

  it('ignores a destroyed record it never knew', () => {
    expect(run({ type: 'server', call: server(9, 'destroyed'), ownNumber: OWN, now: 0 })).toEqual([]);
  });
});

describe('only one active call', () => {
  it('asks with cancellation wording for a normal call and hold wording for an awaiting one', () => {
    expect(startConfirmation([])).toBeNull();
    let calls = run({ type: 'outgoing', speechId: 'a', number: '200', video: false, now: 0 }, { type: 'accepted', speechId: 'a', now: 1 });
    expect(startConfirmation(calls)).toEqual({ speechId: 'a', number: '200', wording: 'cancel' });
    calls = run(
      { type: 'serverList', calls: [server(1, 'waiting')], ownNumber: OWN, now: 0 },
      { type: 'joining', speechId: '1' },
      { type: 'accepted', speechId: '1', now: 1 },
    );
    expect(startConfirmation(calls)).toEqual({ speechId: '1', number: '500', wording: 'hold' });
  });

  it('offers to return to the previous call when others end one and more than one was going on', () => {
    const calls = run(
      {
        type: 'incoming',
        speechId: '1',
        number: '500',
        callee: OWN,
        callType: 'awaiting',
        sosCall: false,
        parentId: null,
        video: false,
        now: 0,
      },
      { type: 'accepted', speechId: '1', now: 0 },
      { type: 'held', speechId: '1' },
      { type: 'outgoing', speechId: 'b', number: '200', video: false, now: 0 },
      { type: 'accepted', speechId: 'b', now: 1 },
    );
    expect(returnCandidate(calls, 'b', OWN)?.speechId).toBe('1');
    const alone = run(
      { type: 'outgoing', speechId: 'b', number: '200', video: false, now: 0 },
      { type: 'accepted', speechId: 'b', now: 1 },
    );
    expect(returnCandidate(alone, 'b', OWN)).toBeNull();
  });
});

describe('per-call settings', () => {
  it('toggles microphone and volume mute of one call only', () => {
    let calls = run(
      { type: 'outgoing', speechId: 'a', number: '200', video: false, now: 0 },
      {
        type: 'incoming',
        speechId: 'b',
        number: '300',
        callee: OWN,
        callType: 'normal',
        sosCall: false,
        parentId: null,
        video: false,
        now: 0,
      },
    );
    calls = callsReducer(calls, { type: 'toggleMute', speechId: 'a', what: 'mic' });
    calls = callsReducer(calls, { type: 'toggleMute', speechId: 'b', what: 'volume' });
    expect(one(calls, 'a').settings).toEqual({ mic: { muted: true }, volume: { muted: false } });
    expect(one(calls, 'b').settings).toEqual({ mic: { muted: false }, volume: { muted: true } });
    calls = callsReducer(calls, { type: 'toggleMute', speechId: 'a', what: 'mic' });
    expect(one(calls, 'a').settings.mic.muted).toBe(false);
  });
});
