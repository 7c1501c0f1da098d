// The delivery worker's loop (webhooks, pushes): new work announced by wake is looked for at once,
// even when the wake comes while a look is under way and that look has decided to sleep long.
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from './delivery-worker.js';

const log = { error: () => undefined } as unknown as FastifyBaseLogger;
let worker: DeliveryWorker<number> | null = null;
afterEach(async () => {
  await worker?.stop();
  worker = null;
});

describe('DeliveryWorker', () => {
  it('keeps a wake that comes while a look is under way, instead of sleeping the look’s long sleep', async () => {
    const queue: number[] = [];
    const attempted: number[] = [];
    let releaseLook: (() => void) | null = null;
    let looks = 0;
    worker = new DeliveryWorker<number>({
      label: 'test',
      log,
      pollMs: 50,
      idleMs: 60_000,
      concurrency: 4,
      // Nothing due as far as this look knows: it would sleep idleMs.
      nextDue: async () => null,
      claim: async (limit) => {
        looks++;
        const taken = queue.splice(0, limit);
        // The second look (the first after start) is held until the test has written and woken.
        if (looks === 2) await new Promise<void>((r) => (releaseLook = r));
        return taken;
      },
      attempt: async (n) => {
        attempted.push(n);
      },
    });
    worker.start();
    await expect.poll(() => looks).toBe(1);
    worker.wake();
    await expect.poll(() => releaseLook !== null).toBe(true);
    // Work written after that look claimed, announced while it is under way.
    queue.push(7);
    worker.wake();
    (releaseLook as unknown as () => void)();
    await expect.poll(() => attempted, { timeout: 2000 }).toEqual([7]);
  });

  it('looks again once an attempt ends when a wake came while all its slots were busy', async () => {
    const queue = [1];
    const attempted: number[] = [];
    let finishFirst: (() => void) | null = null;
    worker = new DeliveryWorker<number>({
      label: 'test',
      log,
      pollMs: 50,
      idleMs: 60_000,
      concurrency: 1,
      nextDue: async () => null,
      claim: async (limit) => queue.splice(0, limit),
      attempt: async (n) => {
        attempted.push(n);
        if (n === 1) await new Promise<void>((r) => (finishFirst = r));
      },
    });
    worker.start();
    await expect.poll(() => finishFirst !== null).toBe(true);
    queue.push(2);
    worker.wake();
    (finishFirst as unknown as () => void)();
    await expect.poll(() => attempted, { timeout: 2000 }).toEqual([1, 2]);
  });
});
