import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { type ReceivedMail, type SmtpPeer, startSmtpPeer } from '../../../test/smtp-peer.js';
import { queryRows } from '../../core/db/client.js';
import type { Mailer } from '../../core/mail/mailer.js';
import { notifications } from '../notifications/notifications.table.js';
import { projects } from '../projects/projects.table.js';
import { AnnouncesRepository } from './announces.repository.js';
import { AnnouncesService } from './announces.service.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let peer: SmtpPeer;
let projectId: number;
const db = () => t.app.database.db;
let ip = 0;

/** The recipient's page is public: called without a token, each call from its own address (the page is rate-limited per address). */
const pub = (method: 'GET' | 'PUT', token: string, payload?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v0/announcements/token/${token}`,
    ...(payload === undefined ? {} : { payload: payload as object }),
    headers: { 'x-forwarded-for': `10.9.${Math.floor(++ip / 250)}.${ip % 250}` },
  });

const tokenOf = (m: ReceivedMail) => /\/announce\/([0-9a-f]{64})/.exec(m.text)?.[1] as string;

/** Runs delivery rounds until the announce is sent (or the rounds run out). */
async function deliverAll(service: AnnouncesService, id: number, rounds = 50) {
  for (let i = 0; i < rounds; i++) {
    await service.tick();
    const [a] = await queryRows<{ status: string }>(db(), sql`SELECT status FROM announces WHERE id = ${id}`);
    if (a?.status !== 'sending') return a?.status;
  }
  return 'sending';
}

const mailsTo = (address: string) => peer.received.filter((m) => m.to.includes(address)).length;

async function notificationsOf(userId: number, type: string) {
  return db()
    .select()
    .from(notifications)
    .where(sql`${notifications.userId} = ${userId} AND ${notifications.type} = ${type}`)
    .orderBy(notifications.id);
}

beforeAll(async () => {
  t = await buildTestApp({ env: { PUBLIC_URL: 'https://atrium.test' } });
  // The app's own worker would race the assertions: these tests drive the rounds themselves.
  await t.app.services.announces.stopWorker();
  await t.app.services.mailer.stop();
  admin = await adminClient(t);
  projectId = t.project.projectId;
  peer = await startSmtpPeer();
  const smtp = {
    host: peer.host,
    port: peer.port,
    secure: false,
    user: peer.user,
    password: peer.password,
    from: 'Atrium <noreply@atrium.test>',
  };
  await db()
    .update(projects)
    .set({ settings: sql`jsonb_set(${projects.settings}, '{smtp}', ${JSON.stringify(smtp)}::jsonb)` })
    .where(eq(projects.id, projectId));
  // A fresh database and app take long on a loaded machine.
}, 120_000);
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

const poll = {
  questions: [
    { text: 'Paint the hall?', answers: [{ text: 'Yes' }, { text: 'No' }] },
    { text: 'Which colour?', answers: [{ text: 'White' }, { text: 'Green' }, { text: 'Blue' }] },
  ],
  poll_multi_answers_allowed: false,
  poll_user_answer_allowed: false,
};

describe('announce rules', () => {
  it('needs recipients, and a survey needs answers or a custom answer', async () => {
    const g = await makeGroup(db(), projectId, t.project.rootGroupId);
    const none = await admin.put('/announcements', { name: 'No one', subject: 'S' });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'announce_recipients_required', message: 'the announce must have recipients' });

    const noQuestions = await admin.put('/announcements', { name: 'P', subject: 'S', type: 'poll', domains: [g] });
    expect(noQuestions.json().code).toBe('announce_poll_answers_required');
    const noAnswers = await admin.put('/announcements', {
      name: 'P',
      subject: 'S',
      type: 'poll',
      domains: [g],
      type_info: { questions: [{ text: 'Ideas?' }] },
    });
    expect(noAnswers.statusCode).toBe(400);
    expect(noAnswers.json()).toMatchObject({
      code: 'announce_poll_answers_required',
      details: [{ field: 'type_info.questions.0.answers' }],
    });
    const ownAllowed = await admin.put('/announcements', {
      name: 'P',
      subject: 'S',
      type: 'poll',
      domains: [g],
      type_info: { questions: [{ text: 'Ideas?' }], poll_user_answer_allowed: true },
    });
    expect(ownAllowed.statusCode, ownAllowed.body).toBe(200);
    expect(ownAllowed.json().data.type_info.questions).toEqual([{ id: 1, text: 'Ideas?', answers: [] }]);

    const bad = await admin.put('/announcements', { name: '', subject: 'S', send_via: 'pigeon', domains: [g], execute_at: 'tomorrow' });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['execute_at', 'name', 'send_via']);
    const unknownGroup = await admin.put('/announcements', { name: 'X', subject: 'S', domains: [999_999] });
    expect(unknownGroup.json()).toMatchObject({ code: 'invalid_related_entity', details: [{ field: 'domains', ids: [999_999] }] });
    // Clearing the recipients of a draft is refused as well.
    const cleared = await admin.patch(`/announcements/${ownAllowed.json().data.id}`, { domains: [] });
    expect(cleared.json().code).toBe('announce_recipients_required');
    // A poll's questions cannot lose their answers either.
    const emptied = await admin.patch(`/announcements/${ownAllowed.json().data.id}`, {
      type_info: { questions: [{ text: 'Ideas?', answers: [] }], poll_multi_answers_allowed: false, poll_user_answer_allowed: false },
    });
    expect(emptied.json().code).toBe('announce_poll_answers_required');
  });

  it('keeps only safe rich text in the body', async () => {
    const g = await makeGroup(db(), projectId, t.project.rootGroupId);
    const res = await admin.put('/announcements', {
      name: 'Rich',
      subject: 'S',
      domains: [g],
      body: '<p style="text-align: center; color: red" onclick="steal()">Hi <strong>all</strong><script>alert(1)</script></p><img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a><a href="https://example.test/rules">rules</a><iframe src="https://evil.test"></iframe>',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json().data.body as string;
    expect(body).toBe(
      '<p style="text-align:center">Hi <strong>all</strong></p><a target="_blank" rel="noopener noreferrer">x</a><a href="https://example.test/rules" target="_blank" rel="noopener noreferrer">rules</a>',
    );
    const patched = await admin.patch(`/announcements/${res.json().data.id}`, {
      body: '<h2 onmouseover="x()">Title</h2><object data="x"></object>',
    });
    expect(patched.json().data.body).toBe('<h2>Title</h2>');
  });
});

describe('delivery through the outbox and a real SMTP server', () => {
  it('mails every recipient once, notifies them in the app, and counts the poll answered by token', async () => {
    const building = await makeGroup(db(), projectId, t.project.rootGroupId, 'Building 1');
    const flat = await makeGroup(db(), projectId, building, 'Flat 12');
    const ann = await makeUser(db(), { projectId, groupIds: [building], email: 'ann@res.test', name: 'Ann' });
    const bob = await makeUser(db(), { projectId, groupIds: [flat], email: 'bob@res.test', name: 'Bob' });
    const cid = await makeUser(db(), { projectId, groupIds: [flat], name: 'Cid (no e-mail)' });
    const dan = await makeUser(db(), { projectId, email: 'dan@res.test', name: 'Dan' });
    // Named directly and through the group: still one recipient.
    const created = await admin.put('/announcements', {
      name: 'Hall',
      subject: 'Hall repairs',
      type: 'poll',
      type_info: { ...poll, poll_user_answer_allowed: true },
      send_via: 'email_app',
      body: '<p>We plan to <em>repaint</em> the hall.</p>',
      use_owner_info: true,
      users: [dan.id, ann.id],
      domains: [building],
    });
    expect(created.statusCode, created.body).toBe(200);
    const a = created.json().data;
    expect(a).toMatchObject({ status: 'new', send_via: 'email_app', users: [ann.id, dan.id].sort((x, y) => x - y), domains: [building] });
    expect(a.domains_info).toEqual([{ id: building, name: 'Building 1' }]);

    // Nobody gets anything before the start.
    await t.app.services.announces.tick();
    expect(mailsTo('ann@res.test')).toBe(0);

    const started = await admin.post(`/announcements/${a.id}/start`);
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().data).toMatchObject({ status: 'sending', stats: { recipients: 4, delivered: 0 } });
    // Started, it cannot be edited any more.
    expect((await admin.patch(`/announcements/${a.id}`, { name: 'Other' })).json().code).toBe('announce_not_editable');
    expect((await admin.post(`/announcements/${a.id}/start`)).json().code).toBe('cannot_perform_action');

    expect(await deliverAll(t.app.services.announces, a.id)).toBe('sent');
    const mails = await Promise.all(['ann@res.test', 'bob@res.test', 'dan@res.test'].map((to) => peer.next(to)));
    for (const m of mails) {
      expect(m.subject).toBe('Hall repairs');
      expect(m.html).toContain('<em>repaint</em>');
      expect(m.text).toContain('We plan to repaint the hall.');
      expect(m.text).toContain('From: Admin');
      expect(m.text).toMatch(/https:\/\/atrium\.test\/announce\/[0-9a-f]{64}/);
    }
    expect(new Set(mails.map(tokenOf)).size).toBe(3);
    const got = await admin.get(`/announcements/${a.id}`);
    expect(got.json().data).toMatchObject({
      status: 'sent',
      stats: { recipients: 4, delivered: 4, mail_sent: 3, mail_failed: 0, without_email: 1, answered: 0 },
    });
    // Each recipient, Cid without an e-mail too, has the in-app notification; the author heard of each status.
    for (const u of [ann, bob, cid, dan]) {
      const n = await notificationsOf(u.id, 'announce_received');
      expect(n).toHaveLength(1);
      expect(n[0]!.data).toMatchObject({ announce_id: a.id, name: 'Hall', author: 'Admin' });
      expect((n[0]!.popupAction as { params: { page: string } }).params.page).toMatch(/^\/announce\/[0-9a-f]{64}$/);
    }
    const statuses = (await notificationsOf(t.project.adminId, 'announce_status_changed'))
      .filter((n) => n.data.announce_id === a.id)
      .map((n) => n.data.status);
    expect(statuses).toEqual(['sending', 'sent']);

    // The recipient reads the announce by the link of their mail and answers once.
    const annToken = tokenOf(mails[0]!);
    const page = await pub('GET', annToken);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().data).toMatchObject({
      name: 'Hall',
      recipient: 'Ann',
      open: true,
      answered_at: null,
      owner: { name: 'Admin' },
      project: 'Test project',
    });
    expect(page.json().data.body).toBe('<p>We plan to <em>repaint</em> the hall.</p>');
    // The rules of the poll: one answer per question here, answers it has, every question answered.
    const two = await pub('PUT', annToken, {
      answers: [
        { question_id: 1, answer_ids: [1, 2] },
        { question_id: 2, answer_ids: [1] },
      ],
    });
    expect(two.statusCode).toBe(400);
    expect(two.json()).toMatchObject({ code: 'announce_answer_invalid', details: [{ field: 'answers.0', message: 'one answer only' }] });
    const ownPlusChoice = await pub('PUT', annToken, {
      answers: [
        { question_id: 1, answer_ids: [1], own_answer: 'Maybe' },
        { question_id: 2, answer_ids: [1] },
      ],
    });
    expect(ownPlusChoice.json().details[0].message).toBe('one answer only');
    expect(
      (
        await pub('PUT', annToken, {
          answers: [
            { question_id: 1, answer_ids: [7] },
            { question_id: 2, answer_ids: [1] },
          ],
        })
      ).json().details[0].message,
    ).toBe('unknown answer');
    expect((await pub('PUT', annToken, { answers: [{ question_id: 1, answer_ids: [1] }] })).json().details[0].message).toBe(
      'every question needs an answer',
    );
    expect((await pub('PUT', annToken, { answers: 'yes' })).statusCode).toBe(400);
    const answered = await pub('PUT', annToken, {
      answers: [
        { question_id: 1, answer_ids: [1] },
        { question_id: 2, answer_ids: [], own_answer: ' Beige ' },
      ],
    });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json().data).toMatchObject({
      open: false,
      answers: [
        { question_id: 1, answer_ids: [1], own_answer: null },
        { question_id: 2, answer_ids: [], own_answer: 'Beige' },
      ],
    });
    const again = await pub('PUT', annToken, {
      answers: [
        { question_id: 1, answer_ids: [2] },
        { question_id: 2, answer_ids: [2] },
      ],
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'announce_already_answered', message: 'the poll was already answered' });
    // Two more answers at once from the same token: only one is kept.
    const bobToken = tokenOf(mails[1]!);
    const race = await Promise.all([
      pub('PUT', bobToken, {
        answers: [
          { question_id: 1, answer_ids: [2] },
          { question_id: 2, answer_ids: [3] },
        ],
      }),
      pub('PUT', bobToken, {
        answers: [
          { question_id: 1, answer_ids: [1] },
          { question_id: 2, answer_ids: [2] },
        ],
      }),
    ]);
    expect(race.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await pub('GET', 'f'.repeat(64))).statusCode).toBe(404);
    expect((await pub('GET', 'not-a-token')).statusCode).toBe(400);

    const results = (await admin.get(`/announcements/${a.id}?with=results`)).json().data.results;
    expect(results.recipients).toBe(4);
    expect(results.answered).toBe(2);
    expect(results.questions[0].respondents).toBe(2);
    expect(results.questions[0].answers.map((x: { count: number }) => x.count).reduce((s: number, c: number) => s + c, 0)).toBe(2);
    expect(results.questions[1].own_answers).toBe(1);
    const responses = (await admin.get(`/announcements/responses?announce_id=${a.id}&sort=id`)).json();
    expect(responses.meta.total).toBe(2);
    expect(responses.data.map((r: { user: { name: string } }) => r.user.name).sort()).toEqual(['Ann', 'Bob']);
    const csv = await admin.get(`/announcements/responses/download?announce_id=${a.id}&export_format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\n')[0]).toBe('user,email,answered_at,1. Paint the hall?,2. Which colour?');
    expect(csv.body).toContain('Ann,ann@res.test,');
    expect(csv.body).toContain(',Yes,Beige');
    const xlsx = await admin.get(`/announcements/responses/download?announce_id=${a.id}`);
    expect(xlsx.statusCode).toBe(200);
    expect(xlsx.rawPayload.subarray(0, 2).toString()).toBe('PK');

    // A reminder goes to those who have not answered only; Cid has no e-mail and is reminded in the app.
    const reminded = await admin.post(`/announcements/${a.id}/send-poll`);
    expect(reminded.statusCode, reminded.body).toBe(200);
    expect(await deliverAll(t.app.services.announces, a.id)).toBe('sent');
    const reminder = await peer.next('dan@res.test');
    expect(reminder.text).toContain('A reminder');
    expect(tokenOf(reminder)).toBe(tokenOf(mails[2]!));
    expect(mailsTo('ann@res.test')).toBe(1);
    expect(mailsTo('bob@res.test')).toBe(1);
    expect(await notificationsOf(cid.id, 'announce_received')).toHaveLength(2);

    // Stopped: the poll takes no more answers; an info announce has no poll to send.
    expect((await admin.post(`/announcements/${a.id}/stop`)).json().data.status).toBe('stopped');
    const late = await pub('PUT', tokenOf(reminder), {
      answers: [
        { question_id: 1, answer_ids: [2] },
        { question_id: 2, answer_ids: [2] },
      ],
    });
    expect(late.json()).toMatchObject({ code: 'announce_poll_closed' });
    expect((await pub('GET', tokenOf(reminder))).json().data.open).toBe(false);
    expect((await admin.post(`/announcements/${a.id}/send-poll`)).json().code).toBe('cannot_perform_action');
    expect((await admin.post(`/announcements/${a.id}/stop`)).json().code).toBe('cannot_perform_action');
  });

  it('resumes after a crash and a restart without mailing anyone twice, at the rate set', async () => {
    const g = await makeGroup(db(), projectId, t.project.rootGroupId);
    const people: { id: number }[] = [];
    for (let i = 0; i < 12; i++) people.push(await makeUser(db(), { projectId, groupIds: [g], email: `resume${i}@res.test` }));
    const a = (await admin.put('/announcements', { name: 'Water', subject: 'Water off on Monday', domains: [g] })).json().data;
    expect((await admin.post(`/announcements/${a.id}/start`)).json().data.status).toBe('sending');

    const mailer = t.app.services.mailer;
    const repo = new AnnouncesRepository(db());
    const instance = (m: Pick<Mailer, 'queueMany' | 'deliverMany'>) =>
      new AnnouncesService(repo, m, t.app.services.notifications, {
        projectInfo: t.app.services.projectInfo,
        mailsPerSecond: 5,
        intervalMs: 0,
      });

    // 1. A round hands out 5 recipients (the rate) and sends their mail.
    await instance(mailer).tick();
    const sentOf = () => people.reduce((n, _p, i) => n + mailsTo(`resume${i}@res.test`), 0);
    expect(sentOf()).toBe(5);

    // 2. The process dies in the middle of a round: two mails of the batch are written, then it dies.
    const dying = instance({
      queueMany: async (tx, project, mails) => {
        await mailer.queueMany(tx, project, mails.slice(0, 2));
        throw new Error('process killed');
      },
      deliverMany: (ids, o) => mailer.deliverMany(ids, o),
    });
    await expect(dying.tick()).rejects.toThrow('process killed');
    // Nothing of that round stayed: no mail in the outbox, no recipient marked.
    const [handed] = await queryRows<{ n: number }>(
      db(),
      sql`SELECT count(*)::int AS n FROM announce_deliveries WHERE announce_id = ${a.id} AND handed_at IS NOT NULL`,
    );
    expect(Number(handed?.n)).toBe(5);
    const [written] = await queryRows<{ n: number }>(
      db(),
      sql`SELECT count(*)::int AS n FROM mail_outbox WHERE subject = 'Water off on Monday'`,
    );
    expect(Number(written?.n)).toBe(5);

    // 3. It dies after a round was committed, before the mail reached SMTP.
    await instance({ queueMany: (...args) => mailer.queueMany(...args), deliverMany: async () => 0 }).tick();
    expect(sentOf()).toBe(5);

    // 4. Restarted: a new instance reads the tables and goes on; the outbox sends what was written.
    const restarted = instance(mailer);
    expect(await deliverAll(restarted, a.id)).toBe('sent');
    await mailer.processDue(50);
    for (let i = 0; i < 12; i++) expect(mailsTo(`resume${i}@res.test`), `resume${i}`).toBe(1);
    const [outbox] = await queryRows<{ n: number }>(
      db(),
      sql`SELECT count(*)::int AS n FROM mail_outbox WHERE subject = 'Water off on Monday'`,
    );
    expect(Number(outbox?.n)).toBe(12);
    expect((await admin.get(`/announcements/${a.id}`)).json().data.stats).toMatchObject({ recipients: 12, delivered: 12, mail_sent: 12 });
  });

  it('starts at execute_at, read from the table by whichever instance runs then', async () => {
    const g = await makeGroup(db(), projectId, t.project.rootGroupId);
    await makeUser(db(), { projectId, groupIds: [g], email: 'later@res.test' });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const a = (
      await admin.put('/announcements', { name: 'Later', subject: 'Later news', domains: [g], execute_at: at, send_via: 'email' })
    ).json().data;
    expect(a.execute_at).toBe(at);
    expect((await admin.post(`/announcements/${a.id}/start`)).json().data.status).toBe('scheduled');
    const fresh = new AnnouncesService(new AnnouncesRepository(db()), t.app.services.mailer, t.app.services.notifications, {
      projectInfo: t.app.services.projectInfo,
      intervalMs: 0,
    });
    await fresh.tick();
    expect(mailsTo('later@res.test')).toBe(0);
    // Stopped while scheduled, then started again: still waits for its time.
    expect((await admin.post(`/announcements/${a.id}/stop`)).json().data.status).toBe('stopped');
    expect((await admin.post(`/announcements/${a.id}/start`)).json().data.status).toBe('scheduled');
    await db().execute(sql`UPDATE announces SET execute_at = now() - interval '1 second' WHERE id = ${a.id}`);
    expect(await deliverAll(fresh, a.id)).toBe('sent');
    expect((await peer.next('later@res.test')).subject).toBe('Later news');
    // Sent by e-mail only: no in-app notification.
    const [n] = await queryRows<{ n: number }>(
      db(),
      sql`SELECT count(*)::int AS n FROM notifications WHERE type = 'announce_received' AND (data ->> 'announce_id')::int = ${a.id}`,
    );
    expect(Number(n?.n)).toBe(0);
  });
});

