import type { DialerApi } from './api';
import {
  activeCall,
  type CallsAction,
  callsReducer,
  canHold,
  canResume,
  interruptionOf,
  nextSweepIn,
  returnCandidate,
  ringingCall,
  startConfirmation,
} from './calls';
import { RegistrationRetry, realTimers, type Timers } from './registration';
import { callRefusal } from './rules';
import type { CallHeaders, OutgoingHeaders, PhoneEvents } from './sip';
import type { DialerCall, RegistrationState, ServerCall } from './types';

/** A call's SIP session as the engine drives it (sip.ts's PhoneCall). */
export interface CallHandle {
  readonly direction: 'incoming' | 'outgoing';
  readonly headers: Required<CallHeaders>;
  readonly video: boolean;
  readonly remoteNumber: string;
  answer(): void;
  end(headers?: CallHeaders): void;
  setMicMuted(muted: boolean): void;
  /** Holds the call in its session (re-INVITE sendonly); false when it cannot now. */
  hold(): boolean;
  /** Takes a held call back (re-INVITE sendrecv); `done` once the other side accepted it. */
  unhold(done: () => void): void;
  openDoor(): void;
  sendDtmf(tones: string): void;
  on(event: 'accepted' | 'confirmed' | 'ended' | 'failed', listener: (e: { originator?: string; cause?: string }) => void): void;
  /** The far side's audio and video, once they arrive. */
  readonly remoteStream?: { get(): MediaStream | null; subscribe(listener: () => void): () => void; readonly hasVideo: boolean };
  localStream?(): MediaStream | null;
}

/** The softphone as the engine drives it (sip.ts's SipPhone). */
export interface PhoneLike {
  start(): void;
  stop(): void;
  retry(): void;
  call(target: string, options: { video: boolean; headers: OutgoingHeaders }): CallHandle;
}

export interface EngineDeps {
  ownNumber: string;
  api: Pick<DialerApi, 'stopCall' | 'managedCalls' | 'callInfo'>;
  createPhone(events: { onRegistration: PhoneEvents['onRegistration']; onIncoming(call: CallHandle): void }): PhoneLike;
  ring: { play(sos: boolean): void; stop(): void };
  /** A desktop notification for a ringing call; clicking it opens the dialer. */
  notify(call: DialerCall): { close(): void } | null;
  /** A failed server call (shown by the handled-error display). */
  onError(error: unknown): void;
  now?: () => number;
  timers?: Timers;
  newSpeechId?: () => string;
}

export interface DialerSnapshot {
  registration: RegistrationState;
  calls: DialerCall[];
  /** After others ended a call: the previous call the user may return to. */
  returnTo: DialerCall | null;
  /** The media (remote audio and video) of each call with a session, by speech id. */
  handles: ReadonlyMap<string, CallHandle>;
}

export type DialResult =
  | { kind: 'refused'; message: string }
  | { kind: 'confirm'; wording: 'cancel' | 'hold'; number: string }
  | { kind: 'started'; speechId: string }
  | { kind: 'offline' };

const randomId = () =>
  globalThis.crypto?.randomUUID ? globalThis.crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;

/**
 * The web dialer's state machine (spec comms §4): one phone, the call list, one active call,
 * the ring and the notifications. Framework-free; the UI reads it with useSyncExternalStore.
 */
export class DialerEngine {
  private phone: PhoneLike | null = null;
  private retry: RegistrationRetry | null = null;
  private readonly handles = new Map<string, CallHandle>();
  private readonly notifications = new Map<string, { close(): void }>();
  private sweepTimer: unknown = null;
  private readonly listeners = new Set<() => void>();
  private snapshot: DialerSnapshot = { registration: 'unregistered', calls: [], returnTo: null, handles: new Map() };
  private readonly now: () => number;
  private readonly timers: Timers;

  constructor(private readonly deps: EngineDeps) {
    this.now = deps.now ?? Date.now;
    this.timers = deps.timers ?? realTimers;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  get = (): DialerSnapshot => this.snapshot;

  private emit(change: Partial<DialerSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change, handles: new Map(this.handles) };
    for (const l of this.listeners) l();
  }

  private dispatch(action: CallsAction): void {
    const calls = callsReducer(this.snapshot.calls, action);
    const returnTo =
      this.snapshot.returnTo && calls.some((c) => c.speechId === this.snapshot.returnTo?.speechId && canResume(c, this.deps.ownNumber))
        ? this.snapshot.returnTo
        : null;
    this.emit({ calls, returnTo });
    this.syncRing();
    this.scheduleSweep();
  }

  private call(speechId: string): DialerCall | undefined {
    return this.snapshot.calls.find((c) => c.speechId === speechId);
  }

