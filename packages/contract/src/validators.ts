/**
 * The shared validation kit of spec core §5: the message catalogue every form uses, and the value
 * conversions applied before a form is sent. Server and console run the same functions, so a rule
 * cannot drift between them.
 *
 * A validator takes a value (and, for cross-field rules, all values of the form) and answers
 * `undefined` when the value is valid, or a {@link ValidationError} whose `message` is a translation
 * key of the console (`validation.<code>`) and whose `args` fill its placeholders. This is also the
 * shape react-admin's input validators return, so the console passes them to inputs as they are.
 */

import { DUMMY_PASSWORD, NAME_MAX_LENGTH } from './constants.js';

/** Every message of the shared catalogue, as the console's translation key. */
export const VALIDATION_MESSAGES = {
  max_length: 'validation.max_length',
  min_length: 'validation.min_length',
  required: 'validation.required',
  email: 'validation.email',
  url_or_ip: 'validation.url_or_ip',
  ip_with_prefix: 'validation.ip_with_prefix',
  number: 'validation.number',
  number_or_hex: 'validation.number_or_hex',
  alphanumeric: 'validation.alphanumeric',
  alphanumeric_dash_underscore: 'validation.alphanumeric_dash_underscore',
  range: 'validation.range',
  greater_than: 'validation.greater_than',
  less_than: 'validation.less_than',
  fields_must_match: 'validation.fields_must_match',
  file_size: 'validation.file_size',
  unique: 'validation.unique',
  phone_international: 'validation.phone_international',
  /** "not a time zone": not an IANA time zone name */
  time_zone: 'validation.time_zone',
  username_required: 'validation.username_required',
  name_like: 'validation.name_like',
  // Answered only by the server, in the `details` of a 400 (the spec's catalogue has no phrase for them).
  /** "value must be at least {min}" (a number with a lower bound only) */
  min_value: 'validation.min_value',
  /** "value must be at most {max}" (a number with an upper bound only) */
  max_value: 'validation.max_value',
  /** "at least {min} items" */
  min_items: 'validation.min_items',
  /** "at most {max} items" */
  max_items: 'validation.max_items',
  /** "a date from {min} to {max}" */
  date: 'validation.date',
  /** "invalid value": not one of the allowed values, or not of the expected kind */
  invalid_value: 'validation.invalid_value',
  /** "unknown field": a field the call does not take */
  unknown_field: 'validation.unknown_field',
  /** "The value must contain {placeholders}": a mail template's required placeholders (issue 14) */
  must_contain: 'validation.must_contain',
} as const;
export type ValidationMessageCode = keyof typeof VALIDATION_MESSAGES;

/** A failed rule: a translation key and the values of its placeholders. */
export interface ValidationError {
  message: (typeof VALIDATION_MESSAGES)[ValidationMessageCode];
  args: Record<string, string | number>;
}

/** A rule on one value; `values` holds the whole form for cross-field rules. */
export type Validator = (value: unknown, values?: Record<string, unknown>) => ValidationError | undefined;

const fail = (code: ValidationMessageCode, args: Record<string, string | number> = {}): ValidationError => ({
  message: VALIDATION_MESSAGES[code],
  args,
});

