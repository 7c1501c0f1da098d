/**
 * What crosses between the main thread (host.ts: the supervisor, the directory and the observer on
 * the database) and the SIP worker thread (thread.ts: the SIP server itself). Directory and observer
 * calls travel as a method name and its arguments, never one message per method, so a method added
 * to SipDirectory or SipCallObserver crosses without a change here.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Answer, WireError } from '../../core/worker-threads.js';
import type { SipActiveCall } from '../call.js';
import type { SipNetworkSettings } from '../local-address.js';
import type { SipServerOptions } from '../server.js';
import type { TransportCounters } from '../transport.js';
import type { SipCallObserver, SipDirectory } from '../types.js';

/** The server's options that can be cloned to another thread (the directory, observer and log stay behind). */
export type SipWorkerServerOptions = Omit<SipServerOptions, 'directory' | 'observer' | 'log'>;

export type SipPorts = { udp: number; tcp: number; ws: number; tls?: number };

/** The methods of T whose answer is a plain value, not a promise. */
type SyncMethodsOf<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => infer R ? (R extends PromiseLike<unknown> ? never : K) : never;
}[keyof T];

/**
 * Directory methods whose caller in the SIP code expects the answer at once (not a promise): the
 * worker waits for them on a shared flag (Atomics.wait), every other one is an ordinary async call.
 * Typed so that a synchronous method added to SipDirectory, or one of these becoming async, fails
 * the type check here instead of silently answering a promise where a boolean was read.
 */
export const SYNC_DIRECTORY_METHODS: { [K in SyncMethodsOf<SipDirectory>]: true } = { refusesRegistration: true };

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
  /** Synchronous directory answers come back on this port, announced by a bump of `syncFlag`. */
  syncPort: MessagePort;
  syncFlag: SharedArrayBuffer;
  /** How long a directory call may take before the SIP transaction that made it fails. */
  callTimeoutMs: number;
  /** The same for a synchronous one, for which the worker's event loop waits. */
  syncTimeoutMs: number;
  /** Log levels the main thread writes: the others are not even sent. */
  logLevels: Array<'debug' | 'info' | 'warn' | 'error'>;
}

export type ToWorker =
  /** The first message a worker gets (its code is loaded by then); `data.syncPort` travels in its transfer list. */
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
  | { type: 'call'; id: number; method: string; args: unknown[]; sync: boolean }
  | { type: 'notify'; method: string; args: unknown[] }
  | { type: 'calls'; calls: SipActiveCall[] }
  | { type: 'counters'; counters: TransportCounters }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; obj: object; msg?: string }
  | ({ type: 'answer' } & Answer);
