import { describe, expect, it } from 'vitest';
import { BatchedReads } from './batch.js';

/** A read that sees the values as they are when it starts and answers when told to, recording the keys of each call. */
function gatedReads(answer: (key: string) => number | undefined = (k) => Number(k)) {
  const calls: string[][] = [];
  const gates: Array<{ open(): void; fail(err: Error): void }> = [];
  const readMany = (keys: string[]) => {
    calls.push(keys);
    const found = new Map<string, number>();
    for (const k of keys) {
      const v = answer(k);
      if (v !== undefined) found.set(k, v);
    }
    return new Promise<Map<string, number>>((resolve, reject) => {
      gates.push({ open: () => resolve(found), fail: reject });
    });
  };
  return { calls, gates, readMany };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('BatchedReads', () => {
  it('reads the keys asked in one turn of the loop together, once each, and answers every ask', async () => {
    const { calls, gates, readMany } = gatedReads((k) => (k === '404' ? undefined : Number(k)));
    const reads = new BatchedReads(readMany, null);
    const asks = ['1', '2', '1', '404', '3'].map((k) => reads.get(k));
    await turn();
    expect(calls).toEqual([['1', '2', '404', '3']]);
    gates[0]?.open();
    expect(await Promise.all(asks)).toEqual([1, 2, 1, null, 3]);
  });

  it('keeps the asks made while a read runs for the next read, all of them in one', async () => {
    const { calls, gates, readMany } = gatedReads();
    const reads = new BatchedReads(readMany, null);
    const first = reads.get('1');
    await turn();
    const later = ['2', '3', '4'].map((k) => reads.get(k));
    await turn();
    await turn();
    expect(calls).toEqual([['1']]);
    gates[0]?.open();
    expect(await first).toBe(1);
    await turn();
    expect(calls).toEqual([['1'], ['2', '3', '4']]);
    gates[1]?.open();
    expect(await Promise.all(later)).toEqual([2, 3, 4]);
  });

  it('never answers an ask with a read that started before it', async () => {
    let value = 1;
    const { calls, gates, readMany } = gatedReads(() => value);
    const reads = new BatchedReads(readMany, null);
    const before = reads.get('k');
    await turn();
    value = 2; // changed while the first read runs; the second ask comes after the change
    const after = reads.get('k');
    gates[0]?.open();
    expect(await before).toBe(1);
    await turn();
    expect(calls).toEqual([['k'], ['k']]);
    gates[1]?.open();
    expect(await after).toBe(2);
  });

  it('carries at most maxKeys keys a read', async () => {
    const { calls, gates, readMany } = gatedReads();
    const reads = new BatchedReads(readMany, null, 2);
    const asks = ['1', '2', '3', '4', '5'].map((k) => reads.get(k));
    for (let i = 0; i < 3; i++) {
      await turn();
      gates[i]?.open();
      await turn();
    }
    expect(calls).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(await Promise.all(asks)).toEqual([1, 2, 3, 4, 5]);
  });

  it('fails the asks of a failed read only; the next read runs', async () => {
    const { gates, readMany } = gatedReads();
    const reads = new BatchedReads(readMany, null);
    const failed = reads.get('1');
    await turn();
    const next = reads.get('2');
    gates[0]?.fail(new Error('connection lost'));
    await expect(failed).rejects.toThrow('connection lost');
    await turn();
    gates[1]?.open();
    expect(await next).toBe(2);
  });
});
