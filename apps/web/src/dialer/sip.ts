import * as JsSIP from 'jssip';
import { DEFAULT_ICE_SERVERS, DIALER, SIP_HEADERS } from './constants';
import type { CallType, RegistrationState } from './types';

/** The custom headers of spec comms §7 a call carries. */
export interface CallHeaders {
  speechId?: string | null;
  sos?: boolean;
  speechType?: CallType | null;
  targetCallee?: string | null;
}

/** What a call the phone places sends: the custom headers, and on a resume the parked call's speech id. */
export type OutgoingHeaders = CallHeaders & { resume?: string };

export function headerLines(h: OutgoingHeaders): string[] {
  const lines: string[] = [];
  if (h.speechId) lines.push(`${SIP_HEADERS.speechId}: ${h.speechId}`);
  if (h.sos !== undefined) lines.push(`${SIP_HEADERS.sos}: ${h.sos ? '1' : '0'}`);
  if (h.speechType) lines.push(`${SIP_HEADERS.speechType}: ${h.speechType}`);
  if (h.targetCallee) lines.push(`${SIP_HEADERS.targetCallee}: ${h.targetCallee}`);
  if (h.resume) lines.push(`${SIP_HEADERS.resume}: ${h.resume}`);
  return lines;
}

/** The custom headers of an incoming INVITE. */
export function readHeaders(request: { getHeader(name: string): string | undefined | null } | null | undefined): Required<CallHeaders> {
  const get = (name: string) => {
    const v = request?.getHeader(name);
    return typeof v === 'string' && v.trim() ? v.trim() : null;
  };
  const sos = get(SIP_HEADERS.sos);
  const type = get(SIP_HEADERS.speechType);
  return {
    speechId: get(SIP_HEADERS.speechId),
    sos: sos !== null && /^(1|true|yes)$/i.test(sos),
    speechType: type === 'awaiting' ? 'awaiting' : type === null ? null : 'normal',
    targetCallee: get(SIP_HEADERS.targetCallee),
  };
}

/** Spec comms §8: a socket error or disconnect is `error`; a refused registration is `invalid_registration`. */
export function registrationFailureState(cause: string | undefined): RegistrationState {
  return cause === JsSIP.C.causes.CONNECTION_ERROR || cause === JsSIP.C.causes.REQUEST_TIMEOUT ? 'error' : 'invalid_registration';
}

/** The parts of JsSIP's RTCSession the phone uses (tests pass a fake). */
export interface SessionLike {
  readonly id: string;
  readonly connection: RTCPeerConnection | null | undefined;
  readonly remote_identity: { uri: { user: string }; display_name?: string };
  answer(options?: object): void;
  terminate(options?: object): void;
  sendDTMF(tones: string, options?: object): void;
  mute(options?: { audio?: boolean; video?: boolean }): void;
  /** A re-INVITE with a sendonly offer; false when the session cannot re-offer now. */
  hold(options?: object, done?: () => void): boolean;
  unhold(options?: object, done?: () => void): boolean;
  isOnHold(): { local: boolean; remote: boolean };
  unmute(options?: { audio?: boolean; video?: boolean }): void;
  isEnded(): boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

/** The parts of JsSIP's UA the phone uses. */
export interface UALike {
  start(): void;
  stop(): void;
  register(): void;
  isConnected(): boolean;
  call(target: string, options?: object): SessionLike;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

export interface PhoneConfig {
  number: string;
  password: string;
  /** The SIP domain: number@domain. */
  domain: string;
  displayName?: string;
  socketUrl: string;
  iceServers?: RTCIceServer[];
}

export interface UAOptions {
  socketUrl: string;
  uri: string;
  authorization_user: string;
  password: string;
  display_name?: string;
  register: boolean;
  register_expires: number;
  connection_recovery_min_interval: number;
  connection_recovery_max_interval: number;
  session_timers: boolean;
  user_agent: string;
}

/** JsSIP's user agent over a WebSocket to the proxy. */
export const createJsSipUA = (o: UAOptions): UALike => {
  const { socketUrl, ...config } = o;
  return new JsSIP.UA({ ...config, sockets: [new JsSIP.WebSocketInterface(socketUrl)] }) as unknown as UALike;
};

/** A call's SIP session: media, answer, end, mute, DTMF. */
export class PhoneCall {
  readonly remoteStream = new MediaStreamShim();
  private ended = false;

