import {
  ACCESS_REALTIME,
  ALARM_REALTIME,
  APP_CHANGES_TOPIC,
  CLIENT_PUBLISH_MAX_BYTES,
  DEVICE_REALTIME,
  REALTIME_CLOSE,
} from '@atrium/contract';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { makeUser } from '../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../test/helpers.js';
import { connectSocket } from '../../test/realtime-client.js';
import { refreshTokens } from '../modules/auth/auth.table.js';
import { hashToken, TokenService } from './auth/tokens.js';
import { MAX_TOPICS_PER_SOCKET, MAX_TOPICS_PER_USER, RealtimeHub } from './realtime.js';

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
    expect((await c.next((m) => m.event === 'error')).data).toMatchObject({
      message: 'invalid data sent',
      details: [{ field: 'command' }],
    });
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

  it("refuses every client publish: calls-management, app-changes and private topics are the server's", async () => {
    const a = await connect(base, token);
    const b = await connect(base, token);
    b.send({ command: 'subscribe', topic: 'calls-management.100' });
    await b.next((m) => m.event === 'subscribed');
    for (const topic of ['calls-management.100', APP_CHANGES_TOPIC, `private-user.${userId}`, 'anything']) {
      a.send({ command: 'publish', topic, event: 'CallUpdated', data: { state: 'ringing' } });
      expect(await a.next((m) => m.event === 'error')).toEqual({ topic, event: 'error', data: { message: 'action prohibited' } });
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(b.inbox.filter((m) => m.event === 'CallUpdated')).toHaveLength(0);
    a.ws.close();
    b.ws.close();
  });

  it('stops delivery after unsubscribe', async () => {
    const b = await connect(base, token);
    b.send({ command: 'subscribe', topic: 'calls-management.100' });
    await b.next((m) => m.event === 'subscribed');
    await t.app.realtime.publish(t.project.projectId, 'calls-management.100', 'CallUpdated', { state: 'ringing' });
    expect((await b.next((m) => m.event === 'CallUpdated')).data).toEqual({ state: 'ringing' });
    b.send({ command: 'unsubscribe', topic: 'calls-management.100' });
    await b.next((m) => m.event === 'unsubscribed');
    await t.app.realtime.publish(t.project.projectId, 'calls-management.100', 'CallUpdated', { state: 'ended' });
    await new Promise((r) => setTimeout(r, 300));
    expect(b.inbox.filter((m) => m.event === 'CallUpdated')).toHaveLength(0);
    b.ws.close();
  });

  it('answers a publish with data over the limit with an error, and the server lives on', async () => {
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const c = await connect(base, token);
      c.send({ command: 'publish', topic: 'x', data: 'x'.repeat(9000) });
      expect((await c.next((m) => m.event === 'error')).data).toEqual({
        message: 'invalid data sent',
        details: [{ field: 'data', message: `at most ${CLIENT_PUBLISH_MAX_BYTES} bytes` }],
      });
      c.send({ command: 'publish', topic: 'x', data: 'x'.repeat(CLIENT_PUBLISH_MAX_BYTES) });
      expect((await c.next((m) => m.event === 'error')).data).toMatchObject({ message: 'invalid data sent' });
      c.send({ command: 'ping' });
      await c.next((m) => m.event === 'pong');
      await new Promise((r) => setTimeout(r, 200));
      expect(rejections).toEqual([]);
      c.ws.close();
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('answers a message whose handling fails with an error frame and keeps the socket', async () => {
    const c = await connect(base, token);
    const spy = vi.spyOn(RealtimeHub, 'mayAccess').mockImplementation(() => {
      throw new Error('boom');
    });
    try {
      c.send({ command: 'subscribe', topic: 'calls-management.1' });
      expect((await c.next((m) => m.event === 'error')).data).toEqual({ message: 'internal server error' });
    } finally {
      spy.mockRestore();
    }
    expect((await c.subscribe('calls-management.1')).event).toBe('subscribed');
    c.ws.close();
  });

  it('delivers server events too large for one NOTIFY whole, in order with the next ones', async () => {
    const c = await connect(base, token);
    await c.subscribe('calls-management.7');
    // Multi-byte text: NOTIFY's limit is in bytes, and no character may be cut in two.
    const big = { text: `${'ж'.repeat(9000)}😀${'x'.repeat(20_000)}😀`, n: 1 };
    await t.app.realtime.publish(t.project.projectId, 'calls-management.7', 'CallUpdated', big);
    await t.app.realtime.publish(t.project.projectId, 'calls-management.7', 'CallUpdated', { n: 2 });
    expect((await c.next((m) => m.event === 'CallUpdated')).data).toEqual(big);
    expect((await c.next((m) => m.event === 'CallUpdated')).data).toEqual({ n: 2 });
    c.ws.close();
  });

  it('pushes a saved notification however large its data', async () => {
    const c = await connect(base, token);
    await c.subscribe(`private-user.${userId}`);
    const text = 'y'.repeat(50_000);
    const saved = await t.app.services.notifications.notify(t.project.projectId, userId, { type: 'system', data: { text } });
    const m = await c.next((m) => m.event === 'notification');
    expect(m.data).toMatchObject({ id: saved!.id, data: { text } });
    c.ws.close();
  });
});

describe('a socket ends with its sign-in', () => {
  const closed = (ws: WebSocket) =>
    new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );

  it('closes when its access token expires', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    await login(t.app, u.login, u.password);
    const short = await new TokenService(t.app.config.jwtSecret!).signAccess({ userId: u.id, projectId: t.project.projectId }, 2);
    const c = await connect(base, short);
    const end = closed(c.ws);
    c.send({ command: 'ping' });
    await c.next((m) => m.event === 'pong');
    expect(await end).toEqual(REALTIME_CLOSE.tokenExpired);
  });

  it("closes a deleted user's sockets, and no one else's", async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const doomed = await connect(base, await login(t.app, u.login, u.password));
    const bystander = await connect(base, token);
    const end = closed(doomed.ws);
    const admin = await adminClient(t);
    expect((await admin.delete(`/users/${u.id}`)).statusCode).toBe(200);
    expect(await end).toEqual(REALTIME_CLOSE.sessionEnded);
    await t.app.realtime.revalidate();
    bystander.send({ command: 'ping' });
    await bystander.next((m) => m.event === 'pong');
    bystander.ws.close();
  });

  it('closes once the user has signed out', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const res = await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: u.login, password: u.password } });
    const session = res.json().data.sessions[0] as { token: string; refresh: string };
    const c = await connect(base, session.token);
    const end = closed(c.ws);
    await t.app.realtime.revalidate();
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    expect((await client(t.app, session.token).post('/logout', { token: session.refresh })).statusCode).toBe(200);
    // The sign-out says so on commit (core/sessions.ts): no heartbeat needed.
    expect(await end).toEqual(REALTIME_CLOSE.sessionEnded);
  });

  it("closes the other sign-ins' sockets at once when the password changes, and keeps the changer's", async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const signIn = async () =>
      (await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: u.login, password: u.password } })).json().data
        .sessions[0] as { token: string; refresh: string };
    const laptop = await signIn();
    const phone = await signIn();
    const laptopSocket = await connect(base, laptop.token);
    const phoneSocket = await connect(base, phone.token);
    const phoneEnd = closed(phoneSocket.ws);
    const changed = await client(t.app, laptop.token).post('/profile/password', { old: u.password, new: 'a-new-password-42' });
    expect(changed.statusCode).toBe(200);
    expect(await phoneEnd).toEqual(REALTIME_CLOSE.sessionEnded);
    laptopSocket.send({ command: 'ping' });
    await laptopSocket.next((m) => m.event === 'pong');
    laptopSocket.ws.close();
  });

  it('closes the sockets of the sign-in that signed out, not those of the same user elsewhere', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const signIn = async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: u.login, password: u.password } });
      const { token, refresh } = res.json().data.sessions[0] as { token: string; refresh: string };
      const [row] = await t.app.database.db
        .select()
        .from(refreshTokens)
        .where(eq(refreshTokens.tokenHash, hashToken(refresh)));
      // An access token that names its sign-in (the refresh token family) as `sid`.
      const named = await new SignJWT({ pid: t.project.projectId, sid: row!.familyId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(u.id))
        .setIssuedAt()
        .setExpirationTime('15m')
        .sign(new TextEncoder().encode(t.app.config.jwtSecret!));
      return { token, refresh, named };
    };
    const office = await signIn();
    const home = await signIn();
    const officeSocket = await connect(base, office.named);
    const homeSocket = await connect(base, home.named);
    const end = closed(officeSocket.ws);
    expect((await client(t.app, office.token).post('/logout', { token: office.refresh })).statusCode).toBe(200);
    expect(await end).toEqual(REALTIME_CLOSE.sessionEnded);
    homeSocket.send({ command: 'ping' });
    await homeSocket.next((m) => m.event === 'pong');
    homeSocket.ws.close();
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
      // Larger than one NOTIFY payload: still heard by the other instance.
      const text = 'z'.repeat(30_000);
      await second.app.services.notifications.notify(t.project.projectId, userId, { type: 'system', data: { via: 'second', text } });
      expect((await c.next((m) => m.event === 'notification')).data).toMatchObject({ data: { via: 'second', text } });
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

