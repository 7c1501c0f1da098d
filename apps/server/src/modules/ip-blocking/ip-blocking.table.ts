import { boolean, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * IP blocking, server-wide (an address is banned from a service, not from a project). A service
 * without a row runs on IP_BLOCKING_DEFAULTS; saving its status writes the row.
 */
export const ipBlockingServices = pgTable('ip_blocking_services', {
  name: text('name').primaryKey(),
  isEnabled: boolean('is_enabled').notNull(),
  maxFailures: integer('max_failures').notNull(),
  windowSeconds: integer('window_seconds').notNull(),
  banSeconds: integer('ban_seconds').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Bans, one per service and address; a ban past `expires_at` no longer holds and is swept away. */
export const ipBans = pgTable(
  'ip_bans',
  {
    service: text('service').notNull(),
    ip: text('ip').notNull(),
    cause: text('cause').notNull(),
    failures: integer('failures').notNull(),
    windowSeconds: integer('window_seconds').notNull(),
    lastAttempt: text('last_attempt'),
    bannedAt: timestamp('banned_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.service, t.ip] }), index('ip_bans_expires').on(t.expiresAt)],
);

/** Addresses and CIDR ranges a service never bans (canonical text: `10.0.0.0/8`, `::1`). */
export const ipWhitelist = pgTable(
  'ip_whitelist',
  {
    service: text('service').notNull(),
    ip: text('ip').notNull(),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.service, t.ip] })],
);
