import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DUMMY_PASSWORD } from './constants.js';
import { internationalPhone } from './phone.js';
import {
  alphanumeric,
  alphanumericDashUnderscore,
  compose,
  decimalCommaToDot,
  decimalToHexPairs,
  email,
  emptyToNull,
  fileSize,
  generatePassword,
  greaterThan,
  hexPairs,
  hexPairsToDecimal,
  ipWithPrefix,
  isEmpty,
  lessThan,
  matchesField,
  maxLength,
  minLength,
  nameLike,
  number,
  numberOrHex,
  PASSWORD_SPECIALS,
  range,
  required,
  toNumber,
  unique,
  unmaskPassword,
  urlOrIp,
  usernameRequired,
  VALIDATION_MESSAGES,
  type Validator,
} from './validators.js';

const ok = (v: Validator, value: unknown, values?: Record<string, unknown>) => expect(v(value, values)).toBeUndefined();
const bad = (v: Validator, value: unknown, message: string, values?: Record<string, unknown>) =>
  expect(v(value, values)?.message).toBe(message);

describe('empty values', () => {
  it('null, undefined and blank strings are empty', () => {
    expect([null, undefined, '', '   '].every(isEmpty)).toBe(true);
    expect([0, false, 'a', []].some(isEmpty)).toBe(false);
  });
  it('empty becomes null, anything else is kept', () => {
    expect(emptyToNull('  ')).toBeNull();
    expect(emptyToNull(undefined)).toBeNull();
    expect(emptyToNull(0)).toBe(0);
    expect(emptyToNull('x')).toBe('x');
  });
});

describe('numbers', () => {
  it('are sent as numbers, with a decimal comma read as a dot', () => {
    expect(toNumber('5060')).toBe(5060);
    expect(toNumber('55,7512')).toBe(55.7512);
    expect(toNumber('-37.61')).toBe(-37.61);
    expect(toNumber(12)).toBe(12);
    expect(decimalCommaToDot(' 1,5 ')).toBe('1.5');
  });
  it('empty is null and garbage is NaN', () => {
    expect(toNumber('')).toBeNull();
    expect(toNumber(null)).toBeNull();
    expect(toNumber('12abc')).toBeNaN();
    expect(toNumber('1,2,3')).toBeNaN();
  });
});

describe('password placeholder', () => {
  it('turns the placeholder and empty into null, keeps a new secret', () => {
    expect(unmaskPassword(DUMMY_PASSWORD)).toBeNull();
    expect(unmaskPassword('')).toBeNull();
    expect(unmaskPassword('n3w!Secret')).toBe('n3w!Secret');
  });
});

describe('hex display', () => {
  it('joins pairs of upper-case digits with dashes', () => {
    expect(hexPairs('a1b2c3')).toBe('A1-B2-C3');
    expect(hexPairs('abc')).toBe('0A-BC');
    expect(hexPairs('0x00ff')).toBe('00-FF');
    expect(hexPairs('')).toBe('');
  });
  it('converts decimal identifiers and back', () => {
    expect(decimalToHexPairs('4660')).toBe('12-34');
    expect(decimalToHexPairs(255)).toBe('FF');
    expect(hexPairsToDecimal('12-34')).toBe('4660');
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n }), (n) => hexPairsToDecimal(decimalToHexPairs(n)) === n.toString()));
  });
});

describe('random password generator', () => {
  it('has the length, exactly 4 digits, 2 special characters, the rest mixed-case letters', () => {
    fc.assert(
      fc.property(fc.integer({ min: 8, max: 64 }), (n) => {
        const p = generatePassword(n);
        const digits = [...p].filter((c) => /\d/.test(c)).length;
        const specials = [...p].filter((c) => PASSWORD_SPECIALS.includes(c)).length;
        const letters = [...p].filter((c) => /[a-z]/i.test(c));
        return (
          p.length === n &&
          digits === 4 &&
          specials === 2 &&
          letters.length === n - 6 &&
          letters.some((c) => c === c.toUpperCase()) &&
          letters.some((c) => c === c.toLowerCase())
        );
      }),
    );
  });
  it('differs between calls and refuses lengths below 6', () => {
    expect(generatePassword(16)).not.toBe(generatePassword(16));
    expect(generatePassword(6)).toHaveLength(6);
    expect(() => generatePassword(5)).toThrow(RangeError);
  });
});

