import type { ForwardGroupParams, ForwardRules } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { devices } from '../devices/devices.table.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/**
 * Virtual (SIP) numbers. A number is unique on the whole server, not per project: the SIP
 * registrar authenticates a bare number (the digest user) before it knows any project.
 */
export const sipNumbers = pgTable(
  'sip_numbers',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    number: text('number').notNull(),
    name: text('name'),
    /** The digest secret, kept as is: the registrar needs it to check a response (never sent back). */
    password: text('password').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    isReserved: boolean('is_reserved').notNull().default(false),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    deviceId: integer('device_id').references(() => devices.id, { onDelete: 'set null' }),
    groupId: integer('group_id').references(() => groups.id, { onDelete: 'restrict' }),
    forwardMode: text('forward_mode').$type<'disabled' | 'manual' | 'picked'>().notNull().default('disabled'),
    forwardRules: jsonb('forward_rules').$type<ForwardRules>().notNull(),
    forwardGroupId: integer('forward_group_id').references((): AnyPgColumn => forwardGroups.id, { onDelete: 'set null' }),
    purpose: text('purpose').$type<'master_sip_number' | 'group_sip_number' | 'device_sip_number'>(),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('sip_numbers_number').on(t.number),
    index('sip_numbers_project_number').on(t.projectId, t.number, t.id),
    index('sip_numbers_group').on(t.groupId),
    index('sip_numbers_user').on(t.userId),
    // A device has one number ("device already has virtual number"), a user one master number, a group one number.
    uniqueIndex('sip_numbers_device').on(t.deviceId).where(sql`device_id IS NOT NULL`),
    uniqueIndex('sip_numbers_master').on(t.userId).where(sql`purpose = 'master_sip_number'`),
    uniqueIndex('sip_numbers_group_number').on(t.groupId).where(sql`purpose = 'group_sip_number'`),
    index('sip_numbers_forward_group').on(t.forwardGroupId),
  ],
);

/** Forward rule groups (/forward-rules): numbers rung together, with a timeout, days and a time window. */
export const forwardGroups = pgTable(
  'forward_groups',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    groupId: integer('group_id').references(() => groups.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    params: jsonb('params').$type<ForwardGroupParams>().notNull(),
    forwardRules: jsonb('forward_rules').$type<ForwardRules>().notNull(),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('forward_groups_project_name').on(t.projectId, t.name, t.id), index('forward_groups_group').on(t.groupId)],
);

/** SIP trunks: outside lines, each usable by the numbers of its groups and below. */
export const sipTrunks = pgTable(
  'sip_trunks',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    outgoingNumber: text('outgoing_number').notNull(),
    terminationUri: text('termination_uri').notNull(),
    login: text('login'),
    password: text('password'),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sip_trunks_project_name').on(t.projectId, t.name, t.id)],
);

export const sipTrunkGroups = pgTable(
  'sip_trunk_groups',
  {
    trunkId: integer('trunk_id')
      .notNull()
      .references(() => sipTrunks.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.trunkId, t.groupId] }), index('sip_trunk_groups_group').on(t.groupId)],
);

/** A user's call interception: the calls to these groups ring the user's number too. */
export const callInterceptions = pgTable('call_interceptions', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  projectId: integer('project_id')
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' }),
  isActive: boolean('is_active').notNull().default(false),
  groupIds: integer('group_ids').array().notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Calls as the SIP proxy reports them (high churn: kept out of the read cache's change feed).
 * `numbers` holds every number that rang, so each hears of the call on its realtime topic.
 */
export const callRecords = pgTable(
  'call_records',
  {
    id: text('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** The SIP Call-ID of the caller's leg. */
    sipCallId: text('sip_call_id').notNull(),
    status: text('status').$type<'new' | 'calling' | 'answered' | 'waiting' | 'answered_waiting' | 'destroyed'>().notNull(),
    type: text('type').$type<'normal' | 'awaiting'>().notNull().default('normal'),
    caller: text('caller').notNull(),
    callee: text('callee').notNull(),
    answeredBy: text('answered_by'),
    sos: boolean('sos').notNull().default(false),
    info: jsonb('info').$type<{ address: string | null; user: string | null }>().notNull(),
    numbers: text('numbers').array().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('call_records_sip_call').on(t.sipCallId),
    index('call_records_open').on(t.projectId, t.createdAt).where(sql`status <> 'destroyed'`),
  ],
);

/** One row per ended call (high churn: kept out of the read cache's change feed). */
export const callHistory = pgTable(
  'call_history',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    callId: text('call_id').notNull(),
    fromNumber: text('from_number').notNull(),
    toNumber: text('to_number').notNull(),
    fromUserId: integer('from_user_id'),
    fromName: text('from_name'),
    toUserId: integer('to_user_id'),
    toName: text('to_name'),
    status: text('status').$type<'answered' | 'noanswer' | 'busy' | 'cancel' | 'failed'>().notNull(),
    duration: integer('duration').notNull().default(0),
    type: text('type').$type<'normal' | 'awaiting'>().notNull().default('normal'),
    sos: boolean('sos').notNull().default(false),
    answeredBy: text('answered_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('call_history_project_time').on(t.projectId, t.createdAt),
    index('call_history_from').on(t.fromNumber, t.createdAt),
    index('call_history_to').on(t.toNumber, t.createdAt),
  ],
);
