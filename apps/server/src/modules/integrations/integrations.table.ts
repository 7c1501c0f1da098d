import type { IntegrationMacroRule } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, serial, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';

/**
 * Integrations (issue 14): an Axxon One server reached over gRPC, for the project (group_id null) or a
 * group and the groups below it. The password is sealed (core/auth/secret-box.ts) and the server's
 * certificate (PEM) kept as text: neither is ever sent back.
 */
export const integrations = pgTable(
  'integrations',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    groupId: integer('group_id').references(() => groups.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    name: text('name').notNull(),
    guid: text('guid').notNull(),
    /** `host:port`, normalised (contract normalizeIntegrationUrl). */
    url: text('url').notNull(),
    userName: text('user_name').notNull(),
    passwordSealed: text('password_sealed').notNull(),
    certificate: text('certificate'),
    /** Further groups served (with the groups below them), besides group_id. */
    domainIds: integer('domain_ids').array().notNull().default(sql`'{}'::int[]`),
    macroRules: jsonb('macro_rules').$type<IntegrationMacroRule[]>().notNull().default([]),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('integrations_project_url').on(t.projectId, t.url),
    index('integrations_group').on(t.groupId),
    index('integrations_domains').using('gin', t.domainIds),
  ],
);
