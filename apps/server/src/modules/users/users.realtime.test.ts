import { APP_CHANGES_TOPIC, REALTIME_EVENTS, topics } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';

// A user's open console hears of a change of their role at once, through real sockets: on their
// private topic when they are given another role, on app-changes when their role itself changes.

let t: TestApp;
let base: string;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listenForSockets(t.app);
  admin = await adminClient(t);
});
afterAll(() => t?.close());

/** A signed-in user holding `roleId`, with a socket subscribed to their private topic and to app-changes. */
async function signedIn(roleId: number | null) {
  const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
  const socket = await connectSocket(base, await login(t.app, u.login, u.password));
  expect((await socket.subscribe(topics.user(u.id))).event).toBe('subscribed');
  expect((await socket.subscribe(APP_CHANGES_TOPIC)).event).toBe('subscribed');
  return { id: u.id, socket };
}

type Socket = Awaited<ReturnType<typeof signedIn>>['socket'];

/**
 * Waits until a notification sent to `userId` after everything before it has reached `socket`:
 * events are delivered in the order they were published, so whatever was due has arrived by then.
 */
async function settle(socket: Socket, userId: number) {
  await t.app.services.notifications.notify(t.project.projectId, userId, { type: 'system', data: { marker: true } });
  await socket.next((m) => m.event === REALTIME_EVENTS.notification);
}

const roleEvents = (socket: Socket) => socket.inbox.filter((m) => m.event === REALTIME_EVENTS.roleChanged);

describe('a user given another role', () => {
  it("hears it on their private topic, and no other user's socket does", async () => {
    const before = await makeRole(t.app.database.db, t.project.projectId, ['can_view_users']);
    const after = await makeRole(t.app.database.db, t.project.projectId, ['can_view_all_users']);
    const user = await signedIn(before);
    const other = await signedIn(before);
    // Another user's private topic is refused outright.
    expect((await other.socket.subscribe(topics.user(user.id))).data).toEqual({ message: 'action prohibited' });

    expect((await admin.patch(`/users/${user.id}`, { role: after })).statusCode).toBe(200);
    const m = await user.socket.next((x) => x.event === REALTIME_EVENTS.roleChanged);
    expect(m).toEqual({
      topic: topics.user(user.id),
      event: REALTIME_EVENTS.roleChanged,
      data: { userId: user.id, previousRoleId: before, newRoleId: after },
    });
    // No roleId in the data: the console reloads its profile whatever role it held.
    expect(m.data).not.toHaveProperty('roleId');

    await settle(other.socket, other.id);
    expect(roleEvents(other.socket)).toEqual([]);
    await settle(user.socket, user.id);
    expect(roleEvents(user.socket)).toEqual([]);
    user.socket.close();
    other.socket.close();
  });

  it('hears it when the role is taken away, and nothing when the role stays', async () => {
    const role = await makeRole(t.app.database.db, t.project.projectId, []);
    const user = await signedIn(role);
    expect((await admin.patch(`/users/${user.id}`, { name: 'Renamed', role })).statusCode).toBe(200);
    await settle(user.socket, user.id);
    expect(roleEvents(user.socket)).toEqual([]);

    expect((await admin.patch(`/users/${user.id}`, { role: null })).statusCode).toBe(200);
    const m = await user.socket.next((x) => x.event === REALTIME_EVENTS.roleChanged);
    expect(m.data).toEqual({ userId: user.id, previousRoleId: role, newRoleId: null });
    user.socket.close();
  });

  it('hears nothing when the change is refused', async () => {
    const role = await makeRole(t.app.database.db, t.project.projectId, ['can_edit_own_profile']);
    const other = await makeRole(t.app.database.db, t.project.projectId, []);
    const user = await makeUser(t.app.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [t.project.rootGroupId] });
    const token = await login(t.app, user.login, user.password);
    const socket = await connectSocket(base, token);
    await socket.subscribe(topics.user(user.id));
    // Users may edit their own record, but not give themselves another role.
    expect((await client(t.app, token).patch(`/users/${user.id}`, { role: other })).statusCode).toBe(403);
    await settle(socket, user.id);
    expect(roleEvents(socket)).toEqual([]);
    socket.close();
  });
});

describe("a change of the user's role itself", () => {
  it('reaches its holders on app-changes when it is saved or deleted', async () => {
    const role = await makeRole(t.app.database.db, t.project.projectId, ['can_view_users']);
    const holder = await signedIn(role);
    expect((await admin.patch(`/roles/${role}`, { permissions: ['can_view_all_users'] })).statusCode).toBe(200);
    expect(await holder.socket.next((m) => m.event === REALTIME_EVENTS.roleChanged)).toEqual({
      topic: APP_CHANGES_TOPIC,
      event: REALTIME_EVENTS.roleChanged,
      data: { roleId: role },
    });

    expect((await admin.delete(`/roles/${role}?gently=false`)).statusCode).toBe(200);
    expect((await holder.socket.next((m) => m.event === REALTIME_EVENTS.roleChanged)).data).toEqual({ roleId: role });
    expect((await admin.get(`/users/${holder.id}`)).json().data.role).toBeNull();
    holder.socket.close();
  });
});