  /** Ring and notify while an incoming call rings; silence both once none does. */
  private syncRing(): void {
    const ringing = ringingCall(this.snapshot.calls);
    if (ringing) this.deps.ring.play(this.snapshot.calls.some((c) => c.sosCall && c.status === 'calling' && c.direction === 'incoming'));
    else this.deps.ring.stop();
    for (const c of this.snapshot.calls) {
      const rings = c.direction === 'incoming' && c.status === 'calling' && c.hasSIPSession;
      if (rings && !this.notifications.has(c.speechId)) {
        const n = this.deps.notify(c);
        if (n) this.notifications.set(c.speechId, n);
      }
    }
    for (const [id, n] of this.notifications) {
      if (this.call(id)?.status !== 'calling') {
        n.close();
        this.notifications.delete(id);
      }
    }
  }

  private scheduleSweep(): void {
    if (this.sweepTimer !== null) this.timers.clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    const wait = nextSweepIn(this.snapshot.calls, this.now());
    if (wait === null) return;
    this.sweepTimer = this.timers.setTimeout(() => {
      this.sweepTimer = null;
      this.dispatch({ type: 'sweep', now: this.now() });
    }, wait);
  }

  /** Starts the phone (spec comms §4: once the profile, the proxy host and media approval are there). */
  start(): void {
    if (this.phone) return;
    const phone = this.deps.createPhone({
      onRegistration: (state) => {
        this.retry?.onState(state);
        this.emit({ registration: state });
      },
      onIncoming: (handle) => this.onIncoming(handle),
    });
    this.phone = phone;
    this.retry = new RegistrationRetry(() => phone.retry(), this.timers);
    phone.start();
    void this.loadServerCalls();
  }

  /** Stops everything (sign-out). */
  stop(): void {
    for (const h of this.handles.values()) h.end();
    this.handles.clear();
    this.retry?.cancel();
    this.retry = null;
    this.phone?.stop();
    this.phone = null;
    for (const n of this.notifications.values()) n.close();
    this.notifications.clear();
    this.deps.ring.stop();
    if (this.sweepTimer !== null) this.timers.clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    this.emit({ calls: [], returnTo: null, registration: 'unregistered' });
  }

  /** Active and waiting calls of the server (on start, and when the realtime channel comes back). */
  async loadServerCalls(): Promise<void> {
    try {
      const calls = await this.deps.api.managedCalls();
      this.dispatch({ type: 'serverList', calls, ownNumber: this.deps.ownNumber, now: this.now() });
    } catch (error) {
      this.deps.onError(error);
    }
  }

  /** A CallUpdated of the calls-management channel. */
  serverUpdate(call: ServerCall): void {
    const known = this.call(String(call.id));
    if (call.status === 'destroyed' && known && known.status !== 'destroyed' && !this.handles.has(known.speechId))
      this.offerReturn(known.speechId);
    this.dispatch({ type: 'server', call, ownNumber: this.deps.ownNumber, now: this.now() });
  }

  private offerReturn(endedId: string): void {
    // Talking on another call already: there is nothing to return to.
    if (activeCall(this.snapshot.calls.filter((c) => c.speechId !== endedId))) return;
    const candidate = returnCandidate(this.snapshot.calls, endedId, this.deps.ownNumber);
    if (candidate) this.emit({ returnTo: candidate });
  }

  /** Follows a session of a call; `refused` is called instead of ending the call when it ends before it was accepted. */
  private attach(speechId: string, handle: CallHandle, refused?: () => void): void {
    this.handles.set(speechId, handle);
    let wasAccepted = false;
    const accepted = () => {
      wasAccepted = true;
      if (this.handles.get(speechId) === handle && this.call(speechId)?.status !== 'active')
        this.dispatch({ type: 'accepted', speechId, now: this.now() });
    };
    handle.on('accepted', accepted);
    handle.on('confirmed', accepted);
    const ended = (e: { originator?: string }) => {
      if (this.handles.get(speechId) !== handle) return;
      this.handles.delete(speechId);
      if (!wasAccepted && refused) return refused();
      if (e?.originator !== 'local') this.offerReturn(speechId);
      this.dispatch({ type: 'sessionEnded', speechId, now: this.now() });
    };
    handle.on('ended', ended);
    handle.on('failed', ended);
  }

  private onIncoming(handle: CallHandle): void {
    const speechId = handle.headers.speechId ?? randomId();
    if (this.handles.has(speechId)) {
      handle.end();
      return;
    }
    this.attach(speechId, handle);
    this.dispatch({
      type: 'incoming',
      speechId,
      number: handle.remoteNumber,
      callee: handle.headers.targetCallee ?? this.deps.ownNumber,
      callType: handle.headers.speechType === 'awaiting' ? 'awaiting' : 'normal',
      sosCall: handle.headers.sos,
      parentId: null,
      video: handle.video,
      now: this.now(),
    });
  }

  /** Interrupts the active call other than `except` (spec comms §4: only one active call). */
  private interruptActive(except?: string): void {
    const active = activeCall(this.snapshot.calls);
    if (!active || active.speechId === except) return;
    if (interruptionOf(active) === 'pause') this.hold(active.speechId);
    else this.end(active.speechId);
  }

