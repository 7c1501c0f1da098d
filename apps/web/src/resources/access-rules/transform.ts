import { type CreateAccessRuleBody, deviceModel, type UpdateAccessRuleBody } from '@atrium/contract';

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const idOf = (v: unknown): number => Number(v && typeof v === 'object' ? (v as { id: unknown }).id : v);
const idsOf = (v: unknown): number[] => (Array.isArray(v) ? [...new Set(v.map(idOf).filter((n) => Number.isInteger(n) && n > 0))] : []);

const LINKS = ['identifiers', 'users', 'domains', 'time_rules'] as const;
const FLAGS = ['is_shareable', 'prohibition', 'available_for_guest'] as const;

/** The devices table's rows as the API takes them: picked rows only, lock 1 when none was chosen. */
export const devicesBody = (v: unknown) =>
  (Array.isArray(v) ? v : [])
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object' && !blank(d.id))
    .map((d) => ({ id: idOf(d.id), lock_number: Number(d.lock_number) || 1 }));

/**
 * The form's values (or the record as read) → the body the API takes: only its fields, '' → null,
 * links as ids. Applied to both the values and the record on edit, so `patchTransform` sends only what changed.
 */
export function accessRuleBody(values: Record<string, unknown>, mode: 'create' | 'edit'): CreateAccessRuleBody | UpdateAccessRuleBody {
  const out: Record<string, unknown> = {};
  if (values.name !== undefined) out.name = String(values.name ?? '').trim();
  if (values.description !== undefined) out.description = blank(values.description) ? null : String(values.description).trim();
  if (mode === 'create' && out.description === null) delete out.description;
  for (const f of FLAGS) if (values[f] !== undefined) out[f] = values[f] === true;
  if (values.devices !== undefined || mode === 'create') out.devices = devicesBody(values.devices);
  for (const f of LINKS) if (values[f] !== undefined) out[f] = idsOf(values[f]);
  return out as CreateAccessRuleBody | UpdateAccessRuleBody;
}

/** A new access rule: a plain grant (not a prohibition), one empty device row to fill in. */
export const newAccessRuleRecord = () => ({
  is_shareable: false,
  prohibition: false,
  available_for_guest: false,
  devices: [{ id: null, lock_number: 1 }],
  identifiers: [],
  users: [],
  domains: [],
  time_rules: [],
});

/** How many locks a device's model has; a device without locks still has one output (lock 1), as the server counts. */
export const locksOf = (device: { type?: string; model?: string } | undefined): number =>
  Math.max(1, (device?.type && device.model && deviceModel(device.type, device.model)?.capabilities.locks) || 1);

/** The lock number picker's choices for a device: 1…its locks. */
export const lockChoices = (locks: number) => Array.from({ length: Math.max(1, locks) }, (_, i) => ({ id: i + 1, name: String(i + 1) }));

/** "Access rule: must have a device" (spec entities §5), and no device lock listed twice. */
export function validateDevices(value: unknown): string | undefined {
  const rows = devicesBody(value);
  if (rows.length === 0) return 'access_rules.must_have_device';
  const keys = rows.map((d) => `${d.id}:${d.lock_number}`);
  return new Set(keys).size === keys.length ? undefined : 'access_rules.duplicate_lock';
}
