import type { AnnounceAnswer, AnnounceSendVia, AnnounceStatus, ListQuery } from '@atrium/contract';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type AclTarget, aclPredicate, intArray, qualifiedColumns, userVisible } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows, type Tx } from '../../core/db/client.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOffset, pageOfIds, sortSql } from '../../core/list-query.js';
import { announceDeliveries, announceGroups, announces, announceUsers, type StoredTypeInfo } from './announces.table.js';

const A = qualifiedColumns(announces);

export const ANNOUNCE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${A.id}`, type: 'number' },
    name: { expr: sql`${A.name}`, type: 'text' },
    subject: { expr: sql`${A.subject}`, type: 'text' },
    type: { expr: sql`${A.type}`, type: 'text' },
    status: { expr: sql`${A.status}`, type: 'text' },
    send_via: { expr: sql`${A.sendVia}`, type: 'text' },
    execute_at: { expr: sql`${A.executeAt}`, type: 'date' },
    created_by: { expr: sql`${A.createdBy}`, type: 'number' },
    created_at: { expr: sql`${A.createdAt}`, type: 'date' },
  },
  defaultSort: '-id',
  tiebreak: sql`${A.id} DESC`,
};

const D = qualifiedColumns(announceDeliveries);
export const RESPONSE_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${D.id}`, type: 'number' },
    user_id: { expr: sql`${D.userId}`, type: 'number' },
    answered_at: { expr: sql`${D.answeredAt}`, type: 'date' },
  },
  defaultSort: '-answered_at',
  tiebreak: sql`${D.id} DESC`,
};

/**
 * An announce belongs to the groups it is addressed to, and to the groups of the users it is
 * addressed to: "announces of my groups and below" are those that reach into my branch.
 */
const target: AclTarget = {
  inGroups: (
    cond,
  ) => sql`(EXISTS (SELECT 1 FROM announce_groups ag JOIN groups g ON g.id = ag.group_id WHERE ag.announce_id = ${A.id} AND ${cond})
    OR EXISTS (SELECT 1 FROM announce_users au JOIN user_groups ug ON ug.user_id = au.user_id JOIN groups g ON g.id = ug.group_id
      WHERE au.announce_id = ${A.id} AND ${cond}))`,
  createdBy: sql`${A.createdBy}`,
};
export const announceVisible = (actor: Actor): SQL => aclPredicate(actor, 'announces', 'view', target);

/** Groups the actor may address or see among the recipients: every group with "view all", else their branch. */
const groupReach = (actor: Actor, path: SQL): SQL =>
  actor.permissions.has('can_view_all_announces') ? sql`TRUE` : sql`${path} && ${intArray(actor.groupIds)}`;

export type AnnounceRow = typeof announces.$inferSelect & {
  canView: boolean;
  ownerName: string | null;
  ownerEmail: string | null;
  users: { id: number; name: string }[];
  domains: { id: number; name: string }[];
  recipients: number;
  delivered: number;
  mailSent: number;
  mailFailed: number;
  withoutEmail: number;
  answered: number;
};

export interface DeliveryToHand {
  id: number;
  announceId: number;
  userId: number;
  token: string;
  answered: boolean;
  email: string | null;
  locale: string;
  name: string;
}

export interface AnnounceContent {
  id: number;
  projectId: number;
  wave: number;
  type: string;
  subject: string;
  body: string;
  sendVia: AnnounceSendVia;
  useOwnerInfo: boolean;
  ownerName: string | null;
  ownerEmail: string | null;
}

/** Every query of the announces area. */
export class AnnouncesRepository {
  constructor(readonly db: Db) {}

