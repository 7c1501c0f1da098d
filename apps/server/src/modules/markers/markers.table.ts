import { index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/** Markers: a name and a colour put on users (a resident with reduced mobility, a board member). */
export const markers = pgTable(
  'markers',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** The group a marker belongs to: the view scope "markers of my groups" speaks of it. */
    groupId: integer('group_id').references(() => groups.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    color: text('color').notNull(),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('markers_project_name').on(t.projectId, t.name, t.id), index('markers_group').on(t.groupId)],
);

export const userMarkers = pgTable(
  'user_markers',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    markerId: integer('marker_id')
      .notNull()
      .references(() => markers.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.markerId] }), index('user_markers_marker').on(t.markerId)],
);