  constructor(
    readonly session: SessionLike,
    readonly direction: 'incoming' | 'outgoing',
    readonly headers: Required<CallHeaders>,
    readonly video: boolean,
    private readonly iceServers: RTCIceServer[],
  ) {
    const attach = (pc: RTCPeerConnection | null | undefined) => {
      pc?.addEventListener('track', (ev) => this.remoteStream.add(ev.track));
    };
    if (session.connection) attach(session.connection);
    else session.on('peerconnection', ((e: { peerconnection: RTCPeerConnection }) => attach(e.peerconnection)) as never);
    const end = () => {
      this.ended = true;
    };
    session.on('ended', end as never);
    session.on('failed', end as never);
  }

  get remoteNumber(): string {
    return this.session.remote_identity?.uri?.user ?? '';
  }

  get isEnded(): boolean {
    return this.ended || this.session.isEnded();
  }

  answer(): void {
    this.session.answer({
      mediaConstraints: { audio: true, video: this.video },
      pcConfig: { iceServers: this.iceServers },
    });
  }

  /** Ends (or rejects, or cancels) the call; extra headers say why (a pause of an awaiting call). */
  end(headers: CallHeaders = {}): void {
    if (this.isEnded) return;
    try {
      this.session.terminate({ extraHeaders: headerLines(headers) });
    } catch {
      // already ending: JsSIP throws on a second terminate
    }
  }

  /**
   * Holds the call in the session (a re-INVITE whose offer is sendonly, RFC 3264 §8.4): the
   * session and the call through the proxy stay, the proxy records the call as waiting.
   */
  hold(): boolean {
    if (this.isEnded) return false;
    return this.session.hold() || this.session.isOnHold().local;
  }

  /** Takes the held call back (a re-INVITE back to sendrecv); `done` once the other side accepted it. */
  unhold(done: () => void): void {
    if (this.isEnded) return;
    if (!this.session.unhold({}, done) && !this.session.isOnHold().local) done();
  }

  setMicMuted(muted: boolean): void {
    if (muted) this.session.mute({ audio: true });
    else this.session.unmute({ audio: true });
  }

  /** Spec comms §9: door opening sends '#' as SIP INFO, 160 ms with a 1200 ms gap. */
  openDoor(): void {
    const { tone, duration, interToneGap } = DIALER.doorDtmf;
    this.session.sendDTMF(tone, { duration, interToneGap, transportType: JsSIP.C.DTMF_TRANSPORT.INFO });
  }

  sendDtmf(tones: string): void {
    this.session.sendDTMF(tones, { duration: DIALER.dtmfDuration, transportType: JsSIP.C.DTMF_TRANSPORT.INFO });
  }

  /** The local camera and microphone of the call. */
  localStream(): MediaStream | null {
    const pc = this.session.connection;
    if (!pc || typeof MediaStream === 'undefined') return null;
    const tracks = pc.getSenders().flatMap((s) => (s.track ? [s.track] : []));
    return tracks.length ? new MediaStream(tracks) : null;
  }

  on(
    event: 'progress' | 'accepted' | 'confirmed' | 'ended' | 'failed',
    listener: (e: { cause?: string; originator?: string }) => void,
  ): void {
    this.session.on(event, listener as never);
  }
}

/** Remote tracks gathered as they arrive; a MediaStream once the browser has one. */
export class MediaStreamShim {
  readonly tracks: MediaStreamTrack[] = [];
  private stream: MediaStream | null = null;
  private readonly listeners = new Set<() => void>();

  add(track: MediaStreamTrack): void {
    this.tracks.push(track);
    this.stream?.addTrack(track);
    // A video track is there from the offer on, but shows a picture only once frames flow.
    const changed = () => {
      for (const l of this.listeners) l();
    };
    track.addEventListener?.('unmute', changed);
    track.addEventListener?.('mute', changed);
    changed();
  }

  get(): MediaStream | null {
    if (!this.tracks.length || typeof MediaStream === 'undefined') return null;
    this.stream ??= new MediaStream(this.tracks);
    return this.stream;
  }

