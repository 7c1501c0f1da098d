import { z } from 'zod';
import { LOCALES } from './constants.js';
import { LicenseInfoSchema, LicenseWarningsSchema } from './licenses.js';
import { TimeZoneSchema } from './time-zones.js';
import { ipWithPrefix, isIp, VALIDATION_MESSAGES } from './validators.js';

/** Server settings of spec core §3 as the console reads them from GET /frontend/server/settings. */
/** The store pages of the project's mobile app, or null where it has none. */
export const MobileAppLinksSchema = z.object({ app_store_url: z.string().nullable(), google_play_url: z.string().nullable() });
export type MobileAppLinks = z.infer<typeof MobileAppLinksSchema>;

export const ServerSettingsSchema = z.object({
  can_user_recovery_password: z.boolean(),
  can_user_register_by_token: z.boolean(),
  can_user_register_himself: z.boolean(),
  is_standalone_mode: z.boolean(),
  auto_forward_rules: z.object({
    is_enabled: z.boolean(),
    device_protocol: z.enum(['UDP', 'TCP', 'TLS']),
    use_address: z.string(),
  }),
  license: z.object({
    features: LicenseInfoSchema,
    counts: z.record(z.string(), z.object({ per_account: z.number().nullable(), total: z.number().nullable() })),
  }),
  warnings: LicenseWarningsSchema,
  locale: z.enum(LOCALES),
  /** The project's time zone (IANA). */
  time_zone: z.string(),
  domain: z.string(),
  push_server: z.string().nullable(),
  server_ip: z.string().nullable(),
  internal_server_ip: z.string().nullable(),
  version: z.string(),
  device_broker_host: z.string(),
  sip_proxy_host: z.string(),
  /** The management company's name and logo (white-label tab), shown on the sign-in pages. */
  white_label: z.object({ name: z.string().nullable(), logo_url: z.string().nullable() }),
  /** Where residents download the mobile app (white-label tab): the profile's download dialog shows them as QR codes. */
  mobile_app: MobileAppLinksSchema,
});
export type ServerSettings = z.infer<typeof ServerSettingsSchema>;

export const InfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  api_version: z.string(),
  time: z.string(),
  /** Whether the database answered just now (within a second or two): `ok` or `unavailable`. */
  database: z.enum(['ok', 'unavailable']),
});
/** A country of GET /countries: its ISO 3166-1 alpha-2 code, English name, names by language, calling code ('' where none). */
export const CountrySchema = z.object({
  code: z.string(),
  name: z.string(),
  names: z.object({ en: z.string(), ru: z.string() }),
  phone_code: z.string(),
});
export type Country = z.infer<typeof CountrySchema>;

// ---- Project settings (spec comms §3 "Project settings", §5, §7): GET and PATCH /settings/general,
// /settings/sip, /settings/push, /settings/white-label; /settings/broker (multipart certificates);
// POST /settings/test-mail. A secret is never read back: it answers null with a `has_…` flag, and a
// null (the masked placeholder) or an absent field on save keeps it; '' clears it.

const Name = z.string().trim().min(1).max(255);
const Email = z.string().trim().toLowerCase().pipe(z.email(VALIDATION_MESSAGES.email).max(255));
const Port = z.number().int().min(1).max(65535);
const IpAddress = z
  .string()
  .trim()
  .max(64)
  .refine((v) => isIp(v), VALIDATION_MESSAGES.invalid_value);
const HttpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, VALIDATION_MESSAGES.url_or_ip);

export const SMTP_ENCRYPTIONS = ['none', 'ssl', 'tls'] as const;
export const MAIL_TYPES = ['none', 'smtp'] as const;

/** SMTP as the general tab shows it; `password` is null on read. */
export const SmtpFormSchema = z.object({
  host: z.string(),
  port: z.number(),
  username: z.string().nullable(),
  password: z.null(),
  has_password: z.boolean(),
  from_address: z.string(),
  from_name: z.string().nullable(),
  encryption: z.enum(SMTP_ENCRYPTIONS),
});
export const MailSettingsSchema = z.object({ type: z.enum(MAIL_TYPES), settings: SmtpFormSchema.nullable() });

