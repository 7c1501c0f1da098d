import type { Answer, WireError } from '../../core/worker-threads.js';
import type { SipActiveCall } from '../call.js';
import type { SipNetworkSettings } from '../local-address.js';
import type { SipServerOptions } from '../server.js';
import type { TransportCounters } from '../transport.js';
import type { SipCallObserver, SipDirectory } from '../types.js';

/** The server's options that can be cloned to another thread (the directory, observer and log stay behind). */
export type SipWorkerServerOptions = Omit<SipServerOptions, 'directory' | 'observer' | 'log'>;

export type SipPorts = { udp: number; tcp: number; ws: number; tls?: number };

/**
 * Every directory method answers a promise: the worker's stand-in posts the call and goes on
 * serving, so a main thread that is slow to answer holds back only the transaction that asked,
 * never the worker's event loop. A synchronous method added to SipDirectory fails the type check
 * here (its answer would cross as a promise where a value was read).
 */
type AllAsync<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => PromiseLike<unknown> ? true : never;
};
export const DIRECTORY_IS_ASYNC: AllAsync<SipDirectory> = {
  credentials: true,
  route: true,
  trunkPeer: true,
  callerName: true,
  refusesRegistration: true,
  registrationFailed: true,
};

/** Observer calls are one-way (no answer goes back): this fails the type check when one starts returning something. */
type Nothing = ReturnType<() => void>;
type OneWay<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => infer R ? ([R] extends [Nothing] ? true : never) : never;
};
export const OBSERVER_IS_ONE_WAY: OneWay<SipCallObserver> = { onCallEvent: true, onRegistration: true };

export { type Answer, fromWireError, toWireError, type WireError } from '../../core/worker-threads.js';

/** Control calls of the main thread on the running server. */
export type ControlMethod = 'endCall' | 'configure' | 'close';

export interface SipWorkerData {
  options: SipWorkerServerOptions;
  /** The directory's methods, so the worker's stand-in has exactly those (optional ones stay absent). */
  directoryMethods: string[];
  /** How long a directory call may take before the SIP transaction that made it fails. */
  callTimeoutMs: number;
  /** Log levels the main thread writes: the others are not even sent. */
  logLevels: Array<'debug' | 'info' | 'warn' | 'error'>;
}

export type ToWorker =
  /** The first message a worker gets (its code is loaded by then). */
  | { type: 'start'; data: SipWorkerData }
  | { type: 'control'; id: number; method: ControlMethod; args: unknown[] }
  | ({ type: 'answer' } & Answer)
  /**
   * The supervisor's tests: 'throw' throws inside the worker outside every handler (what a bug in the
   * SIP code does), 'oom' allocates until the worker's heap limit ends it (what a leak does).
   */
  | { type: 'crash'; how: 'throw' | 'oom'; message: string };

export type FromWorker =
  /** Its code is loaded: it can start at once. */
  | { type: 'loaded' }
  | { type: 'ready'; ports: SipPorts; network: SipNetworkSettings }
  | { type: 'failed'; error: WireError }
  | { type: 'call'; id: number; method: string; args: unknown[] }
  | { type: 'notify'; method: string; args: unknown[] }
  | { type: 'calls'; calls: SipActiveCall[] }
  | { type: 'counters'; counters: TransportCounters }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; obj: object; msg?: string }
  | ({ type: 'answer' } & Answer);
