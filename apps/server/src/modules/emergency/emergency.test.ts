import { createServer } from 'node:net';
import { EMERGENCY_REALTIME } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket } from '../../../test/realtime-client.js';
import { queryRows } from '../../core/db/client.js';
import { generateTone } from './emergency.audio.js';

// Emergency alerts through the API with simulated devices on the embedded broker: recipients and
// scope, the sound (checked to be a sound within its bounds, fetched by the devices through its
// tokened link), start and stop device by device, doors opened; a group's lockdown that the door
// enforces against identifiers and remote opens; and the muster list from access events.

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let devices: DeviceHarness;
let base: string;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });

beforeAll(async () => {
  // Devices fetch the sound over HTTP: the server listens where its public address says.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await buildTestApp({ env: { PUBLIC_URL: base } });
  await t.app.listen({ port, host: '127.0.0.1' });
  admin = await adminClient(t);
  devices = await deviceHarness(t);
});
afterAll(async () => {
  await devices.close();
  await t.close();
});

let seq = 0;
const serial = (p: string) => `${p}${++seq}${Date.now().toString(36).toUpperCase()}`;
const ok = <T>(res: { statusCode: number; body: string; json(): { data: T } }): T => {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

function multipart(field: string, name: string, data: Buffer) {
  const boundary = `----atrium${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: audio/wav\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const upload = (api: ReturnType<typeof client>, id: number, data: Buffer, name = 'alarm.wav') => {
  const { payload, headers } = multipart('file', name, data);
  return api.raw('POST', `/emergency/${id}/file`, payload, headers);
};

async function userWith(permissions: string[], groupIds: number[]) {
  const role = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds });
  return { ...u, api: client(t.app, await login(t.app, u.login, u.password)) };
}

const OPERATOR = [
  'can_view_emergency_alerts',
  'can_create_emergency_alerts',
  'can_edit_emergency_alerts',
  'can_delete_emergency_alerts',
  'can_playback_emergency_alerts',
  'can_view_descendant_devices',
];

describe('emergency alerts', () => {
  it('need recipients, take the defaults of the spec, and stay within the caller’s groups', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const other = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const none = await admin.put('/emergency', { name: 'Nobody' });
    expect(none.statusCode).toBe(400);
    expect(none.json().details[0]).toMatchObject({ field: 'domains' });
    const badType = await admin.put('/emergency', { name: 'x', domains: [building], device_type: 'toaster', playback_duration: 0 });
    expect(badType.statusCode).toBe(400);
    expect((badType.json().details as { field: string }[]).map((d) => d.field).sort()).toEqual(['device_type', 'playback_duration']);

    const alert = ok<{ id: number; device_type: string; playback_duration: number; open_locks: boolean; status: string; audio_url: null }>(
      await admin.put('/emergency', { name: 'Fire', domains: [building] }),
    );
    expect(alert).toMatchObject({ device_type: 'monitor', playback_duration: 60, open_locks: false, status: 'idle', audio_url: null });
    const elsewhere = ok<{ id: number }>(await admin.put('/emergency', { name: 'Flood', domains: [other] }));

    const op = await userWith(OPERATOR, [building]);
    const listed = ok<{ id: number }[]>(await op.api.get('/emergency'));
    expect(listed.map((a) => a.id)).toEqual([alert.id]);
    expect((await op.api.get(`/emergency/${elsewhere.id}`)).statusCode).toBe(404);
    expect((await op.api.patch(`/emergency/${elsewhere.id}`, { name: 'Mine' })).statusCode).toBe(404);
    expect((await op.api.post(`/emergency/${elsewhere.id}/start`)).statusCode).toBe(404);
    // Naming a group outside their branch is refused.
    expect((await op.api.put('/emergency', { name: 'x', domains: [other] })).json()).toMatchObject({ code: 'invalid_related_entity' });
    // An alert naming both: the operator sees (and keeps) only their part; the other group stays on it.
    const both = ok<{ id: number }>(await admin.put('/emergency', { name: 'Both', domains: [building, other] }));
    expect(ok<{ domains: number[]; domains_info: { id: number }[] }>(await op.api.get(`/emergency/${both.id}?with=domains`))).toMatchObject(
      {
        domains: [building],
        domains_info: [{ id: building }],
      },
    );
    expect((await op.api.get(`/emergency/${both.id}?with=users`)).statusCode).toBe(400);
    ok(await op.api.patch(`/emergency/${both.id}`, { domains: [building], name: 'Both renamed' }));
    expect(ok<{ domains: number[] }>(await admin.get(`/emergency/${both.id}`)).domains.sort()).toEqual([building, other].sort());
    // Emptying the recipients is refused.
    const emptied = await admin.patch(`/emergency/${alert.id}`, { domains: [], devices: [] });
    expect(emptied.statusCode).toBe(400);
    expect(emptied.json().details[0].field).toBe('domains');

    // Viewing is not changing, starting or deleting.
    const viewer = await userWith(['can_view_emergency_alerts', 'can_view_descendant_devices'], [building]);
    expect((await viewer.api.put('/emergency', { name: 'x', domains: [building] })).statusCode).toBe(403);
    expect((await viewer.api.patch(`/emergency/${alert.id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await viewer.api.post(`/emergency/${alert.id}/start`)).statusCode).toBe(403);
    expect((await viewer.api.delete(`/emergency/${alert.id}`)).statusCode).toBe(403);
    const nobody = await userWith([], [building]);
    expect((await nobody.api.get('/emergency')).statusCode).toBe(403);

    const deleted = ok<{ deleted: number[] }>(await admin.post('/emergency/delete', { items: [elsewhere.id, both.id] }));
    expect(deleted.deleted.sort()).toEqual([elsewhere.id, both.id].sort());
    const audit = await queryRows<{ action: string }>(
      t.database.db,
      sql`SELECT action FROM audit_events WHERE entity = 'emergency_alert' AND entity_id = ${String(both.id)} ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual(['create', 'update', 'delete']);
  });

  it('take a sound within the bounds only, served by its tokened link', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const alert = ok<{ id: number }>(await admin.put('/emergency', { name: 'Sound', domains: [building] }));
    const notAudio = await upload(admin, alert.id, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4096, 1)]), 'alarm.wav');
    expect(notAudio.statusCode).toBe(400);
    expect(notAudio.json()).toMatchObject({ code: 'invalid_file', details: [{ field: 'file' }] });
    const tiny = await upload(admin, alert.id, generateTone('beeps', 1).subarray(0, 512));
    expect(tiny.statusCode).toBe(400);
    expect(tiny.json().details[0]).toMatchObject({ field: 'file', message: 'validation.file_size', params: { min: 1, max: 5120 } });
    const huge = await upload(admin, alert.id, Buffer.concat([generateTone('siren', 30), Buffer.alloc(5 * 1024 * 1024)]));
    expect(huge.statusCode).toBe(413);
    const viewer = await userWith(['can_view_emergency_alerts', 'can_view_descendant_devices'], [building]);
    expect((await upload(viewer.api, alert.id, generateTone('beeps', 1))).statusCode).toBe(403);

    const wav = generateTone('chime', 2);
    const withFile = ok<{ filename: string; file_size: number; file_type: string; audio_url: string }>(
      await upload(admin, alert.id, wav, 'evacuate.wav'),
    );
    expect(withFile).toMatchObject({ filename: 'evacuate.wav', file_size: wav.length, file_type: 'audio/wav' });
    const fetched = await fetch(`${base}${withFile.audio_url}`);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(wav)).toBe(true);
    const forged = withFile.audio_url.replace(/token=.{4}/, 'token=AAAA');
    expect((await fetch(`${base}${forged}`)).status).toBe(404);
    // A new sound: the old link no longer works.
    const generated = ok<{ filename: string; audio_url: string }>(
      await admin.post('/emergency/generate', { id: alert.id, tone: 'siren', seconds: 2 }),
    );
    expect(generated.filename).toBe('siren-2s.wav');
    expect((await fetch(`${base}${withFile.audio_url}`)).status).toBe(404);
    expect((await fetch(`${base}${generated.audio_url}`)).status).toBe(200);
    expect((await admin.post('/emergency/generate', { id: alert.id, tone: 'kazoo' })).statusCode).toBe(400);
  });

  it('play on every monitor of the building within the starter’s scope, open its doors, and stop', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const entrance = await makeGroup(t.database.db, t.project.projectId, building);
    const elsewhere = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const m1 = await devices.device({ serial: serial('MON'), type: 'monitor', model: 'AM-7', groupId: building });
    const m2 = await devices.device({ serial: serial('MON'), type: 'monitor', model: 'AM-7', groupId: entrance });
    const door = await devices.device({ serial: serial('PAN'), type: 'panel', model: 'AP-200', groupId: entrance });
    const far = await devices.device({ serial: serial('MON'), type: 'monitor', model: 'AM-7', groupId: elsewhere });
    const alert = ok<{ id: number }>(
      await admin.put('/emergency', { name: 'Evacuate', domains: [building], devices: [far.id], open_locks: true, playback_duration: 30 }),
    );
    expect((await admin.post(`/emergency/${alert.id}/start`)).json()).toMatchObject({ code: 'emergency_no_audio' });
    const wav = generateTone('siren', 1);
    ok(await upload(admin, alert.id, wav));

    // The operator of the building: the far monitor (another branch) is not theirs to sound.
    const op = await userWith(OPERATOR, [building]);
    const started = ok<{ devices: { device_id: number }[] }>(await op.api.post(`/emergency/${alert.id}/start`));
    expect(started.devices.map((d) => d.device_id).sort()).toEqual([m1.id, m2.id, door.id].sort());
    expect((await op.api.post(`/emergency/${alert.id}/start`)).json()).toMatchObject({ code: 'emergency_playing' });
    await expect
      .poll(
        async () => ok<{ summary: { played: number; locks_opened: number } }>(await op.api.get(`/emergency/${alert.id}/playback`)).summary,
        {
          timeout: 15_000,
        },
      )
      .toEqual({ devices: 2, played: 2, failed: 0, pending: 0, locks_opened: 2 });
    for (const m of [m1, m2]) {
      expect(m.sim.sounds).toEqual([expect.objectContaining({ alertId: alert.id, seconds: 30, bytes: wav.length })]);
      expect(m.sim.playing?.alertId).toBe(alert.id);
    }
    expect(far.sim.sounds).toEqual([]);
    expect(door.sim.sounds).toEqual([]);
    expect(door.sim.opened.map((o) => [o.lock, o.by]).sort()).toEqual([
      [1, 'task'],
      [2, 'task'],
    ]);
    expect(ok<{ status: string }>(await op.api.get(`/emergency/${alert.id}`)).status).toBe('playing');

    // Stopped: each monitor that played is told to stop.
    const stopped = ok<{ stopped_at: string | null }>(await op.api.post(`/emergency/${alert.id}/stop`));
    expect(stopped.stopped_at).not.toBeNull();
    await expect.poll(() => [m1.sim.playing, m2.sim.playing], { timeout: 10_000 }).toEqual([null, null]);
    await expect
      .poll(async () =>
        ok<{ devices: { stop: { state: string } | null }[] }>(await op.api.get(`/emergency/${alert.id}/playback`)).devices.map(
          (d) => d.stop?.state ?? null,
        ),
      )
      .toEqual(expect.arrayContaining(['completed', 'completed']));
    expect(ok<{ status: string }>(await op.api.get(`/emergency/${alert.id}`)).status).toBe('idle');
    expect((await op.api.post(`/emergency/${alert.id}/stop`)).json()).toMatchObject({ code: 'emergency_not_playing' });
    const audit = await queryRows<{ action: string }>(
      t.database.db,
      sql`SELECT action FROM audit_events WHERE entity = 'emergency_alert' AND entity_id = ${String(alert.id)} ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual(['create', 'file', 'start', 'stop']);

    // An offline monitor: its play task waits, and a stop before it comes back means it never plays.
    await m2.sim.stop({ graceful: false });
    await expect.poll(async () => ok<{ online: boolean }>(await admin.get(`/devices/${m2.id}`)).online, { timeout: 10_000 }).toBe(false);
    ok(await admin.patch(`/emergency/${alert.id}`, { open_locks: false }));
    ok(await admin.post(`/emergency/${alert.id}/start`));
    const waiting = ok<{ devices: { device_id: number; play: { state: string } | null }[] }>(
      await admin.get(`/emergency/${alert.id}/playback`),
    );
    expect(waiting.devices.find((d) => d.device_id === m2.id)?.play?.state).toBe('waiting');
    ok(await admin.post(`/emergency/${alert.id}/stop`));
    const after = ok<{ devices: { device_id: number; play: { state: string } | null }[] }>(
      await admin.get(`/emergency/${alert.id}/playback`),
    );
    expect(after.devices.find((d) => d.device_id === m2.id)?.play?.state).toBe('stopped');
  });
});

