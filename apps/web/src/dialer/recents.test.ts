import { describe, expect, it } from 'vitest';
import { formatDuration, groupRecents } from './recents';
import type { CallOutcome, HistoryEntry } from './types';

const at = (iso: string) => new Date(iso).getTime();
const entry = (
  created: number,
  from: string,
  to: string,
  status: CallOutcome = 'answered',
  direction?: 'incoming' | 'outgoing',
): HistoryEntry => ({
  id: created,
  call_id: `c${created}`,
  created_at: new Date(created).toISOString(),
  status,
  duration: 65,
  from: { number: from, user: { id: null, name: from === '100' ? 'Me' : 'Anna' } },
  to: { number: to, user: null },
  direction: direction ?? (from === '100' ? 'outgoing' : 'incoming'),
  type: 'normal',
  sos: false,
  answered_by: null,
});

describe('recents', () => {
  const now = at('2026-11-23T15:00:00');

  it('groups by local date, newest first, naming today and yesterday', () => {
    const groups = groupRecents(
      [
        entry(at('2026-11-21T09:00:00'), '100', '201'),
        entry(at('2026-11-23T10:00:00'), '100', '202', 'noanswer'),
        entry(at('2026-11-22T23:59:00'), '203', '100', 'busy'),
        entry(at('2026-11-23T12:00:00'), '204', '100', 'failed'),
      ],
      '100',
      now,
    );
    expect(groups.map((g) => [g.day, g.label, g.items.length])).toEqual([
      ['2026-11-23', 'today', 2],
      ['2026-11-22', 'yesterday', 1],
      ['2026-11-21', null, 1],
    ]);
    expect(groups[0]?.items.map((i) => [i.number, i.direction, i.outcome])).toEqual([
      ['204', 'incoming', 'failed'],
      ['202', 'outgoing', 'noanswer'],
    ]);
    expect(groups[1]?.items[0]?.title).toBe('Anna (203)');
  });

  it("takes the server's direction and shows the other side", () => {
    const [group] = groupRecents([entry(at('2026-11-23T10:00:00'), '100', '202', 'answered', 'incoming')], '100', now);
    expect(group?.items[0]).toMatchObject({ direction: 'incoming', number: '100' });
  });

  it('formats durations', () => {
    expect(formatDuration(65)).toBe('1:05');
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(null)).toBe('0:00');
  });
});
