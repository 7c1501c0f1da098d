import { APP_CHANGES_TOPIC } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../test/factories/user.factory.js';
import { buildTestApp, login, type TestApp } from '../../test/helpers.js';
import { connectSocket } from '../../test/realtime-client.js';

const connect = connectSocket;

let t: TestApp;
let base: string;
let token: string;
let userId: number;
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address() as { port: number };
  base = `ws://127.0.0.1:${addr.port}`;
  const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
  userId = u.id;
  token = await login(t.app, u.login, u.password);
});
afterAll(() => t?.close());

describe('realtime socket', () => {
  it('refuses a connection without a valid token', async () => {
    await expect(connect(base, 'bad-token')).rejects.toThrow(/401/);
  });

  it('delivers a new notification to its owner at once (token by query)', async () => {
    const c = await connect(base, token);
    c.send({ command: 'subscribe', topic: `private-user.${userId}` });
    await c.next((m) => m.event === 'subscribed');
    await t.app.services.notifications.notify(t.project.projectId, userId, { type: 'announce_received', data: { author: 'A' } });
    const m = await c.next((m) => m.event === 'notification');
    expect(m.topic).toBe(`private-user.${userId}`);
    expect(m.data).toMatchObject({ type: 'announce_received', data: { author: 'A' } });
    c.ws.close();
  });

  it('accepts the token by header too', async () => {
    const c = await connect(base, token, 'header');
    c.send({ command: 'ping' });
    expect((await c.next((m) => m.event === 'pong')).topic).toBe('system');
    c.ws.close();
  });

  it("refuses another user's private topic and any foreign private topic", async () => {
    const c = await connect(base, token);
    c.send({ command: 'subscribe', topic: `private-user.${t.project.adminId}` });
    expect((await c.next((m) => m.event === 'error')).data).toEqual({ message: 'action prohibited' });
    c.send({ command: 'subscribe', topic: 'private-something' });
    expect((await c.next((m) => m.event === 'error')).data).toEqual({ message: 'action prohibited' });
    await t.app.services.notifications.notify(t.project.projectId, t.project.adminId, { type: 'announce_received' });
    await new Promise((r) => setTimeout(r, 300));
    expect(c.inbox.filter((m) => m.event === 'notification')).toHaveLength(0);
    c.ws.close();
  });

  it('answers bad commands with an error, not a disconnect', async () => {
    const c = await connect(base, token);
    c.ws.send('not json');
    expect((await c.next((m) => m.event === 'error')).data).toEqual({ message: 'invalid data sent' });
    c.send({ command: 'explode' });
    expect((await c.next((m) => m.event === 'error')).data).toEqual({ message: 'invalid data sent' });
    c.ws.close();
  });

  it('publishes role-changed on the app-changes topic to the project only', async () => {
    const c = await connect(base, token);
    c.send({ command: 'subscribe', topic: APP_CHANGES_TOPIC });
    await c.next((m) => m.event === 'subscribed');
    const other = await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'o',
      adminName: 'O',
      adminPassword: 'other-pass-1',
    });
    await t.app.realtime.publish(other.projectId, APP_CHANGES_TOPIC, 'role-changed', { roleId: 999 });
    await t.app.realtime.publish(t.project.projectId, APP_CHANGES_TOPIC, 'role-changed', { roleId: 7 });
    const m = await c.next((m) => m.event === 'role-changed');
    expect(m).toEqual({ topic: APP_CHANGES_TOPIC, event: 'role-changed', data: { roleId: 7 } });
    await new Promise((r) => setTimeout(r, 200));
    expect(c.inbox.filter((m) => m.event === 'role-changed')).toHaveLength(0);
    c.ws.close();
  });

  it('lets clients publish on public topics and stops delivery after unsubscribe', async () => {
    const a = await connect(base, token);
    const b = await connect(base, token);
    b.send({ command: 'subscribe', topic: 'calls-management.100' });
    await b.next((m) => m.event === 'subscribed');
    a.send({ command: 'publish', topic: 'calls-management.100', event: 'CallUpdated', data: { state: 'ringing' } });
    expect((await b.next((m) => m.event === 'CallUpdated')).data).toEqual({ state: 'ringing' });
    b.send({ command: 'unsubscribe', topic: 'calls-management.100' });
    await b.next((m) => m.event === 'unsubscribed');
    a.send({ command: 'publish', topic: 'calls-management.100', event: 'CallUpdated', data: { state: 'ended' } });
    await new Promise((r) => setTimeout(r, 300));
    expect(b.inbox.filter((m) => m.event === 'CallUpdated')).toHaveLength(0);
    a.send({ command: 'publish', topic: `private-user.${userId}`, event: 'notification' });
    expect((await a.next((m) => m.event === 'error')).data).toEqual({ message: 'action prohibited' });
    a.ws.close();
    b.ws.close();
  });
});

describe('two server instances on one database', () => {
  it('an event published by one instance reaches a socket on the other', async () => {
    // On PostgreSQL (CI) the second instance has its own pool and LISTEN connection; on PGlite both share one database handle.
    const own = process.env.TEST_DATABASE_URL ? await cloneConnection() : undefined;
    const second = await buildTestApp({ database: own ?? t.database });
    try {
      const c = await connect(base, token);
      c.send({ command: 'subscribe', topic: `private-user.${userId}` });
      await c.next((m) => m.event === 'subscribed');
      await second.app.services.notifications.notify(t.project.projectId, userId, { type: 'system', data: { via: 'second' } });
      expect((await c.next((m) => m.event === 'notification')).data).toMatchObject({ data: { via: 'second' } });
      c.ws.close();
    } finally {
      await second.app.close();
      await own?.close();
    }
  });
});

/** A second, independent connection to the same PostgreSQL database as the first instance. */
async function cloneConnection() {
  const { openDatabase } = await import('./db/client.js');
  const { rows } = (await t.database.db.execute('SELECT current_database() AS db' as never)) as unknown as { rows: { db: string }[] };
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${rows[0]!.db}`;
  return openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
}
