/**
 * What every supervised plane thread shares (the SIP server, sip/worker/; the device plane,
 * gateways/mqtt/worker/): spare workers loaded in advance, errors that cross a thread's channel,
 * log lines forwarded to the main thread's logger, and how soon a dead worker is started again.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * Names the calling thread as the operating system shows it (top -H, ps -L, each task's comm under /proc):
 * Node names every thread "node", so a plane's CPU could not be told from the HTTP thread's or V8's
 * helpers'. Linux keeps at most 15 bytes; elsewhere, or if refused, the name stays as it was.
 */
export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // Not Linux, or /proc not mounted: the thread keeps Node's name.
  }
}

/** Each thread of process `pid` by its id, with the name the operating system shows (Linux; empty elsewhere). */
export function threadNames(pid = process.pid): Map<number, string> {
  const names = new Map<number, string>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        names.set(Number(tid), readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim());
      } catch {
        // The thread ended while listed.
      }
    }
  } catch {
    // Not Linux, or the process is gone.
  }
  return names;
}

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

/** What the supervisor itself reads from a worker; the plane's own messages go to its handler. */
type CommonMessage =
  | { type: 'loaded' }
  | { type: 'ready' }
  | { type: 'failed'; error: WireError }
  | { type: 'log'; level: LogLevel; obj: object; msg?: string }
  | ({ type: 'answer' } & Answer);

/** A plane's ready message, and the messages only it knows (its handler's), out of all it sends. */
type ReadyOf<From> = Extract<From, { type: 'ready' }>;
type OwnOf<From> = Exclude<From, { type: CommonMessage['type'] }>;

export interface SupervisorSpec<From extends { type: string }> {
  /** The plane's name in log lines and errors ("sip worker", "device plane"). */
  what: string;
  log: ThreadLogger;
  /** Where workers come from; `ownsSpares`: closed with the supervisor (and when the first start fails). */
  spares: SpareWorkers;
  ownsSpares: boolean;
  /**
   * Starts a taken worker (posts its start message) and answers the handler of the plane's own
   * messages from it (those the supervisor does not read), and what to do when it exits.
   */
  begin(w: Worker): { message(msg: OwnOf<From>): void; exit?(): void };
  /** The worker serves: its ready message. */
  ready(msg: ReadyOf<From>): void;
  /** What dies with a worker (open calls, counters), before its replacement starts. */
  died(): void;
  /** Fields of the supervisor's log lines (ports, registrations). */
  logFields?(): object;
}

/**
 * A plane's worker thread kept running: a worker that dies (an uncaught exception, out of memory,
 * terminated) is replaced at once, then ever later if it keeps dying (restartDelay); control calls
 * of the main thread are answered by the worker serving now and fail when it dies.
 */
export class WorkerSupervisor<From extends { type: string }, Control extends string> {
  crashes = 0;
  running = false;
  /** The one serving now (or the dead one until its replacement serves); set once the first serves. */
  worker = null as unknown as Worker;
  private failuresInARow = 0;
  private closing = false;
  private waiters: Array<() => void> = [];
  private controlId = 1;
  private readonly controls = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(private readonly spec: SupervisorSpec<From>) {}

  /** The first worker; rejects as the plane's start would (EADDRINUSE and all). */
  async start(): Promise<void> {
    try {
      this.worker = await this.spawn();
    } catch (e) {
      if (this.spec.ownsSpares) await this.spec.spares.close();
      throw e;
    }
    this.running = true;
  }

