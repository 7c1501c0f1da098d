import { LOG_LEVELS, SYSTEM_WORKERS } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { en, ru } from './messages';
import { formatFields } from './RecentLogs';

/** Every leaf's dotted path with its text. */
const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

describe('system info page', () => {
  it('has every text in both languages, none empty, and a name for every worker', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const name of SYSTEM_WORKERS) expect(en.system_info.workers.names[name], name).toBeTypeOf('string');
    for (const level of LOG_LEVELS) expect(en.system_info.logs.levels[level], level).toBeTypeOf('string');
  });

  it('shows the fields of a log line compactly', () => {
    expect(formatFields({ method: 'GET', status: 200, user: { id: 1 } })).toBe('method=GET status=200 user={"id":1}');
    expect(formatFields({})).toBe('');
  });
});
