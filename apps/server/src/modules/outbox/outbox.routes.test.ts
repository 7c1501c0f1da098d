import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { mailOutbox } from '../registration/registration.table.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());

const db = () => t.app.database.db;
const keep = (to: string) => t.app.services.mailer.queueRaw(db(), t.project.projectId, { to, subject: `Hello ${to}`, text: 'body' });

describe('outbox', () => {
  it('lists the mail kept for lack of SMTP to an administrator, newest first, without sent mail', async () => {
    const first = await keep('one@example.test');
    const second = await keep('two@example.test');
    expect(first.status).toBe('stored');
    const sent = await keep('sent@example.test');
    await db().update(mailOutbox).set({ status: 'sent' }).where(eq(mailOutbox.id, sent.id));

    const res = await admin.get('/outbox');
    expect(res.statusCode, res.body).toBe(200);
    const ids = res.json().data.map((m: { id: number }) => m.id);
    expect(ids.slice(0, 2)).toEqual([second.id, first.id]);
    expect(ids).not.toContain(sent.id);
    expect(res.json().data[0]).toMatchObject({
      to: 'two@example.test',
      subject: 'Hello two@example.test',
      status: 'stored',
      error: null,
      attempts: 0,
    });
    expect((await admin.get('/outbox?status=sent')).json().data.map((m: { id: number }) => m.id)).toEqual([sent.id]);
    expect((await admin.get('/outbox?status=nope')).statusCode).toBe(400);
  });

  it('retries a mail: without SMTP it stays kept, counted as one more attempt; sent mail is not retried', async () => {
    const m = await keep('retry@example.test');
    const res = await admin.post(`/outbox/${m.id}/retry`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: m.id, status: 'stored', attempts: 1 });
    await db().update(mailOutbox).set({ status: 'sent' }).where(eq(mailOutbox.id, m.id));
    expect((await admin.post(`/outbox/${m.id}/retry`)).statusCode).toBe(400);
    expect((await admin.post('/outbox/999999/retry')).statusCode).toBe(404);
  });

  it('deletes a mail', async () => {
    const m = await keep('delete@example.test');
    expect((await admin.delete(`/outbox/${m.id}`)).statusCode).toBe(200);
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.id, m.id))).toEqual([]);
    expect((await admin.delete(`/outbox/${m.id}`)).statusCode).toBe(404);
  });

  it('is refused to a user who may not change the project settings', async () => {
    const m = await keep('hidden@example.test');
    const roleId = await makeRole(db(), t.project.projectId, ['can_view_all_users', 'can_edit_all_users', 'can_view_project_settings']);
    const u = await makeUser(db(), { projectId: t.project.projectId, roleId });
    const api = client(t.app, await login(t.app, u.login, u.password));
    expect((await api.get('/outbox')).statusCode).toBe(403);
    expect((await api.post(`/outbox/${m.id}/retry`)).statusCode).toBe(403);
    expect((await api.delete(`/outbox/${m.id}`)).statusCode).toBe(403);
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.id, m.id))).toHaveLength(1);
  });

  it('does not show or touch the mail of another project', async () => {
    const other = await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'other-admin',
      adminName: 'O',
      adminPassword: 'other-password-1',
    });
    const theirs = await t.app.services.mailer.queueRaw(db(), other.projectId, { to: 'theirs@example.test', subject: 's', text: 't' });
    expect((await admin.get('/outbox?size=1000')).json().data.map((m: { id: number }) => m.id)).not.toContain(theirs.id);
    expect((await admin.post(`/outbox/${theirs.id}/retry`)).statusCode).toBe(404);
    expect((await admin.delete(`/outbox/${theirs.id}`)).statusCode).toBe(404);
  });
});
