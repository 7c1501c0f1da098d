import type { Explain } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { explainQuery, namedIds, questionOf, reasonKey, searchOf, stepLines, verdictLine, type Wording } from './explain';
import { en, ru } from './messages';

const w: Wording = {
  rule: (id) => ({ 1: '“Staff”', 2: '“Banned”' })[id] ?? `#${id}`,
  schedule: (id) => ({ 5: '“Office hours”', 6: '“Weekend”' })[id] ?? `#${id}`,
  identifier: (id) => `#${id}`,
  date: (iso) => `<${iso}>`,
};

const answer = (over: Partial<Explain> = {}): Explain => ({
  granted: false,
  reason: 'schedule',
  at: '2025-03-01T20:00:00.000Z',
  identifier: { id: 7, name: 'Lobby card', value: '04A1', type: 'card' },
  device: { id: 3, name: 'Gate', lock: 2 },
  steps: [],
  others: [],
  ...over,
});

const lines = (step: Explain['steps'][number], a = answer()) => stepLines(step, a, w).map(({ key, args, state }) => ({ key, args, state }));

describe('"why was I refused?" step → sentence', () => {
  it('names the closed schedule, grouped by why it is closed', () => {
    const step = {
      step: 'schedule' as const,
      ok: false,
      detail: {
        schedules: [
          { id: 5, open: false, by: 'no_entry' },
          { id: 6, open: false, by: 'exception' },
          { id: 9, open: false, by: 'something new' },
        ],
      },
    };
    expect(lines(step)).toEqual([
      { key: 'explain.steps.schedule.closed', args: { schedules: '“Office hours”, #9', smart_count: 2 }, state: 'fail' },
      { key: 'explain.steps.schedule.exception', args: { schedules: '“Weekend”', smart_count: 1 }, state: 'fail' },
    ]);
  });

  it('names the prohibiting rule, and says when a prohibition was never reached', () => {
    const fail = lines({ step: 'prohibition', ok: false, detail: { rules: [2] } }, answer({ reason: 'prohibited' }));
    expect(fail).toEqual([{ key: 'explain.steps.prohibition.fail', args: { lock: 2, rules: '“Banned”', smart_count: 1 }, state: 'fail' }]);
    const skipped = lines({ step: 'prohibition', ok: true, detail: { rules: [2] } }, answer({ reason: 'revoked' }));
    expect(skipped[0]?.key).toBe('explain.steps.prohibition.not_checked');
    expect(skipped[0]?.state).toBe('skipped');
    expect(lines({ step: 'prohibition', ok: true, detail: { rules: [] } })[0]?.key).toBe('explain.steps.prohibition.none');
    expect(lines({ step: 'prohibition', ok: true, detail: { rules: [2] } }, answer({ granted: true, reason: null }))[0]?.key).toBe(
      'explain.steps.prohibition.inactive',
    );
  });

  it('counts the sync tasks still waiting', () => {
    expect(lines({ step: 'sync', ok: false, detail: { pending: 2 } })).toEqual([
      { key: 'explain.steps.sync.fail', args: { device: 'Gate', smart_count: 2 }, state: 'fail' },
    ]);
    expect(lines({ step: 'sync', ok: true, detail: { pending: 0 } })[0]?.key).toBe('explain.steps.sync.ok');
  });

  it('tells a period not begun from one ended, in the viewer’s time', () => {
    const notYet = lines({ step: 'period', ok: false, detail: { from: '2025-04-01T00:00:00.000Z', to: null } });
    expect(notYet).toEqual([{ key: 'explain.steps.period.not_yet', args: { from: '<2025-04-01T00:00:00.000Z>' }, state: 'fail' }]);
    const ended = lines({ step: 'period', ok: false, detail: { from: null, to: '2025-02-01T00:00:00.000Z' } });
    expect(ended[0]?.key).toBe('explain.steps.period.expired');
    expect(lines({ step: 'period', ok: true, detail: { from: null, to: null } })[0]?.key).toBe('explain.steps.period.none');
  });

  it('says a person without identifiers has none, and which rules open the lock', () => {
    expect(lines({ step: 'identifier', ok: false, detail: { count: 0 } })[0]?.key).toBe('explain.steps.identifier.none');
    expect(lines({ step: 'rules', ok: true, detail: { rules: [1, 2] } })[0]?.args).toEqual({
      lock: 2,
      rules: '“Staff”, “Banned”',
      smart_count: 2,
    });
    expect(lines({ step: 'rules', ok: false, detail: { rules: [] } })[0]?.key).toBe('explain.steps.rules.fail');
  });

  it('gives a verdict with the refusal in words, and every key it can give has a text in both languages', () => {
    const v = verdictLine(answer(), w);
    expect(v.key).toBe('explain.verdict.refused');
    expect(v.reason).toBe('access_events.reasons.schedule');
    expect(reasonKey(null)).toBe('access_events.reasons.unknown');
    const get = (tree: unknown, key: string) => key.split('.').reduce<unknown>((n, k) => (n as Record<string, unknown>)?.[k], tree);
    const steps: Explain['steps'] = [
      { step: 'identifier', ok: true, detail: {} },
      { step: 'identifier', ok: false, detail: {} },
      { step: 'active', ok: false, detail: {} },
      { step: 'revoked', ok: false, detail: {} },
      { step: 'passes', ok: false, detail: {} },
      { step: 'device', ok: false, detail: {} },
      { step: 'device', ok: true, detail: { rules: [1] } },
      { step: 'device', ok: true, detail: {} },
      { step: 'period', ok: true, detail: { from: '2025-01-01T00:00:00Z' } },
      { step: 'schedule', ok: true, detail: { schedules: [{ id: 5, open: true, by: 'entry' }] } },
      { step: 'schedule', ok: true, detail: { schedules: [] } },
      {
        step: 'schedule',
        ok: false,
        detail: {
          schedules: [
            { id: 5, by: 'not_yet_valid' },
            { id: 6, by: 'expired' },
            { id: 7, by: 'missing' },
          ],
        },
      },
      { step: 'schedule', ok: true, detail: { schedules: [{ id: 5, open: false, by: 'no_entry' }] } },
    ];
    const keys = [v.key, 'explain.verdict.granted', ...steps.flatMap((s) => stepLines(s, answer({ reason: 'lock' }), w).map((l) => l.key))];
    for (const cat of [en, ru]) for (const k of keys) expect(get(cat, k), k).toBeTypeOf('string');
  });

  it('tells a person without identifiers that they have none, not that a door does not know one', () => {
    const none = answer({
      reason: 'unknown',
      identifier: null,
      steps: [{ step: 'identifier', ok: false, detail: { count: 0 } }],
      others: [],
    });
    const v = verdictLine(none, w);
    expect(v.reason).toBe('explain.no_identifiers');
    const get = (tree: unknown, key: string) => key.split('.').reduce<unknown>((n, k) => (n as Record<string, unknown>)?.[k], tree);
    for (const cat of [en, ru]) expect(get(cat, 'explain.no_identifiers')).toBeTypeOf('string');
    // An identifier the door has never received is still "unknown".
    expect(verdictLine(answer({ reason: 'unknown' }), w).reason).toBe('access_events.reasons.unknown');
  });
});

