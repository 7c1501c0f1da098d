import { describe, expect, it } from 'vitest';
import { authorOf, changedKeys, jsonLines, sameJson } from './diff';
import { en, ru } from './messages';

describe('the change of an audit event', () => {
  it('marks what an update sent and that differs from before, not what it left alone', () => {
    const before = { name: 'Lobby', description: null, users: [1, 2], settings: { a: 1, b: 2 } };
    const after = { name: 'Main lobby', users: [1, 2], settings: { b: 2, a: 1 }, logo: 'x.png' };
    expect([...changedKeys(before, after)].sort()).toEqual(['logo', 'name']);
  });

  it('marks every key of a create or a delete', () => {
    expect([...changedKeys(null, { name: 'x', color: '#fff' })]).toEqual(['name', 'color']);
    expect([...changedKeys({ name: 'x' }, null)]).toEqual(['name']);
    expect([...changedKeys(null, null)]).toEqual([]);
    expect([...changedKeys([1], 'text')]).toEqual([]);
  });

  it('compares JSON values deeply, whatever the key order', () => {
    expect(sameJson({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });

  it('shows one line per key, indented JSON, changed ones marked', () => {
    const lines = jsonLines({ name: 'Main', tags: ['a'] }, new Set(['name']));
    expect(lines).toEqual([
      { key: 'name', text: '"name": "Main"', changed: true },
      { key: 'tags', text: '"tags": [\n  "a"\n]', changed: false },
    ]);
    expect(jsonLines(null, new Set())).toEqual([]);
    expect(jsonLines([1], new Set())).toEqual([{ key: null, text: '[\n  1\n]', changed: false }]);
  });

  it('names the author, someone since deleted, or the system, in both languages', () => {
    expect(authorOf({ user: { name: 'Ann', login: 'ann' }, user_id: 1 })).toBe('Ann (ann)');
    expect(authorOf({ user: { name: 'ann', login: 'ann' }, user_id: 1 })).toBe('ann');
    const gone = authorOf({ user: null, user_id: 7 });
    expect(gone).toEqual({ key: 'audit_events.deleted_user', args: { id: 7 } });
    expect(authorOf({ user: null, user_id: null })).toEqual({ key: 'audit_events.system' });
    for (const cat of [en, ru]) {
      expect(cat.audit_events.deleted_user).toContain('%{id}');
      expect(cat.audit_events.system).toBeTypeOf('string');
    }
  });
});