export const SmtpFormBodySchema = z.strictObject({
  host: z.string().trim().min(1).max(255),
  port: Port,
  username: z.string().trim().max(255).nullable().optional(),
  /** null or absent: keep the stored password; '' clears it. */
  password: z.string().max(1024).nullable().optional(),
  from_address: Email,
  from_name: z.string().trim().max(255).nullable().optional(),
  encryption: z.enum(SMTP_ENCRYPTIONS).default('none'),
});
export type SmtpFormBody = z.infer<typeof SmtpFormBodySchema>;
export const MailSettingsBodySchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({ type: z.literal('smtp'), settings: SmtpFormBodySchema }),
]);

export const SELF_REGISTER_CLIENT_TYPES = ['private', 'company'] as const;
/** Licence features a self-registered client or the basic licence may be given. */
export const SELF_REGISTER_LICENSE_FEATURES = ['sip', 'mobile_app', 'ukey2'] as const;
/** The longest licence period in days a new user can be given (null: unlimited). */
export const NEW_USER_LICENSE_MAX_DAYS = 36_500;
/** The most mobile apps the basic licence gives each new user. */
export const BASIC_LICENSE_MAX_QTY = 1_000;
/**
 * A new user's licence period in days from the moment the account is made (docs/decisions.md,
 * "Licences of new users"); null: unlimited.
 */
const LicensePeriod = z.number().int().min(1).max(NEW_USER_LICENSE_MAX_DAYS);

export const SelfRegisterClientSchema = z.strictObject({
  type: z.enum(SELF_REGISTER_CLIENT_TYPES),
  role_id: z.number().int().positive().nullable(),
  license_settings: z.strictObject({
    period: LicensePeriod.nullable(),
    features: z.array(z.enum(SELF_REGISTER_LICENSE_FEATURES)).max(SELF_REGISTER_LICENSE_FEATURES.length),
  }),
});
export const GuestLimitsSchema = z.strictObject({
  max_passes_count: z.number().int().min(0).max(1_000_000).nullable(),
  max_period_days: z.number().int().min(0).max(36_500).nullable(),
});
/** The basic licence every new user gets: `qty` mobile apps for `period` days; a null `qty`: none. */
export const BasicLicenseSchema = z.strictObject({
  period: LicensePeriod.nullable(),
  qty: z.number().int().min(1).max(BASIC_LICENSE_MAX_QTY).nullable(),
});

export const GENERAL_SETTINGS_DEFAULTS = {
  can_user_register_by_token: true,
  can_user_recovery_password: true,
  can_user_register_by_self: false,
  time_zone: 'UTC',
  logs_life: 90,
  locale: 'en',
} as const;

export const GeneralSettingsSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  can_user_register_by_token: z.boolean(),
  can_user_recovery_password: z.boolean(),
  can_user_register_by_self: z.boolean(),
  server_url: z.string().nullable(),
  time_zone: z.string(),
  mail_settings: MailSettingsSchema,
  /** Days the audit and device logs are kept. */
  logs_life: z.number(),
  admin_email: z.string().nullable(),
  notify_about_offline_device: z.boolean(),
  notify_about_device_task_failed: z.boolean(),
  locale: z.enum(LOCALES),
  guest_identifier_limits: GuestLimitsSchema,
  mobile_sdk_settings: z.object({ is_enabled: z.boolean(), api_key: z.null(), has_api_key: z.boolean() }),
  user_self_register_settings: z.object({ clients: z.array(SelfRegisterClientSchema) }),
  license_settings: z.object({ basic_license: BasicLicenseSchema }),
});
export type GeneralSettings = z.infer<typeof GeneralSettingsSchema>;

