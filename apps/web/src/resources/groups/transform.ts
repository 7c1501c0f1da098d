import { emptyToNull, NO_LOGIC_ADDRESS_TYPES, toNumber, UNLIMITED_PERIOD } from '@atrium/contract';

const DAY = 86_400;

/** Epoch seconds → `YYYY-MM-DD` (UTC) for a date input; the unlimited bounds show as empty. */
export function secondsToDate(value: unknown): string {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n <= UNLIMITED_PERIOD.from || n >= UNLIMITED_PERIOD.to) return '';
  return new Date(n * 1000).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` → epoch seconds of that day's start (`from`) or end (`to`); empty is unlimited. */
export function dateToSeconds(value: unknown, bound: 'from' | 'to'): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return UNLIMITED_PERIOD[bound];
  const start = Date.parse(`${value}T00:00:00Z`) / 1000;
  return bound === 'from' ? start : start + DAY - 1;
}

const num = (v: unknown): number | null => {
  const n = toNumber(v);
  return n === null || Number.isNaN(n) ? null : n;
};
const text = (v: unknown): string | null => emptyToNull(typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v));
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

/** A group's licences as the form edits them → as the API takes them (spec core §5: empty counts are null). */
export function licenseInfoBody(value: unknown) {
  const info = obj(value);
  const notifications = obj(info.notifications);
  const licenses = Array.isArray(info.licenses) ? info.licenses.map(obj) : [];
  return {
    is_enabled: !!info.is_enabled,
    notifications: {
      is_active: notifications.is_active !== false,
      period: typeof notifications.period === 'string' ? notifications.period : 'everyday',
      notify_before: num(notifications.notify_before) ?? 14,
    },
    licenses: licenses
      .filter((l) => text(l.type))
      .map((l) => {
        const period = obj(l.period);
        const restrict = obj(l.restrict_period);
        return {
          type: String(text(l.type)),
          is_active: l.is_active !== false,
          is_device_license: !!l.is_device_license,
          device: num(l.device),
          quantity: num(l.quantity),
          period: { from: dateToSeconds(period.from, 'from'), to: dateToSeconds(period.to, 'to') },
          restrict_period: {
            is_active: !!restrict.is_active,
            from: dateToSeconds(restrict.from, 'from'),
            to: dateToSeconds(restrict.to, 'to'),
          },
        };
      }),
  };
}

/**
 * A group form's values as the API takes them. Read-only parts (path, children, type details,
 * timestamps, the logo which has its own call) are not sent; blanks become null; a type without a
 * logical address (domain type 5) sends null; a licence block the user may not see (null) stays out.
 */
export function groupBody(values: Record<string, unknown>, typeCode?: number | null): Record<string, unknown> {
  const wl = obj(values.whitelabel_settings);
  const limits = obj(values.guest_identifier_limits);
  const body: Record<string, unknown> = {
    name: String(values.name ?? '').trim(),
    description: text(values.description),
    parent_id: num(values.parent_id),
    domain_type_id: num(values.domain_type_id),
    logic_address:
      typeCode !== undefined && typeCode !== null && NO_LOGIC_ADDRESS_TYPES.includes(typeCode) ? null : num(values.logic_address),
    whitelabel_settings: {
      is_enabled: !!wl.is_enabled,
      name: text(wl.name),
      address: text(wl.address),
      email: text(wl.email),
      phone: text(wl.phone),
    },
    guest_identifier_limits: { max_passes_count: num(limits.max_passes_count), max_period_days: num(limits.max_period_days) },
    device_status_notify: (Array.isArray(values.device_status_notify) ? values.device_status_notify.map(obj) : [])
      .filter((n) => num(n.user_id) !== null)
      .map((n) => ({
        user_id: num(n.user_id) as number,
        notify_about_offline_device: !!n.notify_about_offline_device,
        notify_about_device_task_failed: !!n.notify_about_device_task_failed,
      })),
    is_resident_phonebook_enabled: !!values.is_resident_phonebook_enabled,
    internal_subnetworks: (Array.isArray(values.internal_subnetworks) ? values.internal_subnetworks : [])
      .map((s) => (typeof s === 'string' ? s : String(obj(s).address ?? '')).trim())
      .filter((s) => s !== ''),
  };
  if (values.license_info !== null && values.license_info !== undefined) body.license_info = licenseInfoBody(values.license_info);
  return body;
}

/** The licence consistency problems of a failed save (each shown on its own for 30 s). */
export function licenseIssues(error: unknown): { message: string; type?: string }[] {
  const body = (error as { body?: { code?: unknown; details?: unknown } } | null)?.body;
  if (body?.code !== 'license_consistency' || !Array.isArray(body.details)) return [];
  return body.details
    .map(obj)
    .filter((d) => typeof d.message === 'string')
    .map((d) => ({ message: d.message as string, type: typeof d.type === 'string' ? d.type : undefined }));
}

/** "13, 14 15" → [13, 14, 15]: the numbers a generated level skips. */
export function parseExcept(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number).filter((n) => Number.isInteger(n) && n >= 0);
  if (typeof value !== 'string') return [];
  return [
    ...new Set(
      value
        .split(/[\s,;]+/)
        .filter(Boolean)
        .map(Number)
        .filter((n) => Number.isInteger(n) && n >= 0),
    ),
  ];
}

/** The generate dialog's values → `POST /domains/generate`. Root level only means no parent. */
export function generateBody(values: Record<string, unknown>) {
  const rootOnly = !!values.root_level_only;
  const levels = Array.isArray(values.levels) ? values.levels.map(obj) : [];
  return {
    parent_id: rootOnly ? null : num(values.parent_id),
    root_level_only: rootOnly,
    domains: levels.map((l) => ({
      id: num(l.domain_type_id) as number,
      count: num(l.count) ?? 1,
      prefix: typeof l.prefix === 'string' ? l.prefix : '',
      logic_number: l.logic_number !== false,
      numeration: {
        from: num(l.from) ?? 1,
        except: parseExcept(l.except),
        is_in_youngest_num: !!l.is_in_youngest_num,
        is_start_youngest_num: !!l.is_start_youngest_num,
      },
    })),
  };
}
