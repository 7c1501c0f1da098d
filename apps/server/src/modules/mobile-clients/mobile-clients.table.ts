import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { notifications } from '../notifications/notifications.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/**
 * A resident's mobile app, registered by the app itself after each sign-in (issue 14). One row per
 * app install (mobile_client_id) in a project: an install signed in as another user moves to them.
 */
export const mobileClients = pgTable(
  'mobile_clients',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mobileClientId: text('mobile_client_id').notNull(),
    platform: text('platform').notNull(),
    info: text('info'),
    vendorId: text('vendor_id'),
    /** The platform's push token of the install (APNs, FCM); never sent back. */
    pushToken: text('push_token'),
    sipNumber: text('sip_number'),
    ukey2: text('ukey2'),
    isSdk: boolean('is_sdk').notNull().default(false),
    /**
     * sha256 of the install's secret, issued to the app once (at its first registration, or when it
     * moves): naming the mobile_client_id alone must not move someone else's phone to the caller.
     * Null for rows registered before secrets existed, until their holder registers again.
     */
    clientSecretHash: text('client_secret_hash'),
    authAt: timestamp('auth_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('mobile_clients_client').on(t.projectId, t.mobileClientId),
    index('mobile_clients_user').on(t.userId),
    // The enqueue in the notification insert asks "has this user a push token": an index-only probe.
    index('mobile_clients_user_push').on(t.userId, t.platform).where(sql`push_token IS NOT NULL`),
  ],
);

/**
 * One notification to push to one platform of a user's apps (issue 14). Written in the statement
 * that inserts the notification (core/push-outbox.ts), claimed by the push worker with SKIP LOCKED
 * under a lease, so every instance may run it and a restart resumes what was pending. The tokens,
 * title and text are read when it is sent: a token removed meanwhile is not used.
 */
export const pushDeliveries = pgTable(
  'push_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    notificationId: integer('notification_id').references(() => notifications.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    /** pending (waiting for its next attempt), delivering (claimed), succeeded, failed (given up or refused). */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    responseStatus: integer('response_status'),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('push_deliveries_due').on(t.nextAttemptAt).where(sql`status IN ('pending', 'delivering')`),
    // One push per notification and platform, however many times it is enqueued.
    uniqueIndex('push_deliveries_notification').on(t.notificationId, t.platform),
  ],
);
