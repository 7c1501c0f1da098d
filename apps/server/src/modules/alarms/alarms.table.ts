import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { devices } from '../devices/devices.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/**
 * Device alarms: one row per alarm a device raised (alarm_on, tamper), cleared by the device
 * (alarm_off) and processed by a person with a comment. Written from device events, so kept out
 * of the read cache's change feed. Scoped through the device's group.
 */
export const deviceAlarms = pgTable(
  'device_alarms',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    /** The zone, sensor or part the device named; '' when none (so one active alarm per device, kind and zone). */
    zone: text('zone').notNull().default(''),
    isActive: boolean('is_active').notNull().default(true),
    raisedAt: timestamp('raised_at', { withTimezone: true }).notNull(),
    clearedAt: timestamp('cleared_at', { withTimezone: true }),
    processedAt: timestamp('processed_at', { withTimezone: true }),
    processedBy: integer('processed_by').references(() => users.id, { onDelete: 'set null' }),
    /** The processor's name as it was, kept when the user is deleted. */
    processedByName: text('processed_by_name'),
    comment: text('comment'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('device_alarms_project_raised').on(t.projectId, t.raisedAt, t.id),
    index('device_alarms_device').on(t.deviceId),
    // A device has at most one open alarm of a kind and zone: a repeated alarm_on adds to its log.
    uniqueIndex('device_alarms_open').on(t.deviceId, t.kind, t.zone).where(sql`is_active AND processed_at IS NULL`),
  ],
);

/** The steps of an alarm: raised, raised again, cleared (the device) and processed (a person). */
export const deviceAlarmLogs = pgTable(
  'device_alarm_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    alarmId: integer('alarm_id')
      .notNull()
      .references(() => deviceAlarms.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    userName: text('user_name'),
    comment: text('comment'),
    info: jsonb('info').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('device_alarm_logs_alarm').on(t.alarmId, t.createdAt)],
);