describe('realtime heartbeat', () => {
  it('pings every socket, keeps those that answer and ends one that stopped answering', async () => {
    const alive = await connect(base, token);
    const pinged = new Promise<void>((resolve) => alive.ws.once('ping', () => resolve()));
    // A client whose network died: it no longer answers pings (ws answers them itself unless told not to).
    const dead = new WebSocket(`${base}/api/v0/ws?access_token=${token}`, { autoPong: false });
    await new Promise((resolve, reject) => {
      dead.once('open', resolve);
      dead.once('error', reject);
    });
    const deadClosed = new Promise<void>((resolve) => dead.once('close', () => resolve()));

    t.app.realtime.beat();
    await pinged;
    await new Promise((r) => setTimeout(r, 300)); // the live client's pong comes back
    t.app.realtime.beat();
    await deadClosed;
    expect(dead.readyState).toBe(WebSocket.CLOSED);
    alive.send({ command: 'ping' });
    expect((await alive.next((m) => m.event === 'pong')).topic).toBe('system');
    alive.close();
  });
});

describe('realtime subscriptions are bounded', () => {
  const settle = async (done: () => boolean) => {
    for (let i = 0; i < 50 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
  };
  // Sockets the tests before closed are let go once their close frame arrives: wait for the hub to be still.
  const quiet = async () => {
    let last = JSON.stringify(t.app.realtime.size);
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = JSON.stringify(t.app.realtime.size);
      if (now === last) return t.app.realtime.size;
      last = now;
    }
    return t.app.realtime.size;
  };

  it('refuses a topic the server never publishes on, and keeps nothing for it', async () => {
    const before = (await quiet()).topics;
    const c = await connect(base, token);
    for (const topic of ['x'.repeat(190), 'calls-management.abc', 'devices.1', 'device-screen.nope', 'access-events.2']) {
      const answer = await c.subscribe(topic);
      expect(answer.event).toBe('error');
      expect(answer.data).toMatchObject({ details: [{ field: 'topic', message: 'no such topic' }] });
    }
    expect(t.app.realtime.size.topics).toBe(before);
    c.ws.close();
  });

  it('accepts every topic the contract names', async () => {
    const c = await connect(base, token);
    for (const topic of [
      `private-user.${userId}`,
      APP_CHANGES_TOPIC,
      'calls-management.100',
      DEVICE_REALTIME.statusTopic,
      DEVICE_REALTIME.tasksTopic,
      DEVICE_REALTIME.searchTopic('scan_1-a'),
      DEVICE_REALTIME.screenTopic('9b2f7c1e-4d7a-4b55-9a0e-1f2e3d4c5b6a'),
      ALARM_REALTIME.topic,
      ACCESS_REALTIME.eventsTopic,
    ])
      expect((await c.subscribe(topic)).event, topic).toBe('subscribed');
    c.ws.close();
  });

  it('bounds the subscriptions of one socket and of one user, and forgets emptied topics', async () => {
    const before = await quiet();
    const sockets = await Promise.all(Array.from({ length: 5 }, () => connect(base, token)));
    let accepted = 0;
    let refused = 0;
    for (const [i, s] of sockets.entries()) {
      for (let n = 0; n < MAX_TOPICS_PER_SOCKET + 2; n++) {
        const answer = await s.subscribe(DEVICE_REALTIME.searchTopic(`s${i}-${n}`));
        if (answer.event === 'subscribed') accepted++;
        else {
          refused++;
          expect(answer.data).toMatchObject({ message: "can't perform action", details: [{ field: 'topic' }] });
        }
      }
    }
    expect(accepted).toBe(MAX_TOPICS_PER_USER);
    expect(refused).toBe(5 * (MAX_TOPICS_PER_SOCKET + 2) - MAX_TOPICS_PER_USER);
    // The first socket alone met the per-socket bound.
    expect(sockets[0]!.inbox.filter((m) => m.event === 'error')).toHaveLength(0);
    expect(t.app.realtime.size.topics).toBe(before.topics + MAX_TOPICS_PER_USER);
    // Unsubscribing frees the place; closing the sockets frees everything they held.
    expect((await sockets[4]!.subscribe(DEVICE_REALTIME.searchTopic('late'))).event).toBe('error');
    sockets[0]!.send({ command: 'unsubscribe', topic: DEVICE_REALTIME.searchTopic('s0-0') });
    await sockets[0]!.next((m) => m.event === 'unsubscribed');
    expect((await sockets[4]!.subscribe(DEVICE_REALTIME.searchTopic('late'))).event).toBe('subscribed');
    for (const s of sockets) s.ws.close();
    await settle(() => t.app.realtime.size.topics === before.topics);
    expect(t.app.realtime.size).toEqual(before);
  });
});
