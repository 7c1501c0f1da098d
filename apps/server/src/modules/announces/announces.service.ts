import {
  ANNOUNCE_LIMITS,
  type Announce,
  type AnnounceAnswer,
  type AnnounceAnswerBody,
  type AnnounceResponse,
  type AnnounceResults,
  type AnnounceStatus,
  type BulkDeleteResult,
  type CreateAnnounceBody,
  type ListMeta,
  type ListQuery,
  type Locale,
  type PublicAnnounce,
  type UpdateAnnounceBody,
} from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Tx } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { findMailTemplatesOfUsers } from '../../core/mail/compose.js';
import type { Mailer, QueuedMail } from '../../core/mail/mailer.js';
import type { OutgoingMail } from '../../core/mail/smtp.js';
import { type CompanyParams, companyParams, type MailTemplateText, renderMail } from '../../core/mail/templates.js';
import type { ProjectInfo } from '../../core/project-info.js';
import type { NewNotification } from '../notifications/notifications.service.js';
import { announceParams, sanitizeBody } from './announces.mail.js';
import type { AnnounceRow, AnnouncesRepository, DeliveryToHand, StoredTypeInfo } from './announces.repository.js';

export interface AnnounceNotifier {
  notify(projectId: number, userId: number, n: NewNotification): Promise<unknown>;
}

export interface AnnouncesOptions {
  /**
   * Each project's link base and management company (core/project-info.ts): recipients' links lead
   * to `<server URL or PUBLIC_URL>/announce/<token>`, and the footer names the company.
   */
  projectInfo: Pick<ProjectInfo, 'of'>;
  /** Mails (recipients) handed out per second by this instance. */
  mailsPerSecond?: number;
  /** SMTP connections the worker sends over at once (default ANNOUNCE_SMTP_CONNECTIONS). */
  smtpConnections?: number;
  /** How often the worker looks for work, in ms; 0 disables the timer (tests drive `tick`). */
  intervalMs?: number;
  log?: { warn(obj: object, msg: string): void };
}

/** Recipients handed out in one transaction: short, so the outbox and SMTP work in parallel. */
const HAND_OUT_CHUNK = 250;
/** SMTP connections an announce is sent over at once. */
export const ANNOUNCE_SMTP_CONNECTIONS = 8;

const iso = (d: Date | string | null) => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());
const VIEW = ['can_view_announces', 'can_view_all_announces'];
/** A poll takes answers while it is being sent and after. */
const OPEN: readonly AnnounceStatus[] = ['sending', 'sent'];

/** Questions with the ids the server gives them: 1, 2, … in the order written. */
function numbered(info: CreateAnnounceBody['type_info']): StoredTypeInfo {
  return {
    questions: info.questions.map((q, i) => ({ id: i + 1, text: q.text, answers: q.answers.map((a, j) => ({ id: j + 1, text: a.text })) })),
    poll_multi_answers_allowed: info.poll_multi_answers_allowed,
    poll_user_answer_allowed: info.poll_user_answer_allowed,
  };
}

/** The longest an idle worker sleeps: the safety net for work no wake announced (an instance that died mid-round). */
const IDLE_MS = 30_000;

/** Announces and polls: CRUD, start/stop/send poll, delivery through the outbox, answers by token. */
export class AnnouncesService {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private chained: NodeJS.Timeout | undefined;
  /** Recipients the last round handed out. */
  private lastHanded = 0;
  /** Whether the last round started, handed out, notified or finished anything. */
  private lastBusy = true;
  /** With nothing to do, no round before this time (epoch ms) unless woken: an idle server sends no statements. */
  private idleUntil = 0;
  private readonly rate: number;
  private readonly connections: number;

  constructor(
    private readonly repo: AnnouncesRepository,
    private readonly mailer: Pick<Mailer, 'queueMany' | 'deliverMany'>,
    private readonly notifier: AnnounceNotifier,
    private readonly opts: AnnouncesOptions,
  ) {
    this.rate = Math.max(1, opts.mailsPerSecond ?? ANNOUNCE_LIMITS.mails_per_second);
    this.connections = Math.max(1, opts.smtpConnections ?? ANNOUNCE_SMTP_CONNECTIONS);
  }

  private get db() {
    return this.repo.db;
  }

