import { DIALER } from './constants';
import type { CallInfo, CallStatus, CallType, DialerCall, ServerCall, ServerCallStatus } from './types';

/** Spec comms §4: the server's call status as the dialer's. */
export const SERVER_STATUS_MAP: Record<ServerCallStatus, CallStatus> = {
  new: 'new',
  calling: 'calling',
  destroyed: 'destroyed',
  answered: 'active',
  waiting: 'paused',
  answered_waiting: 'processed_paused',
};

export function mapServerStatus(status: string): CallStatus {
  return SERVER_STATUS_MAP[status as ServerCallStatus] ?? 'new';
}

/** The number in `answered_by` ("number-suffix": the part before the dash). */
export function answeredNumber(answeredBy: string | null | undefined): string | null {
  if (!answeredBy) return null;
  const n = String(answeredBy).split('-')[0]?.trim();
  return n || null;
}

/** An incoming call someone else picked up (for a call placed here, answered_by is just who took it). */
export const answeredByOther = (call: DialerCall, ownNumber: string): boolean =>
  call.direction === 'incoming' && call.answeredBy !== null && call.answeredBy !== ownNumber;

/** Spec comms §2: hold shows only for awaiting calls that nobody else answered, while they talk. */
export const canHold = (call: DialerCall, ownNumber: string): boolean =>
  call.type === 'awaiting' && !answeredByOther(call, ownNumber) && call.status === 'active' && call.hasSIPSession;

/**
 * A held awaiting call is taken back in its own session, or, held before this page loaded (no
 * session here), by a new INVITE the server joins to the call it parked: only by whoever answered it.
 */
export const canResume = (call: DialerCall, ownNumber: string): boolean =>
  call.type === 'awaiting' &&
  !answeredByOther(call, ownNumber) &&
  (call.status === 'paused' || call.status === 'processed_paused') &&
  (call.hasSIPSession || (call.status === 'processed_paused' && call.answeredBy === ownNumber));

/** Calls answered by another user are disabled (spec comms §2). */
export const isDisabled = (call: DialerCall, ownNumber: string): boolean => answeredByOther(call, ownNumber) && !call.hasSIPSession;

/** The call that holds the media now (spec comms §4 allows one). */
export const activeCall = (calls: readonly DialerCall[]): DialerCall | null =>
  calls.find((c) => c.hasSIPSession && (c.status === 'active' || c.status === 'joining')) ?? null;

/** An incoming call ringing here. */
export const ringingCall = (calls: readonly DialerCall[]): DialerCall | null =>
  calls.find((c) => c.direction === 'incoming' && c.status === 'calling' && c.hasSIPSession) ?? null;

/** How another call interrupts `call`: a normal call is cancelled; an awaiting one is paused once answered. */
export function interruptionOf(call: DialerCall): 'cancel' | 'pause' {
  return call.type === 'awaiting' && call.status === 'active' ? 'pause' : 'cancel';
}

/**
 * Starting a call while one is active asks first (spec comms §4): cancellation wording for a
 * normal active call, hold wording for an awaiting one. Null when nothing is active.
 */
export function startConfirmation(calls: readonly DialerCall[]): { speechId: string; number: string; wording: 'cancel' | 'hold' } | null {
  const active = activeCall(calls);
  if (!active) return null;
  return { speechId: active.speechId, number: active.number, wording: interruptionOf(active) === 'pause' ? 'hold' : 'cancel' };
}

const PROMPT_STATUSES: readonly CallStatus[] = ['active', 'paused', 'calling', 'processed_paused'];

/**
 * Spec comms §4: when others end a call while more than one call (the ended one counted, as it was)
 * is active, paused, calling or processed_paused, the dialer offers to return to the previous call:
 * the latest paused one this user may resume. Call it before the ended call is marked destroyed.
 */
export function returnCandidate(calls: readonly DialerCall[], endedSpeechId: string, ownNumber: string): DialerCall | null {
  const counted = calls.filter((c) => PROMPT_STATUSES.includes(c.status));
  if (counted.length <= 1 || !counted.some((c) => c.speechId === endedSpeechId)) return null;
  const candidates = calls.filter((c) => c.speechId !== endedSpeechId && canResume(c, ownNumber));
  return candidates[candidates.length - 1] ?? null;
}

