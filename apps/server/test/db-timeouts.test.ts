import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/core/db/client.js';
import { adminClient, buildTestApp, freshDatabase, type TestApp } from './helpers.js';

// With the database blocked, a call answers a clear 503 within the time-outs instead of
// queueing; /info says how the database is. Blocking needs a second connection: PostgreSQL only.

const url = process.env.TEST_DATABASE_URL;

describe('/info', () => {
  it('reports the database state', async () => {
    const t = await buildTestApp();
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/v0/info' });
      expect(res.json().data.database).toBe('ok');
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(!url)('a blocked database (PostgreSQL)', () => {
  let t: TestApp;
  let blocker: pg.Client;
  beforeAll(async () => {
    t = await buildTestApp({ database: await freshDatabase({ statementTimeoutMs: 1500, acquireTimeoutMs: 1000 }) });
  });
  afterAll(async () => {
    await blocker?.end().catch(() => undefined);
    await t.close();
    await t.database.close();
  });

  it('answers 503 quickly while a table is locked, and works again once it is released', async () => {
    const admin = await adminClient(t);
    expect((await admin.get('/users')).statusCode).toBe(200);
    // The test app's own database: the one its pool connects to.
    const name = (await queryRows<{ db: string }>(t.database.db, sql`SELECT current_database() AS db`))[0]?.db;
    blocker = new pg.Client({ connectionString: (url as string).replace(/\/[^/]*$/, `/${name}`) });
    await blocker.connect();
    await blocker.query('BEGIN; LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    const res = await admin.get('/users?search=blocked');
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toBe('device or service not available');
    expect(Date.now() - started).toBeLessThan(8000);
    await blocker.query('ROLLBACK');
    expect((await admin.get('/users')).statusCode).toBe(200);
  });

  it('hands a connection back when its transaction could not even begin', async () => {
    // More failed BEGINs than the pool has connections: each connection kept would leave every later call waiting.
    for (let i = 0; i < 12; i++)
      await expect(t.database.db.transaction(async () => undefined, { isolationLevel: 'no such level' as never })).rejects.toThrow();
    expect(await queryRows(t.database.db, sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });
});
