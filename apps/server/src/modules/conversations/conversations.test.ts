import { CONVERSATION_EVENTS, CONVERSATION_MESSAGE_MAX, topics } from '@atrium/contract';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';
import { auditEvents } from '../audit/audit.table.js';
import { notifications } from '../notifications/notifications.table.js';
import { users } from '../users/users.table.js';

type Api = ReturnType<typeof client>;
interface Person {
  id: number;
  api: Api;
  token: string;
}

let t: TestApp;
let admin: Api;
/** Building A (with entrance A1 below it) and building B, under the project's root group. */
let groupA: number;
let groupA1: number;
let groupB: number;
let managerA: Person;
let managerB: Person;
let residentA: Person;
let neighbourA: Person;
let residentB: Person;
let concierge: Person;
let plain: Person;
let broadcaster: Person;

const RESIDENT = ['can_create_conversations', 'can_create_conversation_messages'];
const MANAGER = [
  'can_view_descendant_conversations',
  'can_create_conversations',
  'can_create_conversation_messages',
  'can_delete_conversations',
  'can_accept_messages_from_descendant_users',
];

async function person(roleId: number | null, groupIds: number[], name: string): Promise<Person> {
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds, name });
  const token = await login(t.app, u.login, u.password);
  return { id: u.id, api: client(t.app, token), token };
}

async function start(from: Person, to: Person, subject = 'Leaking tap', message = 'The tap in flat 12 is leaking') {
  const res = await from.api.put('/conversations', { subject, interlocutor: { id: to.id }, message });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { id: number; unread_count: number; messages_count: number };
}

const ids = (res: { json(): { data: { id: number }[] } }) => res.json().data.map((x) => x.id);

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  const db = t.database.db;
  const p = t.project.projectId;
  groupA = await makeGroup(db, p, t.project.rootGroupId, 'Building A');
  groupA1 = await makeGroup(db, p, groupA, 'Entrance A1');
  groupB = await makeGroup(db, p, t.project.rootGroupId, 'Building B');
  const resident = await makeRole(db, p, RESIDENT);
  const manager = await makeRole(db, p, MANAGER);
  managerA = await person(manager, [groupA], 'Manager A');
  managerB = await person(manager, [groupB], 'Manager B');
  residentA = await person(resident, [groupA1], 'Resident A');
  neighbourA = await person(resident, [groupA1], 'Neighbour A');
  residentB = await person(resident, [groupB], 'Resident B');
  concierge = await person(await makeRole(db, p, ['can_view_conversations']), [groupA1], 'Concierge A1');
  plain = await person(null, [groupA1], 'Plain A1');
  broadcaster = await person(await makeRole(db, p, ['can_send_conversations_to_all', 'can_create_conversations']), [groupB], 'Broadcaster');
  // Eight people sign in (a password hash each): more than the default hook time on a busy machine.
}, 180_000);
afterAll(() => t?.close());

describe('recipients', () => {
  it('lets a resident reach the management above their group that accepts messages, and nobody else', async () => {
    const res = await residentA.api.get('/conversations/recipients');
    expect(res.statusCode).toBe(200);
    // The project's administrator (every permission, root group) accepts from everyone below too.
    expect(res.json().data).toEqual([
      { id: t.project.adminId, name: 'Admin' },
      { id: managerA.id, name: 'Manager A' },
    ]);
    expect(res.json().meta).toEqual({ total: 2, page: 1, size: 20 });
    expect(ids(await residentB.api.get('/conversations/recipients'))).toEqual([t.project.adminId, managerB.id]);
  });

  it('lets the management reach the users of its groups and below, never itself nor another building', async () => {
    const res = await managerA.api.get('/conversations/recipients?size=100');
    const got = ids(res);
    expect(got).toEqual(expect.arrayContaining([residentA.id, neighbourA.id, concierge.id, plain.id]));
    for (const out of [managerA.id, managerB.id, residentB.id, broadcaster.id]) expect(got).not.toContain(out);
  });

  it('lets one who may send to everyone reach every user of the project but themselves', async () => {
    const got = ids(await broadcaster.api.get('/conversations/recipients?size=100'));
    expect(got).toEqual(expect.arrayContaining([managerA.id, managerB.id, residentA.id, residentB.id, t.project.adminId]));
    expect(got).not.toContain(broadcaster.id);
  });

  it('searches by name and pages', async () => {
    expect(ids(await managerA.api.get('/conversations/recipients?search=neighbour'))).toEqual([neighbourA.id]);
    const page = await managerA.api.get('/conversations/recipients?size=1&page=2');
    expect(page.json().data).toHaveLength(1);
    expect(page.json().meta.total).toBeGreaterThanOrEqual(4);
  });

  it('refuses a user who may not create conversations, and bad paging', async () => {
    expect((await plain.api.get('/conversations/recipients')).statusCode).toBe(403);
    expect((await concierge.api.get('/conversations/recipients')).statusCode).toBe(403);
    expect((await residentA.api.get('/conversations/recipients?size=1000')).statusCode).toBe(400);
  });
});

