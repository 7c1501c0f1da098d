import type { SipRequest, SipResponse } from './message.js';
import type { ClientTransaction, ServerTransaction } from './transaction.js';
import type { Destination } from './transport.js';
import type { SipCallOutcome, SipStage, SipTrunkRoute } from './types.js';

/** The proxy's memory of one call: its forks while ringing, then the dialog it relays. */

export interface Branch {
  /** The Atrium number (or the outside number of a trunk target) this fork rings. */
  number: string;
  stage: number;
  trunk: SipTrunkRoute | null;
  dest: Destination | null;
  request: SipRequest | null;
  tx: ClientTransaction | null;
  final: SipResponse | null;
  /** Why it failed when it never reached anyone (no contacts, unresolvable trunk). */
  localFailure: number | null;
  cancelled: boolean;
  authTried: boolean;
  /** Added to the caller's CSeq towards this branch (a trunk re-INVITE after its 401 took one). */
  cseqOffset: number;
}

/** One side of an established dialog, as we need it to relay to it or hang it up. */
export interface DialogLeg {
  number: string;
  flow: Destination;
  /** Remote target (its Contact). */
  contact: string;
  /** The From/To header values as this side knows itself (with its tag) and the other side. */
  self: string;
  peer: string;
  routeSet: string[];
  /** Highest CSeq this side has sent. */
  cseq: number;
}

export interface CalleeDialog {
  tag: string;
  branch: Branch;
  leg: DialogLeg;
  /** The caller's ACK for the 2xx went through; before it, nobody may send BYE (§15). */
  confirmed: boolean;
  onConfirmed: Array<() => void>;
}

export type CallState = 'routing' | 'ringing' | 'answered' | 'ended';

export interface Call {
  callId: string;
  caller: string;
  callee: string;
  /** The number the directory resolved the call to (route.callee), sent as X-Target-Callee. */
  target: string;
  speechId: string;
  sos: boolean;
  startedAt: number;
  answeredAt: number | null;
  answeredBy: string | null;
  state: CallState;
  /** The directory has answered; before that a CANCEL only answers 487 and onInvite ends the call. */
  routed: boolean;
  invite: SipRequest;
  serverTx: ServerTransaction;
  callerTag: string;
  /**
   * Who the caller is, as Atrium asserts it to the callees (RFC 3325): the authenticated number and
   * its owner's name. Null for a call in from a trusted SIP trunk, whose own identity headers pass.
   */
  asserted: { number: string; name: string } | null;
  callerLeg: DialogLeg;
  stages: SipStage[];
  stageIndex: number;
  stopStageTimer: (() => void) | null;
  branches: Branch[];
  ringing: Set<string>;
  /** Every 2xx that reached us, by the callee's tag; the first is the answer. */
  dialogs: Map<string, CalleeDialog>;
  answer: CalleeDialog | null;
}

/** What activeCalls() reports. */
export interface SipActiveCall {
  callId: string;
  caller: string;
  callee: string;
  speechId: string;
  sos: boolean;
  state: 'routing' | 'ringing' | 'answered';
  startedAt: number;
  answeredAt: number | null;
  answeredBy: string | null;
  /** Numbers whose phones are ringing or (answered) talking. */
  numbers: string[];
}

export function outcomeOf(status: number): SipCallOutcome {
  if (status >= 200 && status < 300) return 'answered';
  if (status === 486 || status === 600) return 'busy';
  if (status === 480 || status === 408) return 'noanswer';
  if (status === 487) return 'cancel';
  return 'failed';
}

/**
 * RFC 3261 §16.7 step 6, with Atrium's preference: a 6xx wins, then 486 Busy Here (so the caller
 * hears busy when one phone of a group is busy and the others failed), then the lowest class. Our
 * own 487s (branches we cancelled) count only when nothing else is there.
 */
export function bestResponse(branches: Branch[]): { status: number; response: SipResponse | null; branch: Branch | null } {
  const finals = branches.filter((b) => b.final || b.localFailure !== null);
  const statusOf = (b: Branch) => b.final?.status ?? b.localFailure ?? 500;
  const meaningful = finals.filter((b) => !(b.cancelled && statusOf(b) === 487));
  const pool = meaningful.length > 0 ? meaningful : finals;
  if (pool.length === 0) return { status: 480, response: null, branch: null };
  const pick =
    pool.find((b) => statusOf(b) >= 600) ??
    pool.find((b) => statusOf(b) === 486) ??
    [...pool].sort((a, b) => Math.floor(statusOf(a) / 100) - Math.floor(statusOf(b) / 100))[0];
  if (!pick) return { status: 480, response: null, branch: null };
  return { status: statusOf(pick), response: pick.final, branch: pick };
}

/** The digit of an INFO body (application/dtmf-relay `Signal=#`, or application/dtmf). */
export function dtmfDigit(contentType: string | undefined, body: Buffer): string | null {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  const text = body.toString('utf8');
  if (type === 'application/dtmf-relay') {
    const m = /^\s*signal\s*=\s*(\S+)/im.exec(text);
    return m?.[1] ? normaliseDigit(m[1]) : null;
  }
  if (type === 'application/dtmf') {
    const trimmed = text.trim();
    return trimmed ? normaliseDigit(trimmed) : null;
  }
  return null;
}

function normaliseDigit(raw: string): string | null {
  // RFC 4733 event codes appear in some phones' INFO bodies: 10 is *, 11 is #.
  if (raw === '10') return '*';
  if (raw === '11') return '#';
  return /^[0-9*#A-Da-d]$/.test(raw) ? raw.toUpperCase() : null;
}

/**
 * Whether an SDP offer puts the other side on hold (RFC 3264 §8.4): every media stream in use is
 * sendonly or inactive, or (RFC 2543 style) its connection address is 0.0.0.0. Null when there is
 * no SDP (an offerless re-INVITE, whose offer comes in the 2xx).
 */
export function sdpHolds(contentType: string | undefined, body: Buffer): boolean | null {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/sdp' || body.length === 0) return null;
  const lines = body.toString('utf8').split(/\r?\n/);
  const directionOf = (ls: string[]) => ls.map((l) => /^a=(sendrecv|sendonly|recvonly|inactive)\s*$/.exec(l.trim())?.[1]).find(Boolean);
  const connectionOf = (ls: string[]) => ls.map((l) => /^c=IN IP[46] (\S+)/.exec(l.trim())?.[1]).find(Boolean);
  const firstMedia = lines.findIndex((l) => l.startsWith('m='));
  const session = firstMedia < 0 ? lines : lines.slice(0, firstMedia);
  const media: string[][] = [];
  for (const line of firstMedia < 0 ? [] : lines.slice(firstMedia)) {
    if (line.startsWith('m=')) media.push([line]);
    else media[media.length - 1]?.push(line);
  }
  const used = media.filter((m) => !/^m=\S+ 0 /.test(m[0] ?? ''));
  if (used.length === 0) return null;
  return used.every((m) => {
    const direction = directionOf(m) ?? directionOf(session) ?? 'sendrecv';
    const address = connectionOf(m) ?? connectionOf(session);
    return direction === 'sendonly' || direction === 'inactive' || address === '0.0.0.0';
  });
}