describe('the question in the address', () => {
  it('reads what an access event’s "Why?" opens, and asks the API with it', () => {
    const q = questionOf(new URLSearchParams('identifier_id=7&device_id=3&lock=2&at=2025-03-01T20:00:00Z'));
    expect(q).toEqual({ who: 'identifier', identifier_id: 7, device_id: 3, lock: 2, at: '2025-03-01T20:00:00.000Z' });
    expect(explainQuery(q)).toEqual({ identifier_id: 7, device_id: 3, lock: 2, at: '2025-03-01T20:00:00.000Z' });
  });

  it('asks nothing until a person or identifier and a device are picked; lock 1 by default', () => {
    const q = questionOf(new URLSearchParams('user_id=4&lock=abc'));
    expect(q).toEqual({ who: 'user', user_id: 4, lock: 1 });
    expect(explainQuery(q)).toBeNull();
    expect(explainQuery({ ...q, device_id: 3 })).toEqual({ user_id: 4, device_id: 3, lock: 1 });
  });

  it('writes the form into the address, the local date-time as an instant', () => {
    expect(searchOf({ who: 'user', user_id: 4, identifier_id: 9, device_id: 3, lock: 1, at: '2025-03-01T09:00' })).toEqual({
      user_id: '4',
      device_id: '3',
      lock: '1',
      at: new Date('2025-03-01T09:00').toISOString(),
    });
    expect(searchOf({ who: 'identifier', identifier_id: 9, device_id: 3, lock: 2, at: '' })).toEqual({
      identifier_id: '9',
      device_id: '3',
      lock: '2',
    });
  });

  it('collects the rules, schedules and identifiers to name', () => {
    const a = answer({
      steps: [
        { step: 'device', ok: true, detail: { rules: [1, 2] } },
        { step: 'rules', ok: true, detail: { rules: [1] } },
        { step: 'schedule', ok: false, detail: { schedules: [{ id: 5, open: false, by: 'no_entry' }] } },
      ],
      others: [{ identifier_id: 7, granted: false, reason: 'schedule' }],
    });
    expect(namedIds(a)).toEqual({ rules: [1, 2], schedules: [5], identifiers: [7] });
  });
});
