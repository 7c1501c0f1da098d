import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';

/** Webhook endpoints (issue 14): where chosen events of a project are posted, signed with the endpoint's secret. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    /** The HMAC key of the signatures: kept in clear, as signing needs it; never sent back after creation. */
    secret: text('secret').notNull(),
    eventTypes: text('event_types').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_project').on(t.projectId, t.id)],
);

/**
 * One event to post to one endpoint, and how its attempts went. The worker claims due rows with
 * `FOR UPDATE SKIP LOCKED`, so any number of instances share the work and a restart resumes it.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    projectId: integer('project_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The event's id, the same in every attempt: receivers drop duplicates by it. */
    eventId: text('event_id').notNull(),
    payload: jsonb('payload').notNull(),
    /** pending (waiting for its next attempt), delivering (claimed), succeeded, failed (attempts exhausted). */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** Until when a claim holds: a claim older than this (its instance stopped) is taken again. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    error: text('error'),
    durationMs: integer('duration_ms'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.id),
    // One delivery per event and endpoint, however many times the event is heard (a call has several parties).
    uniqueIndex('webhook_deliveries_event').on(t.endpointId, t.eventId),
  ],
);

/** Every attempt of a delivery, as the delivery log shows it: the answer's status and the start of its body, or the error. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: bigint('delivery_id', { mode: 'number' })
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.id)],
);
