import { z } from 'zod';
import { IdSchema, IdValueSchema, ListQuerySchema } from './list-query.js';

// Announces and polls (spec comms §3, §4, §5, §7): a message to users and groups, sent by e-mail
// and/or as an in-app notification; a poll adds questions answered once per recipient's token.

export const ANNOUNCE_TYPES = ['info', 'poll'] as const;
export type AnnounceType = (typeof ANNOUNCE_TYPES)[number];

/**
 * new: a draft; scheduled: started, waits for execute_at; sending: mail handed out at a controlled
 * rate; sent: every recipient reached; stopped: halted by an operator (a poll takes no answers).
 */
export const ANNOUNCE_STATUSES = ['new', 'scheduled', 'sending', 'sent', 'stopped'] as const;
export type AnnounceStatus = (typeof ANNOUNCE_STATUSES)[number];

/** email: a mail to each recipient with an e-mail; app: an in-app notification; email_app: both. */
export const ANNOUNCE_SEND_VIA = ['email', 'app', 'email_app'] as const;
export type AnnounceSendVia = (typeof ANNOUNCE_SEND_VIA)[number];

export const ANNOUNCE_LIMITS = {
  name: 255,
  subject: 255,
  description: 1000,
  /** Characters of the rich-text body (HTML) as sent. */
  body: 100_000,
  questions: 50,
  answers: 30,
  text: 500,
  own_answer: 1000,
  users: 10_000,
  domains: 1000,
  /** Mails handed to SMTP per second by one server instance. */
  mails_per_second: 10,
} as const;

export const AnnounceAnswerOptionSchema = z.object({
  /** Assigned by the server (1, 2, … in the order given); ignored when sent. */
  id: z.number().int().optional(),
  text: z.string().trim().min(1).max(ANNOUNCE_LIMITS.text),
});
export const AnnounceQuestionSchema = z.object({
  id: z.number().int().optional(),
  text: z.string().trim().min(1).max(ANNOUNCE_LIMITS.text),
  answers: z.array(AnnounceAnswerOptionSchema).max(ANNOUNCE_LIMITS.answers).default([]),
});
export type AnnounceQuestion = z.infer<typeof AnnounceQuestionSchema>;

export const AnnounceTypeInfoSchema = z.object({
  questions: z.array(AnnounceQuestionSchema).max(ANNOUNCE_LIMITS.questions).default([]),
  poll_multi_answers_allowed: z.boolean().default(false),
  poll_user_answer_allowed: z.boolean().default(false),
});
export type AnnounceTypeInfo = z.infer<typeof AnnounceTypeInfoSchema>;

const fields = {
  name: z.string().trim().min(1).max(ANNOUNCE_LIMITS.name),
  description: z.string().trim().max(ANNOUNCE_LIMITS.description).nullable(),
  subject: z.string().trim().min(1).max(ANNOUNCE_LIMITS.subject),
  type: z.enum(ANNOUNCE_TYPES),
  type_info: AnnounceTypeInfoSchema,
  send_via: z.enum(ANNOUNCE_SEND_VIA),
  /** Rich text (HTML); the server keeps only safe tags and attributes. */
  body: z.string().max(ANNOUNCE_LIMITS.body),
  use_owner_info: z.boolean(),
  users: z.array(IdValueSchema).max(ANNOUNCE_LIMITS.users),
  domains: z.array(IdValueSchema).max(ANNOUNCE_LIMITS.domains),
  /** When a started announce is sent; null or past: at once. */
  execute_at: z.iso.datetime({ offset: true }).nullable(),
};

export const CreateAnnounceBodySchema = z.strictObject({
  ...fields,
  description: fields.description.default(null),
  type: fields.type.default('info'),
  type_info: fields.type_info.default({ questions: [], poll_multi_answers_allowed: false, poll_user_answer_allowed: false }),
  send_via: fields.send_via.default('email'),
  body: fields.body.default(''),
  use_owner_info: fields.use_owner_info.default(false),
  users: fields.users.default([]),
  domains: fields.domains.default([]),
  execute_at: fields.execute_at.default(null),
});
export type CreateAnnounceBody = z.infer<typeof CreateAnnounceBodySchema>;
export const UpdateAnnounceBodySchema = z.strictObject(fields).partial();
export type UpdateAnnounceBody = z.infer<typeof UpdateAnnounceBodySchema>;

const Named = z.object({ id: z.number(), name: z.string() });

