/** Options and small shared types of the SIP server, kept apart so every layer can import them. */

/** The pino-like logger the server process hands in. */
export interface SipLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** RFC 3261 §17 timer bases; tests shrink T1 so retransmission paths run in milliseconds. */
export interface SipTimerOptions {
  /** RTT estimate, default 500 ms. */
  t1Ms?: number;
  /** Maximum retransmit interval for non-INVITE requests and INVITE responses, default 4000 ms. */
  t2Ms?: number;
  /** Maximum duration a message stays in the network, default 5000 ms. */
  t4Ms?: number;
}

export interface SipTimers {
  t1: number;
  t2: number;
  t4: number;
}

export function resolveTimers(opts: SipTimerOptions | undefined): SipTimers {
  return { t1: opts?.t1Ms ?? 500, t2: opts?.t2Ms ?? 4000, t4: opts?.t4Ms ?? 5000 };
}

/** Every timer of a server in one place, so close() can clear them all. */
export class TimerSet {
  private readonly handles = new Set<NodeJS.Timeout>();
  private stopped = false;

  /** `onError` hears what a timer's work threw: one timer's failure must not end the process. */
  constructor(private readonly onError: (err: unknown) => void = () => undefined) {}

  private run(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onError(err);
    }
  }

  after(ms: number, fn: () => void): () => void {
    // Work still finishing after close() (a directory lookup resolving late) arms nothing.
    if (this.stopped) return () => undefined;
    const handle = setTimeout(() => {
      this.handles.delete(handle);
      this.run(fn);
    }, ms);
    this.handles.add(handle);
    return () => {
      clearTimeout(handle);
      this.handles.delete(handle);
    };
  }

  every(ms: number, fn: () => void): () => void {
    if (this.stopped) return () => undefined;
    const handle = setInterval(() => this.run(fn), ms);
    this.handles.add(handle);
    return () => {
      clearInterval(handle);
      this.handles.delete(handle);
    };
  }

  stop(): void {
    this.stopped = true;
    for (const handle of this.handles) clearTimeout(handle);
    this.handles.clear();
  }

  get size(): number {
    return this.handles.size;
  }
}