  control(method: Control, args: unknown[]): Promise<unknown> {
    if (!this.running) return Promise.reject(new Error(`the ${this.spec.what} is starting again`));
    const id = this.controlId++;
    return new Promise((resolve, reject) => {
      this.controls.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'control', id, method, args });
    });
  }

  /** Resolves once the worker after the next crash (or the current one) serves. */
  whenRunning(): Promise<void> {
    return this.running ? Promise.resolve() : new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Asks the worker to close itself (its 'close' control, waited for at most `graceMs`), then ends its thread. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const w = this.worker;
    if (this.running) {
      const closed = this.control('close' as Control, []).catch(() => undefined);
      await Promise.race([closed, new Promise((r) => setTimeout(r, graceMs).unref())]);
    }
    this.running = false;
    await w.terminate();
    if (this.spec.ownsSpares) await this.spec.spares.close();
    this.settle();
  }

  /** One worker: resolves once it serves, rejects when it could not start. */
  private spawn(): Promise<Worker> {
    const live = Date.now();
    const w = this.spec.spares.take();
    const own = this.spec.begin(w);
    return new Promise<Worker>((resolve, reject) => {
      let ready = false;
      w.on('message', (msg: CommonMessage | From) => {
        switch (msg.type) {
          case 'loaded':
            return;
          case 'ready':
            ready = true;
            this.spec.ready(msg as ReadyOf<From>);
            resolve(w);
            return;
          case 'failed':
            reject(fromWireError((msg as { error: WireError }).error));
            void w.terminate();
            return;
          case 'log': {
            const line = msg as { level: LogLevel; obj: object; msg?: string };
            this.spec.log[line.level](line.obj, line.msg);
            return;
          }
          case 'answer': {
            const a = msg as Answer;
            const c = this.controls.get(a.id);
            if (!c) return;
            this.controls.delete(a.id);
            if (a.ok) c.resolve(a.value);
            else c.reject(fromWireError(a.error));
            return;
          }
          default:
            own.message(msg as OwnOf<From>);
        }
      });
      let error: unknown = null;
      w.on('error', (e) => {
        error = e;
      });
      w.on('exit', (code) => {
        own.exit?.();
        if (!ready) {
          reject(error ?? new Error(`${this.spec.what} exited with code ${code} before it served`));
          return;
        }
        if (w === this.worker) this.died(error, code, Date.now() - live);
      });
    });
  }

  private settle(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const resolve of ws) resolve();
  }

  private died(error: unknown, code: number, uptimeMs: number): void {
    this.running = false;
    for (const [, c] of this.controls) c.reject(new Error(`the ${this.spec.what} died`));
    this.controls.clear();
    if (this.closing) return;
    this.crashes++;
    this.spec.log.error({ err: error, code, crashes: this.crashes }, `${this.spec.what} died; starting it again`);
    this.spec.died();
    this.failuresInARow = uptimeMs >= STABLE_MS ? 1 : this.failuresInARow + 1;
    void this.respawn();
  }

  private async respawn(): Promise<void> {
    for (let attempt = 0; !this.closing; attempt++) {
      const delay = restartDelay(this.failuresInARow, attempt);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      if (this.closing) return;
      try {
        const next = await this.spawn();
        if (this.closing) {
          await next.terminate();
          return;
        }
        this.worker = next;
        this.running = true;
        this.spec.log.info({ crashes: this.crashes, ...this.spec.logFields?.() }, `${this.spec.what} serving again`);
        this.settle();
        return;
      } catch (err) {
        this.spec.log.error({ err, ...this.spec.logFields?.() }, `${this.spec.what} could not start again; retrying`);
      }
    }
  }
}

/**
 * A worker's calls on the main thread waiting for their answers. A call not answered within
 * `timeoutMs` fails alone (the request that made it), never the worker; `timeoutMs` undefined: it
 * waits as long as the main thread takes.
 */
export class PendingCalls {
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout | undefined }>();
  private nextId = 1;

  /** A new call's id and its answer; `sent(id)` posts it. */
  add(label: string, timeoutMs: number | undefined, post: (id: number) => void): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.pending.delete(id);
              reject(new Error(`${label}: no answer within ${timeoutMs} ms`));
            }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      post(id);
    });
  }

  /** An id for a call answered some other way (a synchronous one). */
  nextCallId(): number {
    return this.nextId++;
  }

  answered(a: Answer): void {
    const p = this.pending.get(a.id);
    if (!p) return;
    this.pending.delete(a.id);
    clearTimeout(p.timer);
    if (a.ok) p.resolve(a.value);
    else p.reject(fromWireError(a.error));
  }
}

/** What `run` gives or throws, as the answer to call `id` (a call crossing a thread's channel either way). */
export async function answerOf(id: number, run: () => unknown): Promise<Answer> {
  try {
    return { id, ok: true, value: await run() };
  } catch (e) {
    return { id, ok: false, error: toWireError(e) };
  }
}

/** Answers a control call of the main thread with what `run` gives or throws. */
export function answerControl(send: (msg: { type: 'answer' } & Answer) => void, id: number, run: () => Promise<unknown>): void {
  void answerOf(id, run).then((answer) => send({ type: 'answer', ...answer }));
}
