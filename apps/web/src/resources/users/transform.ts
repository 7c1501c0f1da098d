import { emptyToNull, IDENTIFIER_FORMATS, TIME_FORMATS } from '@atrium/contract';
import { patchTransform } from '../../app/kit/patch';

const PROFILE_TEXT = ['address', 'phone', 'country_code', 'time_zone'] as const;

const text = (v: unknown): string | null => {
  const t = typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v);
  return emptyToNull(t);
};

const ids = (v: unknown): number[] =>
  Array.isArray(v)
    ? v.map((x) => (x && typeof x === 'object' ? Number((x as { id: unknown }).id) : Number(x))).filter((n) => Number.isInteger(n) && n > 0)
    : [];

/** The profile block as the API takes it: blank texts become null, the formats stay within their lists. */
export function profileBody(profile: unknown): Record<string, unknown> {
  const p = (profile && typeof profile === 'object' ? profile : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of PROFILE_TEXT) if (key in p) out[key] = text(p[key]);
  if ('use_phone_in_forward' in p) out.use_phone_in_forward = !!p.use_phone_in_forward;
  if ('sip_number_id' in p) out.sip_number_id = p.sip_number_id === null || p.sip_number_id === '' ? null : Number(p.sip_number_id);
  if ((IDENTIFIER_FORMATS as readonly unknown[]).includes(p.identifier_format)) out.identifier_format = p.identifier_format;
  if ('time_format' in p) out.time_format = (TIME_FORMATS as readonly unknown[]).includes(p.time_format) ? p.time_format : null;
  return out;
}

/**
 * A user form's values as the API takes them. Read-only parts of the record (activation, avatar,
 * mobile clients, embedded relations) are never sent; blank texts become null; `role` and
 * `domains` are ids.
 */
export function userBody(values: Record<string, unknown>, mode: 'create' | 'edit'): Record<string, unknown> {
  const body: Record<string, unknown> = {
    login: String(values.login ?? '').trim(),
    name: String(values.name ?? '').trim() || String(values.login ?? '').trim(),
    description: text(values.description),
    email: text(values.email),
    role: values.role === '' || values.role === null || values.role === undefined ? null : Number(values.role),
    domains: ids(values.domains),
    is_group_admin: !!values.is_group_admin,
    elevator_access_disabled: !!values.elevator_access_disabled,
  };
  if (values.profile !== undefined) body.profile = profileBody(values.profile);
  if (mode === 'create') {
    body.send_registration_link = values.send_registration_link !== false;
    const password = text(values.password);
    if (password) body.password = password;
  }
  return body;
}

/**
 * True when `email` (a form value) differs from the e-mail of `record` and `record` is the signed-in
 * user's own: the server then wants their current password (recovery mails go to that address).
 * Blank and absent compare alike, as the server compares them.
 */
export function changesOwnEmail(email: unknown, record: { id?: unknown; email?: unknown } | undefined, selfId: number): boolean {
  return !!record && Number(record.id) === selfId && text(email) !== text(record.email);
}

const editPatch = patchTransform((values) => userBody(values, 'edit'));

/**
 * The PATCH of the edit form over `previous` (the loaded record): only what changed, and the current
 * password as typed only when the signed-in user changes their own e-mail; never otherwise.
 */
export function userPatch(
  values: Record<string, unknown>,
  previous: Record<string, unknown> | undefined,
  selfId: number,
): Record<string, unknown> {
  const body = editPatch(values, { previousData: previous });
  const password = typeof values.password === 'string' ? values.password : '';
  if (password && changesOwnEmail(values.email, previous, selfId)) body.password = password;
  return body;
}
