import { z } from 'zod';
import { IdSchema, IdValueSchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Conversations (spec comms §3, §6, §7): a subject between two users (a resident and the management,
// an operator and a resident), with its messages paged by before_date.

/** Longest subject, in characters. */
export const CONVERSATION_SUBJECT_MAX = 200;
/** Longest message, in characters: a chat message, not a document. */
export const CONVERSATION_MESSAGE_MAX = 4000;
/** Messages of one page by default, and at most. */
export const CONVERSATION_MESSAGES_PAGE = 30;
export const CONVERSATION_MESSAGES_PAGE_MAX = 100;

/**
 * Realtime events of conversations, sent on each participant's own topic (`topics.user(id)`), so
 * a resident's app and an operator's console hear them with the one subscription they already hold.
 */
export const CONVERSATION_EVENTS = {
  /** A message was written: `ConversationMessageEvent`. */
  message: 'conversation-message',
  /** The user read a conversation (on another tab or device): `{ conversation_id }`. */
  read: 'conversation-read',
  /** A conversation was deleted: `{ conversation_id }`. */
  deleted: 'conversation-deleted',
} as const;

/** A control character other than tab and line breaks (allowed only when `lines`). */
const hasControl = (s: string, lines: boolean): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 || c === 0x7f) && !(lines && (c === 0x09 || c === 0x0a || c === 0x0d))) return true;
  }
  return false;
};

const MessageTextSchema = z
  .string()
  .trim()
  .min(1, M.required)
  .max(CONVERSATION_MESSAGE_MAX)
  // A NUL cannot be stored, and no other control character but tab and line breaks belongs in a chat.
  .refine((s) => !hasControl(s, true), M.invalid_value);

export const StartConversationBodySchema = z.strictObject({
  subject: z
    .string()
    .trim()
    .min(1, M.required)
    .max(CONVERSATION_SUBJECT_MAX)
    .refine((s) => !hasControl(s, false), M.invalid_value),
  interlocutor: z.strictObject({ id: IdValueSchema }),
  message: MessageTextSchema,
});
export type StartConversationBody = z.infer<typeof StartConversationBodySchema>;

export const UpdateConversationBodySchema = StartConversationBodySchema.pick({ subject: true }).strict();
export type UpdateConversationBody = z.infer<typeof UpdateConversationBodySchema>;

export const ConversationMessageBodySchema = z.strictObject({ message: MessageTextSchema });
export type ConversationMessageBody = z.infer<typeof ConversationMessageBodySchema>;

/** A participant as others see them; null when that user was deleted. */
export const ConversationUserSchema = z.object({ id: z.number().int(), name: z.string() });
export type ConversationUser = z.infer<typeof ConversationUserSchema>;

export const ConversationMessageSchema = z.object({
  id: z.number().int(),
  conversation_id: z.number().int(),
  author: ConversationUserSchema.nullable(),
  message: z.string(),
  created_at: z.string(),
});
export type ConversationMessage = z.infer<typeof ConversationMessageSchema>;

export const ConversationSchema = z.object({
  id: z.number().int(),
  subject: z.string(),
  /** Who started it. */
  author: ConversationUserSchema.nullable(),
  /** Whom it was started with. */
  interlocutor: ConversationUserSchema.nullable(),
  last_message: ConversationMessageSchema.nullable(),
  messages_count: z.number().int(),
  /** Messages the caller has not read yet (0 for one who only oversees it). */
  unread_count: z.number().int(),
  /** The caller is one of its two users (not only someone who may oversee it). */
  is_participant: z.boolean(),
  /** The caller may write in it now. */
  can_write: z.boolean(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  last_message_at: z.string(),
});
export type Conversation = z.infer<typeof ConversationSchema>;

export const ConversationListQuerySchema = ListQuerySchema.extend({
  /** Text in the subject or a participant's name. */
  search: z.string().trim().min(1).max(100).optional(),
  /** Only conversations with messages the caller has not read. */
  unread: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
});
export type ConversationListQuery = z.infer<typeof ConversationListQuerySchema>;

/** Messages before a moment (newest first); `before_id` breaks ties between messages of one millisecond. */
export const ConversationMessagesQuerySchema = z.object({
  before_date: z.iso
    .datetime({ offset: true })
    // Year 0 is ISO text but no PostgreSQL date.
    .refine((v) => new Date(v).getUTCFullYear() >= 1, M.date)
    .optional(),
  before_id: IdSchema.optional(),
  size: z.coerce.number().int().min(1).max(CONVERSATION_MESSAGES_PAGE_MAX).default(CONVERSATION_MESSAGES_PAGE),
});
export type ConversationMessagesQuery = z.infer<typeof ConversationMessagesQuerySchema>;

export const ConversationMessagesAnswerSchema = z.object({
  /** Newest first. */
  data: z.array(ConversationMessageSchema),
  meta: z.object({ has_more: z.boolean(), size: z.number().int() }),
});

export const ConversationRecipientsQuerySchema = z.object({
  search: z.string().trim().min(1).max(100).optional(),
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(100).default(20),
});
export type ConversationRecipientsQuery = z.infer<typeof ConversationRecipientsQuerySchema>;

export const ConversationRecipientSchema = ConversationUserSchema;
export type ConversationRecipient = ConversationUser;

export const ConversationUnreadSchema = z.object({ conversations: z.number().int(), messages: z.number().int() });
export type ConversationUnread = z.infer<typeof ConversationUnreadSchema>;

/** Data of CONVERSATION_EVENTS.message. */
export interface ConversationMessageEvent {
  conversation_id: number;
  message: ConversationMessage;
}
