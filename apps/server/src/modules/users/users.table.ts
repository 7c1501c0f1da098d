import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    login: text('login').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    email: text('email'),
    passwordHash: text('password_hash'),
    locale: text('locale').notNull().default('en'),
    roleId: integer('role_id').references(() => roles.id, { onDelete: 'set null' }),
    avatarPath: text('avatar_path'),
    /** Profile fields of spec core §3: address, phone, time zone, formats, popup flag, notification settings. */
    profile: jsonb('profile').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    licenseInfo: jsonb('license_info').$type<Record<string, unknown>>(),
    isGroupAdmin: boolean('is_group_admin').notNull().default(false),
    elevatorAccessDisabled: boolean('elevator_access_disabled').notNull().default(false),
    isInvited: boolean('is_invited').notNull().default(false),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_project_login').on(t.projectId, sql`lower(${t.login})`),
    index('users_login').on(sql`lower(${t.login})`),
    index('users_project_name').on(t.projectId, t.name, t.id),
    // Prefix search (begins_with) on name and login: lower(x) LIKE 'abc%'. Migration 0006 adds
    // INCLUDE (x, id) by hand so these are covering indexes (drizzle-kit cannot express INCLUDE).
    index('users_name_prefix').on(t.projectId, sql`lower(${t.name}) text_pattern_ops`),
    index('users_login_prefix').on(t.projectId, sql`lower(${t.login}) text_pattern_ops`),
    index('users_role').on(t.roleId),
    index('users_email').on(sql`lower(${t.email})`),
    // "Any user can view what they created": the users list gathers those ids by this index.
    index('users_created_by').on(t.createdBy),
  ],
);

/** Group membership: a user belongs to one or more groups. */
export const userGroups = pgTable(
  'user_groups',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.groupId] }), index('user_groups_group').on(t.groupId, t.userId)],
);