describe('live playback', () => {
  it('tells the consoles showing an alert of its start, of each device task of it, and of its stop', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const m = await devices.device({ serial: serial('MON'), type: 'monitor', model: 'AM-7', groupId: building });
    const alert = ok<{ id: number }>(await admin.put('/emergency', { name: 'Gas leak', domains: [building], playback_duration: 20 }));
    ok(await upload(admin, alert.id, generateTone('beeps', 1)));
    const role = await makeRole(t.database.db, t.project.projectId, OPERATOR);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [building] });
    const token = await login(t.app, u.login, u.password);
    const socket = await connectSocket(base, token);
    const other = await connectSocket(base, token);
    try {
      expect((await socket.subscribe(EMERGENCY_REALTIME.topic(alert.id))).event).toBe('subscribed');
      // An alert that does not exist cannot be watched; another alert's console hears nothing of this one.
      expect((await other.subscribe(EMERGENCY_REALTIME.topic(alert.id + 100_000))).event).toBe('error');
      const second = ok<{ id: number }>(await admin.put('/emergency', { name: 'Flood', domains: [building] }));
      expect((await other.subscribe(EMERGENCY_REALTIME.topic(second.id))).event).toBe('subscribed');
      const op = client(t.app, token);
      const started = ok<{ id: number }>(await op.post(`/emergency/${alert.id}/start`));
      const event = (m: { event: string; topic: string }) =>
        m.event === EMERGENCY_REALTIME.events.playback && m.topic === EMERGENCY_REALTIME.topic(alert.id);
      expect((await socket.next(event)).data).toEqual({ alert_id: alert.id, playback_id: started.id });
      // The monitor takes its play task and reports it: each change is told, the last once it played.
      await expect.poll(() => m.sim.playing?.alertId ?? null, { timeout: 10_000 }).toBe(alert.id);
      expect((await socket.next(event)).data).toEqual({ alert_id: alert.id, playback_id: started.id });
      await expect
        .poll(async () => ok<{ summary: { played: number } }>(await op.get(`/emergency/${alert.id}/playback`)).summary.played, {
          timeout: 10_000,
        })
        .toBe(1);
      socket.inbox.length = 0;
      ok(await op.post(`/emergency/${alert.id}/stop`));
      expect((await socket.next(event)).data).toEqual({ alert_id: alert.id, playback_id: started.id });
      await new Promise((r) => setTimeout(r, 200));
      expect(other.inbox.filter((x) => x.event === EMERGENCY_REALTIME.events.playback)).toEqual([]);
    } finally {
      socket.close();
      other.close();
    }
  });
  it('lets only those who may read an alert watch its playback', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const elsewhere = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const alert = ok<{ id: number }>(await admin.put('/emergency', { name: 'Fire', domains: [building] }));
    const inScope = await userWith(OPERATOR, [building]);
    const outOfScope = await userWith(OPERATOR, [elsewhere]);
    const noRight = await userWith(['can_view_devices'], [building]);
    const watch = async (u: { login: string; password: string }) => {
      const s = await connectSocket(base, await login(t.app, u.login, u.password));
      try {
        return (await s.subscribe(EMERGENCY_REALTIME.topic(alert.id))).event;
      } finally {
        s.close();
      }
    };
    expect(await watch(inScope)).toBe('subscribed');
    expect(await watch(outOfScope)).toBe('error');
    expect(await watch(noRight)).toBe('error');
    const s = await connectSocket(base, await login(t.app, inScope.login, inScope.password));
    try {
      expect((await s.subscribe('emergency-playback.abc')).event).toBe('error');
    } finally {
      s.close();
    }
  });
});

