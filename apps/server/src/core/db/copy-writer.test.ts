import net from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../../test/helpers.js';
import { type Database, queryRows } from './client.js';
import { CopyWriter } from './copy-writer.js';

// COPY on its own thread (copy-writer.ts, copy-worker.mjs): PostgreSQL only (PGlite has no COPY over its wire).
describe.runIf(process.env.TEST_DATABASE_URL)('COPY on its own thread', () => {
  let database: Database;
  beforeAll(async () => {
    database = await freshDatabase();
    await database.db.execute(sql`CREATE TABLE copy_rows (id bigserial PRIMARY KEY, batch int NOT NULL, n int NOT NULL)`);
  });
  afterAll(async () => {
    await database?.close();
  });

  const rows = (batch: number, count: number) => Array.from({ length: count }, (_, n) => `${batch}\t${n}\n`);

  it('stores batches handed over before the previous one settled, in the order given, on a connection of its own', async () => {
    expect(database.copyPipelined).toBe(true);
    const copy = database.copyFrom!;
    // Twenty batches at once, of different sizes: each settles when stored, and ids follow the order of hand-over.
    await Promise.all(Array.from({ length: 20 }, (_, b) => copy('COPY copy_rows (batch, n) FROM STDIN', rows(b, 50 + ((b * 37) % 200)))));
    const stored = await queryRows<{ batch: number; n: number }>(database.db, sql`SELECT batch, n FROM copy_rows ORDER BY id`);
    const expected = Array.from({ length: 20 }, (_, b) =>
      Array.from({ length: 50 + ((b * 37) % 200) }, (_, n) => ({ batch: b, n })),
    ).flat();
    expect(stored.map((r) => ({ batch: Number(r.batch), n: Number(r.n) }))).toEqual(expected);
    const [thread] = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'atrium-copy' AND datname = current_database()`,
    );
    expect(thread?.n).toBe(1);
  });

  it('refuses a batch the database refuses, with its code, and goes on with the next', async () => {
    const copy = database.copyFrom!;
    await expect(copy('COPY copy_rows (batch, n) FROM STDIN', ['1\tnot-a-number\n'])).rejects.toMatchObject({ code: '22P02' });
    // The connection the failed COPY left is replaced.
    await copy('COPY copy_rows (batch, n) FROM STDIN', rows(99, 3));
    const [after] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM copy_rows WHERE batch = 99`);
    expect(after?.n).toBe(3);
  });

  it('runs statements around a COPY in its transaction: a staging table moved on, or nothing at all when a statement fails', async () => {
    const copy = database.copyFrom!;
    await database.db.execute(sql`CREATE TABLE copy_once (k int PRIMARY KEY, n int NOT NULL)`);
    const around = (then: string) => ({
      before: ['CREATE TEMP TABLE IF NOT EXISTS copy_in (k int, n int) ON COMMIT DELETE ROWS'],
      after: [then],
    });
    const moveOn = 'INSERT INTO copy_once SELECT k, n FROM copy_in ON CONFLICT DO NOTHING';
    await copy('COPY copy_in (k, n) FROM STDIN', ['1\t1\n2\t1\n'], around(moveOn));
    // The same keys again, and one new: only the new one goes in; the staging table was emptied by the commit.
    await copy('COPY copy_in (k, n) FROM STDIN', ['2\t2\n3\t2\n'], around(moveOn));
    // A statement after the COPY fails: the COPY's rows go nowhere.
    await expect(
      copy('COPY copy_in (k, n) FROM STDIN', ['4\t3\n'], around('INSERT INTO copy_once SELECT k, n / 0 FROM copy_in')),
    ).rejects.toMatchObject({ code: '22012' });
    const stored = await queryRows<{ k: number; n: number }>(database.db, sql`SELECT k, n FROM copy_once ORDER BY k`);
    expect(stored.map((r) => [Number(r.k), Number(r.n)])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
  });

  it('refuses what it held when its thread stops, and says it is no longer usable (the caller then writes itself)', async () => {
    const writer = new CopyWriter(process.env.TEST_DATABASE_URL!, { statementTimeoutMs: 5000 });
    expect(writer.usable).toBe(true);
    const held = writer.write('COPY nowhere FROM STDIN', 'x\n');
    await (writer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(held).rejects.toThrow('the COPY writer stopped');
    expect(writer.usable).toBe(false);
    await expect(writer.write('COPY nowhere FROM STDIN', 'x\n')).rejects.toThrow();
    await writer.close();
  });
});

describe('closing the COPY thread', () => {
  it('stops after waitMs even when a write hangs (a database that never answers), refusing it', async () => {
    // A "database" that takes the connection and never says a word.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as net.AddressInfo;
    const writer = new CopyWriter(`postgres://nobody@127.0.0.1:${port}/none`, { statementTimeoutMs: 60_000, connectTimeoutMs: 60_000 });
    try {
      const hanging = writer.write('COPY nowhere FROM STDIN', 'x\n');
      const t0 = Date.now();
      await writer.close(300);
      expect(Date.now() - t0).toBeLessThan(3000);
      await expect(hanging).rejects.toThrow('the COPY writer stopped');
    } finally {
      silent.close();
    }
  });
});
