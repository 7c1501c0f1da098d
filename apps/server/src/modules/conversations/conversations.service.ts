import {
  type BulkDeleteResult,
  CONVERSATION_EVENTS,
  type Conversation,
  type ConversationListQuery,
  type ConversationMessage,
  type ConversationMessageBody,
  type ConversationMessagesQuery,
  type ConversationRecipient,
  type ConversationRecipientsQuery,
  type ConversationUnread,
  type ListMeta,
  type Notification,
  REALTIME_EVENTS,
  type StartConversationBody,
  topics,
  type UpdateConversationBody,
} from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { withRelations } from '../../core/list-query.js';
import type { RealtimeHub } from '../../core/realtime.js';
import { toNotification } from '../notifications/notifications.service.js';
import type { ConversationRow, ConversationsRepository, MessageRow, NotificationColumns } from './conversations.repository.js';

const date = (d: Date | string) => (d instanceof Date ? d : new Date(d));
const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** The notification a start or a write inserted, as the bell shows it. */
function notificationOf(r: NotificationColumns): Notification {
  return toNotification({
    id: r.n_id,
    projectId: 0,
    userId: 0,
    type: r.n_type,
    data: r.n_data,
    significance: r.n_significance,
    icon: r.n_icon,
    color: r.n_color,
    popupAction: r.n_popup_action,
    sound: r.n_sound,
    readAt: r.n_read_at === null ? null : date(r.n_read_at),
    createdAt: date(r.n_created_at),
    updatedAt: date(r.n_updated_at),
  });
}

export function toMessage(r: MessageRow): ConversationMessage {
  return {
    id: r.id,
    conversation_id: r.conversation_id,
    author: r.author_id === null ? null : { id: Number(r.author_id), name: r.author_name ?? '' },
    message: r.body,
    created_at: iso(r.created_at),
  };
}

/**
 * Conversations (spec comms §3, §6, §7). Any signed-in user reads the conversations they take part
 * in; the view permissions (my groups, below, all) let the management oversee those of their
 * groups' users. Starting one needs "create conversations" and a recipient the actor may reach
 * (`recipientPredicate`); writing needs "create messages" and being one of its two users.
 */
export class ConversationsService {
  constructor(
    private readonly repo: ConversationsRepository,
    private readonly realtime: RealtimeHub,
    /** A message's notification may queue its pushes (core/push-outbox.ts): the push worker looks at once. */
    private readonly pushQueued: () => void = () => undefined,
  ) {}

  private toConversation(actor: Actor, r: ConversationRow): Conversation {
    const other = Number(r.author_id) === actor.userId ? r.interlocutor_id : r.author_id;
    return {
      id: r.id,
      subject: r.subject,
      author: r.author_id === null ? null : { id: Number(r.author_id), name: r.author_name ?? '' },
      interlocutor: r.interlocutor_id === null ? null : { id: Number(r.interlocutor_id), name: r.interlocutor_name ?? '' },
      last_message:
        r.lm_id === null
          ? null
          : toMessage({
              id: Number(r.lm_id),
              conversation_id: r.id,
              author_id: r.lm_author_id,
              author_name: r.lm_author_name,
              body: r.lm_body ?? '',
              created_at: r.lm_created_at ?? r.last_message_at,
            }),
      messages_count: Number(r.messages_count),
      unread_count: Number(r.unread_count),
      is_participant: r.is_participant,
      can_write: r.is_participant && other !== null && actor.permissions.has('can_create_conversation_messages'),
      can_edit: Number(r.author_id) === actor.userId && actor.permissions.has('can_create_conversations'),
      can_delete: actor.permissions.has('can_delete_conversations'),
      created_at: iso(r.created_at),
      updated_at: iso(r.updated_at),
      last_message_at: iso(r.last_message_at),
    };
  }

  private async visible(actor: Actor, id: number): Promise<ConversationRow> {
    const [r] = await this.repo.rows(actor, [id]);
    if (!r) throw notFound();
    return r;
  }

