import { z } from 'zod';
import { LIST_DEFAULT_SIZE, LIST_MAX_SIZE } from './list-query.js';
import { VALIDATION_MESSAGES } from './validators.js';

// IP blocking (spec comms §3 "IP blocking: services with is_enabled; banned IPs (ip, cause, info,
// banned_at); whitelist", §7 "status GET and POST {data:[{name, is_enabled}]}; banned list; unban all;
// unban POST {ips} per service; whitelist GET; add and delete POST {ips} per service", §8 "IP already
// in whitelist"). Server-wide: an address is banned from one service (a jail), not from a project.

/** Who may see the status, the banned list and the whitelist (a system matter, as System info). */
export const IP_BLOCKING_VIEW_PERMISSION = 'can_view_system_info';
/** Switching services, unbanning and whitelisting also needs this (as the workers of System info do). */
export const IP_BLOCKING_EDIT_PERMISSION = 'can_change_project_settings';

/**
 * The services an address can be banned from, each counting its own failures:
 * - console: failed sign-ins (POST /login answered 401 or 429), wrong two-factor steps and unknown
 *   single sign-on tickets;
 * - api: calls with an access token Atrium never signed (forged or garbage; an expired one is no failure)
 *   or an API key that is none (guessed or revoked, in X-Api-Key or the bearer header);
 * - sip: REGISTERs refused for a wrong digest or an unknown number;
 * - guest: guest pages asked with an unknown key or a wrong code.
 */
export const IP_BLOCKING_SERVICES = ['console', 'api', 'sip', 'guest'] as const;
export type IpBlockingServiceName = (typeof IP_BLOCKING_SERVICES)[number];
export const IpBlockingServiceNameSchema = z.enum(IP_BLOCKING_SERVICES);

/** What a ban is for, by service. */
export const IP_BAN_CAUSES: Record<IpBlockingServiceName, string> = {
  console: 'failed_sign_ins',
  api: 'invalid_tokens',
  sip: 'failed_sip_registrations',
  guest: 'invalid_guest_keys',
};
export const IpBanCauseSchema = z.enum(['failed_sign_ins', 'invalid_tokens', 'failed_sip_registrations', 'invalid_guest_keys']);

export interface IpBlockingRule {
  is_enabled: boolean;
  /** Failures within `window_seconds` that ban the address. */
  max_failures: number;
  window_seconds: number;
  /** How long a ban lasts. */
  ban_seconds: number;
}

/**
 * Defaults. Sign-in bans start above the per-address sign-in lock (LOGIN_ADDRESS_MAX_FAILURES, 50 in
 * 15 minutes): the lock answers first, the ban takes over from whoever keeps going. Guest-page bans
 * likewise start above the guest pages' rate limit (30 a minute per address), so a burst is slowed
 * first and only a guesser who keeps at it is banned.
 */
export const IP_BLOCKING_DEFAULTS: Record<IpBlockingServiceName, IpBlockingRule> = {
  console: { is_enabled: true, max_failures: 60, window_seconds: 15 * 60, ban_seconds: 60 * 60 },
  api: { is_enabled: true, max_failures: 20, window_seconds: 10 * 60, ban_seconds: 60 * 60 },
  sip: { is_enabled: true, max_failures: 10, window_seconds: 10 * 60, ban_seconds: 60 * 60 },
  guest: { is_enabled: true, max_failures: 60, window_seconds: 10 * 60, ban_seconds: 60 * 60 },
};
export const IP_BLOCKING_LIMITS = {
  max_failures: { min: 1, max: 10_000 },
  window_seconds: { min: 10, max: 24 * 60 * 60 },
  ban_seconds: { min: 60, max: 365 * 24 * 60 * 60 },
} as const;
/** Addresses per unban or whitelist call. */
export const IP_BLOCKING_MAX_IPS = 100;

