import { GUEST_IDENTIFIER_NAME } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { en, ru } from './messages';
import { identifierName } from './shared';

const catalogue = (messages: typeof en) => (key: string) =>
  key === 'guest_access.default_name' ? messages.guest_access.default_name : `?${key}`;

describe('an identifier name', () => {
  it("reads a guest pass granted without a name in the viewer's language", () => {
    const pass = { name: GUEST_IDENTIFIER_NAME, guest_type: 'guest' };
    expect(identifierName(pass, catalogue(ru))).toBe('Гостевой идентификатор');
    expect(identifierName(pass, catalogue(en))).toBe('Guest identifier');
    expect(identifierName({ name: '', guest_type: 'courier' }, catalogue(ru))).toBe('Гостевой идентификатор');
  });

  it('keeps a name someone gave, and the name of a card that is no guest pass', () => {
    expect(identifierName({ name: 'Plumber Tuesday', guest_type: 'service' }, catalogue(ru))).toBe('Plumber Tuesday');
    expect(identifierName({ name: GUEST_IDENTIFIER_NAME, guest_type: null }, catalogue(ru))).toBe(GUEST_IDENTIFIER_NAME);
  });
});