export type CallsAction =
  | { type: 'outgoing'; speechId: string; number: string; video: boolean; sosCall?: boolean; now: number }
  | {
      type: 'incoming';
      speechId: string;
      number: string;
      callee: string | null;
      callType: CallType;
      sosCall: boolean;
      parentId: string | null;
      video: boolean;
      now: number;
    }
  | { type: 'accepted'; speechId: string; now: number }
  | { type: 'sessionEnded'; speechId: string; now: number }
  | { type: 'server'; call: ServerCall; ownNumber: string; now: number }
  | { type: 'serverList'; calls: readonly ServerCall[]; ownNumber: string; now: number }
  | { type: 'held'; speechId: string }
  | { type: 'joining'; speechId: string }
  | { type: 'detached'; speechId: string }
  | { type: 'select'; speechId: string }
  | { type: 'toggleMute'; speechId: string; what: 'mic' | 'volume' }
  | { type: 'fullscreen'; speechId: string; on: boolean }
  | { type: 'info'; speechId: string; info: CallInfo }
  | { type: 'remove'; speechId: string }
  | { type: 'sweep'; now: number }
  | { type: 'reset' };

/** The key a server record shares with its SIP session: the record's id is the speech id. */
const serverKey = (call: ServerCall): string => String(call.id);

function blank(speechId: string, number: string): DialerCall {
  return {
    speechId,
    number,
    callee: null,
    direction: 'outgoing',
    type: 'normal',
    status: 'new',
    hasSIPSession: false,
    started: null,
    sosCall: false,
    info: null,
    answeredBy: null,
    parentId: null,
    settings: { volume: { muted: false }, mic: { muted: false } },
    isSelected: false,
    fullscreen: false,
    video: false,
    endedAt: null,
  };
}

const update = (calls: readonly DialerCall[], speechId: string, change: (c: DialerCall) => DialerCall): DialerCall[] =>
  calls.map((c) => (c.speechId === speechId ? change(c) : c));

const selectOnly = (calls: readonly DialerCall[], speechId: string): DialerCall[] =>
  calls.map((c) => (c.isSelected === (c.speechId === speechId) ? c : { ...c, isSelected: c.speechId === speechId }));

const destroy = (c: DialerCall, now: number): DialerCall =>
  c.status === 'destroyed'
    ? { ...c, hasSIPSession: false }
    : { ...c, status: 'destroyed', hasSIPSession: false, endedAt: now, fullscreen: false };

function serverType(call: ServerCall): CallType {
  return call.type === 'awaiting' || call.status === 'waiting' || call.status === 'answered_waiting' ? 'awaiting' : 'normal';
}

function fromServer(existing: DialerCall | undefined, call: ServerCall, ownNumber: string, now: number): DialerCall | null {
  const speechId = serverKey(call);
  let status = mapServerStatus(call.status);
  const outgoing = call.caller === ownNumber;
  const base = existing ?? {
    ...blank(speechId, outgoing ? call.callee : call.caller),
    direction: outgoing ? ('outgoing' as const) : ('incoming' as const),
    callee: call.callee,
    // The timer counts from the answer, also for a call this page takes over answered or on hold (after a reload).
    started: status === 'active' || status === 'processed_paused' ? (call.answered_at ?? call.created_at) * 1000 : null,
  };
  if (!existing && status === 'destroyed') return null;
  // While this browser joins an awaiting call the server still says waiting: keep joining.
  if (existing?.status === 'joining' && (status === 'paused' || status === 'processed_paused')) status = 'joining';
  // The server can say answered before this browser's session is up: the session decides here.
  if (existing?.hasSIPSession && existing.status === 'calling' && status === 'active' && existing.direction === 'outgoing')
    status = 'calling';
  // A call waits in a concierge's queue: for the caller it stays the normal call they placed.
  const type = existing?.type === 'awaiting' ? 'awaiting' : base.direction === 'outgoing' ? 'normal' : serverType(call);
  // The record's info describes the caller: the callee's card keeps what it knows of whom it called.
  const info = call.info && base.direction === 'incoming' ? { address: call.info.address, user: call.info.user } : base.info;
  const next: DialerCall = {
    ...base,
    type,
    status,
    answeredBy: answeredNumber(call.answered_by),
    sosCall: base.sosCall || call.sos,
    info,
  };
  if (status === 'destroyed') return destroy({ ...next, status: base.status }, now);
  return { ...next, endedAt: null };
}

