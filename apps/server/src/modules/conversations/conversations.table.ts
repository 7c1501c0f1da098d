import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/**
 * A conversation (spec comms §3): a subject between the user who started it and the interlocutor.
 * A deleted user leaves their conversations to the other side (null here).
 */
export const conversations = pgTable(
  'conversations',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    subject: text('subject').notNull(),
    authorId: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    interlocutorId: integer('interlocutor_id').references(() => users.id, { onDelete: 'set null' }),
    messagesCount: integer('messages_count').notNull().default(0),
    lastMessageId: integer('last_message_id'),
    // Millisecond precision, as JSON carries it: a page's before_date then names a message exactly.
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    index('conversations_project_last').on(t.projectId, t.lastMessageAt, t.id),
    index('conversations_author').on(t.authorId),
    index('conversations_interlocutor').on(t.interlocutorId),
  ],
);

/** Each participant's side of a conversation: how many messages they have not read yet. */
export const conversationParticipants = pgTable(
  'conversation_participants',
  {
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    unreadCount: integer('unread_count').notNull().default(0),
    lastReadAt: timestamp('last_read_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.userId] }),
    index('conversation_participants_user').on(t.userId, t.conversationId),
    index('conversation_participants_unread').on(t.userId).where(sql`unread_count > 0`),
  ],
);

export const conversationMessages = pgTable(
  'conversation_messages',
  {
    id: serial('id').primaryKey(),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    authorId: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index('conversation_messages_page').on(t.conversationId, t.createdAt, t.id)],
);
