import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg, NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { finishesWithin } from '../settle.js';
import { CopyIn } from './copy-in.js';
import { type CopyAround, CopyWriter } from './copy-writer.js';
import * as schema from './schema.js';

export type Schema = typeof schema;
/** The same query builder on PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction is used exactly like the database. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export const MIGRATIONS_FOLDER = path.resolve(import.meta.dirname, '../../../drizzle');
export const EVENTS_CHANNEL = 'atrium_events';
/** Written by the atrium_data_changed trigger (migration 0007) on every write to a watched table. */
const DATA_CHANNEL = 'atrium_data';
/** A mark on the change channel (changesHeard): never a table's name, never handed to onDataChange's handlers. */
const MARK_PREFIX = '~';
// Never run two instances' migrations at once on a shared database.
const MIGRATION_LOCK = 727_001;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Publishes a payload to every instance listening on this database (PostgreSQL NOTIFY). */
  notify(payload: string): Promise<void>;
  /** Publishes several payloads in order, in one round trip. */
  notifyMany(payloads: readonly string[]): Promise<void>;
  /** Calls `handler` for every payload published by any instance. */
  listen(handler: (payload: string) => void): Promise<void>;
  /**
   * Calls `handler` with the table's name after every committed write to a watched table, by any
   * instance, and with null when notifications may have been missed (the listening connection was
   * lost or re-established). `live()` says whether changes are being heard right now.
   */
  onDataChange(handler: (table: string | null) => void): Promise<void>;
  live(): boolean;
  /**
   * Resolves true once every change committed before the call has been handed to the
   * `onDataChange` handlers: a mark sent on the change channel now comes back after them, as
   * PostgreSQL delivers notifications in commit order. False when not listening, or not back within `ms`.
   */
  changesHeard(ms: number): Promise<boolean>;
  /** Statements sent to the database by this process so far (the listening connection's aside). */
  statements(): number;
  /**
   * PostgreSQL only: runs `statement` (a `COPY … FROM STDIN`) on one pooled connection, streaming
   * `chunks` (rows in COPY's text format) into it; resolves once the server accepted them all. PGlite
   * has no COPY FROM STDIN over its wire, so there it is absent and callers insert instead. With
   * `around`, its statements run before and after the COPY in one transaction.
   */
  copyFrom?: (statement: string, chunks: Iterable<string>, around?: CopyAround) => Promise<void>;
  /**
   * Whether copyFrom runs on a thread and connection of its own (copy-writer.ts): calls made before
   * the previous one settled are then written in the order made, one after the other. False again
   * once that thread failed (copyFrom then writes on pooled connections, in no set order).
   */
  readonly copyPipelined?: boolean;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgres:// URL; absent → PGlite in `dataDir` (or in memory when dataDir is 'memory://'). */
  databaseUrl?: string | undefined;
  dataDir?: string;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
  /** PostgreSQL: a statement running longer is cancelled (ms; a blocked database answers 503 instead of queueing). */
  statementTimeoutMs?: number;
  /** PostgreSQL: waiting longer for a pooled connection fails the call (ms). */
  acquireTimeoutMs?: number;
  /**
   * PGlite: start from this dump of a data directory (dumpMigratedPglite) instead of an empty one;
   * the migrations then apply only what it lacks. Tests open a database per file this way.
   */
  pgliteDump?: Blob;
}

/** Defaults of the PostgreSQL time-outs: a console call never waits longer than this for the database. */
export const DB_TIMEOUT_DEFAULTS = { statementTimeoutMs: 15_000, acquireTimeoutMs: 5_000 } as const;

/** Marks sent on the change channel and not heard back yet (changesHeard), each with what it waits for. */
class Marks {
  private readonly waiting = new Map<string, (heard: boolean) => void>();
  private seq = 0;
  private readonly own = `${MARK_PREFIX}${randomUUID()}:`;

  /** Whether `payload` is a mark (this process's or another's): then it is not a change. */
  heard(payload: string): boolean {
    if (!payload.startsWith(MARK_PREFIX)) return false;
    const done = this.waiting.get(payload);
    if (done) {
      this.waiting.delete(payload);
      done(true);
    }
    return true;
  }

