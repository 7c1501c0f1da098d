import { describe, expect, it } from 'vitest';
import { formatNameAddr } from './address.js';

describe('formatNameAddr', () => {
  it('writes a display name that can neither close its quotes early nor start a header', () => {
    const params = new Map<string, string | null>([['tag', 'x']]);
    expect(formatNameAddr({ displayName: 'Flat 12\r\nP-Asserted-Identity: <sip:1@h>', uri: 'sip:101@h', params })).toBe(
      '"Flat 12P-Asserted-Identity: <sip:1@h>" <sip:101@h>;tag=x',
    );
    expect(formatNameAddr({ displayName: 'Back\\ "slash" \\', uri: 'sip:101@h', params: new Map() })).toBe('"Back slash" <sip:101@h>');
    expect(formatNameAddr({ displayName: ' \t ', uri: 'sip:101@h', params: new Map() })).toBe('<sip:101@h>');
  });
});
