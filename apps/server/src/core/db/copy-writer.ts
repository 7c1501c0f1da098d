import { Worker } from 'node:worker_threads';
import { finishesWithin } from '../settle.js';

/** Statements run in the COPY's transaction, before and after it (a staging table filled, then moved on). */
export interface CopyAround {
  before: string[];
  after: string[];
}

/**
 * COPY … FROM STDIN on a thread of its own (copy-worker.mjs) with its own connection: the caller
 * hands over a statement and its rows as COPY text and may hand over the next before the first is
 * stored; they are written one after the other in the order given, and each promise settles when its
 * rows are stored (or refused: the error carries PostgreSQL's code). The main thread pays for the
 * text and one copy of it into the thread, never for the round trips, which under a flood of device
 * messages would each wait for a turn of a busy event loop (measured: up to 1.9 s).
 *
 * The thread starts with the first write. Should it fail or stop, what it held is refused (the caller
 * tries again) and `usable` turns false, so the caller writes in its own thread from then on.
 */
export class CopyWriter {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private readonly unsettled = new Set<Promise<void>>();
  private next = 1;
  private broken = false;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly opts: { statementTimeoutMs: number; connectTimeoutMs?: number },
  ) {}

  /** False once the thread failed or the writer was closed. */
  get usable(): boolean {
    return !this.broken && !this.closed;
  }

  /** `around`: statements run before and after the COPY, all in one transaction. */
  write(statement: string, text: string, around?: CopyAround): Promise<void> {
    if (!this.usable) return Promise.reject(new Error('the COPY writer is closed'));
    const worker = this.start();
    const id = this.next++;
    const written = new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, statement, text, around });
    });
    // What close() waits for: settled either way.
    const settled = written.then(
      () => undefined,
      () => undefined,
    );
    this.unsettled.add(settled);
    void settled.then(() => this.unsettled.delete(settled));
    return written;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./copy-worker.mjs', import.meta.url), {
      workerData: { url: this.url, statementTimeoutMs: this.opts.statementTimeoutMs, connectTimeoutMs: this.opts.connectTimeoutMs ?? 5000 },
    });
    worker.unref();
    worker.on('message', (m: { id: number; ok: boolean; message?: string; code?: string }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve();
      else w.reject(Object.assign(new Error(m.message ?? 'COPY failed'), m.code ? { code: m.code } : {}));
    });
    const fail = (e: Error) => {
      this.broken = true;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the COPY writer stopped')));
    this.worker = worker;
    return worker;
  }

  /** Waits for what was handed over (settled either way, at most `waitMs`), then stops the thread. */
  async close(waitMs = 15_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await finishesWithin(Promise.all(this.unsettled), waitMs);
    await this.worker?.terminate();
  }
}
