import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The loop of a durable delivery worker (webhooks, pushes): rows claimed with SKIP LOCKED under a
 * lease by `claim`, each handed to `attempt`, at most `concurrency` in flight on this instance.
 * `wake` looks at once (new work written by this instance). While busy it looks again every `pollMs`;
 * once nothing is claimed or in flight it sleeps until the earliest row falls due (`nextDue`: a
 * retry's time, a lease's end), at most `idleMs` — so an idle server sends no statements meanwhile.
 */
export interface DeliveryWorkerOptions<T> {
  /** Named in the log when claiming fails. */
  label: string;
  log: FastifyBaseLogger;
  pollMs: number;
  /** The longest sleep with nothing to do: the safety net for work no wake announced (default 30 s). */
  idleMs?: number;
  /** Milliseconds until the earliest waiting row falls due (negative: due now), null when none waits. */
  nextDue?: () => Promise<number | null>;
  concurrency: number;
  claim: (limit: number) => Promise<T[]>;
  /** Records its own outcome; never throws. */
  attempt: (item: T) => Promise<void>;
}

export class DeliveryWorker<T> {
  private timer: NodeJS.Timeout | undefined;
  private active = false;
  private readonly inFlight = new Set<Promise<void>>();
  private wakeRequested = false;
  /** A look for work is under way: a wake meanwhile is kept for its end, which would otherwise replace the wake's timer with its own. */
  private inTick = false;
  private ticking: Promise<void> = Promise.resolve();

  constructor(private readonly opts: DeliveryWorkerOptions<T>) {}

  get running(): boolean {
    return this.active;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(0);
  }

  /** Stops taking work and waits for the attempts in flight; their rows are final or pending again. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // A look for work under way still hands what it claimed to attempts; then those are awaited.
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  /** New work on this instance: look now rather than at the next poll. */
  wake(): void {
    if (!this.active) return;
    // The work may have been written after the look under way claimed and computed its sleep (up to
    // idleMs): it looks again as soon as it ends.
    if (this.inTick || this.inFlight.size >= this.opts.concurrency) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.active) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.ticking = this.tick();
    }, ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.active) return;
    let next = this.opts.pollMs;
    this.inTick = true;
    try {
      const free = this.opts.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        const items = await this.opts.claim(free);
        claimed = items.length;
        for (const item of items) {
          const p: Promise<void> = this.opts.attempt(item).finally(() => {
            this.inFlight.delete(p);
            if (this.wakeRequested && !this.inTick) {
              this.wakeRequested = false;
              this.schedule(0);
            }
          });
          this.inFlight.add(p);
        }
      }
      if (claimed === 0 && this.inFlight.size === 0 && this.opts.nextDue) {
        // Never sooner than a poll: a row due now but locked by another instance is that one's to send.
        const due = await this.opts.nextDue();
        next = Math.max(this.opts.pollMs, Math.min(this.opts.idleMs ?? 30_000, due ?? Number.POSITIVE_INFINITY));
      }
    } catch (e) {
      this.opts.log.error({ err: e }, `${this.opts.label} not claimed`);
    } finally {
      this.inTick = false;
    }
    if (this.wakeRequested && this.inFlight.size < this.opts.concurrency) {
      this.wakeRequested = false;
      next = 0;
    }
    this.schedule(next);
  }
}

/**
 * The wait before attempt `attempts + 1`: `baseMs` doubling with each attempt, up to an hour, with a
 * little jitter so that a receiver back from an outage is not hit by every retry at once.
 */
export const backoffMs = (baseMs: number, attempts: number): number =>
  Math.min(baseMs * 2 ** (attempts - 1), 3_600_000) * (1 + Math.random() * 0.1);

/**
 * POSTs `body` to `url`; with `pinned`, over a connection to that address (the one checked) whatever
 * the name resolves to by then, TLS still checking the certificate against the name. Redirects are
 * not followed; only the first `bodyLimit` characters of the answer are read.
 */
export function postBody(
  url: string,
  body: string,
  opts: { timeoutMs: number; headers: Record<string, string>; bodyLimit: number; pinned?: { address: string; family: 4 | 6 } },
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const { pinned } = opts;
  const lookupPinned: LookupFunction | undefined = pinned
    ? (_host, options, callback) => {
        if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
        else callback(null, pinned.address, pinned.family);
      }
    : undefined;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: 'POST',
        ...(lookupPinned ? { lookup: lookupPinned } : {}),
        headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(opts.timeoutMs),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.length >= opts.bodyLimit) res.destroy();
        });
        const done = () => resolve({ status: res.statusCode ?? 0, text: text.slice(0, opts.bodyLimit) });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('error', (e) => reject(e.name === 'AbortError' ? Object.assign(new Error('timed out'), { name: 'TimeoutError' }) : e));
    req.end(body);
  });
}
