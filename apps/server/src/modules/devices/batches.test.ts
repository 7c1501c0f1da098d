import { describe, expect, it } from 'vitest';
import { Batches } from './batches.js';

describe('Batches', () => {
  it('handles the calls of one turn together, and those arriving meanwhile in the next batch', async () => {
    const seen: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const b = new Batches<number, number>(
      (n) => n,
      async (items) => {
        seen.push(items);
        if (seen.length === 1) await gate;
        return items.map((n) => n * 10);
      },
    );
    const first = [b.add(1), b.add(2), b.add(3)];
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const second = [b.add(4), b.add(5)];
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([[1, 2, 3]]); // the second waits for the first to end
    release();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(seen).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('keeps a key to one item per batch, in the order of the calls, and fails only the batch that failed', async () => {
    const seen: string[][] = [];
    const b = new Batches<{ key: string; v: string }>(
      (i) => i.key,
      async (items) => {
        seen.push(items.map((i) => i.v));
        if (items.some((i) => i.v === 'boom')) throw new Error('refused');
        return items.map(() => undefined);
      },
    );
    const calls = [
      b.add({ key: 'a', v: 'a1' }),
      b.add({ key: 'b', v: 'boom' }),
      b.add({ key: 'a', v: 'a2' }),
      b.add({ key: 'a', v: 'a3' }),
    ];
    const outcome = await Promise.allSettled(calls);
    expect(seen).toEqual([['a1', 'boom'], ['a2'], ['a3']]);
    expect(outcome.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
  });
});
