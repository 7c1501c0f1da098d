import type { ConversationListQuery, ConversationRecipient } from '@atrium/contract';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows, type Tx } from '../../core/db/client.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, type PageOfIds, pageOfIds } from '../../core/list-query.js';
import { enqueuePushFrom } from '../../core/push-outbox.js';
import { conversations } from './conversations.table.js';

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

/** The notification a start or a write inserted, as `n_*` columns of its answer. */
const NOTIFICATION_COLUMNS = sql.raw(
  ['id', 'type', 'data', 'significance', 'icon', 'color', 'popup_action', 'sound', 'read_at', 'created_at', 'updated_at']
    .map((c) => `n.${c} AS n_${c}`)
    .join(', '),
);

export interface NotificationColumns {
  n_id: number;
  n_type: string;
  n_data: Record<string, unknown>;
  n_significance: string;
  n_icon: string | null;
  n_color: string | null;
  n_popup_action: Record<string, unknown> | null;
  n_sound: Record<string, unknown> | null;
  n_read_at: Date | string | null;
  n_created_at: Date | string;
  n_updated_at: Date | string;
}

export interface StartedRow extends NotificationColumns {
  cid: number;
  mid: number;
  at: Date | string;
  to_name: string | null;
  me_name: string | null;
}

export interface WrittenRow extends NotificationColumns {
  mid: number;
  at: Date | string;
  me_name: string | null;
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

  /**
   * Starts a conversation in one statement: the conversation with its first message, both
   * participants (one unread for the interlocutor), the audit entry and the interlocutor's
   * "conversation received" notification with its push to their apps. Nothing is written (null) when `to` is not a user the
   * actor may reach (`recipientPredicate`).
   */
  async start(v: {
    actor: Actor;
    to: number;
    subject: string;
    body: string;
    audit: { ip: string; requestId: string };
  }): Promise<StartedRow | null> {
    const { actor } = v;
    const [r] = await queryRows<StartedRow>(
      this.db,
      sql`WITH ok AS (
          SELECT u.id, u.name FROM users u WHERE u.id = ${v.to} AND ${recipientPredicate(actor)}
        ), ids AS (
          SELECT nextval('conversations_id_seq')::int AS cid, nextval('conversation_messages_id_seq')::int AS mid,
            now()::timestamptz(3) AS at, ok.name AS to_name,
            (SELECT me.name FROM users me WHERE me.id = ${actor.userId}) AS me_name
          FROM ok
        ), c AS (
          INSERT INTO conversations (id, project_id, subject, author_id, interlocutor_id, messages_count, last_message_id, last_message_at, created_at, updated_at)
          SELECT cid, ${actor.projectId}::int, ${v.subject}::text, ${actor.userId}::int, ${v.to}::int, 1, mid, at, at, at FROM ids
        ), p AS (
          INSERT INTO conversation_participants (conversation_id, user_id, unread_count, last_read_at)
          SELECT cid, ${actor.userId}::int, 0, at FROM ids UNION ALL SELECT cid, ${v.to}::int, 1, NULL FROM ids
        ), m AS (
          INSERT INTO conversation_messages (id, conversation_id, author_id, body, created_at)
          SELECT mid, cid, ${actor.userId}::int, ${v.body}::text, at FROM ids
        ), a AS (
          INSERT INTO audit_events (project_id, user_id, api_key_id, entity, entity_id, action, after, ip, request_id)
          SELECT ${actor.projectId}::int, ${actor.userId}::int, ${actor.apiKeyId ?? null}::int, 'conversation', cid::text, 'create',
            jsonb_build_object('subject', ${v.subject}::text, 'interlocutor', jsonb_build_object('id', ${v.to}::int), 'message_id', mid),
            ${v.audit.ip}::text, ${v.audit.requestId}::text
          FROM ids
        ), n AS (
          INSERT INTO notifications (project_id, user_id, type, data, popup_action)
          SELECT ${actor.projectId}::int, ${v.to}::int, 'conversation_received',
            jsonb_build_object('conversation_id', cid, 'author', coalesce(me_name, ''), 'name', ${v.subject}::text),
            jsonb_build_object('code', 'goto:page', 'params', jsonb_build_object('page', '/conversation/' || cid))
          FROM ids
          RETURNING *
        ), push AS (${enqueuePushFrom('n')})
        SELECT ids.cid, ids.mid, ids.at, ids.to_name, ids.me_name, ${NOTIFICATION_COLUMNS} FROM ids, n`,
    );
    return r ? { ...r, cid: Number(r.cid), mid: Number(r.mid), n_id: Number(r.n_id) } : null;
  }

