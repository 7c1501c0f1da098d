import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../test/helpers.js';

/** Statements the server sends in `ms` while nothing is asked of it (the pool's own count). */
async function sentWhileIdle(t: TestApp, ms: number): Promise<number> {
  const before = t.database.statements();
  await new Promise((r) => setTimeout(r, ms));
  return t.database.statements() - before;
}

describe('an idle server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await adminClient(t);
    // Past the start-up work (the licence worker's first run comes 5 s after start).
    await new Promise((r) => setTimeout(r, 6000));
  });
  afterAll(() => t.close());

  it('sends no more than a few statements a second: its workers wait to be woken, polling rarely', async () => {
    const seconds = 4;
    const sent = await sentWhileIdle(t, seconds * 1000);
    expect(sent / seconds).toBeLessThanOrEqual(2);
  }, 20_000);
});
