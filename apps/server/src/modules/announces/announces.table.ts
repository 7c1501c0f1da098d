import type { AnnounceAnswer, AnnounceSendVia, AnnounceStatus, AnnounceType } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/** Questions as stored: ids given by the server in the order the author wrote them. */
export interface StoredTypeInfo {
  questions: { id: number; text: string; answers: { id: number; text: string }[] }[];
  poll_multi_answers_allowed: boolean;
  poll_user_answer_allowed: boolean;
}

/** Announces and polls (spec comms §3). */
export const announces = pgTable(
  'announces',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    subject: text('subject').notNull(),
    type: text('type').$type<AnnounceType>().notNull().default('info'),
    status: text('status').$type<AnnounceStatus>().notNull().default('new'),
    typeInfo: jsonb('type_info').$type<StoredTypeInfo>().notNull(),
    sendVia: text('send_via').$type<AnnounceSendVia>().notNull().default('email'),
    /** Sanitised HTML. */
    body: text('body').notNull().default(''),
    useOwnerInfo: boolean('use_owner_info').notNull().default(false),
    executeAt: timestamp('execute_at', { withTimezone: true }),
    /**
     * Rounds of sending: 1 after the first start, one more per "send poll" (a reminder to those who
     * have not answered). A delivery whose wave is below this one is still to be handed out.
     */
    wave: integer('wave').notNull().default(0),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('announces_project').on(t.projectId, t.id),
    // The worker looks for announces to send and scheduled ones that are due.
    index('announces_status').on(t.status),
    index('announces_created_by').on(t.createdBy),
  ],
);

export const announceUsers = pgTable(
  'announce_users',
  {
    announceId: integer('announce_id')
      .notNull()
      .references(() => announces.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.announceId, t.userId] }), index('announce_users_user').on(t.userId)],
);

export const announceGroups = pgTable(
  'announce_groups',
  {
    announceId: integer('announce_id')
      .notNull()
      .references(() => announces.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.announceId, t.groupId] }), index('announce_groups_group').on(t.groupId)],
);

/**
 * One row per recipient: their token, how far delivery got (the wave handed out, the outbox mail,
 * the notification) and their answer. The worker hands a row out in the same transaction that
 * writes its mail to the outbox, so a restart resumes where it stopped and mails nobody twice.
 */
export const announceDeliveries = pgTable(
  'announce_deliveries',
  {
    id: serial('id').primaryKey(),
    announceId: integer('announce_id')
      .notNull()
      .references(() => announces.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    wave: integer('wave').notNull().default(0),
    /** The last mail written to the outbox for this recipient (null: none, e.g. no e-mail address). */
    mailId: integer('mail_id'),
    hasEmail: boolean('has_email'),
    handedAt: timestamp('handed_at', { withTimezone: true }),
    notifiedAt: timestamp('notified_at', { withTimezone: true }),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    answers: jsonb('answers').$type<AnnounceAnswer[]>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('announce_deliveries_token').on(t.token),
    uniqueIndex('announce_deliveries_recipient').on(t.announceId, t.userId),
    index('announce_deliveries_wave').on(t.announceId, t.wave, t.id),
    index('announce_deliveries_answered').on(t.announceId, t.answeredAt).where(sql`${t.answeredAt} IS NOT NULL`),
    index('announce_deliveries_user').on(t.userId),
  ],
);
