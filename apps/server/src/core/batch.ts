interface Waiter<V> {
  resolve(value: V): void;
  reject(err: unknown): void;
}

/**
 * Reads asked for one key at a time but made for many keys at once. Keys asked during one turn of
 * the event loop, or while a read is under way, wait and are read together by the next read; so a
 * burst of N asks (phones registering after a restart, every one a number to look up) costs a few
 * queries instead of N, and the pool of connections is not queued N deep. One read runs at a time:
 * the busier it gets, the more keys each read carries.
 *
 * A key is read no earlier than it was asked, so an answer is never older than its ask (what the
 * read cache's generations rely on). A failed read fails every ask it carried, and only those.
 */
export class BatchedReads<K, V> {
  private readonly waiting = new Map<K, Waiter<V>[]>();
  private running = false;
  private scheduled = false;

  /**
   * @param readMany reads the keys given, answering those it found (a key it does not answer gets `absent`)
   * @param maxKeys the most keys one read carries
   */
  constructor(
    private readonly readMany: (keys: K[]) => Promise<Map<K, V>>,
    private readonly absent: V,
    private readonly maxKeys = 500,
  ) {}

  get(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled || this.waiting.size === 0) return;
    this.scheduled = true;
    // After the check phase: every message read in this turn of the loop has asked its keys by then.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.running || this.waiting.size === 0) return;
    const batch = new Map<K, Waiter<V>[]>();
    for (const [key, waiters] of this.waiting) {
      if (batch.size >= this.maxKeys) break;
      batch.set(key, waiters);
    }
    for (const key of batch.keys()) this.waiting.delete(key);
    this.running = true;
    try {
      const found = await this.readMany([...batch.keys()]);
      for (const [key, waiters] of batch) {
        const value = found.has(key) ? (found.get(key) as V) : this.absent;
        for (const w of waiters) w.resolve(value);
      }
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    } finally {
      this.running = false;
      this.schedule();
    }
  }
}
