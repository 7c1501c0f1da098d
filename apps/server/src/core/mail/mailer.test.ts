import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers.js';
import { type SmtpPeer, startSmtpPeer } from '../../../test/smtp-peer.js';
import { projects } from '../../modules/projects/projects.table.js';
import { mailOutbox } from '../../modules/registration/registration.table.js';
import { MAX_ATTEMPTS, MailRepository } from './mail.repository.js';
import { Mailer } from './mailer.js';
import { describeSmtpError, parseSmtpSettings } from './smtp.js';
import { renderMail } from './templates.js';

let t: TestApp;
let peer: SmtpPeer;
let mailer: Mailer;
let projectId: number;

const db = () => t.app.database.db;
const row = async (id: number) => (await db().select().from(mailOutbox).where(eq(mailOutbox.id, id)))[0]!;
const setSmtp = async (smtp: Record<string, unknown> | null) => {
  await db()
    .update(projects)
    .set({
      settings: smtp ? sql`jsonb_set(${projects.settings}, '{smtp}', ${JSON.stringify(smtp)}::jsonb)` : sql`${projects.settings} - 'smtp'`,
    })
    .where(eq(projects.id, projectId));
};
const goodSmtp = () => ({
  host: peer.host,
  port: peer.port,
  secure: false,
  user: peer.user,
  password: peer.password,
  from: 'Atrium <noreply@atrium.test>',
});
const queue = (to: string, locale = 'en') =>
  mailer.queue(db(), {
    projectId,
    to,
    locale,
    kind: 'password_reset',
    params: { name: 'Ann', login: 'ann', link: 'https://atrium.test/password/reset/abc', minutes: 60 },
  });

beforeAll(async () => {
  t = await buildTestApp();
  // The app's own retry worker would race the assertions below: these tests drive their own mailers.
  await t.app.services.mailer.stop();
  peer = await startSmtpPeer();
  projectId = t.project.projectId;
  mailer = new Mailer(new MailRepository(db()), { retryIntervalMs: 0 });
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});
beforeEach(async () => {
  peer.refuse(null);
  await setSmtp(goodSmtp());
});

