import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stillServes } from './edge.testing.js';
import { countingLog, fuzzCase, fuzzSeeds, fuzzServer, random } from './fuzz.testing.js';
import type { SipServer } from './server.js';
import { type MemoryDirectory, startTestServer } from './testing.js';

/**
 * A bounded, seeded run of the mutation fuzzer against a live server (the long run is
 * `npm run bench -- sip-fuzz`): no crash, no unhandled rejection, no error the server had to catch,
 * and the server still registers and connects calls afterwards.
 */

const CASES = 1500;
const SEED = 4475;

let server: SipServer;
let directory: MemoryDirectory;
const log = countingLog();
const uncaught: unknown[] = [];
const rejections: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);
const onRejection = (err: unknown) => rejections.push(err);

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onRejection);
  ({ server, directory } = await startTestServer({ '101': 'Panel101', '201': 'Phone201' }, { log }));
});

afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onRejection);
  await server.close();
});

describe('SIP fuzzing', () => {
  it('makes the same cases from the same seed', () => {
    const seeds = fuzzSeeds();
    const a = random(SEED);
    const b = random(SEED);
    for (let i = 0; i < 50; i++) expect(fuzzCase(seeds, a).equals(fuzzCase(seeds, b))).toBe(true);
  });

  it(`survives ${CASES} mutated messages over UDP, TCP and WebSocket and still serves`, { timeout: 60_000 }, async () => {
    const run = await fuzzServer(server, { cases: CASES, seed: SEED });
    expect(run.cases).toBe(CASES);
    expect(Math.min(run.sent.udp, run.sent.tcp, run.sent.ws)).toBeGreaterThan(CASES / 8);
    expect(uncaught).toEqual([]);
    expect(rejections).toEqual([]);
    expect(log.errors).toEqual([]);
    expect(server.counters().malformed).toBeGreaterThan(CASES / 4);
    await stillServes(server, directory, '05');
  });
});
