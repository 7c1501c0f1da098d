import { bigint, date, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';

/**
 * Licences installed in a project: the signed file as the issuer made it (verified again on every
 * read, so a row changed behind Atrium's back counts for nothing), and its dates for queries.
 */
export const licenses = pgTable(
  'licenses',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** The issuer's id of the licence (the payload's id). */
    licenseId: text('license_id').notNull(),
    source: text('source').notNull(),
    file: jsonb('file').$type<{ license: unknown; signature: string }>().notNull(),
    periodFrom: bigint('period_from', { mode: 'number' }).notNull(),
    periodTo: bigint('period_to', { mode: 'number' }).notNull(),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('licenses_project_license').on(t.projectId, t.licenseId)],
);

/** What a project used of its counted features, one row per day (the licences-used report). */
export const licenseUsage = pgTable(
  'license_usage',
  {
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    sipNumbersUsed: integer('sip_numbers_used').notNull(),
    mobileAppUsed: integer('mobile_app_used').notNull(),
    ukey2Used: integer('ukey2_used').notNull(),
    sipLimit: integer('sip_limit'),
    mobileAppLimit: integer('mobile_app_limit'),
    ukey2Limit: integer('ukey2_limit'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day] })],
);

/** When an expiry notice about one licence (of the project or of a group) was last sent. */
export const licenseNotices = pgTable(
  'license_notices',
  {
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** `project:<licence row id>` or `group:<group id>:<type>`. */
    subject: text('subject').notNull(),
    sentOn: date('sent_on', { mode: 'string' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.subject] })],
);
