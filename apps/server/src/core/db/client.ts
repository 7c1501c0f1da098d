import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from './schema.js';

export type Schema = typeof schema;
/** The same query builder on PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction is used exactly like the database. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export const MIGRATIONS_FOLDER = path.resolve(import.meta.dirname, '../../../drizzle');
const EVENTS_CHANNEL = 'atrium_events';
// Never run two instances' migrations at once on a shared database.
const MIGRATION_LOCK = 727_001;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Publishes a payload to every instance listening on this database (PostgreSQL NOTIFY). */
  notify(payload: string): Promise<void>;
  /** Calls `handler` for every payload published by any instance. */
  listen(handler: (payload: string) => void): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgres:// URL; absent → PGlite in `dataDir` (or in memory when dataDir is 'memory://'). */
  databaseUrl?: string | undefined;
  dataDir?: string;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10) : openPglite(opts.dataDir ?? 'memory://');
}

async function openPglite(dataDir: string): Promise<Database> {
  let dir: string | undefined;
  if (dataDir !== 'memory://') {
    dir = path.join(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  const client = await PGlite.create(dir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  const unsubs: (() => Promise<void>)[] = [];
  return {
    db,
    kind: 'pglite',
    async notify(payload) {
      await client.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, payload]);
    },
    async listen(handler) {
      unsubs.push(await client.listen(EVENTS_CHANNEL, handler));
    },
    async close() {
      for (const u of unsubs) await u();
      await client.close();
    },
  };
}

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg(lockClient, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    lockClient.release();
  }
  let listener: pg.Client | undefined;
  const handlers: ((payload: string) => void)[] = [];
  let closing = false;
  const connectListener = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (msg.channel === EVENTS_CHANNEL && msg.payload !== undefined) for (const h of handlers) h(msg.payload);
    });
    c.on('error', () => {
      // Reconnect so realtime survives a database restart.
      if (!closing) setTimeout(() => void connectListener().catch(() => undefined), 1000);
    });
    await c.connect();
    await c.query(`LISTEN ${EVENTS_CHANNEL}`);
    listener = c;
  };
  return {
    db,
    kind: 'postgres',
    async notify(payload) {
      await db.execute(sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${payload})`);
    },
    async listen(handler) {
      handlers.push(handler);
      if (!listener) await connectListener();
    },
    async close() {
      closing = true;
      await listener?.end().catch(() => undefined);
      await pool.end();
    },
  };
}

/** Runs raw SQL and answers its rows; both drivers answer `{ rows }`. */
export async function queryRows<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
