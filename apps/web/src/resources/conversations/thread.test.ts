import { CONVERSATION_MESSAGE_MAX, type ConversationMessage } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { en, ru } from './messages';
import { canSend, charactersLeft, dayStarts, mergeMessages, olderQuery, otherParty } from './thread';

const msg = (id: number, at: string, text = `m${id}`): ConversationMessage => ({
  id,
  conversation_id: 1,
  author: { id: 1, name: 'Ann' },
  message: text,
  created_at: at,
});

describe('a conversation thread', () => {
  it('merges pages and live messages oldest first, each once', () => {
    const newest = [msg(5, '2026-11-23T10:05:00.000Z'), msg(4, '2026-11-23T10:04:00.000Z')];
    const older = [msg(3, '2026-11-23T10:03:00.000Z'), msg(2, '2026-11-23T10:02:00.000Z')];
    const live = [msg(6, '2026-11-23T10:06:00.000Z'), msg(5, '2026-11-23T10:05:00.000Z')];
    const merged = mergeMessages(mergeMessages(mergeMessages([], newest), older), live);
    expect(merged.map((m) => m.id)).toEqual([2, 3, 4, 5, 6]);
  });

  it('orders messages of one millisecond by id', () => {
    const at = '2026-11-23T10:00:00.000Z';
    expect(mergeMessages([msg(9, at)], [msg(8, at)]).map((m) => m.id)).toEqual([8, 9]);
  });

  it('asks for the page before the oldest message shown', () => {
    expect(olderQuery([msg(2, '2026-11-23T10:02:00.000Z'), msg(3, '2026-11-23T10:03:00.000Z')], 30)).toEqual({
      before_date: '2026-11-23T10:02:00.000Z',
      before_id: 2,
      size: 30,
    });
    expect(olderQuery([], 30)).toEqual({ size: 30 });
  });

  it('names the other participant, or nobody for a supervisor', () => {
    const c = { author: { id: 1, name: 'Ann' }, interlocutor: { id: 2, name: 'Bob' } };
    expect(otherParty(c, 1)).toEqual({ id: 2, name: 'Bob' });
    expect(otherParty(c, 2)).toEqual({ id: 1, name: 'Ann' });
    expect(otherParty(c, 3)).toBeUndefined();
    expect(otherParty({ author: null, interlocutor: { id: 2, name: 'Bob' } }, 2)).toBeNull();
  });

  it('counts the characters left as the server does, and refuses empty or too long messages', () => {
    expect(charactersLeft('  hi  ')).toBe(CONVERSATION_MESSAGE_MAX - 2);
    expect(canSend('   ')).toBe(false);
    expect(canSend('x'.repeat(CONVERSATION_MESSAGE_MAX))).toBe(true);
    expect(canSend('x'.repeat(CONVERSATION_MESSAGE_MAX + 1))).toBe(false);
    expect(charactersLeft('x'.repeat(CONVERSATION_MESSAGE_MAX + 3))).toBe(-3);
  });

  it('puts a day line before the first message of each day', () => {
    const noon = (d: number) => new Date(2026, 10, d, 12).toISOString();
    const list = [msg(1, noon(20)), msg(2, noon(20)), msg(3, noon(21)), msg(4, noon(23))];
    expect([...dayStarts(list)]).toEqual([0, 2, 3]);
  });

  it('has every text in English and Russian', () => {
    const flat = (o: object, p = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' && v ? flat(v, `${p}${k}.`) : [`${p}${k}`]));
    expect(flat(ru).sort()).toEqual(flat(en).sort());
  });
});
