import type { CallHistoryItem, CallRecord, CallType } from '@atrium/contract';

export type {
  CallInfo,
  CallOutcome,
  CallType,
  ConciergeDevice,
  DialerCredentials,
  Interception as InterceptionSettings,
  SipNumberContact as Contact,
} from '@atrium/contract';

/** The server's call record, also the data of CallUpdated (spec comms §3). */
export type ServerCall = CallRecord;
export type ServerCallStatus = CallRecord['status'];
/** A dialer history entry (spec comms §3). */
export type HistoryEntry = CallHistoryItem;

/** Client call statuses of spec comms §4. */
export type CallStatus = 'new' | 'calling' | 'joining' | 'active' | 'paused' | 'processed_paused' | 'destroyed';

export type CallDirection = 'outgoing' | 'incoming';

/** A call of the dialer (spec comms §3, "Call (dialer, client side)"). */
export interface DialerCall {
  /** The X-Speech-Id, which is also the id of the server's call record. */
  speechId: string;
  /** The other side's number. */
  number: string;
  /** Who was dialled (for an incoming call, the number that rang here; for a queue, the queue's). */
  callee: string | null;
  direction: CallDirection;
  type: CallType;
  status: CallStatus;
  /** A SIP session (media) belongs to the call in this browser. */
  hasSIPSession: boolean;
  /** Epoch ms when the talk began, for the call timer. */
  started: number | null;
  sosCall: boolean;
  info: { address: string | null; user: string | null } | null;
  /** The number that answered, when the server says so. */
  answeredBy: string | null;
  parentId: string | null;
  settings: { volume: { muted: boolean }; mic: { muted: boolean } };
  isSelected: boolean;
  fullscreen: boolean;
  video: boolean;
  /** Epoch ms when the call became destroyed (it leaves the list 5 s later). */
  endedAt: number | null;
}

/** SIP registration states of spec comms §4. */
export type RegistrationState = 'registering' | 'registered' | 'unregistering' | 'unregistered' | 'error' | 'invalid_registration';
