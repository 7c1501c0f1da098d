import { index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';
import { users } from '../users/users.table.js';

/**
 * API keys (issue 14): a building's own systems call the API with one. Only a hash of the key is kept
 * (see api-keys.service.ts); the key acts as its creator with the key's role and groups, so it dies
 * with its creator.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** `atr_` and the first 8 characters: shown in lists to tell keys apart. */
    prefix: text('prefix').notNull(),
    /** SHA-256 (hex) of the whole key. */
    keyHash: text('key_hash').notNull().unique(),
    /** A deleted role leaves the key without permissions until it is revoked. */
    roleId: integer('role_id').references(() => roles.id, { onDelete: 'set null' }),
    groupIds: integer('group_ids').array().notNull(),
    createdBy: integer('created_by')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('api_keys_project').on(t.projectId, t.id)],
);

/**
 * When a key was last used, apart from the key so that noting a use (written often) does not move
 * the read cache, which watches `api_keys` for revocations.
 */
export const apiKeyUsage = pgTable('api_key_usage', {
  keyId: integer('key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull(),
});