describe('message catalogue', () => {
  it('field is required', () => {
    bad(required, '', VALIDATION_MESSAGES.required);
    bad(required, null, VALIDATION_MESSAGES.required);
    bad(required, [], VALIDATION_MESSAGES.required);
    ok(required, 'x');
    ok(required, 0);
  });
  it('the username field is required', () => {
    bad(usernameRequired, ' ', VALIDATION_MESSAGES.username_required);
    ok(usernameRequired, 'admin');
  });
  it('max and min length carry the length', () => {
    expect(maxLength(3)('abcd')).toEqual({ message: VALIDATION_MESSAGES.max_length, args: { length: 3 } });
    ok(maxLength(3), 'abc');
    ok(maxLength(3), '');
    bad(minLength(8), 'short', VALIDATION_MESSAGES.min_length);
    ok(minLength(8), 'long enough');
  });
  it('value must be email', () => {
    bad(email, 'not-an-email', VALIDATION_MESSAGES.email);
    bad(email, 'a@b', VALIDATION_MESSAGES.email);
    ok(email, 'admin@example.com');
    ok(email, '');
  });
  it('valid url or ip', () => {
    for (const v of ['https://example.com/x', '10.0.0.1', '10.0.0.1:5060', 'sip.example.com', 'fe80::1', 'wss://a.b:8443/ws'])
      ok(urlOrIp, v);
    for (const v of ['300.1.1.1', 'http//x', 'a b', 'host:99999']) bad(urlOrIp, v, VALIDATION_MESSAGES.url_or_ip);
  });
  it('ip with bit prefix', () => {
    ok(ipWithPrefix, '192.168.0.0/16');
    ok(ipWithPrefix, '2001:db8::/32');
    bad(ipWithPrefix, '192.168.0.0', VALIDATION_MESSAGES.ip_with_prefix);
    bad(ipWithPrefix, '192.168.0.0/33', VALIDATION_MESSAGES.ip_with_prefix);
  });
  it('valid number', () => {
    ok(number, '12,5');
    ok(number, 3);
    bad(number, '12a', VALIDATION_MESSAGES.number);
  });
  it('number or HEX', () => {
    for (const v of ['123456', 'DEADBEEF', '0x1f', 'A1-B2-C3']) ok(numberOrHex, v);
    for (const v of ['xyz', '12-3', '0x']) bad(numberOrHex, v, VALIDATION_MESSAGES.number_or_hex);
  });
  it('alphanumeric, and with dash or underscore', () => {
    ok(alphanumeric, 'Abc123');
    ok(alphanumeric, 'Дом5');
    bad(alphanumeric, 'a-b', VALIDATION_MESSAGES.alphanumeric);
    ok(alphanumericDashUnderscore, 'a-b_c');
    bad(alphanumericDashUnderscore, 'a b', VALIDATION_MESSAGES.alphanumeric_dash_underscore);
  });
  it('value in min-max, greater and less than a bound', () => {
    ok(range(1, 65535), '5060');
    expect(range(1, 65535)('0')).toEqual({ message: VALIDATION_MESSAGES.range, args: { min: 1, max: 65535 } });
    bad(range(1, 10), 'x', VALIDATION_MESSAGES.range);
    ok(greaterThan(0), 1);
    bad(greaterThan(0), 0, VALIDATION_MESSAGES.greater_than);
    ok(lessThan(10), '9,5');
    bad(lessThan(10), 10, VALIDATION_MESSAGES.less_than);
  });
  it('values of two fields must match', () => {
    ok(matchesField('password'), 'secret', { password: 'secret' });
    bad(matchesField('password'), 'other', VALIDATION_MESSAGES.fields_must_match, { password: 'secret' });
  });
  it('file size within bounds in kb', () => {
    ok(fileSize(1, 100), { size: 50 * 1024 });
    bad(fileSize(1, 100), { size: 200 * 1024 }, VALIDATION_MESSAGES.file_size);
    bad(fileSize(1, 100), { rawFile: { size: 100 } }, VALIDATION_MESSAGES.file_size);
  });
  it('value must be unique', () => {
    bad(unique(['Lobby', 'Gate']), 'lobby', VALIDATION_MESSAGES.unique);
    ok(unique(['Lobby']), 'Garage');
  });
  it('phone number must be international', () => {
    ok(internationalPhone, '+7 (495) 123-45-67');
    ok(internationalPhone, '+14155552671');
    bad(internationalPhone, '84951234567', VALIDATION_MESSAGES.phone_international);
    bad(internationalPhone, '+0123', VALIDATION_MESSAGES.phone_international);
  });
  it('a name-like value has allowed characters and 1 to 31 of them', () => {
    ok(nameLike, 'Building 5, entrance #2');
    ok(nameLike, 'Корпус 1');
    bad(nameLike, 'x'.repeat(32), VALIDATION_MESSAGES.name_like);
    bad(nameLike, 'semi;colon', VALIDATION_MESSAGES.name_like);
    bad(nameLike, '<b>', VALIDATION_MESSAGES.name_like);
  });
  it('compose answers the first failure', () => {
    const v = compose(required, maxLength(3));
    bad(v, '', VALIDATION_MESSAGES.required);
    bad(v, 'abcd', VALIDATION_MESSAGES.max_length);
    ok(v, 'abc');
  });
});

describe('phone numbers and time zones (issue 9)', () => {
  it('accepts usual formatting and answers E.164', async () => {
    const { normalizePhone } = await import('./phone.js');
    expect(normalizePhone('+7 (912) 345-67-89')).toBe('+79123456789');
    expect(normalizePhone('+44 20 7946 0958')).toBe('+442079460958');
    expect(normalizePhone('0049 30 901820')).toBe('+4930901820');
    for (const bad of ['8 912 345 67 89', '+7 912', 'call me', '+1 (555) 0000-0000-0000', '']) expect(normalizePhone(bad), bad).toBeNull();
    expect(internationalPhone('+7 (912) 345-67-89')).toBeUndefined();
    expect(internationalPhone('12345')).toEqual({ message: 'validation.phone_international', args: {} });
  });

  it('knows IANA time zones by their canonical name', async () => {
    const { canonicalTimeZone, TimeZoneSchema, timeZones } = await import('./time-zones.js');
    expect(canonicalTimeZone('Europe/Moscow')).toBe('Europe/Moscow');
    expect(canonicalTimeZone('europe/moscow')).toBe('Europe/Moscow');
    expect(canonicalTimeZone('Europe/Moscw')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
    expect(TimeZoneSchema.safeParse('Mars/Olympus').success).toBe(false);
    expect(timeZones()).toContain('America/Sao_Paulo');
  });
});