/** The dialer's call list (spec comms §4). Pure: timers and SIP sessions live in the engine. */
export function callsReducer(calls: readonly DialerCall[], action: CallsAction): DialerCall[] {
  switch (action.type) {
    case 'outgoing': {
      const call: DialerCall = {
        ...blank(action.speechId, action.number),
        status: 'calling',
        hasSIPSession: true,
        video: action.video,
        sosCall: action.sosCall ?? false,
        callee: action.number,
      };
      return selectOnly([...calls.filter((c) => c.speechId !== action.speechId), call], action.speechId);
    }
    case 'incoming': {
      const existing = calls.find((c) => c.speechId === action.speechId);
      const call: DialerCall = {
        ...(existing ?? blank(action.speechId, action.number)),
        number: action.number,
        callee: action.callee,
        direction: 'incoming',
        type: existing?.type === 'awaiting' ? 'awaiting' : action.callType,
        status: existing?.status === 'joining' ? 'joining' : 'calling',
        hasSIPSession: true,
        sosCall: action.sosCall || (existing?.sosCall ?? false),
        parentId: action.parentId ?? existing?.parentId ?? null,
        video: action.video,
        endedAt: null,
      };
      const rest = calls.filter((c) => c.speechId !== action.speechId);
      return existing ? calls.map((c) => (c.speechId === action.speechId ? call : c)) : [...rest, call];
    }
    case 'accepted':
      return selectOnly(
        update(calls, action.speechId, (c) => ({ ...c, status: 'active', hasSIPSession: true, started: c.started ?? action.now })),
        action.speechId,
      );
    case 'sessionEnded':
      return update(calls, action.speechId, (c) => destroy(c, action.now));
    case 'server': {
      const existing = calls.find((c) => c.speechId === serverKey(action.call));
      const next = fromServer(existing, action.call, action.ownNumber, action.now);
      if (!next) return [...calls];
      return existing ? calls.map((c) => (c === existing ? next : c)) : [...calls, next];
    }
    case 'serverList': {
      let out = [...calls];
      for (const call of action.calls) out = callsReducer(out, { type: 'server', call, ownNumber: action.ownNumber, now: action.now });
      return out;
    }
    // Held after being answered: the server's answered_waiting.
    case 'held':
      return update(calls, action.speechId, (c) => ({ ...c, status: 'processed_paused', fullscreen: false }));
    // A resume the server refused: back to the held call it lists, without a session here.
    case 'detached':
      return update(calls, action.speechId, (c) => ({ ...c, status: 'processed_paused', hasSIPSession: false }));
    case 'joining':
      return selectOnly(
        update(calls, action.speechId, (c) => ({ ...c, status: 'joining', hasSIPSession: true })),
        action.speechId,
      );
    case 'select':
      return selectOnly(calls, action.speechId);
    case 'toggleMute':
      return update(calls, action.speechId, (c) => ({
        ...c,
        settings: { ...c.settings, [action.what]: { muted: !c.settings[action.what].muted } },
      }));
    case 'fullscreen':
      return update(calls, action.speechId, (c) => ({ ...c, fullscreen: action.on }));
    case 'info':
      return update(calls, action.speechId, (c) => ({ ...c, info: action.info }));
    case 'remove':
      return calls.filter((c) => c.speechId !== action.speechId);
    case 'sweep':
      return calls.filter((c) => !(c.status === 'destroyed' && c.endedAt !== null && action.now - c.endedAt >= DIALER.endedCallRemovalMs));
    case 'reset':
      return [];
  }
}

/** Milliseconds until the next ended call leaves the list, or null when none waits. */
export function nextSweepIn(calls: readonly DialerCall[], now: number): number | null {
  let next: number | null = null;
  for (const c of calls) {
    if (c.status !== 'destroyed' || c.endedAt === null) continue;
    const wait = Math.max(0, c.endedAt + DIALER.endedCallRemovalMs - now);
    next = next === null ? wait : Math.min(next, wait);
  }
  return next;
}
