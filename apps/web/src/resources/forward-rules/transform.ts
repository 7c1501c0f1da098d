import {
  type CreateForwardGroupBody,
  DAY_SECONDS,
  normalizePhone,
  TELEPHONY_DEFAULTS,
  TELEPHONY_VALIDATION_MESSAGES,
  type UpdateForwardGroupBody,
  VALIDATION_MESSAGES,
  WEEK_DAYS,
} from '@atrium/contract';
import { hhmm, secondsOf } from '../time-rules/schedule';
import {
  blank,
  type Failure,
  forwardRulesBody,
  forwardRulesForm,
  idOrNull,
  int,
  numbersOf,
  numbersText,
  obj,
  SIP_NUMBER,
  validateNumbers,
} from '../virtual-numbers/forwarding';

const daysOf = (v: unknown) => WEEK_DAYS.filter((d) => Array.isArray(v) && v.includes(d));

/** The group's params (form values or as read) → the API's: numbers as lists, the period in seconds of the day. */
export function paramsBody(v: unknown) {
  const p = obj(v);
  const period = obj(p.period);
  return {
    numbers: numbersOf(p.numbers),
    timeout: int(p.timeout, TELEPHONY_DEFAULTS.group_forward_timeout),
    days: daysOf(p.days),
    period: { from: secondsOf(period.from) ?? 0, to: secondsOf(period.to) ?? DAY_SECONDS },
    trunk_numbers: numbersOf(p.trunk_numbers),
    // Outside numbers go through a trunk; without them the trunk means nothing.
    trunk_id: numbersOf(p.trunk_numbers).length > 0 ? idOrNull(p.trunk_id) : null,
  };
}

/**
 * The form's values (or the record as read) → the body the API takes. Applied to the values and
 * the record on edit, so `patchTransform` sends only what changed.
 */
export function forwardGroupBody(values: Record<string, unknown>): CreateForwardGroupBody | UpdateForwardGroupBody {
  return {
    name: String(values.name ?? '').trim(),
    domain_id: idOrNull(values.domain_id),
    params: paramsBody(values.params),
    forward_rules: forwardRulesBody(values.forward_rules),
  } as CreateForwardGroupBody | UpdateForwardGroupBody;
}

/** The record as the form edits it: numbers as comma-separated text, the period as HH:MM, the rules switched on or off. */
export const toFormValues = <T extends Record<string, unknown>>(record: T) => {
  const p = obj(record.params);
  const period = obj(p.period);
  return {
    ...record,
    params: {
      ...p,
      numbers: numbersText(p.numbers),
      trunk_numbers: numbersText(p.trunk_numbers),
      // Seconds as read, or HH:MM already (a new record's values).
      period: { from: hhmm(secondsOf(period.from) ?? 0), to: hhmm(secondsOf(period.to) ?? DAY_SECONDS) },
    },
    forward_rules: forwardRulesForm(record.forward_rules),
  };
};

/** A new group: every day, all day, rung for 60 s (spec comms §9). */
export const newForwardGroupRecord = () => ({
  name: '',
  domain_id: null,
  params: {
    numbers: '',
    timeout: TELEPHONY_DEFAULTS.group_forward_timeout,
    days: [...WEEK_DAYS],
    period: { from: hhmm(0), to: hhmm(DAY_SECONDS) },
    trunk_numbers: '',
    trunk_id: null,
  },
  forward_rules: forwardRulesForm(null),
});

// --- checks of spec comms §5 said next to the field ----------------------------------------------

/** The group's own numbers: at least one, each an Atrium number. */
export const validateGroupNumbers = validateNumbers(SIP_NUMBER, { required: true });

/** Outside numbers: no spaces, international. */
export function validateTrunkNumbers(value: unknown): Failure | undefined {
  for (const n of numbersOf(value)) {
    if (/\s/.test(n)) return TELEPHONY_VALIDATION_MESSAGES.no_spaces;
    if (normalizePhone(n) === null) return VALIDATION_MESSAGES.phone_international;
  }
  return undefined;
}

/** Outside numbers need the trunk they are rung through. */
export const validateTrunk = (value: unknown, values: Record<string, unknown> = {}): Failure | undefined =>
  numbersOf(obj(values.params).trunk_numbers).length > 0 && idOrNull(value) === null ? VALIDATION_MESSAGES.required : undefined;

/** The period's end comes after its start. */
export function validatePeriodTo(value: unknown, values: Record<string, unknown> = {}): Failure | undefined {
  const from = secondsOf(obj(obj(values.params).period).from);
  const to = secondsOf(value);
  return from !== null && to !== null && !blank(value) && to <= from ? 'forward_rules.errors.period_order' : undefined;
}