describe('permissions and scope', () => {
  it('names in the responses only the respondents the operator may see', async () => {
    const mine = await makeGroup(db(), projectId, t.project.rootGroupId);
    const below = await makeGroup(db(), projectId, mine);
    const other = await makeGroup(db(), projectId, t.project.rootGroupId);
    const near = await makeUser(db(), { projectId, groupIds: [below], name: 'Near resident' });
    const far = await makeUser(db(), { projectId, groupIds: [other], name: 'Far resident' });
    const a = (
      await admin.put('/announcements', {
        name: 'Both branches',
        subject: 'S',
        type: 'poll',
        send_via: 'app',
        type_info: { questions: [{ text: 'Q', answers: [{ text: 'A' }, { text: 'B' }] }] },
        domains: [below, other],
      })
    ).json().data;
    expect((await admin.post(`/announcements/${a.id}/start`)).statusCode).toBe(200);
    expect(await deliverAll(t.app.services.announces, a.id)).toBe('sent');
    const tokens = await queryRows<{ user_id: number; token: string }>(
      db(),
      sql`SELECT user_id, token FROM announce_deliveries WHERE announce_id = ${a.id}`,
    );
    for (const tk of tokens) expect((await pub('PUT', tk.token, { answers: [{ question_id: 1, answer_ids: [1] }] })).statusCode).toBe(200);
    const role = await makeRole(db(), projectId, ['can_view_announces', 'can_view_descendant_users']);
    const op = await makeUser(db(), { projectId, roleId: role, groupIds: [mine] });
    const api = client(t.app, await login(t.app, op.login, op.password));
    const seen = (await api.get(`/announcements/responses?announce_id=${a.id}&size=10`)).json();
    expect(seen.meta.total).toBe(2);
    const names = seen.data.map((r: { user: { id: number; name: string } | null }) => r.user?.name ?? null).sort();
    expect(names).toEqual(['Near resident', null].sort());
    expect(seen.data.some((r: { user: { id: number } | null }) => r.user?.id === far.id)).toBe(false);
    expect(seen.data.some((r: { user: { id: number } | null }) => r.user?.id === near.id)).toBe(true);
    // The counts are the poll's, whoever answered.
    expect((await api.get(`/announcements/${a.id}?with=results`)).json().data.results.questions[0].answers[0].count).toBe(2);
    // An answer by token reaches nobody else's delivery: each token answered once, and the poll counts two.
    expect((await pub('PUT', tokens[0]!.token, { answers: [{ question_id: 1, answer_ids: [2] }] })).statusCode).toBe(409);
  });

  it('lets an operator see and act on announces of their branch only, within their permissions', async () => {
    const mine = await makeGroup(db(), projectId, t.project.rootGroupId);
    const below = await makeGroup(db(), projectId, mine);
    const other = await makeGroup(db(), projectId, t.project.rootGroupId);
    const resident = await makeUser(db(), { projectId, groupIds: [below], email: 'scope@res.test' });
    const stranger = await makeUser(db(), { projectId, groupIds: [other], email: 'stranger@res.test' });
    const toMine = (await admin.put('/announcements', { name: 'Mine', subject: 'S', domains: [below] })).json().data;
    const toOther = (await admin.put('/announcements', { name: 'Other', subject: 'S', domains: [other], users: [stranger.id] })).json()
      .data;
    const toBoth = (await admin.put('/announcements', { name: 'Both', subject: 'S', domains: [other, below] })).json().data;

    const role = await makeRole(db(), projectId, ['can_view_announces', 'can_view_all_users', 'can_create_announces']);
    const op = await makeUser(db(), { projectId, roleId: role, groupIds: [mine] });
    const api = client(t.app, await login(t.app, op.login, op.password));
    const listed = (await api.get('/announcements?size=100')).json();
    const ids = listed.data.map((x: { id: number }) => x.id);
    expect(ids).toContain(toMine.id);
    expect(ids).toContain(toBoth.id);
    expect(ids).not.toContain(toOther.id);
    expect((await api.get(`/announcements/${toOther.id}`)).statusCode).toBe(404);
    expect((await api.get(`/announcements/responses?announce_id=${toOther.id}`)).statusCode).toBe(404);
    expect((await api.get(`/announcements/responses/download?announce_id=${toOther.id}`)).statusCode).toBe(404);
    // Recipients outside the branch are not shown to them.
    expect((await api.get(`/announcements/${toBoth.id}`)).json().data.domains).toEqual([below]);
    // Addressing a group outside the branch is refused.
    const outside = await api.put('/announcements', { name: 'X', subject: 'S', domains: [other] });
    expect(outside.json()).toMatchObject({ code: 'invalid_related_entity', details: [{ field: 'domains', ids: [other] }] });
    const own = await api.put('/announcements', { name: 'By op', subject: 'S', domains: [below], users: [resident.id] });
    expect(own.statusCode, own.body).toBe(200);
    // Viewing is not editing, sending or deleting.
    expect((await api.patch(`/announcements/${toMine.id}`, { name: 'Renamed' })).statusCode).toBe(403);
    expect((await api.post(`/announcements/${toMine.id}/start`)).statusCode).toBe(403);
    expect((await api.post(`/announcements/${toMine.id}/stop`)).statusCode).toBe(403);
    expect((await api.delete(`/announcements/${toMine.id}`)).statusCode).toBe(403);
    const bulk = (await api.post('/announcements/delete', { items: [toMine.id, toOther.id] })).json().data;
    expect(bulk.deleted).toEqual([]);
    expect(bulk.not_deleted.map((x: { code: string }) => x.code).sort()).toEqual(['action_prohibited', 'not_found']);

    // Editing an announce does not drop the recipients the editor cannot see.
    const editorRole = await makeRole(db(), projectId, ['can_view_announces', 'can_edit_announces', 'can_view_all_users']);
    const editor = await makeUser(db(), { projectId, roleId: editorRole, groupIds: [mine] });
    const ed = client(t.app, await login(t.app, editor.login, editor.password));
    const edited = await ed.patch(`/announcements/${toBoth.id}`, { domains: [mine] });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await admin.get(`/announcements/${toBoth.id}`)).json().data.domains.sort()).toEqual([mine, other].sort());

    // Without a view permission, nothing.
    const nobody = await makeUser(db(), { projectId, roleId: await makeRole(db(), projectId, ['can_create_announces']), groupIds: [mine] });
    const nb = client(t.app, await login(t.app, nobody.login, nobody.password));
    expect((await nb.get('/announcements')).statusCode).toBe(403);
    // Without create: refused.
    const viewer = await makeUser(db(), { projectId, roleId: await makeRole(db(), projectId, ['can_view_announces']), groupIds: [mine] });
    const vw = client(t.app, await login(t.app, viewer.login, viewer.password));
    expect((await vw.put('/announcements', { name: 'X', subject: 'S', domains: [below] })).statusCode).toBe(403);
    // The recipient's page needs the token, not a session; an unauthenticated list is refused.
    expect((await client(t.app).get('/announcements')).statusCode).toBe(401);

    // "View all" sees every announce; a sender starts and stops it.
    const senderRole = await makeRole(db(), projectId, ['can_view_all_announces', 'can_send_announces', 'can_delete_announces']);
    const sender = await makeUser(db(), { projectId, roleId: senderRole, groupIds: [mine] });
    const sd = client(t.app, await login(t.app, sender.login, sender.password));
    expect((await sd.get(`/announcements/${toOther.id}`)).statusCode).toBe(200);
    expect((await sd.post(`/announcements/${toOther.id}/start`)).json().data.status).toBe('sending');
    expect((await sd.post(`/announcements/${toOther.id}/stop`)).json().data.status).toBe('stopped');
    expect((await sd.post('/announcements/delete', { items: [toOther.id] })).json().data.deleted).toEqual([toOther.id]);
    expect((await admin.get(`/announcements/${toOther.id}`)).statusCode).toBe(404);
  });
});