  async list(actor: Actor, q: ConversationListQuery): Promise<{ data: Conversation[]; meta: ListMeta }> {
    // No relation is offered: the participants and the last message always come with each conversation.
    withRelations([], q.with);
    const page = await this.repo.page(actor, q);
    const rows = await this.repo.rows(actor, page.ids);
    return {
      data: rows.map((r) => this.toConversation(actor, r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  async get(actor: Actor, id: number): Promise<Conversation> {
    return this.toConversation(actor, await this.visible(actor, id));
  }

  unread(actor: Actor): Promise<ConversationUnread> {
    return this.repo.unreadTotals(actor);
  }

  private assertCreate(actor: Actor): void {
    if (!actor.permissions.has('can_create_conversations')) throw prohibited([{ permission: 'can_create_conversations' }]);
  }

  async recipients(actor: Actor, q: ConversationRecipientsQuery): Promise<{ data: ConversationRecipient[]; meta: ListMeta }> {
    this.assertCreate(actor);
    const { data, total } = await this.repo.recipients(actor, q);
    return { data, meta: { total, page: q.page, size: q.size } };
  }

  async start(ctx: RequestContext, body: StartConversationBody): Promise<Conversation> {
    const { actor } = ctx;
    this.assertCreate(actor);
    const to = body.interlocutor.id;
    if (to === actor.userId) throw new AppError('cannot_communicate_with_himself', [{ field: 'interlocutor.id' }]);
    // One statement writes everything (repository `start`); nothing when the recipient is out of
    // reach. The same answer whether the user does not exist or is out of reach: nothing is told
    // about users one may not see.
    const r = await this.repo.start({ actor, to, subject: body.subject, body: body.message, audit: ctx });
    this.pushQueued();
    if (!r) throw new AppError('invalid_related_entity', [{ field: 'interlocutor.id', entity: 'users', ids: [to] }]);
    const author = { id: actor.userId, name: r.me_name ?? '' };
    const message: ConversationMessage = {
      id: r.mid,
      conversation_id: r.cid,
      author,
      message: body.message,
      created_at: iso(r.at),
    };
    await this.fanOut(actor, [
      { userId: actor.userId, event: CONVERSATION_EVENTS.message, data: { conversation_id: r.cid, message } },
      { userId: to, event: CONVERSATION_EVENTS.message, data: { conversation_id: r.cid, message } },
      { userId: to, event: REALTIME_EVENTS.notification, data: notificationOf(r) },
    ]);
    return {
      id: r.cid,
      subject: body.subject,
      author,
      interlocutor: { id: to, name: r.to_name ?? '' },
      last_message: message,
      messages_count: 1,
      unread_count: 0,
      is_participant: true,
      can_write: actor.permissions.has('can_create_conversation_messages'),
      can_edit: actor.permissions.has('can_create_conversations'),
      can_delete: actor.permissions.has('can_delete_conversations'),
      created_at: iso(r.at),
      updated_at: iso(r.at),
      last_message_at: iso(r.at),
    };
  }

  async update(ctx: RequestContext, id: number, body: UpdateConversationBody): Promise<Conversation> {
    const before = await this.visible(ctx.actor, id);
    if (Number(before.author_id) !== ctx.actor.userId || !ctx.actor.permissions.has('can_create_conversations'))
      throw prohibited([{ permission: 'can_create_conversations' }]);
    await this.repo.transaction(async (tx) => {
      await this.repo.updateSubject(tx, id, body.subject);
      await recordAudit(tx, ctx, {
        entity: 'conversation',
        entityId: id,
        action: 'update',
        before: { subject: before.subject },
        after: body,
      });
    });
    return this.get(ctx.actor, id);
  }

  async write(ctx: RequestContext, id: number, body: ConversationMessageBody): Promise<ConversationMessage> {
    const { actor } = ctx;
    const c = await this.visible(actor, id);
    if (!c.is_participant) throw prohibited();
    if (!actor.permissions.has('can_create_conversation_messages')) throw prohibited([{ permission: 'can_create_conversation_messages' }]);
    const other = Number(c.author_id) === actor.userId ? c.interlocutor_id : c.author_id;
    // The other side's user was deleted: nobody would read it.
    if (other === null) throw new AppError('cannot_perform_action');
    const to = Number(other);
    const r = await this.repo.write({ actor, conversationId: id, subject: c.subject, to, body: body.message, audit: ctx });
    this.pushQueued();
    const message: ConversationMessage = {
      id: r.mid,
      conversation_id: id,
      author: { id: actor.userId, name: r.me_name ?? '' },
      message: body.message,
      created_at: iso(r.at),
    };
    await this.fanOut(actor, [
      { userId: actor.userId, event: CONVERSATION_EVENTS.message, data: { conversation_id: id, message } },
      { userId: to, event: CONVERSATION_EVENTS.message, data: { conversation_id: id, message } },
      { userId: to, event: REALTIME_EVENTS.notification, data: notificationOf(r) },
    ]);
    return message;
  }

  /**
   * The newest messages, or those before a moment. Reading the newest marks the conversation read
   * for a participant, and its bell notifications (received, message received) with it.
   */
  async messages(
    actor: Actor,
    id: number,
    q: ConversationMessagesQuery,
  ): Promise<{ data: ConversationMessage[]; meta: { has_more: boolean; size: number } }> {
    const c = await this.visible(actor, id);
    const rows = await this.repo.messages(id, { date: q.before_date, id: q.before_id }, q.size);
    if (c.is_participant && !q.before_date) await this.read(actor, id, c.unread_count > 0);
    return { data: rows.slice(0, q.size).map(toMessage), meta: { has_more: rows.length > q.size, size: q.size } };
  }

  /** Marks the conversation read for the caller (a message came in while it was open), its bell notifications too. */
  async markRead(ctx: RequestContext, id: number): Promise<{ unread_count: number }> {
    const c = await this.visible(ctx.actor, id);
    if (!c.is_participant) throw prohibited();
    const notified = await this.repo.transaction(async (tx) => {
      const was = await this.repo.markRead(id, ctx.actor.userId, tx);
      const notified = await this.repo.readNotifications(id, ctx.actor.userId, tx);
      await recordAudit(tx, ctx, { entity: 'conversation', entityId: id, action: 'read', after: { read: was, notifications: notified } });
      return notified;
    });
    await this.realtime.publish(ctx.actor.projectId, topics.user(ctx.actor.userId), CONVERSATION_EVENTS.read, {
      conversation_id: id,
      notifications: notified,
    });
    return { unread_count: 0 };
  }

  private async read(actor: Actor, id: number, unread: boolean): Promise<void> {
    const was = unread ? await this.repo.markRead(id, actor.userId) : 0;
    const notified = await this.repo.readNotifications(id, actor.userId);
    if (was > 0 || notified > 0)
      await this.realtime.publish(actor.projectId, topics.user(actor.userId), CONVERSATION_EVENTS.read, {
        conversation_id: id,
        notifications: notified,
      });
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id);
    if (!ctx.actor.permissions.has('can_delete_conversations')) throw prohibited([{ permission: 'can_delete_conversations' }]);
    await this.repo.transaction(async (tx) => {
      await this.repo.delete(tx, id);
      await recordAudit(tx, ctx, {
        entity: 'conversation',
        entityId: id,
        action: 'delete',
        before: { subject: before.subject, author_id: before.author_id, interlocutor_id: before.interlocutor_id },
      });
    });
    for (const u of new Set([before.author_id, before.interlocutor_id]))
      if (u !== null)
        await this.realtime.publish(ctx.actor.projectId, topics.user(Number(u)), CONVERSATION_EVENTS.deleted, { conversation_id: id });
  }

  /** Each id on its own: one out of reach (not found) or not deletable never undoes the others. */
  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  /**
   * A new message to the open consoles and apps of the conversation's users (each on their own
   * topic) and the bell notification, after the commit, in one round trip.
   */
  private async fanOut(actor: Actor, events: { userId: number; event: string; data: unknown }[]): Promise<void> {
    await this.realtime.publishMany(
      actor.projectId,
      events.map((e) => ({ topic: topics.user(e.userId), event: e.event, data: e.data })),
    );
  }
}
