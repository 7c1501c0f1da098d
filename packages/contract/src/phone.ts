import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { z } from 'zod';
import { isEmpty, VALIDATION_MESSAGES, type Validator } from './validators.js';

// Phone numbers live apart from the other validators: the numbering plans they need load only on
// the pages that check a phone, not on the sign-in page.

/**
 * A phone number as people write it ("+7 (912) 345-67-89", "+44 20 7946 0958", "00 49 30 1234567")
 * in E.164 (`+79123456789`), or null when it is not a valid international number. libphonenumber-js
 * knows each country's numbering plan, so a number of the wrong length is refused too.
 */
export function normalizePhone(value: string): string | null {
  const v = value.trim().replace(/^00/, '+');
  if (!v.startsWith('+') || /[^\d\s\-().+/]/.test(v)) return null;
  const parsed = parsePhoneNumberFromString(v);
  return parsed?.isValid() ? parsed.number : null;
}

/** "phone number must be international": a valid number with its country code, however it is spaced. */
export const internationalPhone: Validator = (value) => {
  if (isEmpty(value)) return undefined;
  return normalizePhone(String(value)) ? undefined : { message: VALIDATION_MESSAGES.phone_international, args: {} };
};

/** A phone field of the API: accepts usual formatting, stores E.164. */
export const PhoneSchema = z
  .string()
  .trim()
  .max(32, VALIDATION_MESSAGES.phone_international)
  .transform((v, ctx) => {
    const e164 = normalizePhone(v);
    if (e164) return e164;
    ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.phone_international });
    return z.NEVER;
  });