/** One service's state: whether it bans, its rule, and how many addresses it bans and exempts now. */
export const IpBlockingServiceSchema = z.object({
  name: IpBlockingServiceNameSchema,
  is_enabled: z.boolean(),
  max_failures: z.number().int(),
  window_seconds: z.number().int(),
  ban_seconds: z.number().int(),
  banned_count: z.number().int(),
  whitelist_count: z.number().int(),
});
export type IpBlockingService = z.infer<typeof IpBlockingServiceSchema>;

const ruleField = (k: keyof typeof IP_BLOCKING_LIMITS) =>
  z.number().int().min(IP_BLOCKING_LIMITS[k].min).max(IP_BLOCKING_LIMITS[k].max).optional();

/** POST /ip-blocking/status: services switched on or off, and their rules changed; each named once. */
export const IpBlockingStatusBodySchema = z.object({
  data: z
    .array(
      z.object({
        name: IpBlockingServiceNameSchema,
        is_enabled: z.boolean(),
        max_failures: ruleField('max_failures'),
        window_seconds: ruleField('window_seconds'),
        ban_seconds: ruleField('ban_seconds'),
      }),
    )
    .min(1)
    .max(IP_BLOCKING_SERVICES.length)
    .refine((items) => new Set(items.map((i) => i.name)).size === items.length, { message: VALIDATION_MESSAGES.invalid_value }),
});
export type IpBlockingStatusBody = z.infer<typeof IpBlockingStatusBodySchema>;

/** A single IPv4 or IPv6 address. */
export const IpAddressSchema = z.union([z.ipv4(), z.ipv6()], { error: VALIDATION_MESSAGES.invalid_value });
/** A single address or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`). */
export const IpOrRangeSchema = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], { error: VALIDATION_MESSAGES.invalid_value });

export const IpServiceParamsSchema = z.object({ service: IpBlockingServiceNameSchema });

/** POST /ip-blocking/{service}/unban. */
export const IpUnbanBodySchema = z.object({ ips: z.array(IpAddressSchema).min(1).max(IP_BLOCKING_MAX_IPS) });
/** POST /ip-blocking/unban-all: every ban, or those of one service. */
export const IpUnbanAllBodySchema = z.object({ service: IpBlockingServiceNameSchema.optional() });
/** POST /ip-blocking/{service}/whitelist and /whitelist/delete. */
export const IpWhitelistBodySchema = z.object({ ips: z.array(IpOrRangeSchema).min(1).max(IP_BLOCKING_MAX_IPS) });
export type IpWhitelistBody = z.infer<typeof IpWhitelistBodySchema>;

export const IpBanSchema = z.object({
  service: IpBlockingServiceNameSchema,
  ip: z.string(),
  cause: IpBanCauseSchema,
  info: z.object({
    /** Failures counted when the ban began, and the window they were counted in. */
    failures: z.number().int(),
    window_seconds: z.number().int(),
    /** What the last failure tried: a login, a SIP number, a route; null when nothing is worth showing. */
    last_attempt: z.string().nullable(),
  }),
  banned_at: z.string(),
  expires_at: z.string(),
});
export type IpBan = z.infer<typeof IpBanSchema>;

/** GET /ip-blocking/banned: bans in force, newest first. */
export const IpBanListQuerySchema = z.object({
  service: IpBlockingServiceNameSchema.optional(),
  /** Part of the address. */
  q: z.string().trim().max(100).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  size: z.coerce.number().int().min(1).max(LIST_MAX_SIZE).default(LIST_DEFAULT_SIZE),
});
export type IpBanListQuery = z.infer<typeof IpBanListQuerySchema>;

export const IpWhitelistEntrySchema = z.object({
  service: IpBlockingServiceNameSchema,
  /** An address or a CIDR range, in its canonical form (`10.0.0.0/8`, `2001:db8::1`). */
  ip: z.string(),
  created_at: z.string(),
});
export type IpWhitelistEntry = z.infer<typeof IpWhitelistEntrySchema>;

export const IpWhitelistQuerySchema = z.object({ service: IpBlockingServiceNameSchema.optional() });

export const IpCountResultSchema = z.object({ count: z.number().int() });
