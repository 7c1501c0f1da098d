import { describe, expect, it } from 'vitest';
import { displayValue, formatOf, storedValue } from './identifier-value';

describe('identifier numbers as the viewer reads them', () => {
  it('shows hex types in pairs or in decimal, by the profile; other types as stored', () => {
    expect(displayValue('card', '04A1B2', 'hex')).toBe('04-A1-B2');
    expect(displayValue('ukey', 'ABC', 'hex')).toBe('0A-BC');
    expect(displayValue('card', '04A1B2', 'dec')).toBe('303538');
    expect(displayValue('access_code', '1234', 'hex')).toBe('1234');
    expect(displayValue('license_plate', 'A123BC77', 'dec')).toBe('A123BC77');
    expect(displayValue('card', null, 'hex')).toBe('');
  });

  it("reads a device's own spelling of a number as the stored one", () => {
    expect(displayValue('card', '04:a1:b2', 'hex')).toBe('04-A1-B2');
    expect(displayValue('card', 'cafe01', 'dec')).toBe('13303297');
    expect(displayValue('card', 'not a number', 'dec')).toBe('not a number');
  });

  it('takes the profile format, decimal by default', () => {
    expect(formatOf('hex')).toBe('hex');
    expect(formatOf('dec')).toBe('dec');
    expect(formatOf(undefined)).toBe('dec');
  });

  it('reads digits as decimal for a decimal viewer, and hex with letters or dashes as hex', () => {
    expect(storedValue('card', '303538', 'dec')).toBe('4A1B2');
    expect(storedValue('card', '04-a1-b2', 'dec')).toBe('04A1B2');
    expect(storedValue('card', '1234', 'hex')).toBe('1234');
    expect(storedValue('ukey2', ' 04:a1:b2 ', 'hex')).toBe('04A1B2');
  });

  it('refuses what the type cannot hold', () => {
    expect(storedValue('card', '04-G1', 'hex')).toBeNull();
    expect(storedValue('access_code', '12', 'dec')).toBeNull();
    expect(storedValue('card', '', 'dec')).toBeNull();
    expect(storedValue('access_code', '123456', 'dec')).toBe('123456');
    expect(storedValue('license_plate', 'a 123 bc', 'hex')).toBe('A123BC');
  });
});
