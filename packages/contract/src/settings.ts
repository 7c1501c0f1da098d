import { z } from 'zod';
import { LOCALES } from './constants.js';
import { LicenseInfoSchema, LicenseWarningsSchema } from './licenses.js';

/** Server settings of spec core §3 as the console reads them from GET /frontend/server/settings. */
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
  domain: z.string(),
  push_server: z.string().nullable(),
  server_ip: z.string().nullable(),
  internal_server_ip: z.string().nullable(),
  version: z.string(),
  device_broker_host: z.string(),
  sip_proxy_host: z.string(),
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
export const CountrySchema = z.object({ code: z.string(), name: z.string(), phone_code: z.string() });
