import { sql } from 'drizzle-orm';
import { type AnyPgColumn, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';

export const domainTypes = pgTable(
  'domain_types',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: integer('type').notNull(),
    name: text('name').notNull(),
    /** A group the type belongs to; null: the whole project. */
    domainId: integer('domain_id').references((): AnyPgColumn => groups.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('domain_types_project_type').on(t.projectId, t.type)],
);

/**
 * Groups (domains) form a tree per project. `path` holds the ids of every ancestor and the group
 * itself, so "my groups and below" is one GIN-indexed overlap: `path && ARRAY[my group ids]`.
 */
export const groups = pgTable(
  'groups',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id'),
    path: integer('path').array().notNull(),
    domainTypeId: integer('domain_type_id').references(() => domainTypes.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    description: text('description'),
    logicAddress: integer('logic_address'),
    whitelabelSettings: jsonb('whitelabel_settings').$type<Record<string, unknown>>(),
    appleWalletSettings: jsonb('apple_wallet_settings').$type<Record<string, unknown>>(),
    guestIdentifierLimits: jsonb('guest_identifier_limits').$type<Record<string, unknown>>(),
    deviceStatusNotify: jsonb('device_status_notify').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
    isResidentPhonebookEnabled: boolean('is_resident_phonebook_enabled').notNull().default(false),
    internalSubnetworks: text('internal_subnetworks').array().notNull().default(sql`'{}'::text[]`),
    licenseInfo: jsonb('license_info').$type<Record<string, unknown>>(),
    logoPath: text('logo_path'),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('groups_project').on(t.projectId),
    index('groups_parent').on(t.parentId),
    index('groups_path').using('gin', t.path).with({ fastupdate: false }),
    // Siblings may not share a type and logical address (the service says so first, with the spec's message).
    uniqueIndex('groups_sibling_address')
      .on(t.projectId, sql`coalesce(${t.parentId}, 0)`, t.domainTypeId, t.logicAddress)
      .where(sql`${t.logicAddress} IS NOT NULL`),
  ],
);
