/**
 * What every supervised plane thread shares (the SIP server, sip/worker/; the device plane,
 * gateways/mqtt/worker/): spare workers loaded in advance, errors that cross a thread's channel,
 * log lines forwarded to the main thread's logger, and how soon a dead worker is started again.
 */
import { type ResourceLimits, Worker } from 'node:worker_threads';

/** An Error as it crosses: enough to rebuild one with its name and code (EADDRINUSE decides what main.ts says). */
export interface WireError {
  name: string;
  message: string;
  code?: string;
  stack?: string;
}

export function toWireError(e: unknown): WireError {
  const err: NodeJS.ErrnoException = e instanceof Error ? e : new Error(String(e));
  return { name: err.name, message: err.message, ...(typeof err.code === 'string' ? { code: err.code } : {}), stack: err.stack };
}

export function fromWireError(w: WireError): Error {
  const err = new Error(w.message) as NodeJS.ErrnoException;
  err.name = w.name;
  if (w.code) err.code = w.code;
  if (w.stack) err.stack = w.stack;
  return err;
}

export type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type ThreadLogger = Record<LogLevel, (obj: object, msg?: string) => void>;

/** The levels a main-thread logger writes (pino's isLevelEnabled), so a worker sends no others. */
export function levelsOf(log: object): LogLevel[] {
  const enabled = (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  const all = ['debug', 'info', 'warn', 'error'] as const;
  return typeof enabled === 'function' ? all.filter((l) => enabled.call(log, l)) : [...all];
}

/**
 * A worker's logger that posts its lines to the main thread. Something in a line that cannot be
 * cloned (a socket, a function) crosses as JSON instead, or only its keys when even that fails (a
 * cycle): a log line never ends the worker.
 */
export function forwardingLog(
  send: (line: { type: 'log'; level: LogLevel; obj: object; msg?: string }) => void,
  levels: () => ReadonlySet<string>,
): ThreadLogger {
  const line = (level: LogLevel) => (obj: object, msg?: string) => {
    if (!levels().has(level)) return;
    try {
      send({ type: 'log', level, obj, ...(msg === undefined ? {} : { msg }) });
    } catch {
      let plain: object;
      try {
        plain = JSON.parse(JSON.stringify(obj, (_k, v) => (v instanceof Error ? toWireError(v) : v)));
      } catch {
        plain = { keys: Object.keys(obj) };
      }
      send({ type: 'log', level, obj: plain, ...(msg === undefined ? {} : { msg }) });
    }
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/** Workers that keep dying right after start are started again ever later, up to this. */
const MAX_BACKOFF_MS = 10_000;
/** A worker that served this long before it died counts as a fresh failure (no backoff). */
export const STABLE_MS = 10_000;

/**
 * How long to wait before the `attempt`th try at starting a worker again, after `failuresInARow`
 * deaths: twice in a row at once; a worker that keeps dying right after its start (a packet that
 * kills it, sent again and again) is then started again ever later, so it cannot eat the CPU.
 */
export function restartDelay(failuresInARow: number, attempt: number): number {
  const n = failuresInARow + attempt;
  return Math.min(MAX_BACKOFF_MS, n <= 2 ? 0 : 250 * 2 ** (n - 3));
}

/**
 * Worker threads with a plane's code loaded, waiting for their start message: loading it (tsx
 * compiling the plane and the contract it imports) takes a second or two, more than a dead worker's
 * replacement may keep clients waiting. One always waits; taking it starts loading the next. A
 * worker says it is loaded with the message `{ type: 'loaded' }`.
 */
export class SpareWorkers {
  private spare: { worker: Worker; loaded: Promise<void> } | null = null;
  private closed = false;

  /**
   * `entry`: the worker's first file; `name`: its thread's name in stack traces and inspectors;
   * `resourceLimits`: heap limits of each worker, so that a runaway plane dies alone (and is started
   * again); `keep`: whether one waits loaded at all times (false: a replacement loads when needed,
   * sparing the memory of a whole idle thread where clients retry on their own).
   */
  constructor(
    private readonly entry: URL,
    private readonly name: string,
    private readonly resourceLimits?: ResourceLimits,
    private readonly keep = true,
  ) {}

  private load(): { worker: Worker; loaded: Promise<void> } {
    const worker = new Worker(this.entry, {
      ...(this.resourceLimits ? { resourceLimits: this.resourceLimits } : {}),
      name: this.name,
    });
    const spare = {
      worker,
      loaded: new Promise<void>((resolve) => {
        const onMessage = (msg: { type?: string }) => {
          if (msg?.type !== 'loaded') return;
          worker.off('message', onMessage);
          resolve();
        };
        worker.on('message', onMessage);
        worker.once('exit', () => resolve());
      }),
    };
    // One that died waiting (it could not load) is replaced at the next take().
    worker.once('exit', () => {
      if (this.spare === spare) this.spare = null;
    });
    worker.on('error', () => undefined);
    return spare;
  }

  /** Resolves once a spare worker waits loaded (for tests that time a replacement). */
  async ready(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      if (!this.spare) this.spare = this.load();
      const spare = this.spare;
      await spare.loaded;
      if (this.spare === spare) return;
    }
  }

  /** A loaded (or loading) worker to start in; the next one starts loading. */
  take(): Worker {
    if (this.closed) throw new Error(`the ${this.name} workers are closed`);
    const w = (this.spare ?? this.load()).worker;
    this.spare = null;
    if (!this.keep) return w;
    // Loading competes for the CPU with the worker just taken: the next one loads a little later.
    setTimeout(() => {
      if (!this.closed && !this.spare) this.spare = this.load();
    }, 1000).unref();
    return w;
  }

  async close(): Promise<void> {
    this.closed = true;
    const spare = this.spare;
    this.spare = null;
    await spare?.worker.terminate();
  }
}