  private toAnnounce(actor: Actor, r: AnnounceRow): Announce {
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      subject: r.subject,
      type: r.type,
      status: r.status,
      type_info: r.typeInfo,
      send_via: r.sendVia,
      body: r.body,
      use_owner_info: r.useOwnerInfo,
      users: r.users.map((u) => u.id),
      domains: r.domains.map((g) => g.id),
      users_info: r.users,
      domains_info: r.domains,
      execute_at: iso(r.executeAt),
      started_at: iso(r.startedAt),
      finished_at: iso(r.finishedAt),
      created_by_user: r.createdBy !== null && r.ownerName !== null ? { id: r.createdBy, name: r.ownerName } : null,
      stats: {
        recipients: r.recipients,
        delivered: r.delivered,
        mail_sent: r.mailSent,
        mail_failed: r.mailFailed,
        without_email: r.withoutEmail,
        answered: r.answered,
      },
      created_at: iso(r.createdAt) as string,
      updated_at: iso(r.updatedAt) as string,
      can_edit: actor.permissions.has('can_edit_announces') && r.recipients === 0,
      can_send: actor.permissions.has('can_send_announces'),
      can_delete: actor.permissions.has('can_delete_announces'),
    };
  }

  private assertView(actor: Actor): void {
    if (!VIEW.some((c) => actor.permissions.has(c))) throw prohibited([{ permission: 'can_view_announces' }]);
  }

  private async visible(actor: Actor, id: number, permission?: string): Promise<AnnounceRow> {
    this.assertView(actor);
    const r = await this.repo.byId(actor, id);
    if (!r?.canView) throw notFound();
    if (permission && !actor.permissions.has(permission)) throw prohibited([{ permission }]);
    return r;
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: Announce[]; meta: ListMeta }> {
    this.assertView(actor);
    const page = await this.repo.list(actor, q);
    return {
      data: page.rows.map((r) => this.toAnnounce(actor, r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  async get(actor: Actor, id: number, withRelations: readonly string[] = []): Promise<Announce> {
    const r = await this.visible(actor, id);
    const a = this.toAnnounce(actor, r);
    if (withRelations.includes('results')) a.results = await this.results(r);
    return a;
  }

  private async results(r: AnnounceRow): Promise<AnnounceResults> {
    const counts = await this.repo.results(r.id);
    return {
      recipients: counts.recipients,
      answered: counts.answered,
      questions: r.typeInfo.questions.map((q) => {
        const pq = counts.perQuestion.find((x) => x.question === q.id);
        return {
          id: q.id,
          text: q.text,
          respondents: pq?.respondents ?? 0,
          answers: q.answers.map((a) => ({
            id: a.id,
            text: a.text,
            count: counts.perAnswer.find((x) => x.question === q.id && x.answer === a.id)?.count ?? 0,
          })),
          own_answers: pq?.own ?? 0,
        };
      }),
    };
  }

  /** Recipients must be within the actor's reach: groups of their branch (every group with "view all") and users they see. */
  private async assertRecipients(actor: Actor, users: readonly number[] | undefined, domains: readonly number[] | undefined) {
    if (domains?.length) {
      const ok = await this.repo.reachableGroups(actor, domains);
      const bad = [...new Set(domains)].filter((g) => !ok.has(g));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: bad }]);
    }
    if (users?.length) {
      const ok = await this.repo.reachableUsers(actor, users);
      const bad = [...new Set(users)].filter((u) => !ok.has(u));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'users', entity: 'users', ids: bad }]);
    }
  }

  /** Spec comms §5: a survey must have questions, each with answers, unless a custom answer is allowed. */
  private assertPoll(type: string, info: StoredTypeInfo): void {
    if (type !== 'poll') return;
    if (!info.questions.length) throw new AppError('announce_poll_answers_required', [{ field: 'type_info.questions' }]);
    if (info.poll_user_answer_allowed) return;
    const empty = info.questions.findIndex((q) => q.answers.length === 0);
    if (empty >= 0) throw new AppError('announce_poll_answers_required', [{ field: `type_info.questions.${empty}.answers` }]);
  }

  async create(ctx: RequestContext, body: CreateAnnounceBody): Promise<Announce> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_announces')) throw prohibited([{ permission: 'can_create_announces' }]);
    if (!body.users.length && !body.domains.length) throw new AppError('announce_recipients_required', [{ field: 'users' }]);
    const typeInfo = numbered(body.type_info);
    this.assertPoll(body.type, typeInfo);
    await this.assertRecipients(actor, body.users, body.domains);
    const clean = sanitizeBody(body.body);
    const id = await this.db.transaction(async (tx) => {
      const id = await this.repo.insert(tx, {
        projectId: actor.projectId,
        name: body.name,
        description: body.description || null,
        subject: body.subject,
        type: body.type,
        typeInfo,
        sendVia: body.send_via,
        body: clean,
        useOwnerInfo: body.use_owner_info,
        executeAt: body.execute_at ? new Date(body.execute_at) : null,
        createdBy: actor.userId,
      });
      await this.repo.setRecipients(tx, actor, id, body.users, body.domains);
      await recordAudit(tx, ctx, { entity: 'announce', entityId: id, action: 'create', after: { ...body, body: clean } });
      return id;
    });
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateAnnounceBody): Promise<Announce> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'can_edit_announces');
    // What recipients were sent (mail, answers to numbered questions) must keep meaning what it meant.
    if (before.recipients > 0 || (await this.repo.hasDeliveries(id)))
      throw new AppError('announce_not_editable', [{ status: before.status }]);
    const type = body.type ?? before.type;
    const typeInfo = body.type_info ? numbered(body.type_info) : before.typeInfo;
    this.assertPoll(type, typeInfo);
    await this.assertRecipients(actor, body.users, body.domains);
    const clean = body.body === undefined ? undefined : sanitizeBody(body.body);
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description || null } : {}),
        ...(body.subject !== undefined ? { subject: body.subject } : {}),
        ...(body.type !== undefined ? { type: body.type } : {}),
        ...(body.type_info !== undefined ? { typeInfo } : {}),
        ...(body.send_via !== undefined ? { sendVia: body.send_via } : {}),
        ...(clean !== undefined ? { body: clean } : {}),
        ...(body.use_owner_info !== undefined ? { useOwnerInfo: body.use_owner_info } : {}),
        ...(body.execute_at !== undefined ? { executeAt: body.execute_at ? new Date(body.execute_at) : null } : {}),
      });
      await this.repo.setRecipients(tx, actor, id, body.users, body.domains);
      const counts = await this.repo.recipientCounts(id, tx);
      if (!counts.users && !counts.domains) throw new AppError('announce_recipients_required', [{ field: 'users' }]);
      await recordAudit(tx, ctx, {
        entity: 'announce',
        entityId: id,
        action: 'update',
        before: this.toAnnounce(actor, before),
        after: { ...body, ...(clean !== undefined ? { body: clean } : {}) },
      });
    });
    return this.get(actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id, 'can_delete_announces');
    await this.db.transaction(async (tx) => {
      await this.repo.delete(tx, id);
      await recordAudit(tx, ctx, { entity: 'announce', entityId: id, action: 'delete', before: this.toAnnounce(ctx.actor, before) });
    });
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  private async statusChanged(r: { id: number; projectId: number; name: string; createdBy: number | null }, status: AnnounceStatus) {
    if (r.createdBy === null) return;
    await this.notifier
      .notify(r.projectId, r.createdBy, {
        type: 'announce_status_changed',
        data: { announce_id: r.id, name: r.name, status },
        popupAction: { code: 'goto:page', params: { page: `/announces/${r.id}/edit` } },
      })
      .catch((err) => this.opts.log?.warn({ err, announceId: r.id }, 'announce status notification failed'));
  }

  /** Starts sending now, or at execute_at when that is still ahead. A stopped announce resumes where it stopped. */
  async start(ctx: RequestContext, id: number): Promise<Announce> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'can_send_announces');
    this.assertPoll(before.type, before.typeInfo);
    const counts = await this.repo.recipientCounts(id);
    if (!counts.users && !counts.domains) throw new AppError('announce_recipients_required', [{ field: 'users' }]);
    const status = await this.db.transaction(async (tx) => {
      const state = await this.repo.lockState(tx, id);
      if (!state) throw notFound();
      if (state.status !== 'new' && state.status !== 'stopped')
        throw new AppError('cannot_perform_action', [{ field: 'status', message: 'announce already started', status: state.status }]);
      const later = state.executeAt !== null && state.executeAt.getTime() > Date.now();
      const next: AnnounceStatus = later ? 'scheduled' : 'sending';
      if (later) await this.repo.update(tx, id, { status: next });
      else await this.begin(tx, id, actor.projectId, state.wave);
      await recordAudit(tx, ctx, {
        entity: 'announce',
        entityId: id,
        action: 'start',
        before: { status: state.status },
        after: { status: next },
      });
      return next;
    });
    await this.statusChanged({ id, projectId: actor.projectId, name: before.name, createdBy: before.createdBy }, status);
    this.kick();
    return this.get(actor, id);
  }

  private async begin(tx: Tx, id: number, projectId: number, wave: number) {
    await this.repo.expandRecipients(tx, id, projectId);
    await this.repo.update(tx, id, { status: 'sending', wave: Math.max(wave, 1), startedAt: new Date(), finishedAt: null });
  }

  /** Halts sending (recipients not reached yet stay so until a new start) and closes a poll. */
  async stop(ctx: RequestContext, id: number): Promise<Announce> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'can_send_announces');
    await this.db.transaction(async (tx) => {
      const state = await this.repo.lockState(tx, id);
      if (!state) throw notFound();
      if (state.status === 'new' || state.status === 'stopped')
        throw new AppError('cannot_perform_action', [{ field: 'status', message: 'announce not started', status: state.status }]);
      await this.repo.update(tx, id, { status: 'stopped', finishedAt: new Date() });
      await recordAudit(tx, ctx, {
        entity: 'announce',
        entityId: id,
        action: 'stop',
        before: { status: state.status },
        after: { status: 'stopped' },
      });
    });
    await this.statusChanged({ id, projectId: actor.projectId, name: before.name, createdBy: before.createdBy }, 'stopped');
    return this.get(actor, id);
  }

  /** Sends a poll once more to the recipients who have not answered yet (a reminder round). */
  async sendPoll(ctx: RequestContext, id: number): Promise<Announce> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'can_send_announces');
    if (before.type !== 'poll') throw new AppError('cannot_perform_action', [{ field: 'type', message: 'not a poll' }]);
    const changed = await this.db.transaction(async (tx) => {
      const state = await this.repo.lockState(tx, id);
      if (!state) throw notFound();
      if (!OPEN.includes(state.status))
        throw new AppError('cannot_perform_action', [{ field: 'status', message: 'poll not open', status: state.status }]);
      const wave = state.wave + 1;
      await this.repo.markAnsweredReached(tx, id, wave);
      await this.repo.update(tx, id, { status: 'sending', wave, finishedAt: null });
      await recordAudit(tx, ctx, { entity: 'announce', entityId: id, action: 'send_poll', after: { wave } });
      return state.status !== 'sending';
    });
    if (changed) await this.statusChanged({ id, projectId: actor.projectId, name: before.name, createdBy: before.createdBy }, 'sending');
    this.kick();
    return this.get(actor, id);
  }

  async responses(actor: Actor, q: ListQuery & { announce_id: number }): Promise<{ data: AnnounceResponse[]; meta: ListMeta }> {
    await this.visible(actor, q.announce_id);
    const { rows, total } = await this.repo.responses(actor, q.announce_id, q);
    return {
      data: rows.map((r) => ({
        id: r.id,
        announce_id: q.announce_id,
        user: r.userName === null ? null : { id: r.userId, name: r.userName, email: r.email },
        answered_at: r.answeredAt.toISOString(),
        answers: r.answers.map((a) => ({ question_id: a.question_id, answer_ids: a.answer_ids, own_answer: a.own_answer })),
      })),
      meta: { total, page: q.page, size: q.size },
    };
  }

  /** Every answer, a page at a time, for the download: one row per respondent, one column per question. */
  async responsePages(
    actor: Actor,
    announceId: number,
  ): Promise<{ columns: string[]; rows: AsyncIterable<readonly Record<string, unknown>[]> }> {
    const a = await this.visible(actor, announceId);
    const questions = a.typeInfo.questions;
    const columns = ['user', 'email', 'answered_at', ...questions.map((q) => `${q.id}. ${q.text}`)];
    const repo = this.repo;
    const size = 500;
    async function* pages() {
      for (let page = 1; ; page++) {
        const { rows } = await repo.responses(actor, announceId, { page, size, sort: 'id', filters: undefined, with: [] });
        yield rows.map((r) => {
          const out: Record<string, unknown> = { user: r.userName ?? '', email: r.email ?? '', answered_at: r.answeredAt.toISOString() };
          for (const q of questions) {
            const given = r.answers.find((x) => x.question_id === q.id);
            const texts = (given?.answer_ids ?? []).map((id) => q.answers.find((x) => x.id === id)?.text ?? String(id));
            if (given?.own_answer) texts.push(given.own_answer);
            out[`${q.id}. ${q.text}`] = texts.join('; ');
          }
          return out;
        });
        if (rows.length < size) return;
      }
    }
    return { columns, rows: pages() };
  }

  // ---- the recipient's page (no sign-in: the token is the key) ----

  async byToken(token: string): Promise<PublicAnnounce> {
    const r = await this.repo.byToken(token);
    if (!r || r.announce.status === 'new') throw notFound();
    const a = r.announce;
    return {
      name: a.name,
      subject: a.subject,
      type: a.type,
      body: a.body,
      type_info: a.typeInfo,
      owner: a.useOwnerInfo && r.ownerName !== null ? { name: r.ownerName, email: r.ownerEmail } : null,
      project: r.project,
      recipient: r.recipient,
      open: a.type === 'poll' && OPEN.includes(a.status) && r.answeredAt === null,
      answered_at: iso(r.answeredAt),
      answers: r.answers,
    };
  }

  /** The recipient's answer: once per token, while the poll is open, within its rules. */
  async answer(token: string, body: AnnounceAnswerBody): Promise<PublicAnnounce> {
    const r = await this.repo.byToken(token);
    if (!r || r.announce.status === 'new') throw notFound();
    const a = r.announce;
    if (a.type !== 'poll') throw new AppError('announce_answer_invalid', [{ field: 'answers', message: 'not a poll' }]);
    if (r.answeredAt !== null) throw new AppError('announce_already_answered');
    if (!OPEN.includes(a.status)) throw new AppError('announce_poll_closed');
    const answers = this.checkAnswers(a.typeInfo, body.answers);
    if (!(await this.repo.answer(r.deliveryId, answers))) {
      const again = await this.repo.byToken(token);
      if (again?.answeredAt) throw new AppError('announce_already_answered');
      throw new AppError('announce_poll_closed');
    }
    return this.byToken(token);
  }

  private checkAnswers(info: StoredTypeInfo, given: readonly AnnounceAnswer[]): AnnounceAnswer[] {
    const bad = (index: number, message: string) => new AppError('announce_answer_invalid', [{ field: `answers.${index}`, message }]);
    const seen = new Set<number>();
    given.forEach((g, i) => {
      const q = info.questions.find((x) => x.id === g.question_id);
      if (!q) throw bad(i, 'unknown question');
      if (seen.has(g.question_id)) throw bad(i, 'question answered twice');
      seen.add(g.question_id);
      const ids = new Set(g.answer_ids);
      if (ids.size !== g.answer_ids.length) throw bad(i, 'answer given twice');
      for (const id of ids) if (!q.answers.some((x) => x.id === id)) throw bad(i, 'unknown answer');
      const own = g.own_answer?.trim() ? 1 : 0;
      if (own && !info.poll_user_answer_allowed) throw bad(i, 'own answers not allowed');
      if (ids.size + own === 0) throw bad(i, 'no answer');
      if (!info.poll_multi_answers_allowed && ids.size + own > 1) throw bad(i, 'one answer only');
    });
    const missing = info.questions.findIndex((q) => !seen.has(q.id));
    if (missing >= 0)
      throw new AppError('announce_answer_invalid', [
        { field: 'answers', message: 'every question needs an answer', question_id: info.questions[missing]!.id },
      ]);
    return info.questions.map((q) => {
      const g = given.find((x) => x.question_id === q.id)!;
      return { question_id: q.id, answer_ids: [...g.answer_ids].sort((x, y) => x - y), own_answer: g.own_answer?.trim() || null };
    });
  }

  // ---- delivery worker ----

  /**
   * One round of work: scheduled announces whose time came begin; up to `mailsPerSecond` recipients
   * are handed out, in chunks of `HAND_OUT_CHUNK`, each chunk in one short transaction that writes
   * its mails to the outbox and marks its recipients (a handful of statements, whatever its size);
   * a committed chunk is sent over several SMTP connections while the next one is written. App
   * recipients are notified; finished announces become sent. Everything it needs is in the tables,
   * so a restarted server goes on where it stopped.
   */
  async tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = this.work()
      .then(({ handed, busy }) => {
        this.lastHanded = handed;
        this.lastBusy = busy;
      })
      .finally(() => {
        this.ticking = null;
      });
    return this.ticking;
  }

  private async work(): Promise<{ handed: number; busy: boolean }> {
    const begun = await this.db.transaction(async (tx) => {
      const due = await this.repo.claimDueScheduled(tx, 20);
      for (const d of due) {
        const state = await this.repo.lockState(tx, d.id);
        await this.begin(tx, d.id, d.projectId, state?.wave ?? 0);
      }
      return due;
    });
    for (const d of begun) await this.statusChanged(d, 'sending');

    let handed = 0;
    const sending: Promise<void>[] = [];
    let failure: unknown;
    while (handed < this.rate) {
      const size = Math.min(HAND_OUT_CHUNK, this.rate - handed);
      const chunk = await this.db.transaction((tx) => this.handOut(tx, size));
      handed += chunk.count;
      const due = chunk.mails.filter((m) => m.status === 'queued').map((m) => m.id);
      // Sent while the next chunk is written. A message this instance does not get to (crash,
      // stop) is sent by the outbox's own worker.
      if (due.length)
        sending.push(
          this.mailer
            .deliverMany(due, { connections: this.connections })
            .then(() => undefined)
            .catch((err) => {
              failure ??= err;
            }),
        );
      if (chunk.count < size) break;
      // At most two chunks on their way to SMTP: the outbox does not run far ahead of the mail server.
      if (sending.length >= 2) await sending[sending.length - 2];
    }
    await Promise.all(sending);
    if (failure) throw failure;

    const notices = await this.repo.claimNotifications(this.rate * 5);
    for (const n of notices) {
      await this.notifier
        .notify(n.projectId, n.userId, {
          type: 'announce_received',
          data: { announce_id: n.announceId, name: n.name, author: n.author ?? '', token: n.token },
          popupAction: { code: 'goto:page', params: { page: `/announce/${n.token}` } },
        })
        .catch((err) => this.opts.log?.warn({ err, announceId: n.announceId }, 'announce notification failed'));
    }

    const finished = await this.repo.completeFinished();
    for (const done of finished) await this.statusChanged(done, 'sent');
    return { handed, busy: begun.length + handed + notices.length + finished.length > 0 };
  }

  /**
   * Hands out up to `limit` recipients in the caller's transaction: their mails written to the
   * outbox from the `announce` template that applies to each (issue 14) in one statement, and
   * the recipients marked in another. Answers how many were claimed and the mails written.
   */
  private async handOut(tx: Tx, limit: number): Promise<{ count: number; mails: QueuedMail[] }> {
    const batch = await this.repo.claimDeliveries(tx, limit);
    if (!batch.length) return { count: 0, mails: [] };
    const contents = new Map((await this.repo.contents(tx, [...new Set(batch.map((b) => b.announceId))])).map((c) => [c.id, c]));
    const byMail = (d: DeliveryToHand): boolean => {
      const a = contents.get(d.announceId);
      return !!a && a.sendVia !== 'app' && d.email !== null && !(a.wave > 1 && d.answered);
    };
    const localeOf = (d: DeliveryToHand): Locale => (d.locale === 'ru' ? 'ru' : 'en');
    // The templates of every recipient of a project, in one query per project; its link base and
    // company once per chunk, not per recipient.
    const templates = new Map<number, Map<string, MailTemplateText | undefined>>();
    const projectsOf = new Map<number, { linkBase: string; company: CompanyParams }>();
    for (const projectId of new Set([...contents.values()].map((c) => c.projectId))) {
      const info = await this.opts.projectInfo.of(projectId, tx);
      projectsOf.set(projectId, { linkBase: info.linkBase, company: companyParams(info.company) });
      const recipients = batch
        .filter((d) => byMail(d) && contents.get(d.announceId)?.projectId === projectId)
        .map((d) => ({ userId: d.userId, locale: localeOf(d) }));
      templates.set(projectId, await findMailTemplatesOfUsers(tx, { projectId, kind: 'announce', recipients }));
    }
    // Mails grouped by project (one outbox statement each), remembered by recipient.
    const outgoing = new Map<number, { delivery: number; mail: OutgoingMail }[]>();
    for (const d of batch) {
      const a = contents.get(d.announceId);
      if (!a || !byMail(d)) continue;
      const locale = localeOf(d);
      const project = projectsOf.get(a.projectId)!;
      const mail: OutgoingMail = {
        to: d.email as string,
        ...renderMail(
          'announce',
          locale,
          announceParams({
            locale: d.locale,
            recipient: d.name,
            subject: a.subject,
            body: a.body,
            poll: a.type === 'poll',
            reminder: a.wave > 1,
            link: `${project.linkBase}/announce/${d.token}`,
            owner: a.useOwnerInfo && a.ownerName !== null ? { name: a.ownerName, email: a.ownerEmail } : null,
          }),
          templates.get(a.projectId)?.get(`${d.userId}:${locale}`),
          project.company,
        ),
      };
      const list = outgoing.get(a.projectId) ?? [];
      list.push({ delivery: d.id, mail });
      outgoing.set(a.projectId, list);
    }
    const mailOf = new Map<number, number>();
    const mails: QueuedMail[] = [];
    for (const [projectId, list] of outgoing) {
      const queued = await this.mailer.queueMany(
        tx,
        projectId,
        list.map((l) => l.mail),
      );
      for (const [i, q] of queued.entries()) mailOf.set((list[i] as { delivery: number }).delivery, q.id);
      mails.push(...queued);
    }
    const marks = [];
    for (const d of batch) {
      const a = contents.get(d.announceId);
      if (!a) continue;
      const reminder = a.wave > 1;
      // A recipient who answered before their reminder was handed out is reached already: no mail, no notification.
      marks.push({
        id: d.id,
        wave: a.wave,
        mailId: mailOf.get(d.id) ?? null,
        hasEmail: d.email !== null,
        handed: !(reminder && d.answered),
      });
    }
    await this.repo.markHandedMany(tx, marks);
    return { count: batch.length, mails };
  }

  /** Runs a round soon (after a start), without waiting for the timer. */
  private kick(): void {
    this.idleUntil = 0;
    if (!this.timer) return;
    void this.round();
  }

  /** Announces changed (on any instance, heard through the change feed): look again now. */
  wake(): void {
    this.kick();
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /**
   * One round, and while rounds find a full budget of recipients, the next one as soon as the rate
   * allows (`mailsPerSecond` a second from the start of the last), not at the next timer beat.
   */
  private async round(): Promise<void> {
    const started = Date.now();
    try {
      await this.tick();
      if (!this.lastBusy) {
        // Nothing to do: sleep until the next scheduled start (or IDLE_MS, the safety net), unless an
        // announce is being sent, whose answers and waves are followed every second.
        const next = await this.repo.nextWork();
        this.idleUntil = next.sending ? 0 : Date.now() + Math.min(IDLE_MS, next.scheduledInMs ?? IDLE_MS);
      }
    } catch (err) {
      this.opts.log?.warn({ err }, 'announce delivery failed');
      return;
    }
    if (!this.timer || this.lastHanded < this.rate || this.chained) return;
    this.chained = setTimeout(
      () => {
        this.chained = undefined;
        void this.round();
      },
      Math.max(0, started + 1000 - Date.now()),
    );
    this.chained.unref();
  }

  /** Starts the delivery worker of this instance. */
  startWorker(): void {
    const every = this.opts.intervalMs ?? 1000;
    if (!every || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.ticking && !this.chained && Date.now() >= this.idleUntil) void this.round();
    }, every);
    this.timer.unref();
    this.kick();
  }

  /** Stops the worker and waits for the round under way. */
  async stopWorker(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.chained);
    this.chained = undefined;
    await this.ticking?.catch(() => undefined);
  }
}
