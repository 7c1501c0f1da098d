/**
 * The seam between the SIP server (this folder: messages, transactions, transports, registrar,
 * proxy) and Atrium's tables (modules/telephony). The SIP code knows nothing of the database: it
 * asks a SipDirectory who may register and where a call goes, and tells a CallObserver what
 * happened to each call. modules/telephony implements both over the virtual numbers, forward
 * rules, SIP trunks and call records.
 */

/** A number's registered contact, as the registrar keeps it (in memory, with its expiry). */
export interface SipContact {
  number: string;
  /** The Contact URI the user agent registered. */
  uri: string;
  transport: 'udp' | 'tcp' | 'tls' | 'ws' | 'wss';
  /** Where the registration came from (the flow a request to this contact must go back over). */
  source: { address: string; port: number };
  userAgent: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Who sent a request: the transport it came over, and its source address and port. */
export interface SipPeer {
  transport: SipContact['transport'];
  address: string;
  port: number;
}

/** One target of a call attempt. */
export type SipTarget =
  /** Every contact registered for this Atrium number (forked in parallel). */
  | { kind: 'number'; number: string }
  /** An outside number reached through a SIP trunk. */
  | { kind: 'trunk'; number: string; trunk: SipTrunkRoute };

export interface SipTrunkRoute {
  id: number;
  /** sip:host[:port][;transport=…] */
  terminationUri: string;
  login: string | null;
  password: string | null;
  /** Sent as the caller's user part towards the trunk. */
  outgoingNumber: string;
}

/**
 * One stage of a forked call: every target of a stage rings at once (parallel forking); when the
 * stage's timeout passes without an answer, or, for a stage reached `onError`, when every target
 * failed, the next stage rings (sequential forking).
 */
export interface SipStage {
  targets: SipTarget[];
  /** Seconds this stage rings before the next stage is tried; null: until the caller gives up. */
  timeoutSeconds: number | null;
  /** Why this stage is tried: the first stage is 'initial'; later stages follow a no-answer or an error. */
  reason: 'initial' | 'no_answer' | 'error';
}

export type SipRoute =
  | { kind: 'reject'; status: number; reason: string }
  | { kind: 'fork'; stages: SipStage[]; callee: string; sos: boolean };

/** Spec comms §7 custom headers (and Atrium's resume header): one list for the server and the dialer. */
export { SIP_HEADERS } from '@atrium/contract/sip-headers';

export interface SipInviteInfo {
  /** The authenticated caller's number. */
  caller: string;
  /** The request-URI user (what was dialled). */
  callee: string;
  /** Lower-cased header names → values, custom headers included. */
  headers: Record<string, string>;
  callId: string;
  /**
   * Set when the INVITE came from a SIP trunk's peer address (trusted by IP, no digest): `caller`
   * is then the outside number of its From, and `callee` the Atrium number it was sent to.
   */
  trunkId?: number;
}

export interface SipDirectory {
  /** The digest secret of an active number, or null: unknown, inactive or reserved numbers may not register. */
  credentials(number: string): Promise<{ password: string } | null>;
  /** Where an authenticated INVITE goes. Called once per call. */
  route(invite: SipInviteInfo): Promise<SipRoute>;
  /**
   * The SIP trunk whose peer is this sender (its termination URI's transport, address and port),
   * or null. Its INVITEs are trusted: not challenged, routed as incoming calls from outside.
   */
  trunkPeer?(peer: SipPeer): Promise<number | null>;
  /** The name of a number's owner (its user, its device, else the number's own name), or null: what callees are shown. */
  callerName?(number: string): Promise<string | null>;
  /** Whether REGISTERs from this source address are refused outright (403, no challenge): IP blocking. */
  refusesRegistration?(address: string): Promise<boolean>;
  /** A REGISTER from this address failed its digest (wrong password, unknown number, wrong user); awaited before the answer. */
  registrationFailed?(address: string, number: string | null): Promise<void>;
}

export type SipCallOutcome = 'answered' | 'noanswer' | 'busy' | 'cancel' | 'failed';

export type SipCallEvent =
  | { type: 'created'; callId: string; caller: string; callee: string; sos: boolean; speechId: string | null; at: number }
  | { type: 'ringing'; callId: string; numbers: string[]; at: number }
  /** `by` is the number whose contact answered. */
  | { type: 'answered'; callId: string; by: string; at: number }
  /** A stage moved on (forward rule applied). */
  | { type: 'forwarded'; callId: string; reason: 'no_answer' | 'error'; numbers: string[]; at: number }
  /** In-dialog DTMF seen by the proxy (SIP INFO application/dtmf-relay or application/dtmf). */
  | { type: 'dtmf'; callId: string; from: string; digit: string; at: number }
  /**
   * An answered call put on hold: `by` (a party's number) sent a re-INVITE whose SDP is sendonly
   * or inactive, and the other side accepted it (2xx). `resumed`: `by` took it back to sendrecv.
   */
  | { type: 'held'; callId: string; by: string; at: number }
  | { type: 'resumed'; callId: string; by: string; at: number }
  | { type: 'ended'; callId: string; outcome: SipCallOutcome; status: number | null; at: number };

export interface SipCallObserver {
  onCallEvent(event: SipCallEvent): void;
  onRegistration?(contact: SipContact, change: 'added' | 'refreshed' | 'removed' | 'expired'): void;
}
