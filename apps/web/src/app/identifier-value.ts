import {
  formatIdentifierValue,
  HEX_IDENTIFIER_TYPES,
  IDENTIFIER_TYPES,
  type IdentifierType,
  normalizeIdentifierValue,
} from '@atrium/contract';
import { useSessionData } from './SessionContext';

/** How the viewer reads card numbers (their profile's `identifier_format`; dec by default, spec entities §9). */
export type IdentifierFormat = 'hex' | 'dec';

export const formatOf = (profileFormat: unknown): IdentifierFormat => (profileFormat === 'hex' ? 'hex' : 'dec');

/** The viewer's way of reading card numbers, from their profile. */
export function useIdentifierFormat(): IdentifierFormat {
  return formatOf(useSessionData().profile.profile?.identifier_format);
}

export const isIdentifierType = (t: unknown): t is IdentifierType => (IDENTIFIER_TYPES as readonly unknown[]).includes(t);

/**
 * A value as this viewer reads it (`04-A1-B2` or `303538` for hex types, as stored otherwise). A
 * device may report a number in its own spelling (`04:a1:b2`): it is read as the stored form first.
 */
export function displayValue(type: unknown, value: unknown, format: IdentifierFormat): string {
  if (typeof value !== 'string') return '';
  return isIdentifierType(type) ? formatIdentifierValue(type, normalizeIdentifierValue(type, value) ?? value, format) : value;
}

/**
 * What was typed → the value as stored, or null when it cannot be one. A viewer who reads card
 * numbers in decimal types them in decimal too: digits alone are then a decimal number; anything
 * with hex letters or separators is read as hex.
 */
export function storedValue(type: unknown, raw: unknown, format: IdentifierFormat): string | null {
  const t: IdentifierType = isIdentifierType(type) ? type : 'card';
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  if (format === 'dec' && HEX_IDENTIFIER_TYPES.includes(t) && /^[0-9]+$/.test(text)) {
    return normalizeIdentifierValue(t, BigInt(text).toString(16).toUpperCase());
  }
  return normalizeIdentifierValue(t, text);
}