  get hasVideo(): boolean {
    return this.tracks.some((t) => t.kind === 'video' && !t.muted && t.readyState === 'live');
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export interface PhoneEvents {
  onRegistration(state: RegistrationState): void;
  onIncoming(call: PhoneCall): void;
}

/**
 * The softphone: a JsSIP user agent registered as number@domain with the number's SIP password
 * (spec comms §7), register expiry 30 s, connection recovery 20 s..30000 s.
 */
export class SipPhone {
  private ua: UALike | null = null;
  private stopping = false;
  state: RegistrationState = 'unregistered';

  constructor(
    private readonly config: PhoneConfig,
    private readonly events: PhoneEvents,
    private readonly createUA: (o: UAOptions) => UALike = createJsSipUA,
  ) {}

  get uri(): string {
    return `sip:${this.config.number}@${this.config.domain}`;
  }

  private set(state: RegistrationState): void {
    if (this.state === state) return;
    this.state = state;
    this.events.onRegistration(state);
  }

  start(): void {
    if (this.ua) return;
    this.stopping = false;
    const ua = this.createUA({
      socketUrl: this.config.socketUrl,
      uri: this.uri,
      authorization_user: this.config.number,
      password: this.config.password,
      display_name: this.config.displayName,
      register: true,
      register_expires: DIALER.registerExpiresSeconds,
      connection_recovery_min_interval: DIALER.connectionRecoveryMinSeconds,
      connection_recovery_max_interval: DIALER.connectionRecoveryMaxSeconds,
      session_timers: false,
      user_agent: 'Atrium web dialer',
    });
    this.ua = ua;
    const mine = (fn: (...a: never[]) => void) => ((...a: never[]) => (this.ua === ua ? fn(...a) : undefined)) as never;
    ua.on(
      'connecting',
      mine(() => this.set('registering')),
    );
    ua.on(
      'registered',
      mine(() => this.set('registered')),
    );
    ua.on(
      'unregistered',
      mine(() => this.set(this.stopping ? 'unregistering' : 'unregistered')),
    );
    ua.on('registrationFailed', mine(((e: { cause?: string }) => this.set(registrationFailureState(e?.cause))) as never));
    ua.on(
      'disconnected',
      mine(() => this.set(this.stopping ? 'unregistered' : 'error')),
    );
    ua.on(
      'newRTCSession',
      mine(((e: { originator: string; session: SessionLike; request?: { getHeader(n: string): string; body?: string } }) => {
        if (e.originator !== 'remote') return;
        const video = /\bm=video\b/.test(e.request?.body ?? '');
        this.events.onIncoming(new PhoneCall(e.session, 'incoming', readHeaders(e.request), video, this.iceServers));
      }) as never),
    );
    this.set('registering');
    ua.start();
  }

  /** Re-register after an error or a refused registration (the retry policy calls this). */
  retry(): void {
    const ua = this.ua;
    if (!ua || this.stopping) return;
    this.set('registering');
    if (ua.isConnected()) ua.register();
    else ua.start();
  }

  /** Unregisters and closes the socket (sign-out). */
  stop(): void {
    const ua = this.ua;
    if (!ua) return;
    this.stopping = true;
    this.set('unregistering');
    ua.stop();
    this.ua = null;
    this.set('unregistered');
  }

  private get iceServers(): RTCIceServer[] {
    return this.config.iceServers ?? DEFAULT_ICE_SERVERS;
  }

  /** Calls `target` (a number at the phone's domain) with the custom headers. */
  call(target: string, options: { video: boolean; headers: OutgoingHeaders }): PhoneCall {
    if (!this.ua) throw new Error('phone not started');
    const session = this.ua.call(`sip:${target}@${this.config.domain}`, {
      mediaConstraints: { audio: true, video: options.video },
      pcConfig: { iceServers: this.iceServers },
      rtcOfferConstraints: { offerToReceiveAudio: true, offerToReceiveVideo: options.video },
      extraHeaders: headerLines(options.headers),
    });
    const headers: Required<CallHeaders> = {
      speechId: options.headers.speechId ?? null,
      sos: options.headers.sos ?? false,
      speechType: options.headers.speechType ?? null,
      targetCallee: options.headers.targetCallee ?? null,
    };
    return new PhoneCall(session, 'outgoing', headers, options.video, this.iceServers);
  }
}
