// Remote control end to end: the API, the embedded broker, Atrium's gateway, a simulated panel
// streaming its screen, and the operator's realtime socket — the path the console page uses.
import { DEVICE_REALTIME, type ScreenFrameEvent } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';

let t: TestApp;
let base: string;
let devices: DeviceHarness;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listenForSockets(t.app);
  devices = await deviceHarness(t);
});
afterAll(async () => {
  await devices.close();
  await t.close();
});

async function onlinePanel(serial: string) {
  const admin = await adminClient(t);
  const { id, sim } = await devices.device({ serial, sim: { frameMs: 100 } });
  return { admin, d: { id, serial_number: serial }, sim };
}

describe('remote control', () => {
  it('streams the device’s screen to its operator alone, hands over taps, keys and the door, and ends', async () => {
    const { admin, d, sim } = await onlinePanel('RC-1');
    const socket = await connectSocket(base, await login(t.app, t.adminLogin, t.adminPassword));
    // Another user who may edit every device, holding the session id: no frames, no control.
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_all_devices', 'can_edit_devices']);
    const other = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    const otherToken = await login(t.app, other.login, other.password);
    const otherSocket = await connectSocket(base, otherToken);
    const intruder = client(t.app, otherToken);
    try {
      const opened = await admin.put('/devices/remote-control', { serial_number: 'RC-1' });
      expect(opened.statusCode, opened.body).toBe(200);
      const { session } = opened.json().data as { session: string };
      const topic = DEVICE_REALTIME.screenTopic(session);
      expect((await socket.subscribe(topic)).event).toBe('subscribed');
      expect((await otherSocket.subscribe(topic)).event).toBe('subscribed');

      const frame = async (after = 0) =>
        (
          await socket.next(
            (m) => m.topic === topic && m.event === DEVICE_REALTIME.events.screen && (m.data as ScreenFrameEvent).seq > after,
            10_000,
          )
        ).data as ScreenFrameEvent;
      const first = await frame();
      expect(first).toMatchObject({ session, width: 120, height: 160, format: 'png' });
      expect(Buffer.from(first.data, 'base64').subarray(1, 4).toString()).toBe('PNG');

      expect((await admin.post(`/devices/remote-control/${session}/input`, { kind: 'tap', x: 60, y: 150 })).statusCode).toBe(200);
      expect((await admin.post(`/devices/remote-control/${session}/input`, { kind: 'key', key: '5' })).statusCode).toBe(200);
      expect((await admin.post(`/devices/remote-control/${session}/input`, { kind: 'open_door' })).statusCode).toBe(200);
      await expect.poll(() => sim.session?.taps ?? []).toEqual([{ x: 60, y: 150 }]);
      await expect.poll(() => sim.session?.keys ?? []).toEqual(['5']);
      await expect.poll(() => sim.opened.map((o) => `${o.lock}:${o.by}`)).toEqual(['1:remote']);
      // What the operator did shows on the screen the device sends next (the door green, the band changed).
      // (Frames sent before the inputs reached the device may still be on their way: wait for a changed one.)
      const changed = await socket.next(
        (m) => m.topic === topic && m.event === DEVICE_REALTIME.events.screen && (m.data as ScreenFrameEvent).data !== first.data,
        10_000,
      );
      expect((changed.data as ScreenFrameEvent).seq).toBeGreaterThan(first.seq);
      // The door opening is on the device's events.
      await expect
        .poll(async () =>
          (
            await admin.get(
              `/devices/events?filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'device_id', operator: 'equals', value: d.id }] }))}`,
            )
          )
            .json()
            .data.map((e: { type: string }) => e.type),
        )
        .toContain('door_opened');

      // Bad input is a 400 with the field; another operator's session is not theirs to drive.
      const bad = await admin.post(`/devices/remote-control/${session}/input`, { kind: 'tap', x: -1, y: 0 });
      expect(bad.statusCode).toBe(400);
      expect((await admin.post(`/devices/remote-control/${session}/input`, { kind: 'explode' })).statusCode).toBe(400);
      expect((await intruder.post(`/devices/remote-control/${session}/input`, { kind: 'open_door' })).statusCode).toBe(404);
      expect((await intruder.patch(`/devices/remote-control/${session}`)).statusCode).toBe(404);
      expect((await intruder.delete(`/devices/remote-control/${session}`)).statusCode).toBe(404);
      expect(sim.opened).toHaveLength(1);

      // Kept alive: the device hears of the new expiry.
      const kept = (await admin.patch(`/devices/remote-control/${session}`)).json().data as { expires_at: string };
      await expect.poll(() => sim.session?.expiresAt).toBe(Date.parse(kept.expires_at));

      // Ended: the device stops streaming, the console is told, and the session is gone.
      expect((await admin.delete(`/devices/remote-control/${session}`)).statusCode).toBe(200);
      await socket.next((m) => m.topic === topic && m.event === DEVICE_REALTIME.events.sessionEnded);
      await expect.poll(() => sim.session).toBeNull();
      expect((await admin.post(`/devices/remote-control/${session}/input`, { kind: 'tap', x: 1, y: 1 })).statusCode).toBe(404);
      expect((await admin.patch(`/devices/remote-control/${session}`)).statusCode).toBe(404);
      expect(otherSocket.inbox.filter((m) => m.topic === topic && m.event !== 'subscribed')).toEqual([]);
    } finally {
      socket.close();
      otherSocket.close();
    }
  });

  it('drops frames a device sends for a session that is not its own', async () => {
    const a = await onlinePanel('RC-2');
    await onlinePanel('RC-3');
    const socket = await connectSocket(base, await login(t.app, t.adminLogin, t.adminPassword));
    try {
      const { session } = (await a.admin.put('/devices/remote-control', { serial_number: 'RC-2' })).json().data as { session: string };
      const topic = DEVICE_REALTIME.screenTopic(session);
      await socket.subscribe(topic);
      await socket.next((m) => m.topic === topic && m.event === DEVICE_REALTIME.events.screen, 10_000);
      // RC-3 forges a frame of RC-2's session on its own topic: the server does not relay it.
      await t.app.services.devices.onScreenFrame('RC-3', { session, seq: 9999, width: 1, height: 1, format: 'png', data: 'AAAA' });
      await new Promise((r) => setTimeout(r, 300));
      expect(socket.inbox.some((m) => (m.data as ScreenFrameEvent | null)?.seq === 9999)).toBe(false);
    } finally {
      socket.close();
    }
  });

  it('cuts a device off the embedded broker when it leaves MQTT or is deleted', async () => {
    const { admin, d, sim } = await onlinePanel('RC-4');
    expect((await admin.post(`/devices/${d.id}/protocol`, { protocol: 'none' })).statusCode).toBe(200);
    await expect.poll(() => sim.connected, { timeout: 10_000 }).toBe(false);
    expect((await admin.get(`/devices/${d.id}`)).json().data.online).toBe(false);
    expect((await admin.post(`/devices/${d.id}/protocol`, { protocol: 'mqtt' })).statusCode).toBe(200);
    await expect.poll(() => sim.connected, { timeout: 10_000 }).toBe(true);
    expect((await admin.delete(`/devices/${d.id}`)).statusCode).toBe(200);
    await expect.poll(() => sim.connected, { timeout: 10_000 }).toBe(false);
  });

  it('fails a task the protocol cannot carry at once, with the reason, instead of leaving it waiting', async () => {
    const { admin, d } = await onlinePanel('RC-5');
    // A management block stored by an older version, without the heartbeat the protocol requires.
    await t.database.db.execute(
      sql`UPDATE devices SET management = '{"realtime_logging": false, "heartbeat": 1}'::jsonb WHERE id = ${d.id}`,
    );
    const task = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data as { id: number };
    await expect
      .poll(
        async () =>
          (
            await admin.get(
              `/devices/tasks?filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'id', operator: 'equals', value: task.id }] }))}`,
            )
          ).json().data[0],
        { timeout: 10_000 },
      )
      .toMatchObject({ state: 'error', error: expect.stringContaining('does not match the device protocol') });
  });
});
