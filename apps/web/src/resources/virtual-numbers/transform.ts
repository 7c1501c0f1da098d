import {
  type CreateSipNumberBody,
  DUMMY_PASSWORD,
  FORWARD_MODES,
  type ForwardMode,
  isSipPassword,
  type SipNumberPurpose,
  TELEPHONY_VALIDATION_MESSAGES,
  type UpdateSipNumberBody,
} from '@atrium/contract';
import { blank, type Failure, forwardRulesBody, forwardRulesForm, idOrNull, rulesHaveNumber, SIP_NUMBER } from './forwarding';

/** Who a virtual number belongs to, as the form picks it: a user, a device, its group, or nobody (a spare). */
export const OWNER_TYPES = ['user', 'device', 'group', 'none'] as const;
export type OwnerType = (typeof OWNER_TYPES)[number];

/** The owner type of a number as read: from its user, device or purpose. */
export function ownerTypeOf(r: { user_id?: unknown; device_id?: unknown; purpose?: unknown }): OwnerType {
  if (idOrNull(r.user_id) !== null) return 'user';
  if (idOrNull(r.device_id) !== null) return 'device';
  return r.purpose === 'group_sip_number' ? 'group' : 'none';
}

const modeOf = (v: unknown): ForwardMode => ((FORWARD_MODES as readonly unknown[]).includes(v) ? (v as ForwardMode) : 'disabled');

/** The owner fields the API takes for an owner type: only the picked owner is kept. */
function ownerBody(values: Record<string, unknown>) {
  const type = (OWNER_TYPES as readonly unknown[]).includes(values.owner_type) ? (values.owner_type as OwnerType) : ownerTypeOf(values);
  const user_id = type === 'user' ? idOrNull(values.user_id) : null;
  const device_id = type === 'device' ? idOrNull(values.device_id) : null;
  const master = values.is_master === undefined ? values.purpose === 'master_sip_number' : values.is_master === true;
  const purpose: SipNumberPurpose | null =
    type === 'group'
      ? 'group_sip_number'
      : type === 'device'
        ? 'device_sip_number'
        : type === 'user' && master
          ? 'master_sip_number'
          : null;
  return { user_id, device_id, purpose };
}

/**
 * The form's values (or the record as read) → the API's body: only its fields, the owner the form
 * picked, forward rules and group as the mode needs them. The password goes only when typed: the
 * placeholder (or nothing) is omitted, so an edit that does not touch it leaves it as it is.
 * Applied to the values and the record on edit, so `patchTransform` sends only what changed.
 */
export function sipNumberBody(values: Record<string, unknown>, mode: 'create' | 'edit'): CreateSipNumberBody | UpdateSipNumberBody {
  const forward_mode = modeOf(values.forward_mode);
  const out: Record<string, unknown> = {
    number: String(values.number ?? '').trim(),
    name: blank(values.name) ? null : String(values.name).trim(),
    is_active: values.is_active !== false,
    is_reserved: values.is_reserved === true,
    domain_id: idOrNull(values.domain_id),
    ...ownerBody(values),
    forward_mode,
    forward_rules: forwardRulesBody(values.forward_rules),
    forward_group_id: forward_mode === 'picked' ? idOrNull(values.forward_group_id) : null,
  };
  const password = values.password;
  if (!blank(password) && password !== DUMMY_PASSWORD) out.password = String(password);
  else if (mode === 'create') out.password = '';
  return out as CreateSipNumberBody | UpdateSipNumberBody;
}

/** The record as the form edits it: the owner type, the master switch, the forward rules with their numbers as text. */
export const toFormValues = <T extends Record<string, unknown>>(record: T) => ({
  ...record,
  // A new record's form values already carry them.
  owner_type: (OWNER_TYPES as readonly unknown[]).includes(record.owner_type) ? (record.owner_type as OwnerType) : ownerTypeOf(record),
  is_master: record.is_master === true || record.purpose === 'master_sip_number',
  forward_rules: forwardRulesForm(record.forward_rules),
});

/** A new virtual number: active, not forwarded, its owner a user to pick. */
export const newSipNumberRecord = () => ({
  number: '',
  name: '',
  password: '',
  is_active: true,
  is_reserved: false,
  domain_id: null,
  owner_type: 'user' as OwnerType,
  user_id: null,
  device_id: null,
  is_master: false,
  forward_mode: 'disabled' as ForwardMode,
  forward_rules: forwardRulesForm(null),
  forward_group_id: null,
});

// --- checks of spec comms §5 said next to the field, before the server refuses them ------------

/** A virtual number: 2 to 16 digits. */
export const validateSipNumber = (value: unknown): Failure | undefined =>
  blank(value) || SIP_NUMBER.test(String(value).trim()) ? undefined : 'telephony.errors.sip_number';

/**
 * The SIP password: digits, lowercase and uppercase Latin letters (8 to 64 printable characters).
 * On edit the placeholder stands for the password kept as it is.
 */
export const validateSipPassword = (value: unknown): Failure | undefined => {
  if (blank(value) || value === DUMMY_PASSWORD) return undefined;
  return isSipPassword(String(value)) ? undefined : TELEPHONY_VALIDATION_MESSAGES.sip_password;
};

/** Manual forwarding needs at least one number in a switched-on rule. */
export const validateForwardMode = (value: unknown, values: Record<string, unknown> = {}): Failure | undefined =>
  value === 'manual' && !rulesHaveNumber(forwardRulesBody(values.forward_rules))
    ? TELEPHONY_VALIDATION_MESSAGES.forward_needs_number
    : undefined;

/** The owner picker of the chosen type must be filled. */
export const validateOwner =
  (type: 'user' | 'device') =>
  (value: unknown, values: Record<string, unknown> = {}): Failure | undefined =>
    values.owner_type === type && idOrNull(value) === null ? 'validation.required' : undefined;
