import { z } from 'zod';
import { VALIDATION_MESSAGES } from './validators.js';

// Time zones live apart from the other validators, so the sign-in page loads neither them nor zod.

/** The IANA name of a time zone as written (`europe/moscow` → `Europe/Moscow`), or null for no such zone. */
export function canonicalTimeZone(value: string): string | null {
  const v = value.trim();
  if (!v || !/^[A-Za-z0-9_+\-/]+$/.test(v)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: v }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** A time zone field of the API: an IANA zone (`Europe/Moscow`), stored by its canonical name. */
export const TimeZoneSchema = z
  .string()
  .trim()
  .max(64, VALIDATION_MESSAGES.time_zone)
  .transform((v, ctx) => {
    const zone = canonicalTimeZone(v);
    if (zone) return zone;
    ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.time_zone });
    return z.NEVER;
  });

/** Every IANA time zone this runtime knows, for pickers. */
export const timeZones = (): string[] => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC']);