describe('lockdown', () => {
  it('holds every door of a group shut against identifiers and remote opens, recorded, until lifted with a confirmation', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const wing = await makeGroup(t.database.db, t.project.projectId, building);
    const other = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const d1 = await devices.device({ serial: serial('LKA'), type: 'panel', model: 'AP-200', groupId: building });
    const d2 = await devices.device({ serial: serial('LKB'), type: 'panel', groupId: wing });
    const outside = await devices.device({ serial: serial('LKC'), type: 'panel', groupId: other });

    const op = await userWith(OPERATOR, [building]);
    expect((await op.api.post('/emergency/lockdowns', { domain_id: other, confirm: true })).json()).toMatchObject({
      code: 'invalid_related_entity',
    });
    expect((await op.api.post('/emergency/lockdowns', { domain_id: building })).statusCode).toBe(400);
    const viewer = await userWith(['can_view_emergency_alerts', 'can_view_descendant_devices'], [building]);
    expect((await viewer.api.post('/emergency/lockdowns', { domain_id: building, confirm: true })).statusCode).toBe(403);

    const lockdown = ok<{ id: number; active: boolean; devices: { device_id: number }[] }>(
      await op.api.post('/emergency/lockdowns', { domain_id: building, reason: 'Intruder', confirm: true }),
    );
    expect(lockdown.active).toBe(true);
    expect(lockdown.devices.map((d) => d.device_id).sort()).toEqual([d1.id, d2.id].sort());
    expect((await op.api.post('/emergency/lockdowns', { domain_id: building, confirm: true })).json()).toMatchObject({
      code: 'lockdown_active',
    });
    await expect
      .poll(() => [d1.sim.lockdown?.lockdownId, d2.sim.lockdown?.lockdownId], { timeout: 10_000 })
      .toEqual([lockdown.id, lockdown.id]);
    expect(outside.sim.lockdown).toBeNull();

    // The door refuses whoever comes, and says why; a remote open fails.
    expect(await d1.sim.present('ANYCARD')).toEqual({ granted: false, reason: 'lockdown' });
    await expect
      .poll(async () => {
        await t.app.services.devices.flushEvents();
        return (
          await queryRows<{ reason: string }>(
            t.database.db,
            sql`SELECT reason FROM access_events WHERE device_id = ${d1.id} ORDER BY id DESC LIMIT 1`,
          )
        )[0]?.reason;
      })
      .toBe('lockdown');
    // An open_lock task (as the dialer's door button or a guest key would queue) fails at the door.
    const svc = t.app.services.devices;
    await t.database.db.transaction((tx) => svc.queueOneInTx(tx, { deviceId: d2.id, type: 'open_lock', payload: { lock: 1 } }, null));
    await svc.dispatch();
    await expect
      .poll(
        async () =>
          (
            await queryRows<{ state: string; error: string }>(
              t.database.db,
              sql`SELECT state, error FROM device_tasks WHERE device_id = ${d2.id} AND type = 'open_lock' ORDER BY id DESC LIMIT 1`,
            )
          )[0],
        { timeout: 10_000 },
      )
      .toEqual({ state: 'error', error: 'locked_down' });
    expect(d2.sim.opened).toEqual([]);

    // Listed as active for the branch, not for another branch's operator.
    expect(ok<{ id: number }[]>(await op.api.get('/emergency/lockdowns?active=true')).map((l) => l.id)).toContain(lockdown.id);
    const stranger = await userWith(OPERATOR, [other]);
    expect(ok<{ id: number }[]>(await stranger.api.get('/emergency/lockdowns')).map((l) => l.id)).not.toContain(lockdown.id);
    expect((await stranger.api.post(`/emergency/lockdowns/${lockdown.id}/lift`, { confirm: true })).statusCode).toBe(404);

    // Lifted only with the confirmation; the doors decide by their rules again.
    expect((await op.api.post(`/emergency/lockdowns/${lockdown.id}/lift`, {})).statusCode).toBe(400);
    const lifted = ok<{ active: boolean; ended_by: number }>(
      await op.api.post(`/emergency/lockdowns/${lockdown.id}/lift`, { confirm: true }),
    );
    expect(lifted).toMatchObject({ active: false, ended_by: op.id });
    await expect.poll(() => [d1.sim.lockdown, d2.sim.lockdown], { timeout: 10_000 }).toEqual([null, null]);
    expect(await d1.sim.present('ANYCARD')).toMatchObject({ granted: false, reason: 'unknown' });
    expect((await op.api.post(`/emergency/lockdowns/${lockdown.id}/lift`, { confirm: true })).json()).toMatchObject({
      code: 'lockdown_lifted',
    });
    const audit = await queryRows<{ action: string; user_id: number }>(
      t.database.db,
      sql`SELECT action, user_id FROM audit_events WHERE entity = 'emergency_lockdown' AND entity_id = ${String(lockdown.id)} ORDER BY id`,
    );
    expect(audit).toEqual([
      { action: 'start', user_id: op.id },
      { action: 'lift', user_id: op.id },
    ]);
  });
});

