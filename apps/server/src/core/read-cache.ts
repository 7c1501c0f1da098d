import { LRUCache } from 'lru-cache';
import type { Actor } from './context.js';
import type { Database } from './db/client.js';

/** An answer kept for a later identical request. */
export interface CachedAnswer {
  payload: string;
  contentType: string;
}

interface Stamped<T> {
  value: T;
  generation: number;
}

interface CachedActor {
  actor: Actor;
  /** Epoch milliseconds after which the token is no longer valid. */
  expiresAt: number;
}

export interface ReadCacheOptions {
  /** Signed-in callers kept (by access token). */
  maxActors?: number;
  /** Bytes of cached answers kept. */
  maxBytes?: number;
}

/**
 * Keeps who is calling (by access token) and the answers of cacheable reads, until anything they
 * could depend on changes.
 *
 * Correctness rests on one generation counter. Every entry carries the generation that was current
 * when its read *started*; an entry is used only while that is still the current generation, and
 * a read that started before a change is never stored after it. The generation moves on:
 * - when this instance answers any mutating request (before the answer leaves, so the caller's
 *   next read sees its own write);
 * - when any instance commits a write to a watched table (the atrium_data_changed trigger's
 *   NOTIFY, heard through `Database.onDataChange`), which also covers writes made outside HTTP;
 * - when the listening connection is lost or re-established (changes may have gone unheard).
 * While no connection listens, nothing is cached at all.
 *
 * The counter is global, not per table or project: writes are rare next to reads in a console,
 * and a coarse rule is one that cannot miss a dependency.
 */
export class ReadCache {
  private generation = 0;
  private readonly actors: LRUCache<string, Stamped<CachedActor>>;
  private readonly answers: LRUCache<string, Stamped<CachedAnswer>>;
  /** How often a read was answered from memory; for tests and diagnostics. */
  readonly stats = { actorHits: 0, answerHits: 0 };

  constructor(
    private readonly live: () => boolean,
    opts: ReadCacheOptions = {},
  ) {
    this.actors = new LRUCache({ max: opts.maxActors ?? 10_000 });
    this.answers = new LRUCache({
      maxSize: opts.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (v, k) => v.value.payload.length + k.length + 64,
    });
  }

  /** Wires the cache to the database's change feed. */
  static async attach(database: Database, opts?: ReadCacheOptions): Promise<ReadCache> {
    const cache = new ReadCache(() => database.live(), opts);
    await database.onDataChange(() => cache.invalidate());
    return cache;
  }

  /** Forgets everything: something changed. */
  invalidate(): void {
    this.generation++;
    this.actors.clear();
    this.answers.clear();
  }

  /** The generation to stamp on a read that starts now; undefined when caching is off. */
  begin(): number | undefined {
    return this.live() ? this.generation : undefined;
  }

  actor(token: string, now = Date.now()): Actor | undefined {
    const hit = this.fresh(this.actors, token);
    if (!hit) return undefined;
    if (hit.expiresAt <= now) {
      this.actors.delete(token);
      return undefined;
    }
    this.stats.actorHits++;
    return hit.actor;
  }

  keepActor(generation: number | undefined, token: string, actor: Actor, expiresAt: number): void {
    this.keep(this.actors, generation, token, { actor, expiresAt });
  }

  answer(key: string): CachedAnswer | undefined {
    const hit = this.fresh(this.answers, key);
    if (hit) this.stats.answerHits++;
    return hit;
  }

  keepAnswer(generation: number | undefined, key: string, answer: CachedAnswer): void {
    this.keep(this.answers, generation, key, answer);
  }

  private fresh<T extends object>(lru: LRUCache<string, Stamped<T>>, key: string): T | undefined {
    if (!this.live()) return undefined;
    const e = lru.get(key);
    return e && e.generation === this.generation ? e.value : undefined;
  }

  private keep<T extends object>(lru: LRUCache<string, Stamped<T>>, generation: number | undefined, key: string, value: T): void {
    if (generation === undefined || generation !== this.generation || !this.live()) return;
    lru.set(key, { value, generation });
  }
}

/**
 * Answers kept under the read cache's rule: an entry carries the generation current when its read
 * started and is used only while that generation is still current, so a read that started before
 * a change is never used after it.
 */
export class Kept<T> {
  private readonly entries: LRUCache<string, { value: T; generation: number }>;

  constructor(
    max: number,
    private readonly generation: () => number | undefined,
  ) {
    this.entries = new LRUCache({ max });
  }

  /** Reads under way, by key: a second asker of the same generation waits for the first read. */
  private readonly reading = new Map<string, { promise: Promise<T>; generation: number }>();

  /**
   * `join: false` for a read made in the caller's transaction: it must not wait for a read on another
   * connection (PGlite has one, which that transaction holds), nor make others wait for it.
   */
  async get(key: string, read: () => Promise<T>, keep: (value: T) => boolean = () => true, join = true): Promise<T> {
    const current = this.generation();
    const hit = this.entries.get(key);
    if (hit && current !== undefined && hit.generation === current) return hit.value;
    const pending = join ? this.reading.get(key) : undefined;
    if (pending && current !== undefined && pending.generation === current) return pending.promise;
    const promise = read();
    if (current !== undefined && join) this.reading.set(key, { promise, generation: current });
    try {
      const value = await promise;
      if (current !== undefined && current === this.generation() && keep(value)) this.entries.set(key, { value, generation: current });
      return value;
    } finally {
      if (this.reading.get(key)?.promise === promise) this.reading.delete(key);
    }
  }
}
