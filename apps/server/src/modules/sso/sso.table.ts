import { boolean, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';
import { users } from '../users/users.table.js';

/**
 * OpenID Connect providers of a project (issue 14). The client secret is kept encrypted
 * (core/auth/secret-box.ts) and never sent back.
 */
export const ssoProviders = pgTable(
  'sso_providers',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    issuer: text('issuer').notNull(),
    clientId: text('client_id').notNull(),
    clientSecret: text('client_secret'),
    scopes: text('scopes').notNull(),
    claim: text('claim').notNull(),
    matchField: text('match_field').notNull(),
    isEnabled: boolean('is_enabled').notNull().default(true),
    autoCreate: boolean('auto_create').notNull().default(false),
    defaultRoleId: integer('default_role_id').references(() => roles.id, { onDelete: 'set null' }),
    defaultGroupId: integer('default_group_id').references(() => groups.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sso_providers_project').on(t.projectId)],
);

/** A started sign-in: its state, nonce and PKCE verifier, used once by the provider's answer. */
export const ssoLogins = pgTable('sso_logins', {
  state: text('state').primaryKey(),
  providerId: integer('provider_id')
    .notNull()
    .references(() => ssoProviders.id, { onDelete: 'cascade' }),
  codeVerifier: text('code_verifier').notNull(),
  nonce: text('nonce').notNull(),
  redirect: text('redirect'),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/** A finished sign-in waiting for the console: a one-time ticket (stored by hash) exchanged for the session. */
export const ssoTickets = pgTable('sso_tickets', {
  ticketHash: text('ticket_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  projectId: integer('project_id')
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});
