import type { ConversationListQuery, ConversationRecipient } from '@atrium/contract';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows, type Tx } from '../../core/db/client.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, type PageOfIds, pageOfIds } from '../../core/list-query.js';
import { conversationMessages, conversationParticipants, conversations } from './conversations.table.js';

const C = qualifiedColumns(conversations);

export const CONVERSATION_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${C.id}`, type: 'number' },
    subject: { expr: sql`${C.subject}`, type: 'text' },
    author_id: { expr: sql`${C.authorId}`, type: 'number' },
    interlocutor_id: { expr: sql`${C.interlocutorId}`, type: 'number' },
    messages_count: { expr: sql`${C.messagesCount}`, type: 'number' },
    created_at: { expr: sql`${C.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${C.updatedAt}`, type: 'date' },
    last_message_at: { expr: sql`${C.lastMessageAt}`, type: 'date' },
  },
  defaultSort: '-last_message_at',
  tiebreak: sql`${C.id} DESC`,
};

/**
 * A conversation belongs to the groups of its two users: "conversations of my groups" are those
 * with a participant in my groups (or below, for the descendants scope).
 */
const target: AclTarget = {
  inGroups: (cond) =>
    sql`EXISTS (SELECT 1 FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id IN (${C.authorId}, ${C.interlocutorId}) AND ${cond})`,
  createdBy: sql`${C.authorId}`,
};

/** The actor is one of the conversation's two users. */
const participant = (actor: Actor): SQL => sql`(${C.authorId} = ${actor.userId} OR ${C.interlocutorId} = ${actor.userId})`;

/** Conversations the actor sees: their own (as either side), and those their view scope covers. */
export const conversationVisible = (actor: Actor): SQL =>
  sql`coalesce(${participant(actor)} OR ${aclPredicate(actor, 'conversations', 'view', target)}, FALSE)`;

/**
 * Users the actor may start a conversation with, as a predicate on users aliased `u` (never the actor):
 * - everyone of the project with "send conversations to everyone";
 * - the users whose conversations the actor's view scope covers (management writing to residents);
 * - the users who accept messages from users below their groups, when the actor is in one of their
 *   groups or below (a resident writing to the management of the building).
 */
export function recipientPredicate(actor: Actor): SQL {
  const inScope = aclPredicate(actor, 'conversations', 'view', {
    inGroups: (cond) => sql`u.id IN (SELECT ug.user_id FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ${cond})`,
  });
  const accepting = sql`(EXISTS (SELECT 1 FROM roles r WHERE r.id = u.role_id AND ${'can_accept_messages_from_descendant_users'} = ANY(r.permissions))
    AND EXISTS (SELECT 1 FROM user_groups ug JOIN groups mine ON mine.id = ANY(${intArray(actor.groupIds)})
      WHERE ug.user_id = u.id AND mine.path @> ARRAY[ug.group_id]))`;
  const anyone = actor.permissions.has('can_send_conversations_to_all') ? sql`TRUE` : sql`FALSE`;
  return sql`(u.project_id = ${actor.projectId} AND u.id <> ${actor.userId} AND (${anyone} OR ${inScope} OR ${accepting}))`;
}

export interface ConversationRow {
  id: number;
  subject: string;
  author_id: number | null;
  author_name: string | null;
  interlocutor_id: number | null;
  interlocutor_name: string | null;
  messages_count: number;
  unread_count: number;
  is_participant: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  last_message_at: Date | string;
  lm_id: number | null;
  lm_author_id: number | null;
  lm_author_name: string | null;
  lm_body: string | null;
  lm_created_at: Date | string | null;
}

export interface MessageRow {
  id: number;
  conversation_id: number;
  author_id: number | null;
  author_name: string | null;
  body: string;
  created_at: Date | string;
}

/** The only reader and writer of the conversation tables. */
export class ConversationsRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async page(actor: Actor, q: ConversationListQuery): Promise<PageOfIds> {
    const where = and(
      eq(conversations.projectId, actor.projectId),
      conversationVisible(actor),
      filtersSql(CONVERSATION_LIST, q),
      q.search
        ? sql`(${C.subject} ILIKE ${containsPattern(q.search)} OR EXISTS (SELECT 1 FROM users su WHERE su.id IN (${C.authorId}, ${C.interlocutorId}) AND su.name ILIKE ${containsPattern(q.search)}))`
        : undefined,
      q.unread === undefined
        ? undefined
        : sql`${q.unread ? sql`` : sql`NOT`} EXISTS (SELECT 1 FROM conversation_participants cp WHERE cp.conversation_id = ${C.id} AND cp.user_id = ${actor.userId} AND cp.unread_count > 0)`,
    );
    return pageOfIds(this.db, { table: conversations, id: sql`${C.id}`, where, spec: CONVERSATION_LIST, query: q });
  }

  /** Conversations by id, as `actor` sees them (their unread count); only those visible to them. */
  async rows(actor: Actor, ids: readonly number[]): Promise<ConversationRow[]> {
    if (!ids.length) return [];
    const rows = await queryRows<ConversationRow>(
      this.db,
      sql`SELECT ${C.id} AS id, ${C.subject} AS subject, ${C.authorId} AS author_id, au.name AS author_name,
          ${C.interlocutorId} AS interlocutor_id, iu.name AS interlocutor_name, ${C.messagesCount} AS messages_count,
          coalesce(cp.unread_count, 0)::int AS unread_count, (cp.user_id IS NOT NULL) AS is_participant,
          ${C.createdAt} AS created_at, ${C.updatedAt} AS updated_at, ${C.lastMessageAt} AS last_message_at,
          lm.id AS lm_id, lm.author_id AS lm_author_id, lmu.name AS lm_author_name, lm.body AS lm_body, lm.created_at AS lm_created_at
        FROM conversations
        LEFT JOIN users au ON au.id = ${C.authorId}
        LEFT JOIN users iu ON iu.id = ${C.interlocutorId}
        LEFT JOIN conversation_participants cp ON cp.conversation_id = ${C.id} AND cp.user_id = ${actor.userId}
        LEFT JOIN conversation_messages lm ON lm.id = ${C.lastMessageId}
        LEFT JOIN users lmu ON lmu.id = lm.author_id
        WHERE ${C.id} = ANY(${intArray(ids)}) AND ${C.projectId} = ${actor.projectId} AND ${conversationVisible(actor)}`,
    );
    return inPageOrder(
      ids,
      rows.map((r) => ({ ...r, id: Number(r.id) })),
    );
  }

  async recipients(actor: Actor, q: { search?: string | undefined; page: number; size: number }) {
    const search = q.search ? sql`AND u.name ILIKE ${containsPattern(q.search)}` : sql``;
    const rows = await queryRows<ConversationRecipient & { total: number }>(
      this.db,
      sql`SELECT u.id, u.name, count(*) OVER ()::int AS total FROM users u
        WHERE ${recipientPredicate(actor)} ${search}
        ORDER BY u.name, u.id LIMIT ${q.size} OFFSET ${(q.page - 1) * q.size}`,
    );
    let total = Number(rows[0]?.total ?? 0);
    if (!rows.length && q.page > 1) {
      const [c] = await queryRows<{ n: number }>(
        this.db,
        sql`SELECT count(*)::int AS n FROM users u WHERE ${recipientPredicate(actor)} ${search}`,
      );
      total = Number(c?.n ?? 0);
    }
    return { data: rows.map((r) => ({ id: Number(r.id), name: r.name })), total };
  }

  async isRecipient(actor: Actor, userId: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT u.id FROM users u WHERE u.id = ${userId} AND ${recipientPredicate(actor)}`,
    );
    return rows.length > 0;
  }

  async insertConversation(tx: Tx, v: { projectId: number; subject: string; authorId: number; interlocutorId: number }): Promise<number> {
    const [r] = await tx.insert(conversations).values(v).returning({ id: conversations.id });
    await tx.insert(conversationParticipants).values([
      { conversationId: r!.id, userId: v.authorId },
      { conversationId: r!.id, userId: v.interlocutorId },
    ]);
    return r!.id;
  }

  /**
   * Adds a message and moves the conversation on: its count and last message, one more unread for
   * every participant but the author, and nothing unread left for the author (who has it in front of them).
   */
  async insertMessage(tx: Tx, conversationId: number, authorId: number, body: string): Promise<MessageRow> {
    const [m] = await tx
      .insert(conversationMessages)
      .values({ conversationId, authorId, body })
      .returning({ id: conversationMessages.id, createdAt: conversationMessages.createdAt });
    await tx
      .update(conversations)
      .set({
        messagesCount: sql`${conversations.messagesCount} + 1`,
        lastMessageId: m!.id,
        lastMessageAt: m!.createdAt,
        updatedAt: sql`now()`,
      })
      .where(eq(conversations.id, conversationId));
    await tx
      .update(conversationParticipants)
      .set({
        unreadCount: sql`CASE WHEN ${conversationParticipants.userId} = ${authorId} THEN 0 ELSE ${conversationParticipants.unreadCount} + 1 END`,
        lastReadAt: sql`CASE WHEN ${conversationParticipants.userId} = ${authorId} THEN now() ELSE ${conversationParticipants.lastReadAt} END`,
      })
      .where(eq(conversationParticipants.conversationId, conversationId));
    const [row] = await this.messagesWhere(tx, sql`m.id = ${m!.id}`, 1);
    return row!;
  }

  async updateSubject(tx: Tx, id: number, subject: string): Promise<void> {
    await tx.update(conversations).set({ subject, updatedAt: sql`now()` }).where(eq(conversations.id, id));
  }

  /** One page of messages, newest first; one more than `size` tells whether older ones remain. */
  messages(conversationId: number, before: { date?: string | undefined; id?: number | undefined }, size: number): Promise<MessageRow[]> {
    const cond = before.date
      ? before.id
        ? sql`AND (m.created_at, m.id) < (${before.date}::timestamptz, ${before.id}::int)`
        : sql`AND m.created_at < ${before.date}::timestamptz`
      : sql``;
    return this.messagesWhere(this.db, sql`m.conversation_id = ${conversationId} ${cond}`, size + 1);
  }

  private async messagesWhere(db: DbOrTx, where: SQL, limit: number): Promise<MessageRow[]> {
    const rows = await queryRows<MessageRow>(
      db,
      sql`SELECT m.id, m.conversation_id, m.author_id, u.name AS author_name, m.body, m.created_at
        FROM conversation_messages m LEFT JOIN users u ON u.id = m.author_id
        WHERE ${where} ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), conversation_id: Number(r.conversation_id) }));
  }

  /** Marks the conversation read for the user; answers how many messages were unread. */
  async markRead(conversationId: number, userId: number, db: DbOrTx = this.db): Promise<number> {
    const rows = await queryRows<{ before: number }>(
      db,
      // The FROM side is the row as it was before this update: it tells how many were unread.
      sql`UPDATE conversation_participants p SET unread_count = 0, last_read_at = now()
        FROM conversation_participants old
        WHERE p.conversation_id = ${conversationId} AND p.user_id = ${userId} AND p.unread_count > 0
          AND old.conversation_id = p.conversation_id AND old.user_id = p.user_id
        RETURNING old.unread_count AS before`,
    );
    return Number(rows[0]?.before ?? 0);
  }

  async unreadTotals(actor: Actor): Promise<{ conversations: number; messages: number }> {
    const [r] = await queryRows<{ conversations: number; messages: number }>(
      this.db,
      sql`SELECT count(*)::int AS conversations, coalesce(sum(cp.unread_count), 0)::int AS messages
        FROM conversation_participants cp JOIN conversations c ON c.id = cp.conversation_id
        WHERE cp.user_id = ${actor.userId} AND cp.unread_count > 0 AND c.project_id = ${actor.projectId}`,
    );
    return { conversations: Number(r?.conversations ?? 0), messages: Number(r?.messages ?? 0) };
  }

  async delete(tx: Tx, id: number): Promise<void> {
    await tx.delete(conversations).where(eq(conversations.id, id));
  }
}
