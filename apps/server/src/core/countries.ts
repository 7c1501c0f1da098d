import type { Country } from '@atrium/contract';
import countries from 'i18n-iso-countries';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import ru from 'i18n-iso-countries/langs/ru.json' with { type: 'json' };
import { type CountryCode, getCountryCallingCode } from 'libphonenumber-js';

countries.registerLocale(en);
countries.registerLocale(ru);

/** A territory without a numbering plan of its own (Antarctica, Bouvet Island…) has no calling code: ''. */
function callingCode(code: string): string {
  try {
    return `+${getCountryCallingCode(code as CountryCode)}`;
  } catch {
    return '';
  }
}

/**
 * Every country of ISO 3166-1 offered by self-registration, named in English and Russian from
 * i18n-iso-countries (maintained with the standard), with its calling code from libphonenumber-js's
 * metadata (the one the phone numbers are checked with), sorted by the English name.
 */
export const COUNTRIES: Country[] = Object.keys(countries.getAlpha2Codes())
  .map((code) => {
    const names = { en: countries.getName(code, 'en') ?? code, ru: countries.getName(code, 'ru') ?? countries.getName(code, 'en') ?? code };
    return { code, name: names.en, names, phone_code: callingCode(code) };
  })
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));

const KNOWN = new Set(COUNTRIES.map((c) => c.code));

/** Whether `code` is an ISO 3166-1 alpha-2 code of the list. */
export const isCountry = (code: string): boolean => KNOWN.has(code);
