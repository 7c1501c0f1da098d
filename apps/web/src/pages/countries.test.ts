import { describe, expect, it } from 'vitest';
import { localizedCountries } from './countries';

const list = [
  { code: 'DE', name: 'Germany', phone_code: '+49' },
  { code: 'AM', name: 'Armenia', phone_code: '+374' },
  { code: 'XX', name: 'Nowhere', phone_code: '+0' },
];

describe('localizedCountries', () => {
  it('names countries in Russian and sorts by that name', () => {
    const ru = localizedCountries(list, 'ru');
    expect(ru.map((c) => c.name)).toEqual(['Армения', 'Германия', 'Nowhere']);
    expect(ru[0]).toMatchObject({ code: 'AM', phone_code: '+374' });
  });

  it("uses the server's name in the language for a code the browser does not name", () => {
    const ru = localizedCountries([{ code: 'XX', name: 'Nowhere', names: { en: 'Nowhere', ru: 'Нигде' }, phone_code: '' }], 'ru');
    expect(ru[0]?.name).toBe('Нигде');
  });

  it('keeps the English names in English and the server name for an unknown code', () => {
    expect(localizedCountries(list, 'en').map((c) => c.name)).toEqual(['Armenia', 'Germany', 'Nowhere']);
  });
});
