import {
  BASIC_LICENSE_MAX_QTY,
  type GeneralSettings,
  NEW_USER_LICENSE_MAX_DAYS,
  type PushSettings,
  type SipSettings,
  type UpdateGeneralSettingsBody,
  type UpdatePushSettingsBody,
  type UpdateSipSettingsBody,
  type UpdateWhiteLabelBody,
  type WhiteLabelSettings,
} from '@atrium/contract';

// The project settings tabs' forms (spec comms §5): numbers go out as numbers, empty limits and
// counts as null, and a masked secret's input starts empty and goes out as null (the server keeps
// what it holds) unless something new was typed.

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const orNull = (v: unknown) => text(v) || null;
/** A number input's value as a number, or null when empty (spec: empty limits and counts are sent as null). */
export function numberOrNull(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = typeof v === 'number' ? v : Number(String(v).trim().replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}
// ---- licences of new users (issue 14): the same bounds and pairings as UpdateGeneralSettingsBodySchema ----

type Values = Record<string, unknown>;
const valueAt = (values: Values, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Values)[k] : undefined), values);
const isBlank = (v: unknown) => v === null || v === undefined || String(v).trim() === '';
const REQUIRED = { message: 'validation.required', args: {} };
/** A whole number from `min` to `max`, or empty. */
const wholeInRange = (min: number, max: number) => (v: unknown) => {
  if (isBlank(v)) return undefined;
  const n = numberOrNull(v);
  return n === null || !Number.isInteger(n) || n < min || n > max ? { message: 'validation.range', args: { min, max } } : undefined;
};

/** A new user's licence period: whole days, 1 to NEW_USER_LICENSE_MAX_DAYS; empty is unlimited. */
export const validateLicensePeriod = wholeInRange(1, NEW_USER_LICENSE_MAX_DAYS);

/** The basic licence's mobile apps: 1 to BASIC_LICENSE_MAX_QTY; needed once a period is set. */
export function validateBasicQty(v: unknown, values: Values) {
  const bad = wholeInRange(1, BASIC_LICENSE_MAX_QTY)(v);
  if (bad) return bad;
  return isBlank(v) && !isBlank(valueAt(values, 'license_settings.basic_license.period')) ? REQUIRED : undefined;
}

/** A client type's licence features: needed once its period is set. */
export function validateClientFeatures(v: unknown, values: Values, props?: { finalSource?: string }) {
  const period = props?.finalSource ? valueAt(values, props.finalSource.replace(/features$/, 'period')) : undefined;
  return !isBlank(period) && !(Array.isArray(v) && v.length) ? REQUIRED : undefined;
}

/** Each client type once. */
export function validateClientType(v: unknown, values: Values) {
  const clients = (valueAt(values, 'user_self_register_settings.clients') ?? []) as { type?: unknown }[];
  return !isBlank(v) && clients.filter((c) => c?.type === v).length > 1 ? { message: 'validation.unique', args: {} } : undefined;
}

/** A typed secret, or null: the masked placeholder, meaning unchanged. */
const secret = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

export type GeneralFormValues = Omit<GeneralSettings, 'mail_settings' | 'mobile_sdk_settings'> & {
  mail_settings: {
    type: 'none' | 'smtp';
    settings: {
      host: string;
      port: number | string | null;
      username: string;
      password: string;
      from_address: string;
      from_name: string;
      encryption: 'none' | 'ssl' | 'tls';
    };
  };
  mobile_sdk_settings: { is_enabled: boolean; api_key: string };
};

export function generalFormValues(s: GeneralSettings): GeneralFormValues {
  const smtp = s.mail_settings.settings;
  return {
    ...s,
    mail_settings: {
      type: s.mail_settings.type,
      settings: {
        host: smtp?.host ?? '',
        port: smtp?.port ?? 587,
        username: smtp?.username ?? '',
        password: '',
        from_address: smtp?.from_address ?? '',
        from_name: smtp?.from_name ?? '',
        encryption: smtp?.encryption ?? 'tls',
      },
    },
    mobile_sdk_settings: { is_enabled: s.mobile_sdk_settings.is_enabled, api_key: '' },
  };
}