  /**
   * Calls `number`. Refused for the own number; while a call is active, answers `confirm` (with the
   * wording) unless `confirmed`; then interrupts the active call and dials.
   */
  dial(number: string, options: { video: boolean; confirmed?: boolean; sipNumberId?: number }): DialResult {
    const target = number.trim();
    const refusal = callRefusal(target, this.deps.ownNumber);
    if (refusal) return { kind: 'refused', message: refusal };
    if (!this.phone) return { kind: 'offline' };
    const confirm = startConfirmation(this.snapshot.calls);
    if (confirm && !options.confirmed) return { kind: 'confirm', wording: confirm.wording, number: confirm.number };
    this.interruptActive();
    const speechId = this.deps.newSpeechId?.() ?? randomId();
    const handle = this.phone.call(target, {
      video: options.video,
      headers: { speechId, sos: false, speechType: 'normal', targetCallee: target },
    });
    this.attach(speechId, handle);
    this.dispatch({ type: 'outgoing', speechId, number: target, video: options.video, now: this.now() });
    if (options.sipNumberId !== undefined) {
      this.deps.api.callInfo(options.sipNumberId).then(
        (info) => this.dispatch({ type: 'info', speechId, info }),
        () => undefined,
      );
    }
    return { kind: 'started', speechId };
  }

  /** Answers a ringing call, interrupting the active one. */
  accept(speechId: string): void {
    const handle = this.handles.get(speechId);
    if (!handle) return;
    this.interruptActive(speechId);
    handle.answer();
  }

  /**
   * Ends, rejects or cancels a call. An awaiting call this browser has no session of (listed by
   * the server) is stopped on the server.
   */
  end(speechId: string): void {
    const call = this.call(speechId);
    const handle = this.handles.get(speechId);
    if (handle) handle.end();
    else if (call && call.type === 'awaiting' && call.status !== 'destroyed') {
      this.deps.api.stopCall(speechId).catch((e) => this.deps.onError(e));
    }
    if (!handle && call && call.status !== 'destroyed' && call.type === 'normal')
      this.dispatch({ type: 'sessionEnded', speechId, now: this.now() });
  }

  /**
   * Holds an awaiting call in its session (spec comms §4 pause): a re-INVITE puts the other side
   * on hold through the proxy, which records the call answered_waiting; the session stays, since
   * ending it would end the call (the proxy keeps no leg of its own).
   */
  hold(speechId: string): void {
    const call = this.call(speechId);
    const handle = this.handles.get(speechId);
    if (!call || !handle || !canHold(call, this.deps.ownNumber)) return;
    if (handle.hold()) this.dispatch({ type: 'held', speechId });
  }

  /**
   * Resumes a held awaiting call: joining, then active once the other side accepts the re-INVITE.
   * Held before this page was loaded (the server parked it when the old page's connection closed),
   * the call has no session here: a new INVITE naming it (X-Resume-Call) takes it back.
   */
  resume(speechId: string): void {
    const call = this.call(speechId);
    const handle = this.handles.get(speechId);
    if (!call || !canResume(call, this.deps.ownNumber) || (!handle && !this.phone)) return;
    this.interruptActive(speechId);
    this.dispatch({ type: 'joining', speechId });
    if (this.snapshot.returnTo?.speechId === speechId) this.emit({ returnTo: null });
    if (!handle) {
      this.resumeParked(call);
      return;
    }
    handle.unhold(() => {
      if (this.handles.get(speechId) === handle) this.dispatch({ type: 'accepted', speechId, now: this.now() });
    });
  }

  private resumeParked(call: DialerCall): void {
    const { speechId } = call;
    let handle: CallHandle;
    try {
      if (!this.phone) throw new Error('phone not started');
      handle = this.phone.call(call.number, { video: call.video, headers: { resume: speechId } });
    } catch (error) {
      this.dispatch({ type: 'detached', speechId });
      this.deps.onError(error);
      return;
    }
    // Refused (not parked here any more, or not ours): the call stays as the server lists it.
    this.attach(speechId, handle, () => {
      this.dispatch({ type: 'detached', speechId });
      void this.loadServerCalls();
    });
  }

  dismissReturn(): void {
    this.emit({ returnTo: null });
  }

  toggleMute(speechId: string, what: 'mic' | 'volume'): void {
    this.dispatch({ type: 'toggleMute', speechId, what });
    const call = this.call(speechId);
    if (what === 'mic' && call) this.handles.get(speechId)?.setMicMuted(call.settings.mic.muted);
  }

  openDoor(speechId: string): void {
    this.handles.get(speechId)?.openDoor();
  }

  /** Keypad presses during a call go out as DTMF (spec comms §9: 1000 ms). */
  sendDtmf(speechId: string, tones: string): void {
    this.handles.get(speechId)?.sendDtmf(tones);
  }

  select(speechId: string): void {
    this.dispatch({ type: 'select', speechId });
  }

  setFullscreen(speechId: string, on: boolean): void {
    this.dispatch({ type: 'fullscreen', speechId, on });
  }

  /** Registers again now (the button's click while in error). */
  reconnect(): void {
    this.phone?.retry();
  }
}
