/**
 * Calls collected and handled together: one batch at a time, and what arrives while one runs joins
 * the next, so under load batches grow instead of queueing (a thousand devices answering their
 * tasks at once cost a few statements, not thousands). An item whose key is already in the batch
 * waits for the next one, so the items of one key are handled one after the other, in order.
 */
export class Batches<T, R = undefined> {
  private waiting: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();

  /** `handle` answers one result per item, in the order given. */
  constructor(
    private readonly key: (item: T) => string | number,
    private readonly handle: (items: T[]) => Promise<R[]>,
    private readonly max = 2000,
  ) {}

  /** Resolves with the item's result once its batch is handled; rejects when the batch fails. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // One turn later: the calls of the same turn (a burst of messages) share the batch.
    this.running = this.running.then(() => new Promise<void>((r) => setImmediate(r))).then(() => this.next());
  }

  private async next(): Promise<void> {
    this.scheduled = false;
    const batch: typeof this.waiting = [];
    const later: typeof this.waiting = [];
    const keys = new Set<string | number>();
    for (const w of this.waiting) {
      const k = this.key(w.item);
      if (batch.length >= this.max || keys.has(k)) later.push(w);
      else {
        keys.add(k);
        batch.push(w);
      }
    }
    this.waiting = later;
    if (later.length) this.schedule();
    try {
      const results = await this.handle(batch.map((w) => w.item));
      for (const [i, w] of batch.entries()) w.resolve(results[i] as R);
    } catch (e) {
      for (const w of batch) w.reject(e);
    }
  }
}
