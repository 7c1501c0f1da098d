import { describe, expect, it } from 'vitest';
import { EventIntake, type IntakeEvent, intakeEvent } from './event-intake.js';

// The intake on its own, with a sink the test controls: what it holds, when it says it is failing,
// and the compact form it keeps events in.

describe('event intake', () => {
  it('keeps an event compact: its data as the JSON text COPY writes, without NUL', () => {
    const e = intakeEvent('SN-1', { type: 'door_opened', event_id: 'e1', data: { door: 'A\u0000B', n: 1 } }, 5);
    expect(e).toEqual({
      serial: 'SN-1',
      type: 'door_opened',
      identifier: null,
      eventId: 'e1',
      time: undefined,
      data: '{"door":"AB","n":1}',
      receivedAt: 5,
    });
    expect(intakeEvent('SN-1', { type: 'tamper' }, 5).data).toBe('{}');
  });

  it('says it is failing while a batch waits to be tried again, holds its events meanwhile, and acknowledges them once stored', async () => {
    let refuse = true;
    const stored: IntakeEvent[][] = [];
    const intake = new EventIntake(
      {
        store: async (batch) => {
          if (refuse) throw new Error('database away');
          stored.push([...batch]);
        },
      },
      { heldMax: 2, maxBatch: 10, concurrency: 1, countsStored: true },
    );
    const acked: string[] = [];
    expect(intake.failing).toBe(false);
    intake.acceptEvent('SN-1', { type: 'a' }, () => acked.push('a'));
    intake.acceptEvent('SN-1', { type: 'b' }, () => acked.push('b'));
    await expect.poll(() => intake.failing).toBe(true);
    expect(intake.full).toBe(true);
    expect(intake.held).toBe(2);
    expect(acked).toEqual([]);
    refuse = false;
    await expect.poll(() => acked, { timeout: 5000 }).toEqual(['a', 'b']);
    expect(intake.failing).toBe(false);
    expect(intake.full).toBe(false);
    expect(stored.flat().map((e) => e.type)).toEqual(['a', 'b']);
    expect(intake.snapshot().writeRetries).toBeGreaterThan(0);
    await intake.close();
  });

  it('tells writes that stand still from writes that commit: stalled only while a batch is written and none has committed for the time asked', async () => {
    const commits: (() => void)[] = [];
    const intake = new EventIntake(
      { store: () => new Promise<void>((resolve) => commits.push(resolve)) },
      { heldMax: 10, maxBatch: 1, concurrency: 1, countsStored: true },
    );
    const t0 = Date.now();
    expect(intake.stalledFor(0, t0 + 60_000)).toBe(false); // nothing written: idle, not stalled
    intake.acceptEvent('SN-1', { type: 'a' });
    intake.acceptEvent('SN-1', { type: 'b' });
    await expect.poll(() => commits.length).toBe(1);
    const began = Date.now();
    expect(intake.stalledFor(2000, began)).toBe(false);
    expect(intake.stalledFor(2000, began + 2500)).toBe(true);
    // A commit is progress: the next batch's wait counts from it.
    (commits.shift() as () => void)();
    await expect.poll(() => commits.length).toBe(1);
    const committed = Date.now();
    expect(intake.stalledFor(2000, committed + 1000)).toBe(false);
    expect(intake.stalledFor(2000, committed + 2500)).toBe(true);
    (commits.shift() as () => void)();
    await expect.poll(() => intake.held).toBe(0);
    expect(intake.stalledFor(0, Date.now() + 60_000)).toBe(false);
    await intake.close();
  });
  it('closes right after an event is taken by writing it, without spinning until its deadline', async () => {
    const stored: string[] = [];
    const intake = new EventIntake(
      { store: async (batch) => void stored.push(...batch.map((e) => e.type)) },
      { heldMax: 10, maxBatch: 10, concurrency: 1, countsStored: true },
    );
    intake.acceptEvent('SN-1', { type: 'a' });
    const t0 = Date.now();
    await intake.close(3000);
    expect(stored).toEqual(['a']);
    expect(intake.snapshot().unstoredAtStop).toBe(0);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
