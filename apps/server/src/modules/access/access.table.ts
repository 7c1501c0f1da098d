import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { devices } from '../devices/devices.table.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/**
 * Schedules (time rules): when an access rule applies. Each belongs to a group (the ACL scopes speak
 * of it) and carries its own time zone: the wall clock of the building it is for.
 */
export const timeRules = pgTable(
  'time_rules',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    groupId: integer('group_id').references(() => groups.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    description: text('description'),
    timeZone: text('time_zone').notNull().default('UTC'),
    validFrom: text('valid_from'),
    validTo: text('valid_to'),
    isAllDay: boolean('is_all_day').notNull().default(false),
    repeatMode: text('repeat_mode').notNull().default('weekly'),
    entries: jsonb('entries').$type<{ days: string[]; from: number; to: number }[]>().notNull().default(sql`'[]'::jsonb`),
    exceptions: jsonb('exceptions').$type<{ date: string; open: boolean }[]>().notNull().default(sql`'[]'::jsonb`),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('time_rules_project_name').on(t.projectId, t.name, t.id), index('time_rules_group').on(t.groupId)],
);

/** Access rules: who (identifiers, users, groups' members) may open which locks of which devices, when. */
export const accessRules = pgTable(
  'access_rules',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    isShareable: boolean('is_shareable').notNull().default(false),
    /** A prohibition refuses what it covers, whatever other rules allow. */
    prohibition: boolean('prohibition').notNull().default(false),
    /** Residents may give guests access through this rule. */
    availableForGuest: boolean('available_for_guest').notNull().default(false),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('access_rules_project_name').on(t.projectId, t.name, t.id)],
);

export const accessRuleDevices = pgTable(
  'access_rule_devices',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => accessRules.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    lockNumber: integer('lock_number').notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.deviceId, t.lockNumber] }), index('access_rule_devices_device').on(t.deviceId)],
);

export const accessRuleGroups = pgTable(
  'access_rule_groups',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => accessRules.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.groupId] }), index('access_rule_groups_group').on(t.groupId)],
);

export const accessRuleUsers = pgTable(
  'access_rule_users',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => accessRules.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId] }), index('access_rule_users_user').on(t.userId)],
);

export const accessRuleIdentifiers = pgTable(
  'access_rule_identifiers',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => accessRules.id, { onDelete: 'cascade' }),
    identifierId: integer('identifier_id')
      .notNull()
      .references(() => identifiers.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.identifierId] }), index('access_rule_identifiers_identifier').on(t.identifierId)],
);

export const accessRuleTimeRules = pgTable(
  'access_rule_time_rules',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => accessRules.id, { onDelete: 'cascade' }),
    timeRuleId: integer('time_rule_id')
      .notNull()
      .references(() => timeRules.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.timeRuleId] }), index('access_rule_time_rules_time_rule').on(t.timeRuleId)],
);

/** Identifiers: cards, keys, codes, QR codes and plates, each unique by type and value in a project. */
export const identifiers = pgTable(
  'identifiers',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    isActive: boolean('is_active').notNull().default(true),
    type: text('type').notNull().default('card'),
    /** As a reader presents it: hex digits upper-case for cards and keys (the console may show it in decimal). */
    value: text('value').notNull(),
    ownerId: integer('owner_id').references(() => users.id, { onDelete: 'set null' }),
    periodRestrictActive: boolean('period_restrict_active').notNull().default(false),
    periodFrom: timestamp('period_restrict_from', { withTimezone: true }),
    periodTo: timestamp('period_restrict_to', { withTimezone: true }),
    passesRestrictActive: boolean('passes_restrict_active').notNull().default(false),
    passesMax: integer('passes_restrict_max_count').notNull().default(0),
    /** Passes counted from access-granted events since the limit was set. */
    passesCount: integer('passes_restrict_passes_count').notNull().default(0),
    /** When the pass limit was set: passes made before it do not count. */
    passesSince: timestamp('passes_restrict_since', { withTimezone: true }),
    guestType: text('guest_type'),
    /** A guest identifier's public key: its check page (/guest-access/:keyId) and door opening. */
    guestKey: text('guest_key'),
    keyMessage: text('key_message'),
    /** A photo of the holder (the file store's key). */
    photoPath: text('photo_path'),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('identifiers_type_value').on(t.projectId, t.type, t.value),
    index('identifiers_project_name').on(t.projectId, t.name, t.id),
    index('identifiers_owner').on(t.ownerId),
    index('identifiers_value').on(t.value),
    uniqueIndex('identifiers_guest_key').on(t.guestKey),
    // A million identifiers: the list sorted by creation, and names and numbers by their beginning
    // (lower(x) LIKE 'abc%', the list's begins_with), by index instead of reading every row.
    index('identifiers_project_created').on(t.projectId, t.createdAt, t.id),
    index('identifiers_name_prefix').on(t.projectId, sql`lower(${t.name}) text_pattern_ops`),
    index('identifiers_value_prefix').on(t.projectId, sql`lower(${t.value}) text_pattern_ops`),
  ],
);

/** Every access decision a device reported, with what it was about resolved when it arrived. */
export const accessEvents = pgTable(
  'access_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    projectId: integer('project_id').notNull(),
    deviceId: integer('device_id').notNull(),
    lockNumber: integer('lock_number').notNull().default(1),
    granted: boolean('granted').notNull(),
    reason: text('reason'),
    value: text('value'),
    /** The identifier type the device reported (`card`, `access_code`…): reads a number no identifier has. */
    kind: text('kind'),
    identifierId: integer('identifier_id'),
    userId: integer('user_id'),
    ruleId: integer('rule_id'),
    direction: text('direction'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('access_events_project_time').on(t.projectId, t.occurredAt, t.id),
    index('access_events_device').on(t.deviceId, t.occurredAt),
    index('access_events_identifier').on(t.identifierId, t.occurredAt),
  ],
);