  private select(actor: Actor, db: DbOrTx = this.db) {
    return db
      .select({
        a: announces,
        canView: sql<boolean>`coalesce(${announceVisible(actor)}, FALSE)`,
        ownerName: sql<string | null>`(SELECT o.name FROM users o WHERE o.id = ${A.createdBy})`,
        ownerEmail: sql<string | null>`(SELECT o.email FROM users o WHERE o.id = ${A.createdBy})`,
        users: sql<
          { id: number; name: string }[]
        >`coalesce((SELECT json_agg(json_build_object('id', u.id, 'name', u.name) ORDER BY u.name, u.id)
          FROM announce_users au JOIN users u ON u.id = au.user_id
          WHERE au.announce_id = ${A.id} AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)}), '[]'::json)`,
        domains: sql<
          { id: number; name: string }[]
        >`coalesce((SELECT json_agg(json_build_object('id', g.id, 'name', g.name) ORDER BY g.name, g.id)
          FROM announce_groups ag JOIN groups g ON g.id = ag.group_id
          WHERE ag.announce_id = ${A.id} AND ${groupReach(actor, sql`g.path`)}), '[]'::json)`,
        stats: sql<{
          recipients: number;
          delivered: number;
          mail_sent: number;
          mail_failed: number;
          without_email: number;
          answered: number;
        }>`(SELECT json_build_object(
            'recipients', count(*),
            'delivered', count(*) FILTER (WHERE d.handed_at IS NOT NULL),
            'mail_sent', count(*) FILTER (WHERE m.status = 'sent'),
            'mail_failed', count(*) FILTER (WHERE m.status = 'error'),
            'without_email', count(*) FILTER (WHERE d.has_email = FALSE),
            'answered', count(*) FILTER (WHERE d.answered_at IS NOT NULL))
          FROM announce_deliveries d LEFT JOIN mail_outbox m ON m.id = d.mail_id WHERE d.announce_id = ${A.id})`,
      })
      .from(announces);
  }

  private static toRow(r: {
    a: typeof announces.$inferSelect;
    canView: boolean;
    ownerName: string | null;
    ownerEmail: string | null;
    users: { id: number; name: string }[];
    domains: { id: number; name: string }[];
    stats: { recipients: number; delivered: number; mail_sent: number; mail_failed: number; without_email: number; answered: number };
  }): AnnounceRow {
    return {
      ...r.a,
      canView: r.canView,
      ownerName: r.ownerName,
      ownerEmail: r.ownerEmail,
      users: r.users,
      domains: r.domains,
      recipients: Number(r.stats.recipients),
      delivered: Number(r.stats.delivered),
      mailSent: Number(r.stats.mail_sent),
      mailFailed: Number(r.stats.mail_failed),
      withoutEmail: Number(r.stats.without_email),
      answered: Number(r.stats.answered),
    };
  }

  async list(
    actor: Actor,
    q: ListQuery & { search?: string | undefined },
  ): Promise<{ rows: AnnounceRow[]; total: number; estimated: boolean }> {
    const where = and(
      eq(announces.projectId, actor.projectId),
      filtersSql(ANNOUNCE_LIST, q),
      announceVisible(actor),
      q.search ? sql`(${A.name} ILIKE ${containsPattern(q.search)} OR ${A.subject} ILIKE ${containsPattern(q.search)})` : undefined,
    );
    const page = await pageOfIds(this.db, { table: announces, id: sql`${A.id}`, where, spec: ANNOUNCE_LIST, query: q });
    const rows = page.ids.length ? await this.select(actor).where(sql`${A.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      rows: inPageOrder(
        page.ids,
        rows.map((r) => AnnouncesRepository.toRow(r)),
      ),
      total: page.total,
      estimated: !!page.estimated,
    };
  }

  async byId(actor: Actor, id: number): Promise<AnnounceRow | undefined> {
    const [r] = await this.select(actor).where(and(eq(announces.id, id), eq(announces.projectId, actor.projectId)));
    return r ? AnnouncesRepository.toRow(r) : undefined;
  }

  /** Which of these groups the actor may address (in the project, in their reach). */
  async reachableGroups(actor: Actor, ids: readonly number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT g.id FROM groups g WHERE g.project_id = ${actor.projectId} AND g.id = ANY(${intArray(ids)}) AND ${groupReach(actor, sql`g.path`)}`,
    );
    return new Set(rows.map((r) => Number(r.id)));
  }

