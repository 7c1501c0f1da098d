import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';

export const devices = pgTable(
  'devices',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** The device's group: the ACL scopes (mine, mine and below) speak of it. */
    groupId: integer('group_id').references(() => groups.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    description: text('description'),
    type: text('type').notNull(),
    model: text('model').notNull(),
    ipAddress: text('ip_address'),
    port: integer('port').notNull().default(80),
    /** Also the broker login; unique on the server, since a broker account is named by it. */
    serialNumber: text('serial_number').notNull(),
    /** argon2id of the device password the device signs in to the broker with (set at init). */
    passwordHash: text('password_hash'),
    deviceLogin: text('device_login'),
    devicePassword: text('device_password'),
    protocol: text('protocol').notNull().default('mqtt'),
    getLogs: boolean('get_logs').notNull().default(false),
    latitude: doublePrecision('location_latitude'),
    longitude: doublePrecision('location_longitude'),
    management: jsonb('management').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    settings: jsonb('device_settings').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    initializedAt: timestamp('initialized_at', { withTimezone: true }),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('devices_serial_number').on(t.serialNumber),
    index('devices_project_name').on(t.projectId, t.name, t.id),
    index('devices_group').on(t.groupId),
    index('devices_created_by').on(t.createdBy),
  ],
);

/**
 * Presence of a device, written on connect and disconnect (not per heartbeat). Kept apart from
 * `devices` and out of the read cache's change feed: these frequent writes must not empty it.
 */
export const deviceStatus = pgTable('device_status', {
  deviceId: integer('device_id')
    .primaryKey()
    .references(() => devices.id, { onDelete: 'cascade' }),
  online: boolean('online').notNull().default(false),
  firmware: text('firmware'),
  capabilities: jsonb('capabilities').$type<Record<string, unknown>>(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
  /**
   * The instance (instances.id) whose gateway last heard the device come online; `gone:<id>` once
   * another instance declared it offline because that instance died (it takes it back if it lives).
   */
  instanceId: text('instance_id'),
  /** What the device refused of its last sync: identifiers and schedules, each with a reason. */
  syncErrors: jsonb('sync_errors').$type<{ entity: string; id: number; message: string }[]>(),
});

/** Order of tasks per device: a restarted task goes to the end of its device's queue. */
export const deviceTaskSeq = pgSequence('device_task_seq');

/** The domain view of a device task: its state as the console shows it, every attempt counted. */
export const deviceTasks = pgTable(
  'device_tasks',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    seq: bigint('seq', { mode: 'number' }).notNull().default(sql`nextval('device_task_seq')`),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    state: text('state').notNull().default('new'),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    /** When the task was last handed to the gateway; a queued task past its lease is sent again. */
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('device_tasks_device_open').on(t.deviceId, t.seq).where(sql`state IN ('new', 'waiting', 'queued', 'started')`),
    index('device_tasks_project').on(t.projectId, t.id),
  ],
);

/**
 * One sending of the MQTT broker settings to a project's devices (its broker_settings tasks), until
 * its outcome is known: every task ended, or the deadline passed. The instance that concludes it
 * (sets concluded_at, once) notifies the user who sent it.
 */
export const deviceBrokerSends = pgTable(
  'device_broker_sends',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: integer('user_id'),
    taskIds: integer('task_ids').array().notNull(),
    deadline: timestamp('deadline', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    concludedAt: timestamp('concluded_at', { withTimezone: true }),
  },
  (t) => [index('device_broker_sends_open').on(t.projectId).where(sql`concluded_at IS NULL`)],
);

/** What devices report: stored in batches, never through the read cache's change feed. */
export const deviceEvents = pgTable(
  'device_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: integer('project_id').notNull(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    identifier: text('identifier'),
    /** The device's own id of the event (protocol `event_id`), when it sent one. */
    eventId: text('event_id'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('device_events_project_time').on(t.projectId, t.occurredAt),
    index('device_events_device').on(t.deviceId, t.occurredAt),
    // A device re-sends what it has no PUBACK for: an event it named is stored once.
    uniqueIndex('device_events_device_event_id').on(t.deviceId, t.eventId).where(sql`event_id IS NOT NULL`),
  ],
);