describe('starting a conversation', () => {
  it('creates it with its first message, unread for the interlocutor only, and notifies them', async () => {
    const res = await residentA.api.put('/conversations', {
      subject: 'Broken lift',
      interlocutor: { id: managerA.id },
      message: 'The lift of entrance A1 is stuck on floor 3',
    });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json().data;
    expect(c).toMatchObject({
      subject: 'Broken lift',
      author: { id: residentA.id, name: 'Resident A' },
      interlocutor: { id: managerA.id, name: 'Manager A' },
      messages_count: 1,
      unread_count: 0,
      is_participant: true,
      can_write: true,
      can_delete: false,
      last_message: { message: 'The lift of entrance A1 is stuck on floor 3', author: { id: residentA.id } },
    });
    const seen = (await managerA.api.get(`/conversations/${c.id}`)).json().data;
    expect(seen).toMatchObject({ unread_count: 1, is_participant: true, can_write: true, can_delete: true, can_edit: false });
    const [n] = await t.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, managerA.id), eq(notifications.type, 'conversation_received')));
    expect(n?.data).toEqual({ conversation_id: c.id, author: 'Resident A', name: 'Broken lift' });
    expect(n?.popupAction).toEqual({ code: 'goto:page', params: { page: `/conversation/${c.id}` } });
    const [audit] = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'conversation'), eq(auditEvents.entityId, String(c.id)), eq(auditEvents.action, 'create')));
    expect(audit?.userId).toBe(residentA.id);
  });

  it('refuses a recipient out of reach the same way as one that does not exist', async () => {
    for (const id of [managerB.id, residentB.id, neighbourA.id, 99_999_999]) {
      const res = await residentA.api.put('/conversations', { subject: 'Hi', interlocutor: { id }, message: 'Hello' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ message: 'invalid related entity sent', details: [{ field: 'interlocutor.id', ids: [id] }] });
    }
  });

  it('refuses a conversation with oneself', async () => {
    const res = await managerA.api.put('/conversations', { subject: 'Me', interlocutor: { id: managerA.id }, message: 'Hello me' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('user cannot communicate with himself');
  });

  it('needs "create conversations"', async () => {
    const res = await plain.api.put('/conversations', { subject: 'Hi', interlocutor: { id: managerA.id }, message: 'Hello' });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('action prohibited');
  });

  it.each([
    ['no subject', { interlocutor: { id: 1 }, message: 'x' }, 'subject'],
    ['a blank subject', { subject: '   ', interlocutor: { id: 1 }, message: 'x' }, 'subject'],
    ['a subject too long', { subject: 's'.repeat(201), interlocutor: { id: 1 }, message: 'x' }, 'subject'],
    ['a blank message', { subject: 's', interlocutor: { id: 1 }, message: ' \n ' }, 'message'],
    ['a message too long', { subject: 's', interlocutor: { id: 1 }, message: 'm'.repeat(CONVERSATION_MESSAGE_MAX + 1) }, 'message'],
    ['a control character', { subject: 's', interlocutor: { id: 1 }, message: 'a\u0007b' }, 'message'],
    ['no interlocutor', { subject: 's', message: 'x' }, 'interlocutor'],
    ['an interlocutor id as text', { subject: 's', interlocutor: { id: 'one' }, message: 'x' }, 'interlocutor.id'],
    ['an unknown field', { subject: 's', interlocutor: { id: 1 }, message: 'x', author_id: 5 }, ''],
  ])('answers 400 with field details to %s', async (_what, body, field) => {
    const res = await residentA.api.put('/conversations', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('keeps a message of the largest size whole', async () => {
    const text = `${'é'.repeat(CONVERSATION_MESSAGE_MAX - 1)}!`;
    const c = await start(managerA, neighbourA, 'Long', text);
    const m = (await neighbourA.api.get(`/conversations/${c.id}/messages`)).json().data;
    expect(m[0].message).toBe(text);
  });
});

describe('who sees a conversation', () => {
  let convId: number;
  beforeAll(async () => {
    convId = (await start(residentA, managerA, 'Noise at night', 'Loud music after midnight')).id;
  });

  it('shows it to both participants, to the management of its groups, and to the whole-project viewer', async () => {
    for (const p of [residentA, managerA, concierge]) expect(ids(await p.api.get('/conversations?size=100')), 'list').toContain(convId);
    expect((await admin.get(`/conversations/${convId}`)).json().data).toMatchObject({
      is_participant: false,
      unread_count: 0,
      can_write: false,
    });
    expect((await concierge.api.get(`/conversations/${convId}`)).json().data).toMatchObject({ is_participant: false, can_delete: false });
  });

  it('hides it from other buildings and other residents: list, get, messages, reply, read, edit and delete', async () => {
    for (const p of [residentB, managerB, neighbourA, plain]) {
      expect(ids(await p.api.get('/conversations?size=100'))).not.toContain(convId);
      expect((await p.api.get(`/conversations/${convId}`)).statusCode).toBe(404);
      expect((await p.api.get(`/conversations/${convId}/messages`)).statusCode).toBe(404);
      expect((await p.api.put(`/conversations/${convId}/messages`, { message: 'Sneaky' })).statusCode).toBe(404);
      expect((await p.api.post(`/conversations/${convId}/read`)).statusCode).toBe(404);
      expect((await p.api.patch(`/conversations/${convId}`, { subject: 'Mine' })).statusCode).toBe(404);
      expect((await p.api.delete(`/conversations/${convId}`)).statusCode).toBe(404);
    }
  });

  it('tells the scopes apart: my groups only, my groups and below', async () => {
    // Between a user of building B and a resident of entrance A1 (below building A).
    const c = await start(broadcaster, neighbourA, 'Notice', 'The water is off on Monday');
    const ofA = await person(await makeRole(t.database.db, t.project.projectId, ['can_view_conversations']), [groupA], 'Desk of A');
    expect((await ofA.api.get(`/conversations/${c.id}`)).statusCode).toBe(404);
    expect((await concierge.api.get(`/conversations/${c.id}`)).statusCode).toBe(200);
    expect((await managerA.api.get(`/conversations/${c.id}`)).statusCode).toBe(200);
    expect((await managerB.api.get(`/conversations/${c.id}`)).statusCode).toBe(200);
    expect((await residentB.api.get(`/conversations/${c.id}`)).statusCode).toBe(404);
  });

  it('lets one who only oversees it read but not write in it nor mark it read', async () => {
    expect((await concierge.api.get(`/conversations/${convId}/messages`)).statusCode).toBe(200);
    expect((await concierge.api.put(`/conversations/${convId}/messages`, { message: 'I am on it' })).statusCode).toBe(403);
    expect((await concierge.api.post(`/conversations/${convId}/read`)).statusCode).toBe(403);
    // Reading did not mark it read for the participant who has not.
    expect((await managerA.api.get(`/conversations/${convId}`)).json().data.unread_count).toBe(1);
  });

  it('serves a participant without any permission: they read it, but may not write', async () => {
    const c = await start(managerA, plain, 'Your parcel', 'A parcel waits for you at the desk');
    expect(ids(await plain.api.get('/conversations'))).toEqual([c.id]);
    const list = (await plain.api.get('/conversations')).json().data[0];
    expect(list).toMatchObject({ unread_count: 1, can_write: false, can_delete: false });
    expect((await plain.api.get(`/conversations/${c.id}/messages`)).json().data[0].message).toBe('A parcel waits for you at the desk');
    expect((await plain.api.get(`/conversations/${c.id}`)).json().data.unread_count).toBe(0);
    expect((await plain.api.put(`/conversations/${c.id}/messages`, { message: 'Thanks' })).statusCode).toBe(403);
  });

  it('searches by subject or participant and filters unread ones', async () => {
    expect(ids(await managerA.api.get('/conversations?search=noise'))).toEqual([convId]);
    expect(ids(await managerA.api.get('/conversations?search=resident%20a&size=100'))).toContain(convId);
    expect(ids(await managerA.api.get('/conversations?unread=true&size=100'))).toContain(convId);
    expect(ids(await managerA.api.get('/conversations?unread=false&size=100'))).not.toContain(convId);
    expect(ids(await residentA.api.get('/conversations?unread=true'))).toEqual([]);
    const rule = encodeURIComponent(
      JSON.stringify({ match: 'match_all', rules: [{ field: 'subject', operator: 'begins_with', value: 'noise' }] }),
    );
    expect(ids(await managerA.api.get(`/conversations?filters=${rule}`))).toEqual([convId]);
    expect((await managerA.api.get('/conversations?sort=body')).statusCode).toBe(400);
    expect((await managerA.api.get('/conversations?unread=maybe')).statusCode).toBe(400);
    expect((await managerA.api.get('/conversations?with=messages')).statusCode).toBe(400);
  });

  it('lets only its author change the subject', async () => {
    expect((await managerA.api.patch(`/conversations/${convId}`, { subject: 'Changed' })).statusCode).toBe(403);
    const res = await residentA.api.patch(`/conversations/${convId}`, { subject: 'Noise at night (flat 12)' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.subject).toBe('Noise at night (flat 12)');
    expect((await residentA.api.patch(`/conversations/${convId}`, { subject: '' })).statusCode).toBe(400);
  });
});

describe('messages and unread counts', () => {
  it('counts unread per participant, marks read on reading, and totals them', async () => {
    const c = await start(residentA, managerA, 'Parking', 'Someone parks on my place');
    const before = (await managerA.api.get('/conversations/unread')).json().data;
    expect(before.messages).toBeGreaterThanOrEqual(1);
    const reply = await managerA.api.put(`/conversations/${c.id}/messages`, { message: 'We will put up a sign' });
    expect(reply.statusCode).toBe(200);
    expect(reply.json().data).toMatchObject({
      conversation_id: c.id,
      author: { id: managerA.id, name: 'Manager A' },
      message: 'We will put up a sign',
    });
    // Writing means having read: the manager has nothing unread here, the resident one message.
    expect((await managerA.api.get(`/conversations/${c.id}`)).json().data.unread_count).toBe(0);
    expect((await residentA.api.get(`/conversations/${c.id}`)).json().data.unread_count).toBe(1);
    await managerA.api.put(`/conversations/${c.id}/messages`, { message: 'Done' });
    expect((await residentA.api.get(`/conversations/${c.id}`)).json().data).toMatchObject({ unread_count: 2, messages_count: 3 });
    const totals = (await residentA.api.get('/conversations/unread')).json().data;
    expect(totals).toMatchObject({ conversations: 1, messages: 2 });
    // An older page does not mark it read; the newest does.
    await residentA.api.get(`/conversations/${c.id}/messages?before_date=${encodeURIComponent(new Date().toISOString())}`);
    expect((await residentA.api.get(`/conversations/${c.id}`)).json().data.unread_count).toBe(2);
    const page = (await residentA.api.get(`/conversations/${c.id}/messages`)).json();
    expect(page.data.map((m: { message: string }) => m.message)).toEqual(['Done', 'We will put up a sign', 'Someone parks on my place']);
    expect(page.meta).toEqual({ has_more: false, size: 30 });
    expect((await residentA.api.get(`/conversations/${c.id}`)).json().data.unread_count).toBe(0);
    expect((await residentA.api.get('/conversations/unread')).json().data).toEqual({ conversations: 0, messages: 0 });
    const [n] = await t.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, residentA.id), eq(notifications.type, 'conversation_message_received')));
    expect(n?.data).toEqual({ conversation_id: c.id, from: 'Manager A', name: 'Parking' });
    // Reading the conversation read its bell notifications too.
    expect(n?.readAt).not.toBeNull();
  });

  it('marks the bell notifications of a conversation read on reading it, and only those', async () => {
    const c = await start(managerA, neighbourA, 'Lift', 'The lift is off today');
    await managerA.api.put(`/conversations/${c.id}/messages`, { message: 'Back on at 18:00' });
    const other = await start(managerA, neighbourA, 'Bikes', 'Bikes go in the basement');
    const unreadOf = async (id: number) =>
      (
        await t.database.db
          .select()
          .from(notifications)
          .where(
            and(
              eq(notifications.userId, neighbourA.id),
              sql`${notifications.readAt} IS NULL`,
              sql`${notifications.data} ->> 'conversation_id' = ${String(id)}`,
            ),
          )
      ).map((n) => n.type);
    expect((await unreadOf(c.id)).sort()).toEqual(['conversation_message_received', 'conversation_received']);
    // The author reading it reads nothing of the interlocutor's.
    await managerA.api.get(`/conversations/${c.id}/messages`);
    expect(await unreadOf(c.id)).toHaveLength(2);
    // Marking it read (POST …/read) reads both; the other conversation's stays unread.
    expect((await neighbourA.api.post(`/conversations/${c.id}/read`)).statusCode).toBe(200);
    expect(await unreadOf(c.id)).toEqual([]);
    expect(await unreadOf(other.id)).toEqual(['conversation_received']);
    // Reading the newest messages does it too, even with no message unread any more.
    await t.database.db.execute(sql`UPDATE conversation_participants SET unread_count = 0 WHERE conversation_id = ${other.id}`);
    await neighbourA.api.get(`/conversations/${other.id}/messages`);
    expect(await unreadOf(other.id)).toEqual([]);
  });

  it('leaves the read cache as it is when starting, writing and reading (no cached read depends on them)', async () => {
    const c = await start(managerA, neighbourA, 'Keys', 'Your keys are at the desk');
    const before = t.app.readCache.stats.actorHits;
    for (const message of ['Until 20:00', 'Ask for Anna'])
      expect((await managerA.api.put(`/conversations/${c.id}/messages`, { message })).statusCode).toBe(200);
    expect((await neighbourA.api.post(`/conversations/${c.id}/read`)).statusCode).toBe(200);
    // Each call after the first found its caller in the cache: nothing made them sign in again.
    expect(t.app.readCache.stats.actorHits - before).toBeGreaterThanOrEqual(3);
    // An edit of the subject writes only conversation rows too: the caller stays kept (the cache
    // moves on only for the tables a kept entry was read from, core/read-cache.ts).
    expect((await managerA.api.patch(`/conversations/${c.id}`, { subject: 'Keys at the desk' })).statusCode).toBe(200);
    const after = t.app.readCache.stats.actorHits;
    await managerA.api.get(`/conversations/${c.id}`);
    expect(t.app.readCache.stats.actorHits).toBe(after + 1);
  });

  it('marks read with POST …/read', async () => {
    const c = await start(managerA, neighbourA, 'Meter reading', 'Please send your meter reading');
    expect((await neighbourA.api.get(`/conversations/${c.id}`)).json().data.unread_count).toBe(1);
    expect((await neighbourA.api.post(`/conversations/${c.id}/read`)).json().data).toEqual({ unread_count: 0 });
    expect((await neighbourA.api.get(`/conversations/${c.id}`)).json().data.unread_count).toBe(0);
  });

  it('pages by before_date (and before_id) newest first, without a gap or a repeat', async () => {
    const c = await start(managerA, residentA, 'Many', 'message 0');
    for (let i = 1; i < 45; i++) {
      const res = await (i % 2 ? residentA : managerA).api.put(`/conversations/${c.id}/messages`, { message: `message ${i}` });
      expect(res.statusCode).toBe(200);
    }
    const seen: string[] = [];
    let url = `/conversations/${c.id}/messages?size=20`;
    for (let guard = 0; guard < 10; guard++) {
      const page = (await residentA.api.get(url)).json();
      seen.push(...page.data.map((m: { message: string }) => m.message));
      if (!page.meta.has_more) break;
      const last = page.data.at(-1);
      url = `/conversations/${c.id}/messages?size=20&before_date=${encodeURIComponent(last.created_at)}&before_id=${last.id}`;
    }
    expect(seen).toEqual(Array.from({ length: 45 }, (_, i) => `message ${44 - i}`));
    // before_date alone: strictly older.
    const all = (await residentA.api.get(`/conversations/${c.id}/messages?size=100`)).json().data;
    const older = (
      await residentA.api.get(`/conversations/${c.id}/messages?size=100&before_date=${encodeURIComponent(all[10].created_at)}`)
    ).json().data;
    for (const m of older) expect(Date.parse(m.created_at)).toBeLessThan(Date.parse(all[10].created_at));
  });

  it.each(['before_date=yesterday', 'before_date=0000-01-01T00:00:00Z', 'before_id=abc', 'size=0', 'size=101'])('refuses %s', async (q) => {
    const c = (await residentA.api.get('/conversations')).json().data[0];
    const res = await residentA.api.get(`/conversations/${c.id}/messages?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
  });

  it('refuses a reply without "create messages", an empty one and one too long', async () => {
    const c = await start(residentA, managerA, 'Keys', 'I lost my keys');
    expect((await residentA.api.put(`/conversations/${c.id}/messages`, { message: '' })).statusCode).toBe(400);
    const long = await residentA.api.put(`/conversations/${c.id}/messages`, { message: 'x'.repeat(CONVERSATION_MESSAGE_MAX + 1) });
    expect(long.statusCode).toBe(400);
    expect(long.json().details[0].field).toBe('message');
    expect((await residentA.api.put(`/conversations/${c.id}/messages`, {})).statusCode).toBe(400);
  });

  it('keeps the conversation for the other side when a participant is deleted, and refuses to write into it', async () => {
    const leaving = await person(await makeRole(t.database.db, t.project.projectId, RESIDENT), [groupA1], 'Leaving');
    const c = await start(leaving, managerA, 'Moving out', 'I move out on Friday');
    await t.database.db.delete(users).where(eq(users.id, leaving.id));
    const seen = (await managerA.api.get(`/conversations/${c.id}`)).json().data;
    expect(seen).toMatchObject({ author: null, can_write: false });
    expect((await managerA.api.get(`/conversations/${c.id}/messages`)).json().data[0]).toMatchObject({
      author: null,
      message: 'I move out on Friday',
    });
    const res = await managerA.api.put(`/conversations/${c.id}/messages`, { message: 'Goodbye' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe("can't perform action");
  });
});

describe('live messages', () => {
  it('reaches both participants on their own topic, and nobody else', async () => {
    const base = await listenForSockets(t.app);
    const resident = await connectSocket(base, residentA.token);
    const other = await connectSocket(base, residentB.token);
    try {
      expect((await resident.subscribe(topics.user(residentA.id))).event).toBe('subscribed');
      expect((await other.subscribe(topics.user(residentA.id))).event).toBe('error');
      expect((await other.subscribe(topics.user(residentB.id))).event).toBe('subscribed');
      const c = await start(residentA, managerA, 'Live', 'Are you there?');
      const first = await resident.next((m) => m.event === CONVERSATION_EVENTS.message);
      expect(first.data).toMatchObject({ conversation_id: c.id, message: { message: 'Are you there?' } });
      await managerA.api.put(`/conversations/${c.id}/messages`, { message: 'Yes, here' });
      const live = await resident.next((m) => m.event === CONVERSATION_EVENTS.message);
      expect(live).toMatchObject({ topic: topics.user(residentA.id), data: { conversation_id: c.id, message: { message: 'Yes, here' } } });
      const note = await resident.next((m) => m.event === 'notification');
      expect(note.data).toMatchObject({ type: 'conversation_message_received', data: { conversation_id: c.id } });
      await residentA.api.get(`/conversations/${c.id}/messages`);
      // Its bell notification (message received) was read with it: one.
      expect((await resident.next((m) => m.event === CONVERSATION_EVENTS.read)).data).toEqual({ conversation_id: c.id, notifications: 1 });
      await new Promise((r) => setTimeout(r, 200));
      expect(other.inbox.filter((m) => m.event !== 'subscribed' && m.event !== 'error')).toEqual([]);
    } finally {
      resident.close();
      other.close();
    }
  });
});

describe('deleting', () => {
  it('needs "delete conversations"', async () => {
    const c = await start(residentA, managerA, 'Bins', 'Bins are full');
    expect((await residentA.api.delete(`/conversations/${c.id}`)).statusCode).toBe(403);
    expect((await concierge.api.delete(`/conversations/${c.id}`)).statusCode).toBe(403);
    expect((await managerA.api.delete(`/conversations/${c.id}`)).statusCode).toBe(200);
    expect((await residentA.api.get(`/conversations/${c.id}`)).statusCode).toBe(404);
    const [audit] = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'conversation'), eq(auditEvents.entityId, String(c.id)), eq(auditEvents.action, 'delete')));
    expect(audit?.userId).toBe(managerA.id);
  });

  it('bulk deletes the ones in scope and reports the others as not found, deleting nothing out of scope', async () => {
    const mine = await start(residentA, managerA, 'Door', 'The door squeaks');
    const theirs = await start(residentB, managerB, 'Gate', 'The gate is open');
    const res = await managerA.api.post('/conversations/delete', { items: [mine.id, theirs.id, 99_999_999] });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      deleted: [mine.id],
      not_deleted: [
        { id: theirs.id, message: 'item not found', code: 'not_found' },
        { id: 99_999_999, message: 'item not found', code: 'not_found' },
      ],
    });
    expect((await managerB.api.get(`/conversations/${theirs.id}`)).statusCode).toBe(200);
    expect((await admin.post('/conversations/delete', { items: [] })).statusCode).toBe(400);
  });
});
