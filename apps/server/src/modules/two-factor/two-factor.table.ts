import { bigint, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../users/users.table.js';

/**
 * A user's TOTP (issue 14). The secret is kept encrypted (AES-256-GCM under a key derived from the
 * token secret) and is never sent back once enrolment is confirmed. `enabledAt` null is an enrolment
 * waiting for its first code. `lastStep` is the newest time step a code was accepted for, so a code
 * is refused when used a second time within its window. Recovery codes are kept as SHA-256 hashes
 * (they are random, 50 bits each) and each is removed when used.
 */
export const userTwoFactor = pgTable('user_two_factor', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  lastStep: bigint('last_step', { mode: 'number' }),
  recoveryCodes: text('recovery_codes').array().notNull().default([]),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
