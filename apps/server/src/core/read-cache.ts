import { LRUCache } from 'lru-cache';
import type { Actor } from './context.js';
import type { Database } from './db/client.js';
import { SESSIONS_ENDED_SIGNAL } from './sessions.js';

/** An answer kept for a later identical request. */
export interface CachedAnswer {
  payload: string;
  contentType: string;
}

/**
 * When a read started, as the cache saw it: the epoch (moved on when changes may have gone unheard),
 * the count of all changes, and the change count of each table the read depends on (null: it
 * depends on every table).
 */
export interface Stamp {
  epoch: number;
  generation: number;
  tables: readonly string[] | null;
  counts: readonly number[];
}

interface Stamped<T> {
  value: T;
  stamp: Stamp;
  /** Epoch milliseconds after which the entry is not used. */
  until: number;
}

interface CachedActor {
  actor: Actor;
}

export interface ReadCacheOptions {
  /** Signed-in callers kept (by access token). */
  maxActors?: number;
  /** Bytes of cached answers kept. */
  maxBytes?: number;
}

/**
 * What a signed-in caller is read from (auth and api-keys): the user, role and groups, the key,
 * and the sign-ins. `refresh_tokens` has no change-feed trigger; ended sign-ins are told through
 * SESSIONS_ENDED_SIGNAL instead (core/sessions.ts), which the cache counts as a change to it.
 */
export const ACTOR_TABLES = ['users', 'roles', 'user_groups', 'projects', 'api_keys', 'refresh_tokens'] as const;

/** How long a request waits for the same answer being read for another before reading it itself. */
const ANSWER_WAIT_MS = 2000;

/** How long a mutating answer waits for the change feed to bring its own writes back (then everything is forgotten). */
const SETTLE_MS = 2000;

/**
 * Keeps who is calling (by access token) and the answers of cacheable reads, until anything they
 * depend on changes.
 *
 * Every entry carries the stamp of the moment its read *started*: the change count of each table
 * it was read from (or of all tables, for a read that names none). It is used only while those
 * counts are still current, and a read that started before a change is never stored after it.
 * Counts move on:
 * - when any instance commits a write to a watched table (the atrium_data_changed trigger's
 *   NOTIFY, heard through `Database.onDataChange`, names the table), which also covers writes made
 *   outside HTTP; ended sign-ins come as SESSIONS_ENDED_SIGNAL and count as `refresh_tokens`;
 * - all at once when the listening connection is lost or re-established (changes may have gone
 *   unheard), or when a mutating request's own writes were not heard back in time.
 * While no connection listens, nothing is cached at all.
 *
 * A mutating request answers only after `settle()`: the feed has delivered everything committed
 * before that moment, so the caller's next read sees its own write, and a write to a table no
 * cached read depends on (a device task, a notification) leaves every entry in place.
 */
export class ReadCache {
  private epoch = 0;
  private generation = 0;
  private readonly counts = new Map<string, number>();
  private readonly actors: LRUCache<string, Stamped<CachedActor>>;
  private readonly answers: LRUCache<string, Stamped<CachedAnswer>>;
  /**
   * How often a read was answered from memory or not, how often everything was forgotten and why,
   * and the changes heard per table: for tests, and on /metrics to tell why answers are not kept.
   */
  readonly stats = {
    actorHits: 0,
    actorMisses: 0,
    answerHits: 0,
    answerMisses: 0,
    /** Misses answered by another request's read of the same answer (startAnswer, answerBeingRead). */
    answersShared: 0,
    forgotten: { feed_lost: 0, write_unheard: 0 },
    changes: new Map<string, number>(),
  };

  constructor(
    private readonly live: () => boolean,
    opts: ReadCacheOptions = {},
    /** Resolves true once every change committed before the call was heard (Database.changesHeard). */
    private readonly heard: () => Promise<boolean> = async () => false,
  ) {
    this.actors = new LRUCache({ max: opts.maxActors ?? 10_000 });
    this.answers = new LRUCache({
      maxSize: opts.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (v, k) => v.value.payload.length + k.length + 64,
    });
  }

  /** Wires the cache to the database's change feed. */
  static async attach(database: Database, opts?: ReadCacheOptions): Promise<ReadCache> {
    const cache = new ReadCache(
      () => database.live(),
      opts,
      () => database.changesHeard(SETTLE_MS),
    );
    await database.onDataChange((table) => (table === null ? cache.invalidate('feed_lost') : cache.changed(table)));
    await database.listen((payload) => {
      if (payload === SESSIONS_ENDED_SIGNAL) cache.changed('refresh_tokens');
    });
    return cache;
  }

  /** Forgets everything: changes may have gone unheard (the feed was lost, or a write's own changes did not come back in time). */
  invalidate(reason: keyof ReadCache['stats']['forgotten'] = 'feed_lost'): void {
    this.stats.forgotten[reason]++;
    this.epoch++;
    this.generation++;
    this.counts.clear();
    this.actors.clear();
    this.answers.clear();
  }

  /** A committed write to `table`: entries read from it (or from every table) are stale. */
  changed(table: string): void {
    this.generation++;
    this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
    this.stats.changes.set(table, (this.stats.changes.get(table) ?? 0) + 1);
  }