/** The SMTP part of a body (test mail or save). */
export function smtpBody(v: GeneralFormValues['mail_settings']['settings']) {
  return {
    host: text(v.host),
    port: numberOrNull(v.port) ?? 0,
    username: orNull(v.username),
    password: secret(v.password),
    from_address: text(v.from_address),
    from_name: orNull(v.from_name),
    encryption: v.encryption,
  };
}

export function generalBody(v: GeneralFormValues): UpdateGeneralSettingsBody {
  return {
    name: text(v.name),
    description: orNull(v.description),
    can_user_register_by_token: Boolean(v.can_user_register_by_token),
    can_user_recovery_password: Boolean(v.can_user_recovery_password),
    can_user_register_by_self: Boolean(v.can_user_register_by_self),
    server_url: orNull(v.server_url),
    time_zone: v.time_zone || 'UTC',
    mail_settings: v.mail_settings.type === 'smtp' ? { type: 'smtp', settings: smtpBody(v.mail_settings.settings) } : { type: 'none' },
    logs_life: numberOrNull(v.logs_life) ?? 0,
    admin_email: orNull(v.admin_email),
    notify_about_offline_device: Boolean(v.notify_about_offline_device),
    notify_about_device_task_failed: Boolean(v.notify_about_device_task_failed),
    locale: v.locale,
    guest_identifier_limits: {
      max_passes_count: numberOrNull(v.guest_identifier_limits?.max_passes_count),
      max_period_days: numberOrNull(v.guest_identifier_limits?.max_period_days),
    },
    mobile_sdk_settings: { is_enabled: Boolean(v.mobile_sdk_settings.is_enabled), api_key: secret(v.mobile_sdk_settings.api_key) },
    user_self_register_settings: {
      clients: (v.user_self_register_settings?.clients ?? [])
        .filter((c) => c?.type)
        .map((c) => ({
          type: c.type,
          role_id: numberOrNull(c.role_id),
          license_settings: { period: numberOrNull(c.license_settings?.period), features: c.license_settings?.features ?? [] },
        })),
    },
    license_settings: {
      basic_license: {
        period: numberOrNull(v.license_settings?.basic_license?.period),
        qty: numberOrNull(v.license_settings?.basic_license?.qty),
      },
    },
  };
}

/** The SIP body: ports and counts as numbers, empty addresses as null, the networks trimmed. */
export function sipBody(v: SipSettings): UpdateSipSettingsBody {
  return {
    port: numberOrNull(v.port) ?? 0,
    ws_port: numberOrNull(v.ws_port) ?? 0,
    server: { internal_ip: orNull(v.server?.internal_ip), external_ip: orNull(v.server?.external_ip) },
    rtp: { min: numberOrNull(v.rtp?.min) ?? 0, max: numberOrNull(v.rtp?.max) ?? 0 },
    is_early_media_enabled: Boolean(v.is_early_media_enabled),
    local_networks: (v.local_networks ?? []).map(text).filter(Boolean),
    codecs: v.codecs,
    auto_forward_rules: v.auto_forward_rules,
    resident_phonebook_settings: v.resident_phonebook_settings,
  };
}

export type PushFormValues = Omit<PushSettings, 'token'> & { token: string };
export const pushFormValues = (s: PushSettings): PushFormValues => ({ ...s, token: '' });
export const pushBody = (v: PushFormValues): UpdatePushSettingsBody => ({
  is_enabled: Boolean(v.is_enabled),
  url: orNull(v.url),
  token: secret(v.token),
});

export const whiteLabelBody = (v: WhiteLabelSettings): UpdateWhiteLabelBody => ({
  name: orNull(v.name),
  address: orNull(v.address),
  email: orNull(v.email),
  phone: orNull(v.phone),
  app_store_url: orNull(v.app_store_url),
  google_play_url: orNull(v.google_play_url),
});

/** The broker upload (POST /settings/broker, multipart): the switch, and the pair only when both files are picked. */
export function brokerForm(useUserCerts: boolean, certfile: File | null, keyfile: File | null): FormData {
  const form = new FormData();
  form.append('use_user_certs', String(useUserCerts));
  if (certfile && keyfile) {
    form.append('certfile', certfile, certfile.name);
    form.append('keyfile', keyfile, keyfile.name);
  }
  return form;
}
