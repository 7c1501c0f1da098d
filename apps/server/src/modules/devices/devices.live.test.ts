import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEVICE_DISCOVERY_PATH, DEVICE_REALTIME, topics } from '@atrium/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';
import { groups } from '../groups/groups.table.js';
import { RecordingGateway } from './devices.test-gateway.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listenForSockets(t.app);
});
afterAll(() => t.close());

describe('devices, live', () => {
  it('tells consoles of status and task states, and the group’s listed users of offline devices and failed tasks', async () => {
    const admin = await adminClient(t);
    const gw = new RecordingGateway();
    t.app.services.devices.attachGateway(gw);
    const group = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_devices', 'can_view_device_tasks']);
    const told = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [group] });
    const notTold = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [group] });
    // Subscribed to the same topics, but the device is not theirs to see (another group; no task permission).
    const elsewhere = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const outsider = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [elsewhere] });
    const statusOnlyRole = await makeRole(t.database.db, t.project.projectId, ['can_view_devices']);
    const noTasks = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: statusOnlyRole, groupIds: [group] });
    await t.database.db
      .update(groups)
      .set({
        deviceStatusNotify: [
          { user_id: told.id, notify_about_offline_device: true, notify_about_device_task_failed: true },
          { user_id: notTold.id, notify_about_offline_device: false, notify_about_device_task_failed: false },
        ],
      })
      .where(eq(groups.id, group));
    const d = (
      await admin.put('/devices', { name: 'Gate', model: 'BR-1', type: 'barrier', serial_number: 'LIVE-1', domain_id: group })
    ).json().data as { id: number; serial_number: string };

    const toldToken = await login(t.app, told.login, told.password);
    const socket = await connectSocket(base, toldToken);
    const outsiderSocket = await connectSocket(base, await login(t.app, outsider.login, outsider.password));
    const noTasksSocket = await connectSocket(base, await login(t.app, noTasks.login, noTasks.password));
    try {
      for (const s of [outsiderSocket, noTasksSocket]) {
        expect((await s.subscribe(DEVICE_REALTIME.statusTopic)).event).toBe('subscribed');
        expect((await s.subscribe(DEVICE_REALTIME.tasksTopic)).event).toBe('subscribed');
      }
      expect((await socket.subscribe(DEVICE_REALTIME.statusTopic)).event).toBe('subscribed');
      expect((await socket.subscribe(DEVICE_REALTIME.tasksTopic)).event).toBe('subscribed');
      expect((await socket.subscribe(topics.user(told.id))).event).toBe('subscribed');

      await t.app.services.devices.onPresence(d.serial_number, { online: true });
      expect((await socket.next((m) => m.event === DEVICE_REALTIME.events.status)).data).toEqual({ id: d.id, online: true });
      const taskId = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
      expect((await socket.next((m) => m.event === DEVICE_REALTIME.events.task)).data).toEqual({
        id: taskId,
        device_id: d.id,
        state: 'queued',
      });
      await t.app.services.devices.onTaskUpdate(d.serial_number, { task_id: taskId, state: 'error', error: 'jammed' });
      expect((await socket.next((m) => m.event === DEVICE_REALTIME.events.task)).data).toEqual({
        id: taskId,
        device_id: d.id,
        state: 'error',
      });
      const failed = await socket.next((m) => m.event === 'notification');
      expect(failed.data).toMatchObject({
        type: 'device_task_failed',
        data: { device: 'Gate', task_type: 'apply_settings', error: 'jammed' },
      });

      await t.app.services.devices.onPresence(d.serial_number, { online: false });
      expect((await socket.next((m) => m.event === DEVICE_REALTIME.events.status)).data).toEqual({ id: d.id, online: false });
      const offline = await socket.next((m) => m.event === 'notification');
      expect(offline.data).toMatchObject({ type: 'device_offline', data: { device: 'Gate', device_id: d.id } });
      // Offline again is no news, also when every instance hears it at once.
      await t.app.services.devices.onPresence(d.serial_number, { online: true });
      await Promise.all([1, 2, 3].map(() => t.app.services.devices.onPresence(d.serial_number, { online: false })));
      await t.app.services.devices.onPresence(d.serial_number, { online: false });
      // The one who may see the device and its tasks heard all of it by now; the others heard only their share.
      await socket.next((m) => m.event === DEVICE_REALTIME.events.status && (m.data as { online: boolean }).online === false);
      await new Promise((r) => setTimeout(r, 300));
      expect(outsiderSocket.inbox.filter((m) => m.topic.startsWith('device'))).toEqual([]);
      expect(noTasksSocket.inbox.filter((m) => m.topic === DEVICE_REALTIME.tasksTopic && m.event !== 'subscribed')).toEqual([]);
      expect(noTasksSocket.inbox.filter((m) => m.event === DEVICE_REALTIME.events.status).map((m) => m.data)).toEqual([
        { id: d.id, online: true },
        { id: d.id, online: false },
        { id: d.id, online: true },
        { id: d.id, online: false },
      ]);
    } finally {
      socket.close();
      outsiderSocket.close();
      noTasksSocket.close();
    }
    const bell = async (u: { login: string; password: string }) =>
      (await client(t.app, await login(t.app, u.login, u.password)).get('/notifications')).json().data.map((n: { type: string }) => n.type);
    expect((await bell(told)).sort()).toEqual(['device_offline', 'device_offline', 'device_task_failed']);
    expect(await bell(notTold)).toEqual([]);
  });

  it('searches an IP range and publishes each device that answers discovery, live, under the request id', async () => {
    const admin = await adminClient(t);
    const answer = (serial: string) =>
      createServer((req, res) => {
        if (req.url !== DEVICE_DISCOVERY_PATH) return res.writeHead(404).end();
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ serial_number: serial, type: 'panel', model: 'AP-100', firmware: '2.0' }));
      });
    const one = answer('FOUND-1');
    await new Promise<void>((r) => one.listen(0, '127.0.0.1', r));
    const port = (one.address() as AddressInfo).port;
    const three = answer('FOUND-3');
    await new Promise<void>((r) => three.listen(port, '127.0.0.3', r));
    // Already a device of this server: found, and said so.
    await admin.put('/devices', { name: 'known', model: 'AP-100', serial_number: 'FOUND-3', domain_id: t.project.rootGroupId });
    const socket = await connectSocket(base, await login(t.app, t.adminLogin, t.adminPassword));
    // Another console on the same request id hears nothing: what a search finds is its caller's.
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_all_devices', 'can_create_devices']);
    const other = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    const otherSocket = await connectSocket(base, await login(t.app, other.login, other.password));
    try {
      const topic = DEVICE_REALTIME.searchTopic('search-1');
      expect((await socket.subscribe(topic)).event).toBe('subscribed');
      expect((await otherSocket.subscribe(topic)).event).toBe('subscribed');
      const res = await admin.post('/devices/search', { start_ip: '127.0.0.1', end_ip: '127.0.0.4', request_id: 'search-1', port });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual({ request_id: 'search-1', addresses: 4 });
      const done = await socket.next((m) => m.topic === topic && m.event === DEVICE_REALTIME.events.searchDone, 10_000);
      expect(done.data).toEqual({ request_id: 'search-1', found: 2 });
      const found = socket.inbox.filter((m) => m.topic === topic && m.event === DEVICE_REALTIME.events.found).map((m) => m.data);
      expect(found).toEqual(
        expect.arrayContaining([
          { serial_number: 'FOUND-1', type: 'panel', model: 'AP-100', firmware: '2.0', ip_address: '127.0.0.1', port, known: false },
          { serial_number: 'FOUND-3', type: 'panel', model: 'AP-100', firmware: '2.0', ip_address: '127.0.0.3', port, known: true },
        ]),
      );
      expect(found).toHaveLength(2);
      expect(otherSocket.inbox.filter((m) => m.topic === topic && m.event !== 'subscribed')).toEqual([]);
    } finally {
      socket.close();
      otherSocket.close();
      one.close();
      three.close();
    }
  });
});
