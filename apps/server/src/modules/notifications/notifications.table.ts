import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

export const notifications = pgTable(
  'notifications',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    significance: text('significance').notNull().default('other'),
    icon: text('icon'),
    color: text('color'),
    popupAction: jsonb('popup_action').$type<Record<string, unknown>>(),
    sound: jsonb('sound').$type<Record<string, unknown>>(),
    readAt: timestamp('read_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('notifications_user').on(t.userId, t.id), index('notifications_unread').on(t.userId).where(sql`read_at IS NULL`)],
);
