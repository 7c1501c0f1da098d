import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let userId: number;
let otherId: number;
beforeAll(async () => {
  t = await buildTestApp();
  const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
  const other = await makeUser(t.app.database.db, { projectId: t.project.projectId });
  userId = u.id;
  otherId = other.id;
  api = client(t.app, await login(t.app, u.login, u.password));
  const n = t.app.services.notifications;
  const p = t.project.projectId;
  await n.notify(p, userId, { type: 'announce_received', data: { author: 'Concierge' } });
  await n.notify(p, userId, {
    type: 'device_alarm_enabled',
    significance: 'important',
    data: { device: 'Gate' },
    popupAction: { code: 'goto:page', params: { page: '/devices/alarms' } },
    sound: { file: 'alarm.mp3', mode: 'loop' },
  });
  await n.notify(p, userId, { type: 'user_used_identifier', data: { user: 'Ann', identifier_number: '42' } });
  await n.notify(p, otherId, { type: 'announce_received' });
});
afterAll(() => t?.close());

describe('notifications', () => {
  it("lists the caller's notifications newest first with the model fields", async () => {
    const res = await api.get('/notifications');
    expect(res.statusCode).toBe(200);
    const { data, meta } = res.json();
    expect(meta).toEqual({ total: 3, offset: 0, limit: 20 });
    expect(data.map((n: { type: string }) => n.type)).toEqual(['user_used_identifier', 'device_alarm_enabled', 'announce_received']);
    expect(data[1]).toMatchObject({
      significance: 'important',
      sound: { file: 'alarm.mp3', mode: 'loop' },
      popup_action: { code: 'goto:page' },
      read_at: null,
    });
  });

  it.each([
    ['important', ['device_alarm_enabled']],
    ['alarm', ['device_alarm_enabled']],
    ['acs', ['user_used_identifier']],
    ['normal', ['announce_received']],
  ])('filters by type=%s', async (type, expected) => {
    const res = await api.get(`/notifications?type=${type}`);
    expect(res.json().data.map((n: { type: string }) => n.type)).toEqual(expected);
  });

  it('pages with offset and limit', async () => {
    const res = await api.get('/notifications?offset=1&limit=1');
    expect(res.json().data).toHaveLength(1);
    expect(res.json().data[0].type).toBe('device_alarm_enabled');
  });

  it.each(['type=bogus', 'limit=0', 'offset=-1', 'limit=abc'])('refuses %s', async (q) => {
    const res = await api.get(`/notifications?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
  });

  it('marks one read by id, then all', async () => {
    const unread = (await api.get('/notifications/unread')).json();
    expect(unread.meta.total).toBe(3);
    const first = unread.data[0].id;
    expect((await api.post(`/notifications/read?id=${first}`)).json().data.updated).toBe(1);
    expect((await api.get('/notifications/unread')).json().meta.total).toBe(2);
    expect((await api.post('/notifications/read')).json().data.updated).toBe(2);
    expect((await api.get('/notifications/unread')).json().meta.total).toBe(0);
  });

  it('records who marked what read in the audit log', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const own = client(t.app, await login(t.app, u.login, u.password));
    const n = await t.app.services.notifications.notify(t.project.projectId, u.id, { type: 'announce_received' });
    await t.app.services.notifications.notify(t.project.projectId, u.id, { type: 'system' });
    expect((await own.post(`/notifications/read?id=${n!.id}`)).json().data.updated).toBe(1);
    expect((await own.post('/notifications/read')).json().data.updated).toBe(1);
    const events = await t.app.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'notification'), eq(auditEvents.userId, u.id)))
      .orderBy(auditEvents.id);
    expect(events.map((e) => ({ projectId: e.projectId, entityId: e.entityId, action: e.action, after: e.after }))).toEqual([
      { projectId: t.project.projectId, entityId: String(n!.id), action: 'read', after: { updated: 1 } },
      { projectId: t.project.projectId, entityId: null, action: 'read', after: { updated: 1 } },
    ]);
    expect(events[0]!.requestId).toBeTruthy();
  });

  it("cannot mark another user's notification", async () => {
    const others = await t.app.services.notifications.unread({ userId: otherId } as never, 5);
    const res = await api.post(`/notifications/read?id=${others.data[0]!.id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('item not found');
  });

  it('reads and saves notification settings', async () => {
    expect((await api.get('/notifications/settings')).json().data).toEqual({ acs: true });
    expect((await api.post('/notifications/settings', { acs: false })).json().data).toEqual({ acs: false });
    expect((await api.get('/notifications/settings')).json().data).toEqual({ acs: false });
    expect((await api.post('/notifications/settings', { acs: 'yes' })).statusCode).toBe(400);
  });

  it('creates and pushes no ACS notification for a user who turned ACS notifications off', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
    const own = client(t.app, await login(t.app, u.login, u.password));
    const n = t.app.services.notifications;
    const p = t.project.projectId;
    const publish = vi.spyOn(t.app.realtime, 'publish');
    try {
      expect(await n.notify(p, u.id, { type: 'user_used_identifier', data: { user: 'Ann' } })).not.toBeNull();
      expect((await own.post('/notifications/settings', { acs: false })).statusCode).toBe(200);
      publish.mockClear();
      expect(await n.notify(p, u.id, { type: 'user_used_identifier', data: { user: 'Bob' } })).toBeNull();
      expect(await n.notify(p, u.id, { type: 'user_used_revoked_identifier', data: { user: 'Bob' } })).toBeNull();
      expect(publish).not.toHaveBeenCalled();
      // Other kinds still arrive, alarms included.
      expect(await n.notify(p, u.id, { type: 'device_alarm_enabled', significance: 'important' })).not.toBeNull();
      expect(publish).toHaveBeenCalledTimes(1);
      expect((await own.get('/notifications?type=acs')).json().data.map((x: { data: { user: string } }) => x.data.user)).toEqual(['Ann']);
      expect((await own.post('/notifications/settings', { acs: true })).statusCode).toBe(200);
      expect(await n.notify(p, u.id, { type: 'user_used_identifier', data: { user: 'Cid' } })).not.toBeNull();
    } finally {
      publish.mockRestore();
    }
  });

  it('needs sign-in', async () => {
    expect((await client(t.app).get('/notifications')).statusCode).toBe(401);
    expect((await client(t.app).post('/notifications/read')).statusCode).toBe(401);
  });
});