describe('muster list', () => {
  it('lists who entered the building and has not left, exportable, for those who may see access events of it', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const other = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const [gate, garage] = await queryRows<{ id: number }>(
      t.database.db,
      sql`INSERT INTO devices (project_id, group_id, name, type, model, serial_number, protocol)
        VALUES (${t.project.projectId}, ${building}, 'Main gate', 'accesscontroller', 'AC-100', ${serial('MG')}, 'mqtt'),
               (${t.project.projectId}, ${other}, 'Other garage', 'accesscontroller', 'AC-100', ${serial('OG')}, 'mqtt')
        RETURNING id`,
    );
    const person = async (name: string) =>
      (await makeUser(t.database.db, { projectId: t.project.projectId, name, groupIds: [building] })).id;
    const [ann, bob, cyd, dan] = [
      await person('Ann Inside'),
      await person('Bob Left'),
      await person('Cyd Moved'),
      await person('Dan Yesterday'),
    ];
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const pass = (
      deviceId: number,
      userId: number | null,
      at: string,
      direction: string | null,
      value: string | null = null,
      granted = true,
    ) =>
      t.database.db.execute(
        sql`INSERT INTO access_events (project_id, device_id, lock_number, granted, user_id, value, direction, occurred_at)
          VALUES (${t.project.projectId}, ${deviceId}, 1, ${granted}, ${userId}, ${value}, ${direction}, ${at})`,
      );
    await pass(gate!.id, ann, ago(50), null);
    await pass(gate!.id, bob, ago(40), 'in');
    await pass(gate!.id, bob, ago(20), 'out');
    await pass(gate!.id, cyd, ago(30), 'in');
    await pass(garage!.id, cyd, ago(10), null);
    await pass(gate!.id, dan, ago(60 * 30), 'in');
    await pass(gate!.id, null, ago(5), 'in', 'VISITOR-QR');
    await pass(gate!.id, null, ago(3), null, 'REFUSED-CARD', false);

    const muster = ok<{ total: number; entries: { user_name: string | null; value: string | null; device_name: string }[] }>(
      await admin.get(`/emergency/muster?domain_id=${building}`),
    );
    expect(muster.entries.map((e) => e.user_name ?? e.value)).toEqual(['Ann Inside', 'VISITOR-QR']);
    expect(muster.entries[0]?.device_name).toBe('Main gate');
    expect(ok<{ entries: unknown[] }>(await admin.get(`/emergency/muster?domain_id=${building}&hours=48`)).entries).toHaveLength(3);
    expect((await admin.get(`/emergency/muster?domain_id=${building}&hours=500`)).statusCode).toBe(400);

    const csv = await admin.get(`/emergency/muster/export?domain_id=${building}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body.split('\n')[0]).toBe(
      'user_id,user_name,identifier_id,identifier_name,value,device_id,device_name,entered_at,direction',
    );
    expect(csv.body).toContain('Ann Inside');
    expect(csv.body).not.toContain('Bob Left');

    const warden = await userWith(
      ['can_view_emergency_alerts', 'can_view_access_control_events', 'can_view_descendant_devices'],
      [building],
    );
    expect(ok<{ total: number }>(await warden.api.get(`/emergency/muster?domain_id=${building}`)).total).toBe(2);
    expect((await warden.api.get(`/emergency/muster?domain_id=${other}`)).json()).toMatchObject({ code: 'invalid_related_entity' });
    const noEvents = await userWith(['can_view_emergency_alerts', 'can_view_descendant_devices'], [building]);
    expect((await noEvents.api.get(`/emergency/muster?domain_id=${building}`)).statusCode).toBe(403);
    expect((await noEvents.api.get(`/emergency/muster/export?domain_id=${building}`)).statusCode).toBe(403);
  });
});