  /**
   * Before a mutating request answers: waits until the change feed has brought back everything
   * committed so far (its own writes included); when it does not in time, forgets everything.
   */
  async settle(): Promise<void> {
    if (!this.live()) return;
    if (!(await this.heard())) this.invalidate('write_unheard');
  }

  /** The count of all changes, for a read that starts now and depends on everything; undefined when caching is off. */
  begin(): number | undefined {
    return this.live() ? this.generation : undefined;
  }

  /** The stamp of a read that starts now, from `tables` (all when omitted); undefined when caching is off. */
  stamp(tables?: readonly string[]): Stamp | undefined {
    if (!this.live()) return undefined;
    return {
      epoch: this.epoch,
      generation: this.generation,
      tables: tables ?? null,
      counts: tables ? tables.map((t) => this.counts.get(t) ?? 0) : [],
    };
  }

  private current(s: Stamp): boolean {
    if (s.epoch !== this.epoch) return false;
    if (s.tables === null) return s.generation === this.generation;
    for (let i = 0; i < s.tables.length; i++) if ((this.counts.get(s.tables[i] as string) ?? 0) !== s.counts[i]) return false;
    return true;
  }

  actor(token: string, now = Date.now()): Actor | undefined {
    const hit = this.fresh(this.actors, token, now);
    if (!hit) {
      this.stats.actorMisses++;
      return undefined;
    }
    this.stats.actorHits++;
    return hit.actor;
  }

  /** Keeps the caller of a token until `expiresAt` (epoch ms), the token's own end. */
  keepActor(stamp: Stamp | undefined, token: string, actor: Actor, expiresAt: number): void {
    this.keep(this.actors, stamp, token, { actor }, expiresAt);
  }

  answer(key: string, now = Date.now()): CachedAnswer | undefined {
    const hit = this.fresh(this.answers, key, now);
    if (hit) this.stats.answerHits++;
    else this.stats.answerMisses++;
    return hit;
  }

  /** Keeps an answer while its tables do not change, and at most `maxAgeMs` when given. */
  keepAnswer(stamp: Stamp | undefined, key: string, answer: CachedAnswer, maxAgeMs?: number): void {
    this.keep(this.answers, stamp, key, answer, maxAgeMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + maxAgeMs);
  }

  /** Reads under way, by key, each with the stamp it started with (shared, startAnswer). */
  private readonly reading = new Map<string, { stamp: Stamp; promise: Promise<unknown> }>();

  /** The read of `key` under way when nothing it depends on has changed since it started; else undefined. */
  private underWay(key: string): Promise<unknown> | undefined {
    const r = this.reading.get(key);
    return r && this.live() && this.current(r.stamp) ? r.promise : undefined;
  }

  /**
   * Runs `read` once for everyone who asks for `key` while it is under way and nothing it depends on
   * has changed since it started (its result is then what a read starting now would give): after a
   * change, the callers waiting at that moment read again once between them, not once each.
   */
  async shared<T>(key: string, stamp: Stamp | undefined, read: () => Promise<T>): Promise<T> {
    const joined = this.underWay(key);
    if (joined) return joined as Promise<T>;
    const promise = read();
    if (stamp === undefined) return promise;
    const entry = { stamp, promise };
    this.reading.set(key, entry);
    try {
      return await promise;
    } finally {
      if (this.reading.get(key) === entry) this.reading.delete(key);
    }
  }

  /**
   * A request for an answer no entry holds: when the same answer is being read for another request
   * and nothing it depends on has changed since, waits (at most `waitMs`) for that answer; undefined
   * when there is none to wait for, or it gave none to keep (then the caller reads it itself).
   */
  answerBeingRead(key: string, waitMs = ANSWER_WAIT_MS): Promise<CachedAnswer | undefined> | undefined {
    // Not async: with nothing to wait for, the caller goes on at once (and marks its own read before anyone else can look).
    const joined = this.underWay(key) as Promise<CachedAnswer | undefined> | undefined;
    if (!joined) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<undefined>((r) => {
      timer = setTimeout(() => r(undefined), waitMs);
    });
    return Promise.race([joined, waited]).then((answer) => {
      clearTimeout(timer);
      if (answer) this.stats.answersShared++;
      return answer;
    });
  }

  /**
   * Marks the answer of `key` as being read from `stamp`; the returned function settles it with the
   * answer (undefined: nothing to keep), and must be called however the request ends.
   */
  startAnswer(key: string, stamp: Stamp): (answer: CachedAnswer | undefined) => void {
    let settle: (answer: CachedAnswer | undefined) => void = () => undefined;
    const entry = { stamp, promise: new Promise<CachedAnswer | undefined>((r) => (settle = r)) };
    this.reading.set(key, entry);
    return (answer) => {
      settle(answer);
      if (this.reading.get(key) === entry) this.reading.delete(key);
    };
  }

  private fresh<T extends object>(lru: LRUCache<string, Stamped<T>>, key: string, now: number): T | undefined {
    if (!this.live()) return undefined;
    const e = lru.get(key);
    if (!e) return undefined;
    if (e.until <= now || !this.current(e.stamp)) {
      lru.delete(key);
      return undefined;
    }
    return e.value;
  }

  private keep<T extends object>(lru: LRUCache<string, Stamped<T>>, stamp: Stamp | undefined, key: string, value: T, until: number): void {
    if (stamp === undefined || !this.live() || !this.current(stamp)) return;
    lru.set(key, { value, stamp, until });
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
