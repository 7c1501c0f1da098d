import {
  type CreateSipTrunkBody,
  DUMMY_PASSWORD,
  normalizePhone,
  SipUriSchema,
  TELEPHONY_VALIDATION_MESSAGES,
  type UpdateSipTrunkBody,
  VALIDATION_MESSAGES,
} from '@atrium/contract';
import { blank, type Failure, idOrNull } from '../virtual-numbers/forwarding';

const ids = (v: unknown): number[] =>
  Array.isArray(v) ? [...new Set(v.map(idOrNull).filter((n): n is number => n !== null))].sort((a, b) => a - b) : [];

/**
 * The form's values (or the record as read) → the body the API takes. The password goes only when
 * typed: the placeholder the API answers with (or an empty field) is never sent back. Applied to
 * the values and the record on edit, so `patchTransform` sends only what changed.
 */
export function sipTrunkBody(values: Record<string, unknown>): CreateSipTrunkBody | UpdateSipTrunkBody {
  const out: Record<string, unknown> = {
    name: String(values.name ?? '').trim(),
    outgoing_number: String(values.outgoing_number ?? '').trim(),
    termination_uri: String(values.termination_uri ?? '').trim(),
    login: blank(values.login) ? null : String(values.login).trim(),
    domains: ids(values.domains),
  };
  if (!blank(values.password) && values.password !== DUMMY_PASSWORD) out.password = String(values.password);
  return out as CreateSipTrunkBody | UpdateSipTrunkBody;
}

/** A new trunk: nothing filled in. */
export const newSipTrunkRecord = () => ({ name: '', outgoing_number: '', termination_uri: '', login: '', password: '', domains: [] });

// --- checks of spec comms §5 said next to the field ----------------------------------------------

/** The outgoing number: no spaces, international. */
export function validateOutgoingNumber(value: unknown): Failure | undefined {
  if (blank(value)) return undefined;
  const v = String(value).trim();
  if (/\s/.test(v)) return TELEPHONY_VALIDATION_MESSAGES.no_spaces;
  return normalizePhone(v) === null ? VALIDATION_MESSAGES.phone_international : undefined;
}

/** The termination URI: sip:host[:port][;params] or sips:…. */
export const validateSipUri = (value: unknown): Failure | undefined =>
  blank(value) || SipUriSchema.safeParse(value).success ? undefined : TELEPHONY_VALIDATION_MESSAGES.sip_uri;
