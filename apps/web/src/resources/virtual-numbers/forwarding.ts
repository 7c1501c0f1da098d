import { type ForwardRules, TELEPHONY_DEFAULTS, TELEPHONY_VALIDATION_MESSAGES } from '@atrium/contract';

// Helpers shared by virtual numbers and forward rule groups: lists of numbers typed as one text,
// and a number's (or group's) own forward rules as the form edits them.

/** A react-admin validation failure: a translation key with its placeholders. */
export type Failure = string | { message: string; args: Record<string, string | number> };

export const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
export const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
export const int = (v: unknown, fallback: number): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isInteger(n) ? n : fallback;
};
/** An id picked in a form (a number, its text, or a record), or null when none. */
export const idOrNull = (v: unknown): number | null => {
  if (blank(v)) return null;
  const n = Number(v && typeof v === 'object' ? (v as { id: unknown }).id : v);
  return Number.isInteger(n) && n > 0 ? n : null;
};

/**
 * Numbers as people type them ("101, 102; 103" or one per line) or as the API lists them → the
 * API's list: trimmed, no blanks, each once, in the order typed. Spaces inside a number are kept
 * (only commas, semicolons and line breaks separate), so "+7 912…" is refused rather than split.
 */
export const numbersOf = (v: unknown): string[] => {
  const parts = Array.isArray(v) ? v.map((x) => String(x ?? '')) : typeof v === 'string' ? v.split(/[,;\n]+/) : [];
  return [...new Set(parts.map((p) => p.trim()).filter(Boolean))];
};

/** A list of numbers as the form edits it: one text, comma separated. */
export const numbersText = (v: unknown): string => numbersOf(v).join(', ');

/** An Atrium virtual number: 2 to 16 digits (the contract's SipNumberValueSchema). */
export const SIP_NUMBER = /^[0-9]{2,16}$/;
/** A forward target: an Atrium number or an outside one, digits with an optional leading '+' (ForwardTargetSchema). */
export const FORWARD_TARGET = /^\+?[0-9]{2,20}$/;

/** A validator of a numbers text: each number must match `pattern`; `required` asks for at least one. */
export const validateNumbers =
  (pattern: RegExp, { required = false } = {}) =>
  (value: unknown): Failure | undefined => {
    const list = numbersOf(value);
    if (list.length === 0) return required ? TELEPHONY_VALIDATION_MESSAGES.forward_needs_number : undefined;
    const bad = list.find((n) => !pattern.test(n));
    return bad === undefined ? undefined : { message: 'telephony.errors.bad_number', args: { number: bad } };
  };

/** A forward rule as the form edits it: switched on or off, its numbers as one text. */
interface RuleForm {
  enabled: boolean;
  timeout?: number;
  numbers: string;
}

/** A rule is on when the API has it (not null), unless the form switched it off. */
const ruleOn = (v: unknown): boolean => !!v && typeof v === 'object' && (v as { enabled?: unknown }).enabled !== false;

/** The forward rules (form values or as read) → the API's: a rule switched off is null. */
export function forwardRulesBody(v: unknown): ForwardRules {
  const rules = obj(v);
  const noAnswer = rules.redirect_if_no_answer;
  const onError = rules.redirect_if_error;
  return {
    redirect_if_no_answer: ruleOn(noAnswer)
      ? { timeout: int(obj(noAnswer).timeout, TELEPHONY_DEFAULTS.no_answer_timeout), numbers: numbersOf(obj(noAnswer).numbers) }
      : null,
    redirect_if_error: ruleOn(onError) ? { numbers: numbersOf(obj(onError).numbers) } : null,
  };
}

/** The forward rules as the form edits them; a rule the API does not have starts off, with its default timeout. */
export function forwardRulesForm(v: unknown): { redirect_if_no_answer: RuleForm; redirect_if_error: RuleForm } {
  const rules = obj(v);
  const noAnswer = rules.redirect_if_no_answer;
  const onError = rules.redirect_if_error;
  return {
    redirect_if_no_answer: {
      enabled: ruleOn(noAnswer),
      timeout: int(obj(noAnswer).timeout, TELEPHONY_DEFAULTS.no_answer_timeout),
      numbers: numbersText(obj(noAnswer).numbers),
    },
    redirect_if_error: { enabled: ruleOn(onError), numbers: numbersText(obj(onError).numbers) },
  };
}

/** True when a switched-on rule has a number ("at least one queue with one number", spec comms §5). */
export const rulesHaveNumber = (rules: ForwardRules): boolean =>
  (rules.redirect_if_no_answer?.numbers.length ?? 0) > 0 || (rules.redirect_if_error?.numbers.length ?? 0) > 0;