describe('Mailer through a real SMTP server', () => {
  it('sends a queued message with the project settings and marks it sent', async () => {
    const q = await queue('ann@example.test');
    expect(q.status).toBe('queued');
    expect(await mailer.deliver(q.id)).toBe('sent');
    const got = await peer.next('ann@example.test');
    expect(got.from).toBe('noreply@atrium.test');
    expect(got.subject).toBe('Password recovery');
    expect(got.text).toContain('https://atrium.test/password/reset/abc');
    expect(got.html).toContain('<a href="https://atrium.test/password/reset/abc">');
    const r = await row(q.id);
    expect(r).toMatchObject({ status: 'sent', attempts: 1, error: null, projectId });
    expect(r.sentAt).toBeInstanceOf(Date);
  });

  it("uses the server's SMTP (SMTP_URL) when the project has none, and the project's own when it has one", async () => {
    await setSmtp(null);
    const serverWide = new Mailer(new MailRepository(db()), {
      retryIntervalMs: 0,
      defaultSmtp: { ...goodSmtp(), from: 'Server <server@atrium.test>' },
    });
    const q = await serverWide.queue(db(), {
      projectId,
      to: 'server-wide@example.test',
      locale: 'en',
      kind: 'password_reset',
      params: { name: 'Ann', login: 'ann', link: 'https://atrium.test/x', minutes: 60 },
    });
    expect(q.status).toBe('queued');
    expect(await serverWide.deliver(q.id)).toBe('sent');
    expect((await peer.next('server-wide@example.test')).from).toBe('server@atrium.test');
    await setSmtp(goodSmtp());
    const own = await serverWide.queue(db(), {
      projectId,
      to: 'own@example.test',
      locale: 'en',
      kind: 'password_reset',
      params: { name: 'Ann', login: 'ann', link: 'https://atrium.test/x', minutes: 60 },
    });
    await serverWide.deliver(own.id);
    expect((await peer.next('own@example.test')).from).toBe('noreply@atrium.test');
  });

  it('writes in Russian for a Russian recipient', async () => {
    const q = await queue('ru@example.test', 'ru');
    await mailer.deliver(q.id);
    const got = await peer.next('ru@example.test');
    expect(got.subject).toBe('Восстановление пароля');
    expect(got.text).toContain('Здравствуйте, Ann.');
  });

  it('keeps mail in the outbox only ("stored") when the project has no SMTP settings', async () => {
    await setSmtp(null);
    const q = await queue('nosmtp@example.test');
    expect(q.status).toBe('stored');
    expect(await mailer.deliver(q.id)).toBe('stored');
    expect(await row(q.id)).toMatchObject({ status: 'stored', attempts: 0 });
    expect(peer.received.some((m) => m.to.includes('nosmtp@example.test'))).toBe(false);
  });

  it('treats incomplete SMTP settings as absent', async () => {
    await setSmtp({ host: peer.host, port: peer.port });
    expect((await queue('partial@example.test')).status).toBe('stored');
  });

  it('stores a queued message whose project lost its SMTP settings before sending', async () => {
    const q = await queue('lost@example.test');
    await setSmtp(null);
    expect(await mailer.deliver(q.id)).toBe('stored');
  });

  it('records a refused login as an error without the SMTP password', async () => {
    await setSmtp({ ...goodSmtp(), password: 'wrong-smtp-password' });
    const q = await queue('badauth@example.test');
    expect(await mailer.deliver(q.id)).toBe('error');
    const r = await row(q.id);
    expect(r.status).toBe('error');
    expect(r.attempts).toBe(1);
    expect(r.error).toMatch(/EAUTH|Invalid/);
    expect(r.error).not.toContain('wrong-smtp-password');
    expect(r.error).not.toContain(peer.password);
  });

  it('records an unreachable server as an error', async () => {
    await setSmtp({ ...goodSmtp(), port: 1 });
    const q = await queue('down@example.test');
    expect(await mailer.deliver(q.id)).toBe('error');
    expect((await row(q.id)).error).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
  });

  it('retries a refused message when its retry time comes, not before', async () => {
    peer.refuse('554 mailbox unavailable');
    const q = await queue('retry@example.test');
    expect(await mailer.deliver(q.id)).toBe('error');
    expect((await row(q.id)).error).toContain('mailbox unavailable');
    peer.refuse(null);
    // Not due yet: the first retry waits a minute after queueing.
    expect(await mailer.deliver(q.id)).toBe('error');
    expect((await row(q.id)).attempts).toBe(1);
    await db().update(mailOutbox).set({ createdAt: sql`now() - interval '2 minutes'` }).where(eq(mailOutbox.id, q.id));
    expect(await mailer.processDue()).toBeGreaterThanOrEqual(1);
    expect(await row(q.id)).toMatchObject({ status: 'sent', attempts: 2, error: null });
    expect((await peer.next('retry@example.test')).subject).toBe('Password recovery');
  });

  it('gives up after the last attempt', async () => {
    const q = await queue('giveup@example.test');
    await db()
      .update(mailOutbox)
      .set({ status: 'error', attempts: MAX_ATTEMPTS, createdAt: sql`now() - interval '30 days'` })
      .where(eq(mailOutbox.id, q.id));
    expect(await mailer.deliver(q.id)).toBe('error');
    expect((await row(q.id)).attempts).toBe(MAX_ATTEMPTS);
  });

  it('does not send a message another instance holds, until its lease runs out', async () => {
    const q = await queue('lease@example.test');
    await db().update(mailOutbox).set({ sentAt: sql`now()`, attempts: 1 }).where(eq(mailOutbox.id, q.id));
    expect(await mailer.deliver(q.id)).toBe('queued');
    await db().update(mailOutbox).set({ sentAt: sql`now() - interval '10 minutes'` }).where(eq(mailOutbox.id, q.id));
    expect(await mailer.deliver(q.id)).toBe('sent');
    expect((await row(q.id)).attempts).toBe(2);
  });

  it('sends each message once when several instances work the outbox together', async () => {
    const others = [
      new Mailer(new MailRepository(db()), { retryIntervalMs: 0 }),
      new Mailer(new MailRepository(db()), { retryIntervalMs: 0 }),
    ];
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await queue(`many${i}@example.test`)).id);
    const before = peer.received.length;
    await Promise.all([mailer.processDue(5), ...others.map((m) => m.processDue(5)), mailer.processDue(5)]);
    while ((await mailer.processDue(5)) > 0);
    const rows = await Promise.all(ids.map(row));
    expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    expect(peer.received.length - before).toBe(12);
  });

  it('delivers in the background and lets callers wait for it', async () => {
    const q = await queue('soon@example.test');
    mailer.deliverSoon([q]);
    await mailer.idle();
    expect((await row(q.id)).status).toBe('sent');
  });
});

describe('mail helpers', () => {
  it('never lets the SMTP password into an error text', () => {
    const err = Object.assign(new Error('auth failed for s3cr3t-pass: 535 s3cr3t-pass rejected'), { code: 'EAUTH' });
    const text = describeSmtpError(err, { password: 's3cr3t-pass' });
    expect(text).toBe('EAUTH: auth failed for ***: 535 *** rejected');
  });

  it('accepts complete SMTP settings only', () => {
    expect(parseSmtpSettings(undefined)).toBeNull();
    expect(parseSmtpSettings({ host: 'mail', port: '25', from: 'a@b.c' })).toBeNull();
    expect(parseSmtpSettings({ host: 'mail', port: 25, from: 'a@b.c' })).toMatchObject({ host: 'mail', port: 25, secure: false });
  });

  it('escapes values in the HTML body', () => {
    const m = renderMail('invite', 'en', { name: '<b>x</b>', login: 'l', link: 'https://a.test/?a=1&b=2', project: 'P', days: 7 });
    expect(m.html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(m.html).toContain('href="https://a.test/?a=1&amp;b=2"');
    expect(m.text).toContain('Hello, <b>x</b>.');
  });
});