/** Null, undefined and a blank string are empty (spec core §5). */
export function isEmpty(value: unknown): value is null | undefined | '' {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** Empty values become null, anything else is kept. */
export function emptyToNull<T>(value: T): T | null {
  return isEmpty(value) ? null : value;
}

/** "12,5" → "12.5": a decimal comma (as Russian keyboards type it) becomes a dot. */
export function decimalCommaToDot(value: string): string {
  return value.trim().replace(',', '.');
}

/**
 * A numeric field's value as it is sent: a number, or null when empty. A decimal comma is read as
 * a dot; text that is not a number gives NaN so a validator can reject it rather than send a guess.
 */
export function toNumber(value: unknown): number | null {
  if (isEmpty(value)) return null;
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return Number.NaN;
  const text = decimalCommaToDot(value);
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
}

/** A secret as it is sent: the placeholder ({@link DUMMY_PASSWORD}) (and an empty value) means "unchanged", sent as null. */
export function unmaskPassword(value: unknown): string | null {
  if (isEmpty(value) || value === DUMMY_PASSWORD) return null;
  return String(value);
}

/** A secret as a form shows it: the placeholder when one is set, empty otherwise. */
export function maskPassword(isSet: boolean): string {
  return isSet ? DUMMY_PASSWORD : '';
}

/**
 * Hex display of identifiers: "a1b2c" → "0A-1B-2C". Accepts hex text (with or without 0x, dashes,
 * colons or spaces) and answers groups of two upper-case digits joined by dashes.
 */
export function hexPairs(hex: string): string {
  let digits = hex
    .trim()
    .replace(/^0x/i, '')
    .replace(/[-:\s]/g, '')
    .toUpperCase();
  if (digits === '') return '';
  if (digits.length % 2 === 1) digits = `0${digits}`;
  return digits.match(/../g)?.join('-') ?? '';
}

/** A decimal identifier number shown in hex pairs: "255" → "FF", "4660" → "12-34". */
export function decimalToHexPairs(decimal: string | number | bigint): string {
  return hexPairs(BigInt(decimal).toString(16));
}

/** The reverse of {@link hexPairs}: "12-34" → "4660". */
export function hexPairsToDecimal(hex: string): string {
  const digits = hex
    .trim()
    .replace(/^0x/i, '')
    .replace(/[-:\s]/g, '');
  return BigInt(`0x${digits}`).toString(10);
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
/** Special characters the generator uses: ones that survive copy, paste and SIP configuration. */
export const PASSWORD_SPECIALS = '!@#$%^&*-_+=?';

/** Uniform random integer in [0, max) from the platform's cryptographic source. */
function randomIndex(max: number): number {
  const buf = new Uint32Array(1);
  // Rejection sampling avoids a modulo bias.
  const limit = Math.floor(0x1_0000_0000 / max) * max;
  for (;;) {
    globalThis.crypto.getRandomValues(buf);
    const n = buf[0] as number;
    if (n < limit) return n % max;
  }
}

/**
 * The random password generator of spec core §9: `length` characters with exactly 4 digits and
 * 2 special characters, the rest letters of mixed case (at least one of each when two or more).
 */
export function generatePassword(length = 12): string {
  if (!Number.isInteger(length) || length < 6) throw new RangeError('password length must be an integer of at least 6');
  const pick = (set: string) => set.charAt(randomIndex(set.length));
  const chars: string[] = [];
  for (let i = 0; i < 4; i++) chars.push(pick(DIGITS));
  for (let i = 0; i < 2; i++) chars.push(pick(PASSWORD_SPECIALS));
  const letters = length - 6;
  if (letters >= 1) chars.push(pick(UPPER));
  if (letters >= 2) chars.push(pick(LOWER));
  while (chars.length < length) chars.push(pick(LOWER + UPPER));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}

// --- the message catalogue -------------------------------------------------------------------

const text = (value: unknown): string => (typeof value === 'number' ? String(value) : String(value ?? ''));

/**
 * "field is required". Carries react-admin's `isRequired` flag, so every console field validated
 * with it is marked required (the asterisk of its label) before anyone submits.
 */
export const required: Validator & { isRequired: true } = Object.assign(
  (value: unknown) => (isEmpty(value) || (Array.isArray(value) && value.length === 0) ? fail('required') : undefined),
  { isRequired: true as const },
);

/** "the username field is required" (marked required like `required`). */
export const usernameRequired: Validator & { isRequired: true } = Object.assign(
  (value: unknown) => (isEmpty(value) ? fail('username_required') : undefined),
  { isRequired: true as const },
);

/** "max length {length} chars" */
export const maxLength =
  (length: number): Validator =>
  (value) =>
    !isEmpty(value) && text(value).length > length ? fail('max_length', { length }) : undefined;

/** "min length {length} chars" */
export const minLength =
  (length: number): Validator =>
  (value) =>
    !isEmpty(value) && text(value).length < length ? fail('min_length', { length }) : undefined;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** "value must be email" */
export const email: Validator = (value) => (!isEmpty(value) && !EMAIL.test(text(value).trim()) ? fail('email') : undefined);

const IPV4_OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `${IPV4_OCTET}(\\.${IPV4_OCTET}){3}`;
const IPV4_RE = new RegExp(`^${IPV4}$`);
const IPV4_CIDR_RE = new RegExp(`^${IPV4}/(3[0-2]|[12]?\\d)$`);
const HOSTNAME_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function isIpv6(value: string): boolean {
  if (!/^[0-9a-f:.]+$/i.test(value) || !value.includes(':')) return false;
  try {
    return new URL(`http://[${value}]/`).hostname.length > 0;
  } catch {
    return false;
  }
}

/** True for an IPv4 or IPv6 address. */
/** An IPv4 address in dotted decimal (`192.168.0.10`). */
export const isIpv4 = (value: string): boolean => IPV4_RE.test(value);

export function isIp(value: string): boolean {
  return isIpv4(value) || isIpv6(value);
}

/** "valid url or ip": an http(s)/ws(s)/sip URL, a host name, or an IP address (with an optional port). */
export const urlOrIp: Validator = (value) => {
  if (isEmpty(value)) return undefined;
  const v = text(value).trim();
  if (isIp(v)) return undefined;
  const hostPort = /^(.+?)(:(\d{1,5}))?$/.exec(v);
  const host = hostPort?.[1] ?? '';
  // A dotted all-numeric host must be a real IPv4 address, not a host name.
  const validHost = /^[\d.]+$/.test(host) ? IPV4_RE.test(host) : HOSTNAME_RE.test(host);
  if (hostPort && !v.includes('/') && validHost) {
    const port = hostPort[3] === undefined ? 1 : Number(hostPort[3]);
    if (port >= 1 && port <= 65535) return undefined;
  }
  try {
    const url = new URL(v);
    if (['http:', 'https:', 'ws:', 'wss:', 'sip:', 'sips:', 'ftp:'].includes(url.protocol) && (url.hostname || url.pathname))
      return undefined;
  } catch {
    // not a URL: rejected below
  }
  return fail('url_or_ip');
};

/** "ip with bit prefix": IPv4 CIDR such as 10.0.0.0/8 (or IPv6 with a 0–128 prefix). */
export const ipWithPrefix: Validator = (value) => {
  if (isEmpty(value)) return undefined;
  const v = text(value).trim();
  if (IPV4_CIDR_RE.test(v)) return undefined;
  const [addr, prefix, ...rest] = v.split('/');
  if (rest.length === 0 && addr && prefix && /^\d{1,3}$/.test(prefix) && Number(prefix) <= 128 && isIpv6(addr)) return undefined;
  return fail('ip_with_prefix');
};

/** "valid number" (a decimal comma is accepted) */
export const number: Validator = (value) => (!isEmpty(value) && Number.isNaN(toNumber(value)) ? fail('number') : undefined);

/** "number or HEX": decimal digits, or hex digits (optionally 0x-prefixed or in dash-joined pairs) */
export const numberOrHex: Validator = (value) =>
  !isEmpty(value) && !/^(\d+|(0x)?[0-9a-f]+|[0-9a-f]{2}(-[0-9a-f]{2})*)$/i.test(text(value).trim()) ? fail('number_or_hex') : undefined;

/** "alphanumeric" (letters of any alphabet and digits) */
export const alphanumeric: Validator = (value) =>
  !isEmpty(value) && !/^[\p{L}\p{N}]+$/u.test(text(value)) ? fail('alphanumeric') : undefined;

/** "alphanumeric with dash or underscore" */
export const alphanumericDashUnderscore: Validator = (value) =>
  !isEmpty(value) && !/^[\p{L}\p{N}_-]+$/u.test(text(value)) ? fail('alphanumeric_dash_underscore') : undefined;

/** "value in {min}-{max}" (numbers; a non-number is out of range too) */
export const range =
  (min: number, max: number): Validator =>
  (value) => {
    if (isEmpty(value)) return undefined;
    const n = toNumber(value);
    return n === null || Number.isNaN(n) || n < min || n > max ? fail('range', { min, max }) : undefined;
  };

/** "greater than a bound" */
export const greaterThan =
  (bound: number): Validator =>
  (value) => {
    if (isEmpty(value)) return undefined;
    const n = toNumber(value);
    return n === null || Number.isNaN(n) || n <= bound ? fail('greater_than', { bound }) : undefined;
  };

/** "less than a bound" */
export const lessThan =
  (bound: number): Validator =>
  (value) => {
    if (isEmpty(value)) return undefined;
    const n = toNumber(value);
    return n === null || Number.isNaN(n) || n >= bound ? fail('less_than', { bound }) : undefined;
  };

/** "values of two fields must match": this field must equal the form's `otherField`. */
export const matchesField =
  (otherField: string): Validator =>
  (value, values) =>
    (values?.[otherField] ?? '') !== (value ?? '') ? fail('fields_must_match', { field: otherField }) : undefined;

/** "file size within bounds in kb": for a File/Blob (or anything with a byte `size`). */
export const fileSize =
  (minKb: number, maxKb: number): Validator =>
  (value) => {
    if (isEmpty(value) || typeof value !== 'object') return undefined;
    const raw = (value as { rawFile?: { size?: unknown }; size?: unknown }).rawFile ?? value;
    const size = (raw as { size?: unknown }).size;
    if (typeof size !== 'number') return undefined;
    const kb = size / 1024;
    return kb < minKb || kb > maxKb ? fail('file_size', { min: minKb, max: maxKb }) : undefined;
  };

/** "value must be unique" among `taken` (compared case-insensitively for text). */
export const unique =
  (taken: readonly unknown[]): Validator =>
  (value) => {
    if (isEmpty(value)) return undefined;
    const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);
    const n = norm(value);
    return taken.some((t) => norm(t) === n) ? fail('unique') : undefined;
  };

/**
 * "a name-like value may contain only allowed characters and has a length of 1 to 31": letters of
 * any alphabet, digits, spaces and . , ' - _ ( ) # / (the spec does not list the set).
 */
export const nameLike: Validator = (value) => {
  if (isEmpty(value)) return undefined;
  const v = text(value);
  return v.length > NAME_MAX_LENGTH || !/^[\p{L}\p{N} .,'’\-_()#/]+$/u.test(v) || v.trim() === ''
    ? fail('name_like', { min: 1, max: NAME_MAX_LENGTH })
    : undefined;
};

/** Runs validators in order and answers the first failure. */
export function validate(value: unknown, validators: readonly Validator[], values?: Record<string, unknown>): ValidationError | undefined {
  for (const v of validators) {
    const error = v(value, values);
    if (error) return error;
  }
  return undefined;
}

/** Combines validators into one (the first failure wins). */
export const compose =
  (...validators: Validator[]): Validator =>
  (value, values) =>
    validate(value, validators, values);

/**
 * Validates without compiling code at run time. zod compiles fast parsers with `new Function` and
 * probes whether it may; a page under a Content-Security-Policy without 'unsafe-eval' (the console)
 * reports even the probe as a violation. The console calls this once before anything validates.
 * It sets zod's global configuration object (`globalThis.__zod_globalConfig`, the one `z.config()`
 * writes) without importing zod, so the sign-in page need not load zod at all; e2e/tests/csp.spec.ts
 * fails if a zod upgrade moves it.
 */
export function validateWithoutEval(): void {
  const g = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
  g.__zod_globalConfig ??= {};
  g.__zod_globalConfig.jitless = true;
}