  /**
   * Sends a mark with `send` and resolves when it comes back: false when it could not be sent, or did
   * not come back within `ms` of being sent (the wait for a pooled connection does not count: a busy
   * pool is no sign of a silent feed).
   */
  wait(ms: number, send: (mark: string) => Promise<unknown>): Promise<boolean> {
    const mark = `${this.own}${++this.seq}`;
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (heard: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(mark);
        resolve(heard);
      };
      this.waiting.set(mark, finish);
      send(mark).then(
        () => {
          if (this.waiting.has(mark)) timer = setTimeout(() => finish(false), ms);
        },
        () => finish(false),
      );
    });
  }

  /** Nothing more will come back (the listener is gone). */
  fail(): void {
    for (const done of [...this.waiting.values()]) done(false);
  }
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10, {
        statementTimeoutMs: opts.statementTimeoutMs ?? DB_TIMEOUT_DEFAULTS.statementTimeoutMs,
        acquireTimeoutMs: opts.acquireTimeoutMs ?? DB_TIMEOUT_DEFAULTS.acquireTimeoutMs,
      })
    : openPglite(opts.dataDir ?? 'memory://', opts.pgliteDump);
}

/** An in-memory PGlite with every migration applied, dumped (uncompressed tar) for pgliteDump. */
export async function dumpMigratedPglite(): Promise<Blob> {
  const client = await PGlite.create();
  try {
    await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    return await client.dumpDataDir('none');
  } finally {
    await client.close();
  }
}

async function openPglite(dataDir: string, dump?: Blob): Promise<Database> {
  let dir: string | undefined;
  if (dataDir !== 'memory://') {
    dir = path.join(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  const client = await PGlite.create(dir, dump ? { loadDataDir: dump } : undefined);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  const sent = countPgliteStatements(client);
  const unsubs: (() => Promise<void>)[] = [];
  // One process owns an embedded database, so only this process listens: a payload goes to its
  // listeners directly, in order, instead of through a pg_notify query on the event loop (a call's
  // live updates cost several queries each otherwise). NOTIFY from SQL (sessions.ts) still arrives
  // through PGlite's own listener.
  const listeners: ((payload: string) => void)[] = [];
  const dataHandlers: ((table: string | null) => void)[] = [];
  const marks = new Marks();
  unsubs.push(
    await client.listen(DATA_CHANNEL, (payload) => {
      if (marks.heard(payload)) return;
      for (const h of dataHandlers) h(payload);
    }),
  );
  return {
    db,
    kind: 'pglite',
    notify(payload) {
      if (client.closed) return Promise.reject(new Error('the database is closed'));
      return new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          try {
            for (const h of listeners) h(payload);
            resolve();
          } catch (err) {
            reject(err);
          }
        });
      });
    },
    notifyMany(payloads) {
      if (client.closed) return Promise.reject(new Error('the database is closed'));
      return new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          try {
            for (const p of payloads) for (const h of listeners) h(p);
            resolve();
          } catch (err) {
            reject(err);
          }
        });
      });
    },
    async listen(handler) {
      listeners.push(handler);
      unsubs.push(await client.listen(EVENTS_CHANNEL, handler));
    },
    async onDataChange(handler) {
      dataHandlers.push(handler);
    },
    // One process owns an embedded database: nothing can write to it unheard.
    live: () => !client.closed,
    changesHeard(ms) {
      if (client.closed) return Promise.resolve(false);
      return marks.wait(ms, (mark) => db.execute(sql`SELECT pg_notify(${DATA_CHANNEL}, ${mark})`));
    },
    statements: () => sent.count,
    async close() {
      listeners.length = 0;
      dataHandlers.length = 0;
      marks.fail();
      for (const u of unsubs) await u();
      await client.close();
    },
  };
}