/** Where the delivery stands: one row per recipient. */
export const AnnounceStatsSchema = z.object({
  recipients: z.number(),
  /** Recipients handed out (mail queued and/or notified). */
  delivered: z.number(),
  mail_sent: z.number(),
  mail_failed: z.number(),
  /** Recipients without an e-mail: reached in the app only (or not at all when sent by e-mail only). */
  without_email: z.number(),
  answered: z.number(),
});
export type AnnounceStats = z.infer<typeof AnnounceStatsSchema>;

export const AnnounceResultsSchema = z.object({
  recipients: z.number(),
  answered: z.number(),
  questions: z.array(
    z.object({
      id: z.number(),
      text: z.string(),
      /** Respondents who answered this question. */
      respondents: z.number(),
      answers: z.array(z.object({ id: z.number(), text: z.string(), count: z.number() })),
      own_answers: z.number(),
    }),
  ),
});
export type AnnounceResults = z.infer<typeof AnnounceResultsSchema>;

export const AnnounceSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  type: z.enum(ANNOUNCE_TYPES),
  status: z.enum(ANNOUNCE_STATUSES),
  type_info: z.object({
    questions: z.array(z.object({ id: z.number(), text: z.string(), answers: z.array(z.object({ id: z.number(), text: z.string() })) })),
    poll_multi_answers_allowed: z.boolean(),
    poll_user_answer_allowed: z.boolean(),
  }),
  send_via: z.enum(ANNOUNCE_SEND_VIA),
  body: z.string(),
  use_owner_info: z.boolean(),
  /** Recipient users and groups the caller may see. */
  users: z.array(z.number()),
  domains: z.array(z.number()),
  users_info: z.array(Named),
  domains_info: z.array(Named),
  execute_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  created_by_user: Named.nullable(),
  stats: AnnounceStatsSchema,
  /** with=results: the answers counted per question. */
  results: AnnounceResultsSchema.optional(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_send: z.boolean(),
  can_delete: z.boolean(),
});
export type Announce = z.infer<typeof AnnounceSchema>;

export const AnnounceListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });

/** One recipient's answer to one question. */
export const AnnounceAnswerSchema = z.strictObject({
  question_id: z.number().int().min(1).max(1000),
  answer_ids: z.array(z.number().int().min(1).max(1000)).max(ANNOUNCE_LIMITS.answers).default([]),
  own_answer: z.string().trim().max(ANNOUNCE_LIMITS.own_answer).nullable().default(null),
});
export type AnnounceAnswer = z.infer<typeof AnnounceAnswerSchema>;
export const AnnounceAnswerBodySchema = z.strictObject({
  answers: z.array(AnnounceAnswerSchema).max(ANNOUNCE_LIMITS.questions),
});
export type AnnounceAnswerBody = z.infer<typeof AnnounceAnswerBodySchema>;

export const AnnounceResponseSchema = z.object({
  /** The recipient's delivery. */
  id: z.number(),
  announce_id: z.number(),
  user: z.object({ id: z.number(), name: z.string(), email: z.string().nullable() }).nullable(),
  answered_at: z.string(),
  answers: z.array(z.object({ question_id: z.number(), answer_ids: z.array(z.number()), own_answer: z.string().nullable() })),
});
export type AnnounceResponse = z.infer<typeof AnnounceResponseSchema>;

export const AnnounceResponsesQuerySchema = ListQuerySchema.extend({ announce_id: IdSchema });
export const AnnounceResponsesDownloadQuerySchema = z.object({
  announce_id: IdSchema,
  export_format: z.enum(['csv', 'xlsx']).default('xlsx'),
});

export const AnnounceTokenParamsSchema = z.object({ token: z.string().regex(/^[0-9a-f]{64}$/) });

/** The announce as its recipient reads it from the mail link (no sign-in: the token is the key). */
export const PublicAnnounceSchema = z.object({
  name: z.string(),
  subject: z.string(),
  type: z.enum(ANNOUNCE_TYPES),
  body: z.string(),
  type_info: AnnounceSchema.shape.type_info,
  owner: z.object({ name: z.string(), email: z.string().nullable() }).nullable(),
  project: z.string(),
  recipient: z.string(),
  /** A poll that still takes answers. */
  open: z.boolean(),
  answered_at: z.string().nullable(),
  answers: AnnounceResponseSchema.shape.answers.nullable(),
});
export type PublicAnnounce = z.infer<typeof PublicAnnounceSchema>;
