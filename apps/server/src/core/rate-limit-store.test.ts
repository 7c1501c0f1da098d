import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, client, type TestApp } from '../../test/helpers.js';
import { LogLifeWorker } from '../modules/system/log-life.js';
import { LogLifeRepository } from '../modules/system/log-life.repository.js';
import { queryRows } from './db/client.js';
import { RATE_KEY_PREFIX } from './rate-limit-store.js';

/**
 * A public route's limit counted in the database: two instances on one database (as behind a proxy
 * spreading clients over them) share one count, so the documented limit is the real one.
 */
let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await buildTestApp();
  b = await buildTestApp({ database: a.database });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

const guestPage = (t: TestApp, ip: string) =>
  client(t.app).raw('GET', `/guest-access/key/${'C'.repeat(24)}`, undefined, { 'x-forwarded-for': ip });

describe('route rate limits across instances', () => {
  it('counts the requests of one address on both instances together (30 a minute on the guest page)', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 31; i++) codes.push((await guestPage(i % 2 ? b : a, '198.51.100.41')).statusCode);
    expect(codes.slice(0, 30).every((c) => c !== 429)).toBe(true);
    expect(codes[30]).toBe(429);
    const refused = await guestPage(a, '198.51.100.41');
    expect(refused.statusCode).toBe(429);
    // The client is told when to come back, from the shared window.
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another address, and another route, count on their own.
    expect((await guestPage(b, '198.51.100.42')).statusCode).not.toBe(429);
    const open = await client(b.app).raw('POST', `/guest-access/key/${'C'.repeat(24)}/open`, {}, { 'x-forwarded-for': '198.51.100.41' });
    expect(open.statusCode).not.toBe(429);
  });

  it('a new window starts once the old one is over, and log life forgets counters a day past their window', async () => {
    const ip = '198.51.100.43';
    for (let i = 0; i < 31; i++) await guestPage(a, ip);
    expect((await guestPage(b, ip)).statusCode).toBe(429);
    // The window as if it had begun two minutes ago, then two days ago.
    const key = sql`left(key, ${RATE_KEY_PREFIX.length}) = ${RATE_KEY_PREFIX} AND key LIKE ${`%|${ip}`}`;
    await a.database.db.execute(sql`UPDATE login_failures SET window_start = now() - interval '2 minutes' WHERE ${key}`);
    expect((await guestPage(b, ip)).statusCode).not.toBe(429);
    await a.database.db.execute(sql`UPDATE login_failures SET window_start = now() - interval '2 days' WHERE ${key}`);
    await new LogLifeWorker(new LogLifeRepository(a.database.db)).pruneOnce();
    expect(await queryRows(a.database.db, sql`SELECT key FROM login_failures WHERE ${key}`)).toEqual([]);
    // Sign-in counters are not route counters: log life leaves them to their own rules.
    await a.database.db.execute(
      sql`INSERT INTO login_failures (key, failures, window_start) VALUES ('ip:198.51.100.44', 3, now() - interval '2 days')`,
    );
    await new LogLifeWorker(new LogLifeRepository(a.database.db)).pruneOnce();
    expect(await queryRows(a.database.db, sql`SELECT key FROM login_failures WHERE key = 'ip:198.51.100.44'`)).toHaveLength(1);
  });
});