export const UpdateGeneralSettingsBodySchema = z
  .strictObject({
    name: Name.optional(),
    description: z.string().trim().max(1000).nullable().optional(),
    can_user_register_by_token: z.boolean().optional(),
    can_user_recovery_password: z.boolean().optional(),
    can_user_register_by_self: z.boolean().optional(),
    server_url: HttpUrl.nullable().optional(),
    time_zone: TimeZoneSchema.optional(),
    mail_settings: MailSettingsBodySchema.optional(),
    logs_life: z.number().int().min(1).max(3650).optional(),
    admin_email: Email.nullable().optional(),
    notify_about_offline_device: z.boolean().optional(),
    notify_about_device_task_failed: z.boolean().optional(),
    locale: z.enum(LOCALES).optional(),
    guest_identifier_limits: GuestLimitsSchema.optional(),
    mobile_sdk_settings: z
      .strictObject({
        is_enabled: z.boolean(),
        /** null or absent: keep; '' clears. */
        api_key: z.string().trim().max(512).nullable().optional(),
      })
      .optional(),
    user_self_register_settings: z
      .strictObject({
        clients: z
          .array(SelfRegisterClientSchema)
          .max(SELF_REGISTER_CLIENT_TYPES.length)
          .refine((c) => new Set(c.map((x) => x.type)).size === c.length, VALIDATION_MESSAGES.unique),
      })
      .optional(),
    license_settings: z.strictObject({ basic_license: BasicLicenseSchema }).optional(),
  })
  .superRefine((b, ctx) => {
    // Notifications about devices are mailed to the administrator: they need an address.
    if ((b.notify_about_offline_device || b.notify_about_device_task_failed) && b.admin_email === null) {
      ctx.addIssue({ code: 'custom', path: ['admin_email'], message: VALIDATION_MESSAGES.required });
    }
    // A licence period says how long a licence lasts: without features or a quantity there is nothing to last.
    (b.user_self_register_settings?.clients ?? []).forEach((c, i) => {
      if (c.license_settings.period !== null && c.license_settings.features.length === 0) {
        const path = ['user_self_register_settings', 'clients', i, 'license_settings', 'features'];
        ctx.addIssue({ code: 'custom', path, message: VALIDATION_MESSAGES.required });
      }
    });
    const basic = b.license_settings?.basic_license;
    if (basic && basic.period !== null && basic.qty === null) {
      ctx.addIssue({ code: 'custom', path: ['license_settings', 'basic_license', 'qty'], message: VALIDATION_MESSAGES.required });
    }
  });
export type UpdateGeneralSettingsBody = z.infer<typeof UpdateGeneralSettingsBodySchema>;

/** POST /settings/test-mail: sends a test message with these SMTP settings (a null password: the stored one). */
export const TestMailBodySchema = z.strictObject({
  email: Email,
  mail_settings: z.strictObject({ type: z.literal('smtp'), settings: SmtpFormBodySchema }),
});
export type TestMailBody = z.infer<typeof TestMailBodySchema>;

export const SIP_DEVICE_PROTOCOLS = ['UDP', 'TCP', 'TLS'] as const;
export const SIP_USE_ADDRESSES = ['server_url', 'external_ip', 'internal_ip'] as const;
export const SIP_CODECS = ['PCMU', 'PCMA', 'G722', 'opus', 'H264', 'VP8'] as const;
export const SIP_SETTINGS_DEFAULTS = {
  port: 5060,
  ws_port: 8443,
  rtp: { min: 10000, max: 20000 },
} as const;

/** Transports the SIP server listens on. */
export const SIP_INTERFACE_TRANSPORTS = ['udp', 'tcp', 'tls', 'ws', 'wss'] as const;
/** One socket the running SIP server listens on (read-only: it follows `port`, `ws_port` and the server's TLS configuration). */
export const SipInterfaceSchema = z.object({
  transport: z.enum(SIP_INTERFACE_TRANSPORTS),
  /** The address the socket is bound to (0.0.0.0: every address of the host). */
  address: z.string(),
  port: z.number(),
});
export type SipInterface = z.infer<typeof SipInterfaceSchema>;
/** A running SIP server instance (read-only). `error`: its worker died and is being started again. */
export const SipNodeSchema = z.object({
  type: z.string(),
  address: z.string(),
  state: z.enum(['running', 'error']),
  started_at: z.string(),
});
export type SipNode = z.infer<typeof SipNodeSchema>;

export const SipSettingsSchema = z.object({
  port: z.number(),
  ws_port: z.number(),
  server: z.object({ internal_ip: z.string().nullable(), external_ip: z.string().nullable() }),
  rtp: z.object({ min: z.number(), max: z.number() }),
  is_early_media_enabled: z.boolean(),
  /** What the SIP server of this instance really listens on; empty when it runs none for this project. */
  interfaces: z.array(SipInterfaceSchema),
  local_networks: z.array(z.string()),
  /** The SIP server instances running for this project (this instance's); empty when none. */
  nodes: z.array(SipNodeSchema),
  codecs: z.array(z.enum(SIP_CODECS)),
  auto_forward_rules: z.object({
    is_enabled: z.boolean(),
    device_protocol: z.enum(SIP_DEVICE_PROTOCOLS),
    use_address: z.enum(SIP_USE_ADDRESSES),
  }),
  resident_phonebook_settings: z.object({ is_enabled: z.boolean(), show_all_groups: z.boolean() }),
});
export type SipSettings = z.infer<typeof SipSettingsSchema>;

