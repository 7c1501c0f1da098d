import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';

/** Backups of a project (issue 14): the zip lives in the file store under `fileKey`. */
export const backups = pgTable(
  'backups',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    entities: text('entities').array().notNull(),
    fileKey: text('file_key').notNull(),
    size: integer('size').notNull(),
    /** Rows per entity when it was made. */
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default(sql`'{}'::jsonb`),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    appliedAt: timestamp('applied_at', { withTimezone: true }),
  },
  (t) => [index('backups_project').on(t.projectId, t.createdAt)],
);