  /**
   * Writes a message in one statement: the message, the conversation's count and last message,
   * one more unread for the other side and nothing unread for the author (who has it in front of
   * them), the audit entry and the other side's "message received" notification with its push.
   */
  async write(v: {
    actor: Actor;
    conversationId: number;
    subject: string;
    to: number;
    body: string;
    audit: { ip: string; requestId: string };
  }): Promise<WrittenRow> {
    const { actor } = v;
    const [r] = await queryRows<WrittenRow>(
      this.db,
      sql`WITH ids AS (
          SELECT nextval('conversation_messages_id_seq')::int AS mid, now()::timestamptz(3) AS at,
            (SELECT me.name FROM users me WHERE me.id = ${actor.userId}) AS me_name
        ), m AS (
          INSERT INTO conversation_messages (id, conversation_id, author_id, body, created_at)
          SELECT mid, ${v.conversationId}::int, ${actor.userId}::int, ${v.body}::text, at FROM ids
        ), c AS (
          UPDATE conversations SET messages_count = messages_count + 1, last_message_id = ids.mid,
            last_message_at = ids.at, updated_at = ids.at
          FROM ids WHERE conversations.id = ${v.conversationId}
        ), p AS (
          UPDATE conversation_participants SET
            unread_count = CASE WHEN user_id = ${actor.userId} THEN 0 ELSE unread_count + 1 END,
            last_read_at = CASE WHEN user_id = ${actor.userId} THEN ids.at ELSE last_read_at END
          FROM ids WHERE conversation_id = ${v.conversationId}
        ), a AS (
          INSERT INTO audit_events (project_id, user_id, api_key_id, entity, entity_id, action, after, ip, request_id)
          SELECT ${actor.projectId}::int, ${actor.userId}::int, ${actor.apiKeyId ?? null}::int, 'conversation', ${String(v.conversationId)}::text, 'message',
            jsonb_build_object('message_id', mid), ${v.audit.ip}::text, ${v.audit.requestId}::text
          FROM ids
        ), n AS (
          INSERT INTO notifications (project_id, user_id, type, data, popup_action)
          SELECT ${actor.projectId}::int, ${v.to}::int, 'conversation_message_received',
            jsonb_build_object('conversation_id', ${v.conversationId}::int, 'from', coalesce(me_name, ''), 'name', ${v.subject}::text),
            jsonb_build_object('code', 'goto:page', 'params', jsonb_build_object('page', ${`/conversation/${v.conversationId}`}::text))
          FROM ids
          RETURNING *
        ), push AS (${enqueuePushFrom('n')})
        SELECT ids.mid, ids.at, ids.me_name, ${NOTIFICATION_COLUMNS} FROM ids, n`,
    );
    if (!r) throw new Error('conversation message insert returned nothing');
    return { ...r, mid: Number(r.mid), n_id: Number(r.n_id) };
  }

  /**
   * The user's unread bell notifications of a conversation (received, message received) become
   * read; answers how many did.
   */
  async readNotifications(conversationId: number, userId: number, db: DbOrTx = this.db): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      db,
      sql`UPDATE notifications SET read_at = now(), updated_at = now()
        WHERE user_id = ${userId} AND read_at IS NULL
          AND type IN ('conversation_received', 'conversation_message_received')
          AND data ->> 'conversation_id' = ${String(conversationId)}
        RETURNING id`,
    );
    return rows.length;
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
