import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { devices, deviceTasks } from '../devices/devices.table.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';

/** Emergency alerts (spec comms §3): a sound played on the devices of groups and chosen devices, doors opened. */
export const emergencyAlerts = pgTable(
  'emergency_alerts',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    deviceType: text('device_type').notNull().default('monitor'),
    playbackDuration: integer('playback_duration').notNull().default(60),
    openLocks: boolean('open_locks').notNull().default(false),
    /** The sound in the file store, its name as uploaded, size in bytes and type (recognised from its bytes). */
    fileKey: text('file_key'),
    filename: text('filename'),
    fileSize: integer('file_size'),
    fileType: text('file_type'),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('emergency_alerts_project_name').on(t.projectId, t.name, t.id)],
);

export const emergencyAlertGroups = pgTable(
  'emergency_alert_groups',
  {
    alertId: integer('alert_id')
      .notNull()
      .references(() => emergencyAlerts.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.groupId] }), index('emergency_alert_groups_group').on(t.groupId)],
);

export const emergencyAlertDevices = pgTable(
  'emergency_alert_devices',
  {
    alertId: integer('alert_id')
      .notNull()
      .references(() => emergencyAlerts.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.deviceId] }), index('emergency_alert_devices_device').on(t.deviceId)],
);

/** Each start of an alert; the one without `stopped_at` is playing. */
export const emergencyPlaybacks = pgTable(
  'emergency_playbacks',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id').notNull(),
    alertId: integer('alert_id')
      .notNull()
      .references(() => emergencyAlerts.id, { onDelete: 'cascade' }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    startedBy: integer('started_by'),
    /** When it ends by itself: started_at + playback duration (a stop may come earlier). */
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    stoppedAt: timestamp('stopped_at', { withTimezone: true }),
    stoppedBy: integer('stopped_by'),
  },
  (t) => [index('emergency_playbacks_alert').on(t.alertId, t.id)],
);

/**
 * The device tasks of a playback or a lockdown: `play`, `stop`, `open` (with its lock) for alerts;
 * `lock` and `release` for lockdowns.
 */
export const emergencyTasks = pgTable(
  'emergency_tasks',
  {
    taskId: integer('task_id')
      .primaryKey()
      .references(() => deviceTasks.id, { onDelete: 'cascade' }),
    playbackId: integer('playback_id').references(() => emergencyPlaybacks.id, { onDelete: 'cascade' }),
    lockdownId: integer('lockdown_id').references(() => emergencyLockdowns.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    lockNumber: integer('lock_number'),
  },
  (t) => [index('emergency_tasks_playback').on(t.playbackId), index('emergency_tasks_lockdown').on(t.lockdownId)],
);

/** A group's doors held shut, overriding every rule, until lifted. */
export const emergencyLockdowns = pgTable(
  'emergency_lockdowns',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    reason: text('reason'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    startedBy: integer('started_by'),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    endedBy: integer('ended_by'),
  },
  (t) => [
    index('emergency_lockdowns_project').on(t.projectId, t.id),
    // One lockdown at a time per group.
    uniqueIndex('emergency_lockdowns_active_group').on(t.groupId).where(sql`ended_at IS NULL`),
  ],
);
