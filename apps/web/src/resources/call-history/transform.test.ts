import { describe, expect, it } from 'vitest';
import * as messages from './messages';
import { durationText, partyText } from './transform';

describe('call history', () => {
  it('writes a call length as m:ss or h:mm:ss, nothing when unanswered', () => {
    expect(durationText(0)).toBe('');
    expect(durationText(5)).toBe('0:05');
    expect(durationText(125)).toBe('2:05');
    expect(durationText(3725)).toBe('1:02:05');
    expect(durationText(null)).toBe('');
  });

  it('names a side of a call by number and user', () => {
    expect(partyText({ number: '101', user: { id: 1, name: 'Anna' } })).toBe('101 · Anna');
    expect(partyText({ number: '+441234567890', user: null })).toBe('+441234567890');
    expect(partyText(null)).toBe('');
  });

  it('texts exist in both languages', () => {
    const keysOf = (tree: object, prefix = ''): string[] =>
      Object.entries(tree).flatMap(([k, v]) => (v && typeof v === 'object' ? keysOf(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
    expect(keysOf(messages.ru)).toEqual(keysOf(messages.en));
  });
});
