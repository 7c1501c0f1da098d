import { boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { devices } from '../devices/devices.table.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/** Elevators: a lift of a group, driven by one or more lift controllers. */
export const elevators = pgTable(
  'elevators',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    groupId: integer('group_id').references(() => groups.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    hasAccessModeController: boolean('has_access_mode_controller').notNull().default(false),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('elevators_project_name').on(t.projectId, t.name, t.id), index('elevators_group').on(t.groupId)],
);

/** A lift controller of an elevator, with its floor map; a controller serves one elevator. */
export const elevatorControllers = pgTable(
  'elevator_controllers',
  {
    elevatorId: integer('elevator_id')
      .notNull()
      .references(() => elevators.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull().default(true),
    floorMap: jsonb('floor_map')
      .$type<
        { floor: number; name?: string | null; apartments: string[]; is_public: boolean; is_panel_floor: boolean; ports: number[] }[]
      >()
      .notNull(),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.elevatorId, t.deviceId] }), uniqueIndex('elevator_controllers_device').on(t.deviceId)],
);

/** Elevator access rules: which users may ride to which floors of which elevators. */
export const elevatorRules = pgTable(
  'elevator_rules',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('elevator_rules_project_name').on(t.projectId, t.name, t.id)],
);

export const elevatorRuleUsers = pgTable(
  'elevator_rule_users',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => elevatorRules.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId] }), index('elevator_rule_users_user').on(t.userId)],
);

export const elevatorRuleElevators = pgTable(
  'elevator_rule_elevators',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => elevatorRules.id, { onDelete: 'cascade' }),
    elevatorId: integer('elevator_id')
      .notNull()
      .references(() => elevators.id, { onDelete: 'cascade' }),
    floors: integer('floors').array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.elevatorId] }), index('elevator_rule_elevators_elevator').on(t.elevatorId)],
);