  /** Which of these users the actor may address (in the project, visible to them). */
  async reachableUsers(actor: Actor, ids: readonly number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT u.id FROM users u WHERE u.project_id = ${actor.projectId} AND u.id = ANY(${intArray(ids)})
        AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)}`,
    );
    return new Set(rows.map((r) => Number(r.id)));
  }

  /** Recipients stored for an announce, whether or not the actor sees them (the rules count them all). */
  async recipientCounts(id: number, db: DbOrTx = this.db): Promise<{ users: number; domains: number }> {
    const [r] = await queryRows<{ users: number; domains: number }>(
      db,
      sql`SELECT (SELECT count(*)::int FROM announce_users WHERE announce_id = ${id}) AS users,
        (SELECT count(*)::int FROM announce_groups WHERE announce_id = ${id}) AS domains`,
    );
    return { users: Number(r?.users ?? 0), domains: Number(r?.domains ?? 0) };
  }

  async hasDeliveries(id: number): Promise<boolean> {
    const [r] = await queryRows<{ x: number }>(this.db, sql`SELECT 1 AS x FROM announce_deliveries WHERE announce_id = ${id} LIMIT 1`);
    return !!r;
  }

  async insert(tx: Tx, v: typeof announces.$inferInsert): Promise<number> {
    const [r] = await tx.insert(announces).values(v).returning({ id: announces.id });
    return r!.id;
  }

  async update(tx: Tx, id: number, v: Partial<typeof announces.$inferInsert>): Promise<void> {
    await tx
      .update(announces)
      .set({ ...v, updatedAt: new Date() })
      .where(eq(announces.id, id));
  }

  /**
   * Replaces the recipients the actor can see and keeps the ones they cannot: an operator who edits
   * an announce never removes (nor learns of) recipients outside their reach.
   */
  async setRecipients(tx: Tx, actor: Actor, id: number, users: readonly number[] | undefined, domains: readonly number[] | undefined) {
    if (users) {
      await tx.execute(
        sql`DELETE FROM announce_users au USING users u WHERE au.announce_id = ${id} AND u.id = au.user_id
          AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)}`,
      );
      if (users.length)
        await tx
          .insert(announceUsers)
          .values([...new Set(users)].map((userId) => ({ announceId: id, userId })))
          .onConflictDoNothing();
    }
    if (domains) {
      await tx.execute(
        sql`DELETE FROM announce_groups ag USING groups g WHERE ag.announce_id = ${id} AND g.id = ag.group_id AND ${groupReach(actor, sql`g.path`)}`,
      );
      if (domains.length)
        await tx
          .insert(announceGroups)
          .values([...new Set(domains)].map((groupId) => ({ announceId: id, groupId })))
          .onConflictDoNothing();
    }
  }

  async delete(tx: Tx, id: number): Promise<void> {
    await tx.delete(announces).where(eq(announces.id, id));
  }

  /** One delivery row per recipient: the users named and the users of the groups named and of the groups below them. */
  async expandRecipients(tx: Tx, id: number, projectId: number): Promise<void> {
    await tx.execute(sql`INSERT INTO announce_deliveries (announce_id, user_id, token)
      SELECT ${id}, r.user_id, replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')
      FROM (
        SELECT au.user_id FROM announce_users au WHERE au.announce_id = ${id}
        UNION
        SELECT ug.user_id FROM announce_groups ag
          JOIN groups g ON g.path @> ARRAY[ag.group_id] AND g.project_id = ${projectId}
          JOIN user_groups ug ON ug.group_id = g.id
        WHERE ag.announce_id = ${id}
      ) r JOIN users u ON u.id = r.user_id AND u.project_id = ${projectId}
      ORDER BY r.user_id
      ON CONFLICT (announce_id, user_id) DO NOTHING`);
  }

  /** Locks the announce row for a state change; answers its status and wave. */
  async lockState(tx: Tx, id: number): Promise<{ status: AnnounceStatus; wave: number; executeAt: Date | null } | undefined> {
    const [r] = await queryRows<{ status: AnnounceStatus; wave: number; execute_at: string | Date | null }>(
      tx,
      sql`SELECT status, wave, execute_at FROM announces WHERE id = ${id} FOR UPDATE`,
    );
    return r ? { status: r.status, wave: Number(r.wave), executeAt: r.execute_at ? new Date(r.execute_at) : null } : undefined;
  }

  /** Scheduled announces whose time has come, locked for this instance. */
  async claimDueScheduled(tx: Tx, limit: number): Promise<{ id: number; projectId: number; name: string; createdBy: number | null }[]> {
    const rows = await queryRows<{ id: number; project_id: number; name: string; created_by: number | null }>(
      tx,
      sql`SELECT id, project_id, name, created_by FROM announces WHERE status = 'scheduled' AND (execute_at IS NULL OR execute_at <= now())
        ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
    return rows.map((r) => ({ id: Number(r.id), projectId: Number(r.project_id), name: r.name, createdBy: r.created_by }));
  }

  /** Recipients still to be handed out, locked so no other instance hands them out too. */
  async claimDeliveries(tx: Tx, limit: number): Promise<DeliveryToHand[]> {
    const rows = await queryRows<{
      id: number;
      announce_id: number;
      user_id: number;
      token: string;
      answered: boolean;
      email: string | null;
      locale: string;
      name: string;
    }>(
      tx,
      sql`SELECT d.id, d.announce_id, d.user_id, d.token, d.answered_at IS NOT NULL AS answered, u.email, u.locale, u.name
        FROM announce_deliveries d
        JOIN announces a ON a.id = d.announce_id
        JOIN users u ON u.id = d.user_id
        WHERE a.status = 'sending' AND d.wave < a.wave
        ORDER BY d.id LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED`,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      announceId: Number(r.announce_id),
      userId: Number(r.user_id),
      token: r.token,
      answered: !!r.answered,
      email: r.email?.trim() || null,
      locale: r.locale,
      name: r.name,
    }));
  }

  async contents(tx: Tx, ids: readonly number[]): Promise<AnnounceContent[]> {
    const rows = await queryRows<{
      id: number;
      project_id: number;
      wave: number;
      type: string;
      subject: string;
      body: string;
      send_via: AnnounceSendVia;
      use_owner_info: boolean;
      owner_name: string | null;
      owner_email: string | null;
    }>(
      tx,
      sql`SELECT a.id, a.project_id, a.wave, a.type, a.subject, a.body, a.send_via, a.use_owner_info, o.name AS owner_name, o.email AS owner_email
        FROM announces a LEFT JOIN users o ON o.id = a.created_by WHERE a.id = ANY(${intArray(ids)})`,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      projectId: Number(r.project_id),
      wave: Number(r.wave),
      type: r.type,
      subject: r.subject,
      body: r.body,
      sendVia: r.send_via,
      useOwnerInfo: r.use_owner_info,
      ownerName: r.owner_name,
      ownerEmail: r.owner_email,
    }));
  }

  /** Marks a recipient reached in this wave; `handed` false moves the wave on without a new hand-out (and so no notification). */
  async markHanded(tx: Tx, id: number, wave: number, mailId: number | null, hasEmail: boolean, handed = true): Promise<void> {
    await tx.execute(sql`UPDATE announce_deliveries SET wave = ${wave}, has_email = ${hasEmail},
      handed_at = CASE WHEN ${handed} THEN now() ELSE handed_at END,
      mail_id = coalesce(${mailId}::int, mail_id) WHERE id = ${id}`);
  }

  /** `markHanded` of several recipients in one statement. */
  async markHandedMany(
    tx: Tx,
    rows: readonly { id: number; wave: number; mailId: number | null; hasEmail: boolean; handed: boolean }[],
  ): Promise<void> {
    if (!rows.length) return;
    await tx.execute(sql`UPDATE announce_deliveries d SET wave = r.wave, has_email = r.has_email,
        handed_at = CASE WHEN r.handed THEN now() ELSE d.handed_at END,
        mail_id = coalesce(r.mail_id, d.mail_id)
      FROM jsonb_to_recordset(${JSON.stringify(
        rows.map((r) => ({ id: r.id, wave: r.wave, mail_id: r.mailId, has_email: r.hasEmail, handed: r.handed })),
      )}::jsonb) AS r(id int, wave int, mail_id int, has_email boolean, handed boolean)
      WHERE d.id = r.id`);
  }

  /**
   * Claims handed-out recipients of app announces not yet notified: the claim is written first, so a
   * notification is never sent twice (a crash between the claim and the notification loses it).
   */
  async claimNotifications(
    limit: number,
  ): Promise<{ projectId: number; userId: number; announceId: number; token: string; name: string; author: string | null }[]> {
    const rows = await queryRows<{
      project_id: number;
      user_id: number;
      announce_id: number;
      token: string;
      name: string;
      author: string | null;
    }>(
      this.db,
      sql`UPDATE announce_deliveries d SET notified_at = now()
        FROM announces a LEFT JOIN users o ON o.id = a.created_by
        WHERE a.id = d.announce_id AND d.id IN (
          SELECT d2.id FROM announce_deliveries d2 JOIN announces a2 ON a2.id = d2.announce_id
          WHERE a2.send_via IN ('app', 'email_app') AND d2.handed_at IS NOT NULL
            AND (d2.notified_at IS NULL OR d2.notified_at < d2.handed_at)
          ORDER BY d2.id LIMIT ${limit} FOR UPDATE OF d2 SKIP LOCKED)
        RETURNING a.project_id, d.user_id, d.announce_id, d.token, a.name, o.name AS author`,
    );
    return rows.map((r) => ({
      projectId: Number(r.project_id),
      userId: Number(r.user_id),
      announceId: Number(r.announce_id),
      token: r.token,
      name: r.name,
      author: r.author,
    }));
  }

  /** Announces being sent that have no recipient left to hand out: now sent. */
  /** Whether an announce is being sent, and in how many milliseconds the next scheduled one starts (null: none). */
  async nextWork(): Promise<{ sending: boolean; scheduledInMs: number | null }> {
    const [r] = await queryRows<{ sending: boolean | null; ms: number | null }>(
      this.db,
      sql`SELECT bool_or(status = 'sending') AS sending,
          (extract(epoch FROM min(coalesce(execute_at, now())) FILTER (WHERE status = 'scheduled') - now()) * 1000)::float8 AS ms
        FROM announces WHERE status IN ('sending', 'scheduled')`,
    );
    return { sending: r?.sending === true, scheduledInMs: r?.ms ?? null };
  }

  async completeFinished(): Promise<{ id: number; projectId: number; name: string; createdBy: number | null }[]> {
    // Looked for first: an UPDATE, even of no row, would wake every instance's read cache (the table's change feed).
    const due = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT a.id FROM announces a WHERE a.status = 'sending'
        AND NOT EXISTS (SELECT 1 FROM announce_deliveries d WHERE d.announce_id = a.id AND d.wave < a.wave) LIMIT 100`,
    );
    if (!due.length) return [];
    const rows = await queryRows<{ id: number; project_id: number; name: string; created_by: number | null }>(
      this.db,
      sql`UPDATE announces a SET status = 'sent', finished_at = now(), updated_at = now()
        WHERE a.id = ANY(${intArray(due.map((d) => Number(d.id)))}) AND a.status = 'sending'
          AND NOT EXISTS (SELECT 1 FROM announce_deliveries d WHERE d.announce_id = a.id AND d.wave < a.wave)
        RETURNING a.id, a.project_id, a.name, a.created_by`,
    );
    return rows.map((r) => ({ id: Number(r.id), projectId: Number(r.project_id), name: r.name, createdBy: r.created_by }));
  }

  /** A reminder round: recipients who answered already are counted as reached in it. */
  async markAnsweredReached(tx: Tx, id: number, wave: number): Promise<void> {
    await tx.execute(sql`UPDATE announce_deliveries SET wave = ${wave} WHERE announce_id = ${id} AND answered_at IS NOT NULL`);
  }

  /** The recipient's delivery and announce by token. */
  async byToken(token: string): Promise<
    | {
        deliveryId: number;
        answeredAt: Date | null;
        answers: AnnounceAnswer[] | null;
        recipient: string;
        announce: typeof announces.$inferSelect;
        ownerName: string | null;
        ownerEmail: string | null;
        project: string;
      }
    | undefined
  > {
    const [r] = await this.db
      .select({
        deliveryId: announceDeliveries.id,
        answeredAt: announceDeliveries.answeredAt,
        answers: announceDeliveries.answers,
        recipient: sql<string>`(SELECT u.name FROM users u WHERE u.id = ${D.userId})`,
        announce: announces,
        ownerName: sql<string | null>`(SELECT o.name FROM users o WHERE o.id = ${A.createdBy})`,
        ownerEmail: sql<string | null>`(SELECT o.email FROM users o WHERE o.id = ${A.createdBy})`,
        project: sql<string>`(SELECT p.name FROM projects p WHERE p.id = ${A.projectId})`,
      })
      .from(announceDeliveries)
      .innerJoin(announces, eq(announces.id, announceDeliveries.announceId))
      .where(eq(announceDeliveries.token, token));
    return r;
  }

  /** Writes an answer unless one is there already: false when the token had answered. */
  async answer(deliveryId: number, answers: AnnounceAnswer[]): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`UPDATE announce_deliveries SET answered_at = now(), answers = ${JSON.stringify(answers)}::jsonb
        WHERE id = ${deliveryId} AND answered_at IS NULL
          AND EXISTS (SELECT 1 FROM announces a WHERE a.id = announce_id AND a.status IN ('sending', 'sent'))
        RETURNING id`,
    );
    return rows.length > 0;
  }

  /** Answers counted per question and answer. */
  async results(id: number): Promise<{
    answered: number;
    recipients: number;
    perAnswer: { question: number; answer: number; count: number }[];
    perQuestion: { question: number; respondents: number; own: number }[];
  }> {
    const [totals] = await queryRows<{ answered: number; recipients: number }>(
      this.db,
      sql`SELECT count(*) FILTER (WHERE answered_at IS NOT NULL)::int AS answered, count(*)::int AS recipients
        FROM announce_deliveries WHERE announce_id = ${id}`,
    );
    const perAnswer = await queryRows<{ question: number; answer: number; count: number }>(
      this.db,
      sql`SELECT (q ->> 'question_id')::int AS question, aid::int AS answer, count(*)::int AS count
        FROM announce_deliveries d, jsonb_array_elements(d.answers) q, jsonb_array_elements_text(q -> 'answer_ids') aid
        WHERE d.announce_id = ${id} AND d.answered_at IS NOT NULL
        GROUP BY 1, 2`,
    );
    const perQuestion = await queryRows<{ question: number; respondents: number; own: number }>(
      this.db,
      sql`SELECT (q ->> 'question_id')::int AS question, count(*)::int AS respondents,
          count(*) FILTER (WHERE coalesce(q ->> 'own_answer', '') <> '')::int AS own
        FROM announce_deliveries d, jsonb_array_elements(d.answers) q
        WHERE d.announce_id = ${id} AND d.answered_at IS NOT NULL
        GROUP BY 1`,
    );
    return {
      answered: Number(totals?.answered ?? 0),
      recipients: Number(totals?.recipients ?? 0),
      perAnswer: perAnswer.map((r) => ({ question: Number(r.question), answer: Number(r.answer), count: Number(r.count) })),
      perQuestion: perQuestion.map((r) => ({ question: Number(r.question), respondents: Number(r.respondents), own: Number(r.own) })),
    };
  }

  /** Answers of an announce, one page, naming only the users the actor may see. */
  async responses(
    actor: Actor,
    announceId: number,
    q: ListQuery,
  ): Promise<{
    rows: { id: number; userId: number; userName: string | null; email: string | null; answeredAt: Date; answers: AnnounceAnswer[] }[];
    total: number;
  }> {
    const where = and(eq(announceDeliveries.announceId, announceId), sql`${D.answeredAt} IS NOT NULL`, filtersSql(RESPONSE_LIST, q));
    const rows = await this.db
      .select({
        id: announceDeliveries.id,
        userId: announceDeliveries.userId,
        userName: sql<
          string | null
        >`(SELECT u.name FROM users u WHERE u.id = ${D.userId} AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)})`,
        email: sql<
          string | null
        >`(SELECT u.email FROM users u WHERE u.id = ${D.userId} AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)})`,
        answeredAt: announceDeliveries.answeredAt,
        answers: announceDeliveries.answers,
        total: sql<number>`(count(*) OVER ())::int`,
      })
      .from(announceDeliveries)
      .where(where)
      .orderBy(...sortSql(RESPONSE_LIST, q))
      .limit(q.size)
      .offset(pageOffset(q));
    let total = Number(rows[0]?.total ?? 0);
    if (!rows.length && q.page > 1) {
      const [c] = await this.db.select({ n: sql<number>`count(*)::int` }).from(announceDeliveries).where(where);
      total = Number(c?.n ?? 0);
    }
    return {
      rows: rows.map((r) => ({
        id: r.id,
        userId: r.userId,
        userName: r.userName,
        email: r.email,
        answeredAt: r.answeredAt as Date,
        answers: r.answers ?? [],
      })),
      total,
    };
  }
}

export type { StoredTypeInfo };