/**
 * The domain forward rules settings (the SIP tab's `auto_forward_rules`): whether forward rules are
 * sent to the devices of each domain (group) automatically, over which SIP transport and to which
 * server address. Also read and changed on their own (GET and PATCH /settings/domain-forward-rules).
 */
export const DomainForwardRulesSettingsSchema = SipSettingsSchema.shape.auto_forward_rules;
export type DomainForwardRulesSettings = z.infer<typeof DomainForwardRulesSettingsSchema>;
export const UpdateDomainForwardRulesBodySchema = z.strictObject({
  is_enabled: z.boolean(),
  device_protocol: z.enum(SIP_DEVICE_PROTOCOLS).default('UDP'),
  use_address: z.enum(SIP_USE_ADDRESSES).default('server_url'),
});
export type UpdateDomainForwardRulesBody = z.infer<typeof UpdateDomainForwardRulesBodySchema>;

const RtpPort = z.number().int().min(1024).max(65535);
export const UpdateSipSettingsBodySchema = z
  .strictObject({
    port: Port.optional(),
    ws_port: Port.optional(),
    server: z.strictObject({ internal_ip: IpAddress.nullable(), external_ip: IpAddress.nullable() }).optional(),
    rtp: z
      .strictObject({ min: RtpPort, max: RtpPort })
      .refine((r) => r.min < r.max, { path: ['max'], message: VALIDATION_MESSAGES.greater_than })
      .optional(),
    is_early_media_enabled: z.boolean().optional(),
    local_networks: z
      .array(
        z
          .string()
          .trim()
          .refine((v) => !ipWithPrefix(v), VALIDATION_MESSAGES.ip_with_prefix),
      )
      .max(100)
      .superRefine((list, ctx) => {
        // An internal subnetwork is added once (spec comms §5).
        list.forEach((v, i) => {
          if (list.indexOf(v) !== i) ctx.addIssue({ code: 'custom', path: [i], message: VALIDATION_MESSAGES.unique });
        });
      })
      .optional(),
    codecs: z.array(z.enum(SIP_CODECS)).min(1).max(SIP_CODECS.length).optional(),
    auto_forward_rules: UpdateDomainForwardRulesBodySchema.optional(),
    resident_phonebook_settings: z.strictObject({ is_enabled: z.boolean(), show_all_groups: z.boolean() }).optional(),
  })
  .refine((b) => b.port === undefined || b.ws_port === undefined || b.port !== b.ws_port, {
    path: ['ws_port'],
    message: VALIDATION_MESSAGES.unique,
  });
export type UpdateSipSettingsBody = z.infer<typeof UpdateSipSettingsBodySchema>;

export const PUSH_SERVER_DEFAULTS = { server_port: 80 } as const;
export const PushSettingsSchema = z.object({
  is_enabled: z.boolean(),
  url: z.string().nullable(),
  token: z.null(),
  has_token: z.boolean(),
});
export type PushSettings = z.infer<typeof PushSettingsSchema>;
export const UpdatePushSettingsBodySchema = z
  .strictObject({
    is_enabled: z.boolean(),
    url: HttpUrl.nullable().optional(),
    token: z.string().trim().max(1024).nullable().optional(),
  })
  .refine((b) => !b.is_enabled || b.url !== null, { path: ['url'], message: VALIDATION_MESSAGES.required });
export type UpdatePushSettingsBody = z.infer<typeof UpdatePushSettingsBodySchema>;

export const WhiteLabelSettingsSchema = z.object({
  name: z.string().nullable(),
  address: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  logo_url: z.string().nullable(),
  /** The mobile app's page in Apple's App Store, and in Google Play. */
  app_store_url: z.string().nullable(),
  google_play_url: z.string().nullable(),
});
export type WhiteLabelSettings = z.infer<typeof WhiteLabelSettingsSchema>;
export const UpdateWhiteLabelBodySchema = z.strictObject({
  name: z.string().trim().max(255).nullable().optional(),
  address: z.string().trim().max(500).nullable().optional(),
  email: Email.nullable().optional(),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ()-]{3,32}$/, VALIDATION_MESSAGES.invalid_value)
    .nullable()
    .optional(),
  app_store_url: HttpUrl.or(z.literal('')).nullable().optional(),
  google_play_url: HttpUrl.or(z.literal('')).nullable().optional(),
});
export type UpdateWhiteLabelBody = z.infer<typeof UpdateWhiteLabelBodySchema>;
/** The largest logo accepted (bytes). */
export const WHITE_LABEL_LOGO_MAX_BYTES = 1024 * 1024;

