import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** One row per mutating call: who, project, entity, id, action, before/after, ip, time. */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: integer('project_id'),
    userId: integer('user_id'),
    /** The API key the change was made with (issue 14, api keys); the user is then the key's creator. */
    apiKeyId: integer('api_key_id'),
    entity: text('entity').notNull(),
    entityId: text('entity_id'),
    action: text('action').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    ip: text('ip'),
    requestId: text('request_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('audit_events_project').on(t.projectId, t.id),
    // The audit list (modules/audit): newest first and time ranges; then who, what and which request.
    index('audit_events_project_created').on(t.projectId, t.createdAt, t.id),
    index('audit_events_project_user').on(t.projectId, t.userId, t.createdAt),
    index('audit_events_project_entity').on(t.projectId, t.entity, t.entityId, t.createdAt),
    index('audit_events_project_request').on(t.projectId, t.requestId),
  ],
);
