import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';

export const roles = pgTable(
  'roles',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    permissions: text('permissions').array().notNull(),
    /** The built-in administrator role holds every permission and cannot be deleted. */
    isBuiltin: boolean('is_builtin').notNull().default(false),
    /** Holders must sign in with a second step (TOTP), enrolling at their next sign-in if they have none (issue 14). */
    twoFactorRequired: boolean('two_factor_required').notNull().default(false),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('roles_project').on(t.projectId)],
);

/** The roles a holder of `roleId` may assign to users. */
export const roleAvailableRoles = pgTable(
  'role_available_roles',
  {
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    availableRoleId: integer('available_role_id')
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.availableRoleId] })],
);