/** Counts the statements drizzle sends through a PGlite client (a transaction's BEGIN and COMMIT as two). */
function countPgliteStatements(client: PGlite): { count: number } {
  const sent = { count: 0 };
  type Queryable = Pick<PGlite, 'query' | 'exec'>;
  const wrap = (c: Queryable) => {
    const query = c.query.bind(c);
    const exec = c.exec.bind(c);
    c.query = ((...a: Parameters<PGlite['query']>) => {
      sent.count++;
      return query(...a);
    }) as PGlite['query'];
    c.exec = ((...a: Parameters<PGlite['exec']>) => {
      sent.count++;
      return exec(...a);
    }) as PGlite['exec'];
  };
  wrap(client);
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: Parameters<PGlite['transaction']>[0]) => {
    sent.count += 2;
    return transaction((tx) => {
      wrap(tx as unknown as Queryable);
      return fn(tx);
    });
  }) as PGlite['transaction'];
  return sent;
}

async function openPostgres(
  url: string,
  poolSize: number,
  timeouts: { statementTimeoutMs: number; acquireTimeoutMs: number },
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    statement_timeout: timeouts.statementTimeoutMs,
    // A lock held elsewhere (a long transaction, a blocked table) fails the statement sooner than the time-out.
    lock_timeout: Math.min(timeouts.statementTimeoutMs, 5_000),
    connectionTimeoutMillis: timeouts.acquireTimeoutMs,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  let sent = 0;
  pool.on('connect', (client) => {
    // pg-pool listens for a client's errors only while it is idle: one whose connection is cut while
    // checked out (a database restart in the middle of a transaction) would emit an error nobody
    // hears, and that ends the process. Its query fails with the error anyway, and the pool drops a
    // client that is no longer queryable when it comes back.
    client.on('error', () => undefined);
    // Every statement of the pool goes through its clients' query (pool.query included).
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
      sent++;
      return query(...a);
    };
  });
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  releaseWhenBeginFails(db, pool);
  const lockClient = await pool.connect();
  try {
    // Waiting for another instance's migrations may take longer than any request may.
    await lockClient.query('SET statement_timeout = 0; SET lock_timeout = 0');
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg(lockClient, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lockClient.query('RESET statement_timeout; RESET lock_timeout').catch(() => undefined);
    lockClient.release();
  }
  let listener: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let live = false;
  const handlers: ((payload: string) => void)[] = [];
  const dataHandlers: ((table: string | null) => void)[] = [];
  const marks = new Marks();
  let closing = false;
  const dataReset = () => {
    marks.fail();
    for (const h of dataHandlers) h(null);
  };
  const retry = () => {
    if (!closing) setTimeout(() => void connectListener().catch(retry), 1000);
  };
  const connectListener = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (msg.payload === undefined) return;
      if (msg.channel === EVENTS_CHANNEL) for (const h of handlers) h(msg.payload);
      else if (msg.channel === DATA_CHANNEL && !marks.heard(msg.payload)) for (const h of dataHandlers) h(msg.payload);
    });
    c.on('error', () => {
      // Changes made while nobody listens are unheard: say so, then reconnect, so realtime and
      // the read cache survive a database restart.
      if (listener === c) {
        listener = undefined;
        live = false;
        dataReset();
        retry();
      }
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${EVENTS_CHANNEL}; LISTEN ${DATA_CHANNEL}`);
    } catch (e) {
      await c.end().catch(() => undefined);
      throw e;
    }
    listener = c;
    live = true;
    dataReset();
  };
  const ensureListener = async () => {
    if (listener) return;
    connecting ??= connectListener().finally(() => {
      connecting = undefined;
    });
    await connecting;
  };
  const copyWriter = new CopyWriter(url, { statementTimeoutMs: timeouts.statementTimeoutMs, connectTimeoutMs: timeouts.acquireTimeoutMs });
  return {
    db,
    kind: 'postgres',
    get copyPipelined() {
      return copyWriter.usable;
    },
    async copyFrom(statement, chunks, around) {
      // On the COPY thread while it runs; in this thread, on a pooled connection, if it could not start.
      if (copyWriter.usable) return copyWriter.write(statement, Array.from(chunks).join(''), around);
      const client = await pool.connect();
      let failed: Error | undefined;
      try {
        if (around) {
          await client.query('BEGIN');
          for (const s of around.before) await client.query(s);
        }
        await client.query(new CopyIn(statement, chunks)).done;
        if (around) {
          for (const s of around.after) await client.query(s);
          await client.query('COMMIT');
        }
      } catch (e) {
        failed = e as Error;
        throw e;
      } finally {
        // A COPY that failed half-way leaves the connection in an unknown state: it is closed, not reused.
        client.release(failed);
      }
    },
    async notify(payload) {
      await db.execute(sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${payload})`);
    },
    async notifyMany(payloads) {
      // PostgreSQL delivers one transaction's notifications in order, but only once per distinct
      // payload: a payload repeated in a batch goes in the next statement.
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length === 1) await db.execute(sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${batch[0]})`);
        else if (batch.length)
          await db.execute(
            sql`SELECT pg_notify(${EVENTS_CHANNEL}, p) FROM jsonb_array_elements_text(${JSON.stringify(batch)}::jsonb) WITH ORDINALITY AS x(p, i) ORDER BY i`,
          );
        batch = [];
      };
      for (const p of payloads) {
        if (batch.includes(p)) await flush();
        batch.push(p);
      }
      await flush();
    },
    async listen(handler) {
      handlers.push(handler);
      await ensureListener();
    },
    async onDataChange(handler) {
      dataHandlers.push(handler);
      await ensureListener();
    },
    live: () => live,
    changesHeard(ms) {
      if (!live) return Promise.resolve(false);
      return marks.wait(ms, (mark) => db.execute(sql`SELECT pg_notify(${DATA_CHANNEL}, ${mark})`));
    },
    statements: () => sent,
    async close() {
      closing = true;
      live = false;
      marks.fail();
      await listener?.end().catch(() => undefined);
      // Each bounded: a connection cut in the middle of its work (the database restarted) may never
      // be handed back to the pool, and pool.end() waits for every connection out; closing goes on.
      const writerClosed = await finishesWithin(copyWriter.close(), 5000);
      const poolEnded = await finishesWithin(pool.end(), 5000);
      if (!writerClosed || !poolEnded) console.warn('database: connections still out after 5 s were left to close with the process');
    },
  };
}

/**
 * drizzle's node-postgres transaction (0.45) sends BEGIN before its try: when BEGIN fails (the
 * connection was cut, the database restarted) the connection is never handed back, and the pool
 * is one smaller for good — after a few such failures every request waits for a connection that
 * never comes. The same transaction with BEGIN inside, and a connection that failed released as
 * broken (the pool closes it rather than reusing it).
 */
function releaseWhenBeginFails(db: Db, pool: pg.Pool): void {
  // The session's own fields, private in drizzle's types.
  type Session = {
    transaction: unknown;
    dialect: ConstructorParameters<typeof NodePgSession>[1];
    schema: ConstructorParameters<typeof NodePgSession>[2];
    options: ConstructorParameters<typeof NodePgSession>[3];
  };
  const session = (db as unknown as { session: Session }).session;
  session.transaction = async <T>(transaction: (tx: NodePgTransaction<typeof schema, never>) => Promise<T>, config?: unknown) => {
    const client = await pool.connect();
    let failed: Error | undefined;
    try {
      const own = new NodePgSession(client, session.dialect, session.schema, session.options);
      const tx = new NodePgTransaction(session.dialect, own, session.schema as never);
      const configSql = (tx as unknown as { getTransactionConfigSQL(c: unknown): SQL }).getTransactionConfigSQL;
      const settings = config ? sql` ${configSql.call(tx, config)}` : undefined;
      await tx.execute(sql`begin${settings}`);
      try {
        const result = await transaction(tx as never);
        await tx.execute(sql`commit`);
        return result;
      } catch (error) {
        await tx.execute(sql`rollback`);
        throw error;
      }
    } catch (error) {
      failed = error as Error;
      throw error;
    } finally {
      // A failed transaction's connection is returned broken only when it can no longer be used.
      client.release(failed && !(client as unknown as { _queryable: boolean })._queryable ? failed : undefined);
    }
  };
}

/** Whether the database answers a trivial query within `ms` (health checks: /info, system information). */
export function databaseAnswers(db: DbOrTx, ms = 2000): Promise<boolean> {
  return finishesWithin(db.execute(sql`SELECT 1`), ms).catch(() => false);
}

/** Runs raw SQL and answers its rows; both drivers answer `{ rows }`. */
export async function queryRows<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