export const BrokerSettingsSchema = z.object({
  use_user_certs: z.boolean(),
  /** The uploaded certificate (public); the key is never read back. */
  certificate: z
    .object({ subject: z.string(), issuer: z.string(), valid_from: z.string(), valid_to: z.string(), fingerprint: z.string() })
    .nullable(),
  has_key: z.boolean(),
});
export type BrokerSettings = z.infer<typeof BrokerSettingsSchema>;
/** The largest certificate or key file accepted (bytes). */
export const BROKER_CERT_MAX_BYTES = 64 * 1024;

export const BROKER_RESTART_TYPES = ['broker'] as const;
export const BrokerStatusSchema = z.object({
  mode: z.enum(['embedded', 'external', 'none']),
  is_running: z.boolean(),
  connected: z.boolean().nullable(),
  started_at: z.string().nullable(),
  /** The port MQTT over TLS listens on with the own certificate (use_user_certs), or null when it does not. */
  tls_port: z.number().int().nullable(),
});
export type BrokerStatus = z.infer<typeof BrokerStatusSchema>;
export const BrokerRestartBodySchema = z.strictObject({ type: z.enum(BROKER_RESTART_TYPES) });

/** The answer of POST /settings/broker/send: how many devices were given a broker_settings task. */
export const BrokerSendResultSchema = z.object({ devices: z.number().int() });
export type BrokerSendResult = z.infer<typeof BrokerSendResultSchema>;
/**
 * What became of one device's broker_settings task when its sending was concluded: `completed` and
 * `error` as the device answered; `timeout` when it had not answered by the deadline (the task stays
 * queued for a device that is away, and goes when it is back); `stopped` when the task was stopped
 * (deleted, or superseded by a later sending).
 */
export const BROKER_SEND_OUTCOMES = ['completed', 'error', 'timeout', 'stopped'] as const;
/** Devices named one by one in a device_broker_settings_sent notification (the counts cover all). */
export const BROKER_SEND_NOTICE_MAX_DEVICES = 200;
/** The data of a device_broker_settings_sent notification: the sending's outcome per device. */
export const BrokerSettingsSentDataSchema = z.object({
  /** Some device did not complete (error, timeout or stopped). */
  has_error: z.boolean(),
  /** The devices in a few words, for the notification's text. */
  device: z.string(),
  total: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  timed_out: z.number().int(),
  stopped: z.number().int(),
  devices: z
    .array(
      z.object({
        device_id: z.number().int(),
        name: z.string(),
        serial_number: z.string(),
        task_id: z.number().int(),
        outcome: z.enum(BROKER_SEND_OUTCOMES),
        error: z.string().nullable(),
      }),
    )
    .max(BROKER_SEND_NOTICE_MAX_DEVICES),
});
export type BrokerSettingsSentData = z.infer<typeof BrokerSettingsSentDataSchema>;

/** The largest terms and conditions text accepted per language (characters of HTML). */
export const TERMS_MAX_LENGTH = 100_000;
/** One language of the terms and conditions: the HTML served, and whether it is the built-in text. */
export const TermsTextSchema = z.object({ html: z.string(), is_default: z.boolean() });
/** The terms and conditions tab: per language, the operator's text or the built-in one. */
export const TermsSettingsSchema = z.object({ en: TermsTextSchema, ru: TermsTextSchema });
export type TermsSettings = z.infer<typeof TermsSettingsSchema>;
/**
 * Changes the terms and conditions per language: HTML (basic formatting kept, anything else removed)
 * or null (or empty) to go back to the built-in text. An absent language is left as it is.
 */
export const UpdateTermsSettingsBodySchema = z.strictObject({
  en: z.string().max(TERMS_MAX_LENGTH).nullable().optional(),
  ru: z.string().max(TERMS_MAX_LENGTH).nullable().optional(),
});
export type UpdateTermsSettingsBody = z.infer<typeof UpdateTermsSettingsBodySchema>;
