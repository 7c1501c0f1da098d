import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { type adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { openDatabase, queryRows } from '../../core/db/client.js';
import { DevicesRepository } from './devices.repository.js';
import { DevicesService } from './devices.service.js';
import { RecordingGateway } from './devices.test-gateway.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let gw: RecordingGateway;
let seq = 0;
beforeAll(async () => {
  t = await buildTestApp();
  const adminToken = await login(t.app, t.adminLogin, t.adminPassword);
  admin = client(t.app, adminToken);
  tokens.set(admin, adminToken);
});
afterAll(() => t.close());
beforeEach(() => {
  gw = new RecordingGateway();
  t.app.services.devices.attachGateway(gw);
});

const serial = () => `SN-${Date.now().toString(36)}-${++seq}`;
const devices = () => t.app.services.devices;

async function makeDevice(body: Record<string, unknown> = {}, api = admin) {
  const res = await api.put('/devices', {
    name: `panel ${seq}`,
    model: 'AP-200',
    serial_number: serial(),
    domain_id: t.project.rootGroupId,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { id: number; serial_number: string } & Record<string, unknown>;
}

async function task(id: number) {
  const res = await admin.get(
    `/devices/tasks?filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'id', operator: 'equals', value: id }] }))}`,
  );
  return res.json().data[0] as { id: number; state: string; error: string | null; attempts: number };
}

const tokens = new WeakMap<object, string>();

/** A device stored on http before the API refused it (only the database can make one now). */
async function storedAsHttp(id: number) {
  await t.database.db.execute(sql`UPDATE devices SET protocol = 'http' WHERE id = ${id}`);
}

async function memberWith(permissions: string[], groupIds = [t.project.rootGroupId]) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds });
  const token = await login(t.app, u.login, u.password);
  const api = client(t.app, token);
  tokens.set(api, token);
  return api;
}

/** A multipart request signed in as `api`'s user. */
function withAuth(api: object, req: { payload: Buffer; headers: Record<string, string> }) {
  return { payload: req.payload, headers: { ...req.headers, authorization: `Bearer ${tokens.get(api)}` } };
}

describe('devices CRUD', () => {
  it('creates a panel with the defaults of the spec and reads it back', async () => {
    const d = await makeDevice({ type: undefined });
    expect(d).toMatchObject({
      type: 'panel',
      port: 80,
      protocol: 'mqtt',
      login: d.serial_number,
      password_set: false,
      online: false,
      capabilities: { locks: 2, sip: true },
      device_settings: {
        sip: { talk_timeout: 120, transport: 'UDP' },
        address: { reregister_interval: 600 },
        additional: { button_numbers: [null, null, null, null] },
        face_recognition: { mode: '3D', similarity: 'high' },
        lift_controller: { device_mode: 'call-up', relay_mode: 'COM-NC', relay_open_time: 10 },
      },
    });
    const read = await admin.get(`/devices/${d.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data.serial_number).toBe(d.serial_number);
  });

  it('updates fields and merges a settings block without losing the others; secrets are never answered', async () => {
    const d = await makeDevice({ device_password: 'local-secret' });
    const res = await admin.patch(`/devices/${d.id}`, {
      name: 'Main door',
      device_password: null,
      device_settings: { sip: { talk_timeout: 60, login: 'door' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json().data;
    expect(out).toMatchObject({ name: 'Main door', device_password_set: true });
    expect(out.device_settings.sip).toMatchObject({ talk_timeout: 60, login: 'door', transport: 'UDP' });
    expect(out.device_settings.address.reregister_interval).toBe(600);
    expect(JSON.stringify(out)).not.toContain('local-secret');
  });

  it('refuses a serial number in use, a model of another type, a bad group and bad input', async () => {
    const d = await makeDevice();
    const dup = await admin.put('/devices', {
      name: 'x',
      model: 'AP-100',
      serial_number: d.serial_number,
      domain_id: t.project.rootGroupId,
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ message: 'serial number in use', details: [{ field: 'serial_number' }] });
    const other = await makeDevice();
    const dupPatch = await admin.patch(`/devices/${other.id}`, { serial_number: d.serial_number });
    expect(dupPatch.json().message).toBe('serial number in use');
    const model = await admin.put('/devices', {
      name: 'x',
      type: 'monitor',
      model: 'AP-100',
      serial_number: serial(),
      domain_id: t.project.rootGroupId,
    });
    expect(model.statusCode).toBe(400);
    expect(model.json()).toMatchObject({ message: 'invalid data sent', details: [{ field: 'model' }] });
    const group = await admin.put('/devices', { name: 'x', model: 'AP-100', serial_number: serial(), domain_id: 999999 });
    expect(group.json().message).toBe('invalid related entity sent');
    const bad = await admin.put('/devices', {
      name: '',
      model: 'AP-100',
      serial_number: 'has space',
      domain_id: t.project.rootGroupId,
      port: 70000,
    });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((x: { field: string }) => x.field)
        .sort(),
    ).toEqual(['name', 'port', 'serial_number']);
    expect((await admin.get('/devices/999999')).statusCode).toBe(404);
  });

  it('lists with search, filters and sort; the monitor picker filters type equals monitor', async () => {
    const m = await makeDevice({ type: 'monitor', model: 'AM-7', name: 'zz monitor' });
    const byType = encodeURIComponent(JSON.stringify({ rules: [{ field: 'type', operator: 'equals', value: 'monitor' }] }));
    const list = await admin.get(`/devices?filters=${byType}&sort=-name`);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((x: { type: string }) => x.type)).toEqual(list.json().data.map(() => 'monitor'));
    expect(list.json().data.map((x: { id: number }) => x.id)).toContain(m.id);
    expect((await admin.get(`/devices?search=${m.serial_number}`)).json().data.map((x: { id: number }) => x.id)).toEqual([m.id]);
    const raw = await admin.get('/devices/raw?type=monitor');
    expect(raw.statusCode).toBe(200);
    expect(raw.json().data.every((x: { type: string }) => x.type === 'monitor')).toBe(true);
    expect(raw.json().data[0]).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      description: null,
      type: 'monitor',
      model: expect.any(String),
    });
    expect((await admin.get('/devices?sort=password')).statusCode).toBe(400);
  });

  it('deletes one and many, saying which were not deleted', async () => {
    const a = await makeDevice();
    const b = await makeDevice();
    expect((await admin.delete(`/devices/${a.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/devices/${a.id}`)).statusCode).toBe(404);
    const bulk = await admin.post('/devices/delete', { items: [b.id, a.id] });
    expect(bulk.json().data).toEqual({ deleted: [b.id], not_deleted: [{ id: a.id, message: 'item not found', code: 'not_found' }] });
  });
});

describe('device permissions (spec §6)', () => {
  it('view: none is refused, my groups sees my groups only, descendants sees below, all sees all', async () => {
    const top = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'dev-top');
    const below = await makeGroup(t.database.db, t.project.projectId, top, 'dev-below');
    const dTop = await makeDevice({ domain_id: top });
    const dBelow = await makeDevice({ domain_id: below });
    const none = await memberWith([], [top]);
    expect((await none.get('/devices')).statusCode).toBe(403);
    expect((await none.get('/devices/raw')).json().message).toBe('action prohibited');
    const ids = async (api: Awaited<ReturnType<typeof memberWith>>) =>
      (await api.get('/devices?size=1000')).json().data.map((x: { id: number }) => x.id) as number[];
    const mine = await memberWith(['can_view_devices'], [top]);
    expect(await ids(mine)).toEqual([dTop.id]);
    expect((await mine.get(`/devices/${dBelow.id}`)).statusCode).toBe(404);
    const desc = await memberWith(['can_view_descendant_devices'], [top]);
    expect((await ids(desc)).sort()).toEqual([dTop.id, dBelow.id].sort());
    const all = await memberWith(['can_view_all_devices'], [below]);
    expect(await ids(all)).toEqual(expect.arrayContaining([dTop.id, dBelow.id]));
  });

  it('create, edit and delete need their permissions; a creator may place only in groups in scope', async () => {
    const top = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const d = await makeDevice({ domain_id: top });
    const viewer = await memberWith(['can_view_devices'], [top]);
    const put = await viewer.put('/devices', { name: 'x', model: 'AP-100', serial_number: serial(), domain_id: top });
    expect(put.statusCode).toBe(403);
    expect(put.json()).toMatchObject({ message: 'action prohibited', details: [{ permission: 'can_create_devices' }] });
    expect((await viewer.patch(`/devices/${d.id}`, { name: 'y' })).statusCode).toBe(403);
    expect((await viewer.delete(`/devices/${d.id}`)).statusCode).toBe(403);
    expect((await viewer.post(`/devices/${d.id}/settings/apply`)).statusCode).toBe(403);
    const editor = await memberWith(['can_view_devices', 'can_create_devices', 'can_edit_devices', 'can_delete_devices'], [top]);
    const mine = await editor.put('/devices', { name: 'x', model: 'AP-100', serial_number: serial(), domain_id: top });
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().data).toMatchObject({ can_edit: true, can_delete: true });
    const elsewhere = await editor.put('/devices', {
      name: 'x',
      model: 'AP-100',
      serial_number: serial(),
      domain_id: t.project.rootGroupId,
    });
    expect(elsewhere.json().message).toBe('invalid related entity sent');
    expect((await editor.patch(`/devices/${d.id}`, { name: 'renamed' })).json().data.name).toBe('renamed');
    expect((await editor.delete(`/devices/${d.id}`)).statusCode).toBe(200);
  });

  it('tasks and events need their view permissions', async () => {
    const viewer = await memberWith(['can_view_all_devices']);
    expect((await viewer.get('/devices/tasks')).json()).toMatchObject({
      message: 'action prohibited',
      details: [{ permission: 'can_view_device_tasks' }],
    });
    expect((await viewer.get('/devices/events')).json()).toMatchObject({ details: [{ permission: 'can_view_device_events' }] });
    expect((await viewer.get('/devices/events/download')).statusCode).toBe(403);
    const reader = await memberWith(['can_view_all_devices', 'can_view_device_tasks', 'can_view_device_events']);
    expect((await reader.get('/devices/tasks')).statusCode).toBe(200);
    expect((await reader.get('/devices/events')).statusCode).toBe(200);
  });
});

describe('device tasks (spec §4)', () => {
  it('waits while the device is offline, is sent when it comes online, then started and completed', async () => {
    const d = await makeDevice();
    const res = await admin.post(`/devices/${d.id}/settings/apply`);
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().data.id as number;
    expect(res.json().data).toMatchObject({ type: 'apply_settings', state: 'waiting', attempts: 0 });
    expect(gw.sent).toEqual([]);
    await devices().onPresence(d.serial_number, { online: true, firmware: '1.2.3' });
    expect(gw.sent).toEqual([
      {
        serial: d.serial_number,
        task: { id, type: 'apply_settings', payload: expect.objectContaining({ device_settings: expect.any(Object) }) },
      },
    ]);
    expect(await task(id)).toMatchObject({ state: 'queued', attempts: 1 });
    expect((await admin.get(`/devices/${d.id}`)).json().data).toMatchObject({ online: true, firmware: '1.2.3' });
    await devices().onTaskUpdate(d.serial_number, { task_id: id, state: 'started' });
    expect((await task(id)).state).toBe('started');
    await devices().onTaskUpdate(d.serial_number, { task_id: id, state: 'completed' });
    expect((await task(id)).state).toBe('completed');
    // A replayed result, or one from another device, changes nothing.
    await devices().onTaskUpdate(d.serial_number, { task_id: id, state: 'error', error: 'late' });
    const other = await makeDevice();
    await devices().onTaskUpdate(other.serial_number, { task_id: id, state: 'error' });
    expect(await task(id)).toMatchObject({ state: 'completed', error: null });
  });

  it('runs a device’s tasks one at a time, in order; an error is kept and the next one goes', async () => {
    const d = await makeDevice();
    await devices().onPresence(d.serial_number, { online: true });
    const a = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    const b = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    const c = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    expect(gw.ids(d.serial_number)).toEqual([a]);
    expect((await task(b)).state).toBe('new');
    await devices().onTaskUpdate(d.serial_number, { task_id: a, state: 'error', error: 'relay fault' });
    expect(await task(a)).toMatchObject({ state: 'error', error: 'relay fault' });
    expect(gw.ids(d.serial_number)).toEqual([a, b]);
    await devices().onTaskUpdate(d.serial_number, { task_id: b, state: 'completed' });
    expect(gw.ids(d.serial_number)).toEqual([a, b, c]);
  });

  it('goes back to waiting when the device drops off, and is sent again when it returns', async () => {
    const d = await makeDevice();
    await devices().onPresence(d.serial_number, { online: true });
    const id = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    await devices().onTaskUpdate(d.serial_number, { task_id: id, state: 'started' });
    await devices().onPresence(d.serial_number, { online: false });
    expect((await task(id)).state).toBe('waiting');
    expect((await admin.get(`/devices/${d.id}`)).json().data.online).toBe(false);
    await devices().onPresence(d.serial_number, { online: true });
    expect(gw.ids(d.serial_number)).toEqual([id, id]);
    expect(await task(id)).toMatchObject({ state: 'queued', attempts: 2 });
  });

  it('waits when the gateway cannot hand it over', async () => {
    const d = await makeDevice();
    await devices().onPresence(d.serial_number, { online: true });
    gw.unreachable.add(d.serial_number);
    const id = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    expect((await task(id)).state).toBe('waiting');
  });

  it('restarts a finished task at the end of the queue, refuses an unfinished one, and reinits', async () => {
    const d = await makeDevice();
    await devices().onPresence(d.serial_number, { online: true });
    const a = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    const early = await admin.post(`/devices/tasks/${a}/restart`);
    expect(early.statusCode).toBe(400);
    expect(early.json()).toMatchObject({ message: "can't perform action", details: [{ field: 'state' }] });
    await devices().onTaskUpdate(d.serial_number, { task_id: a, state: 'error', error: 'x' });
    const restarted = await admin.post(`/devices/tasks/${a}/restart`);
    expect(restarted.statusCode, restarted.body).toBe(200);
    expect(restarted.json().data).toMatchObject({ id: a, state: 'queued', error: null, attempts: 2 });
    await devices().onTaskUpdate(d.serial_number, { task_id: a, state: 'completed' });
    const reinit = await admin.post(`/devices/tasks/${a}/reinit`);
    expect(reinit.statusCode, reinit.body).toBe(200);
    expect(reinit.json().data).toMatchObject({ type: 'init', state: 'queued' });
    // The init goes first; the task runs again after it.
    expect(gw.ids(d.serial_number).slice(-1)).toEqual([reinit.json().data.id]);
    expect((await task(a)).state).toBe('new');
    await devices().onTaskUpdate(d.serial_number, { task_id: reinit.json().data.id, state: 'completed' });
    // Then the full sync every init brings (a re-initialised unit may hold nothing), then the task again.
    const fullSync = gw.ids(d.serial_number).at(-1) as number;
    expect(await queryRows(t.database.db, sql`SELECT type, payload->>'mode' AS mode FROM device_tasks WHERE id = ${fullSync}`)).toEqual([
      { type: 'sync', mode: 'full' },
    ]);
    await devices().onTaskUpdate(d.serial_number, { task_id: fullSync, state: 'completed' });
    expect(gw.ids(d.serial_number).slice(-1)).toEqual([a]);
    expect((await admin.post('/devices/tasks/999999/restart')).statusCode).toBe(404);
  });

  it('deletes tasks (one in flight is forgotten and its late answer ignored) and lists a task’s entities', async () => {
    const d = await makeDevice();
    await devices().onPresence(d.serial_number, { online: true });
    const a = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    const b = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    expect((await admin.get(`/devices/tasks/${b}/entities`)).json().data).toEqual([]);
    expect((await admin.delete(`/devices/tasks/${a}`)).statusCode).toBe(200);
    expect(gw.ids(d.serial_number)).toEqual([a, b]);
    await devices().onTaskUpdate(d.serial_number, { task_id: a, state: 'completed' });
    const bulk = await admin.post('/devices/tasks/delete', { items: [b, a] });
    expect(bulk.json().data).toEqual({ deleted: [b], not_deleted: [{ id: a, message: 'item not found', code: 'not_found' }] });
    expect((await admin.get(`/devices/tasks/${a}/entities`)).statusCode).toBe(404);
  });

  it('with protocol none: open tasks stop; init, restart and settings are refused with the spec’s message', async () => {
    const d = await makeDevice();
    const a = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    const res = await admin.post(`/devices/${d.id}/protocol`, { protocol: 'none' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.protocol).toBe('none');
    expect((await task(a)).state).toBe('stopped');
    const msg = 'protocol none makes init, queue restart and sync impossible';
    expect((await admin.post(`/devices/${d.id}/init/apply`, {})).json()).toMatchObject({ message: msg, code: 'protocol_none' });
    expect((await admin.post(`/devices/tasks/${a}/restart`)).json().message).toBe(msg);
    expect((await admin.post(`/devices/tasks/${a}/reinit`)).json().message).toBe(msg);
    expect((await admin.post(`/devices/${d.id}/settings/apply`)).statusCode).toBe(409);
    expect((await admin.post(`/devices/${d.id}/protocol`, { protocol: 'ftp' })).statusCode).toBe(400);
    expect((await admin.post(`/devices/${d.id}/protocol`, { protocol: 'mqtt' })).json().data.protocol).toBe('mqtt');
  });

  it('refuses protocol http (nothing serves it yet) on create, update and set protocol, with a field message', async () => {
    const refused = { code: 'invalid_data', details: [{ field: 'protocol', message: 'validation.device_protocol_not_supported' }] };
    const created = await admin.put('/devices', {
      name: 'http panel',
      model: 'AP-200',
      serial_number: serial(),
      domain_id: t.project.rootGroupId,
      protocol: 'http',
    });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toMatchObject(refused);
    const d = await makeDevice();
    const patched = await admin.patch(`/devices/${d.id}`, { protocol: 'http' });
    expect(patched.statusCode).toBe(400);
    expect(patched.json()).toMatchObject(refused);
    const set = await admin.post(`/devices/${d.id}/protocol`, { protocol: 'http' });
    expect(set.statusCode).toBe(400);
    expect(set.json()).toMatchObject(refused);
    expect((await admin.get(`/devices/${d.id}`)).json().data.protocol).toBe('mqtt');
  });

  it('a device stored on http gets no tasks, and its open tasks end as errors instead of waiting forever', async () => {
    const d = await makeDevice();
    const waiting = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    expect((await task(waiting)).state).toBe('waiting');
    await storedAsHttp(d.id);
    const refused = await admin.post(`/devices/${d.id}/settings/apply`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'device_not_mqtt', message: 'device protocol not mqtt, unable to connect' });
    // A fan-out (identifiers, rules) leaves it out.
    const queued = await t.database.db.transaction((tx) =>
      devices().queueInTx(tx, [{ deviceId: d.id, type: 'sync', payload: { mode: 'full' } }], null),
    );
    expect(queued).toBe(0);
    expect(await devices().failUnservedTasks()).toBeGreaterThanOrEqual(1);
    expect(await task(waiting)).toMatchObject({ state: 'error', error: 'device protocol http is not supported' });
    // A device on mqtt keeps its waiting tasks.
    const other = await makeDevice();
    const kept = (await admin.post(`/devices/${other.id}/settings/apply`)).json().data.id as number;
    await devices().failUnservedTasks();
    expect((await task(kept)).state).toBe('waiting');
  });

  it('init sets the device password (hashed, answered once when generated) the broker checks', async () => {
    const d = await makeDevice();
    const res = await admin.post(`/devices/${d.id}/init/apply`, {});
    expect(res.statusCode, res.body).toBe(200);
    const { password, task: initTask } = res.json().data;
    expect(password).toMatch(/^\w{24}$/);
    expect(initTask).toMatchObject({ type: 'init', state: 'waiting' });
    expect(await devices().verify(d.serial_number, password)).toEqual({ projectId: t.project.projectId, deviceId: d.id });
    expect(await devices().verify(d.serial_number, 'wrong')).toBeNull();
    expect(await devices().verify('no-such-serial', password)).toBeNull();
    const chosen = await admin.post(`/devices/${d.id}/init/apply`, { password: 'chosen-password' });
    expect(chosen.json().data.password).toBeNull();
    expect(await devices().verify(d.serial_number, 'chosen-password')).not.toBeNull();
    // The earlier password, verified (and remembered) before, no longer opens the broker.
    expect(await devices().verify(d.serial_number, password)).toBeNull();
    // Protocol http: the device does not sign in to the broker at all.
    await storedAsHttp(d.id);
    expect(await devices().verify(d.serial_number, 'chosen-password')).toBeNull();
    expect((await admin.get(`/devices/${d.id}`)).json().data.password_set).toBe(true);
    expect((await admin.post(`/devices/${d.id}/init/apply`, { password: 'short' })).statusCode).toBe(400);
  });
});

describe('device events and sync errors', () => {
  it('stores a flood from many devices: each sender looked up once for all, few statements, every event once and in order', async () => {
    const senders = await Promise.all(Array.from({ length: 20 }, (_, i) => makeDevice({ name: `flood ${i}` })));
    const repo = (devices() as unknown as { repo: DevicesRepository }).repo;
    const lookups = vi.spyOn(repo, 'idsOfSerials');
    const inserts = vi.spyOn(repo, 'insertEvents');
    try {
      const n = 3000;
      // Arriving together (the gateway hands each device's events over one after the other).
      await Promise.all(
        senders.map(async (d, k) => {
          for (let i = k; i < n; i += senders.length) await devices().onEvent(d.serial_number, { type: 'call', data: { value: i } });
        }),
      );
      await devices().flushEvents();
      expect(lookups).toHaveBeenCalledTimes(1);
      expect(lookups.mock.calls[0]?.[0]).toHaveLength(senders.length);
      const rows = inserts.mock.calls.reduce((sum, [batch]) => sum + batch.length, 0);
      expect(rows).toBe(n);
      // Batches grow while one is written instead of queueing (3,000 rows, batches of 1,000 at least).
      expect(inserts.mock.calls.length).toBeLessThanOrEqual(3);
      const stored = await queryRows<{ device_id: number; value: string }>(
        t.database.db,
        sql`SELECT device_id, data->>'value' AS value FROM device_events
          WHERE device_id = ANY(${`{${senders.map((d) => d.id).join(',')}}`}::int[]) ORDER BY id`,
      );
      expect(stored).toHaveLength(n);
      expect(new Set(stored.map((r) => r.value)).size).toBe(n);
      for (const d of senders) {
        const values = stored.filter((r) => Number(r.device_id) === d.id).map((r) => Number(r.value));
        expect(values).toEqual([...values].sort((a, b) => a - b));
      }
      // Known now: the next events need no lookup, and are taken synchronously.
      await devices().onEvent(senders[0]!.serial_number, { type: 'call' });
      expect(devices().acceptEvent(senders[1]!.serial_number, { type: 'call', data: { value: 'sync' } })).toBe(true);
      await devices().flushEvents();
      expect(lookups).toHaveBeenCalledTimes(1);
      const sync = await queryRows<{ device_id: number }>(
        t.database.db,
        sql`SELECT device_id FROM device_events WHERE data->>'value' = 'sync'`,
      );
      expect(sync.map((r) => Number(r.device_id))).toEqual([senders[1]!.id]);
      // A sender never looked up is not taken synchronously (the gateway then calls onEvent), nor is one remembered as unknown long ago.
      expect(devices().acceptEvent('never-seen-serial', { type: 'call' })).toBe(false);
      await devices().onEvent('never-seen-serial', { type: 'call' });
      expect(devices().acceptEvent('never-seen-serial', { type: 'call' })).toBe(true); // remembered as unknown: dropped at once
    } finally {
      lookups.mockRestore();
      inserts.mockRestore();
    }
  });

  it('hands batches to a pipelined COPY without waiting for the one before, and tells listeners in order', async () => {
    const d = await makeDevice({ name: 'pipelined' });
    const svc = devices();
    const repo = (svc as unknown as { repo: DevicesRepository }).repo;
    // As on PostgreSQL with the COPY thread: batches may be handed over before the previous is stored.
    const pipelined = vi.spyOn(repo, 'pipelinesEvents', 'get').mockReturnValue(true);
    const handed: number[][] = [];
    const release: (() => void)[] = [];
    const insert = vi.spyOn(repo, 'insertEvents').mockImplementation(async (rows) => {
      handed.push(rows.map((r) => r.data.value as number));
      await new Promise<void>((r) => release.push(r));
    });
    const told: number[][] = [];
    let listening = true;
    svc.onEvents(async (batch) => {
      if (listening) told.push(batch.map((e) => e.data.value as number));
    });
    try {
      await svc.onEvent(d.serial_number, { type: 'call' }); // the sender looked up once
      const first = svc.flushEvents();
      await expect.poll(() => release.length).toBe(1);
      for (const r of release.splice(0)) r();
      await first;
      handed.length = 0;
      told.length = 0;
      // Three batches of 1,000, arriving one after the other: each handed over at once, none stored yet.
      for (let b = 0; b < 3; b++) {
        for (let i = b * 1000; i < (b + 1) * 1000; i++)
          expect(svc.acceptEvent(d.serial_number, { type: 'call', data: { value: i } })).toBe(true);
        await expect.poll(() => handed.length).toBe(b + 1);
      }
      const done = svc.flushEvents();
      expect(handed.flat()).toEqual(Array.from({ length: 3000 }, (_, i) => i));
      expect(told).toEqual([]);
      // Stored out of order (the last first): the listeners still get them in the order written.
      release[2]!();
      release[0]!();
      await expect.poll(() => told.length).toBe(1);
      release[1]!();
      await done;
      expect(told).toEqual(handed);
    } finally {
      listening = false;
      for (const r of release) r();
      insert.mockRestore();
      pipelined.mockRestore();
    }
  });

  it('reads a batch the device plane stored only for listeners wanting one of its types', async () => {
    // A service of its own: only this test's listeners.
    const svc = new DevicesService(t.database.db, new DevicesRepository(t.database.db, t.database.copyFrom, () => false), null, {
      sweepMs: 0,
    });
    const row = (type: string, value: number) => [1, 2, type, null, `e-${value}`, { value }, 1_700_000_000_000, 1_700_000_000_000];
    const heard: string[] = [];
    svc.onEvents(
      async (batch) => {
        heard.push(...batch.map((e) => `${e.type}:${e.data.value}`));
      },
      async (types) => types.includes('door_opened'),
    );
    svc.onEvents(
      async () => undefined,
      (types) => types.includes('alarm_on'),
    );
    // Not JSON at all: read, it would fail (a listener error); no listener wants `sensor`, so it is not read.
    svc.eventsStored('not json', ['sensor']);
    svc.eventsStored(JSON.stringify([row('sensor', 1), row('door_opened', 2)]), ['sensor', 'door_opened']);
    await expect.poll(() => heard).toEqual(['sensor:1', 'door_opened:2']);
    expect(svc.stats.listenerErrors).toBe(0);
    // One wanting `alarm_on` reads it: then the text that is not JSON is a listener error.
    svc.eventsStored('not json', ['alarm_on']);
    await expect.poll(() => svc.stats.listenerErrors).toBe(1);
    expect(heard).toEqual(['sensor:1', 'door_opened:2']);
  });

  it('stores events in batches, lists them with filters and downloads csv and xlsx', async () => {
    const d = await makeDevice({ name: 'events door' });
    for (let i = 0; i < 5; i++) {
      await devices().onEvent(d.serial_number, {
        type: i % 2 ? 'access_denied' : 'access_granted',
        identifier: `=card${i}`,
        time: `2026-01-0${i + 1}T10:00:00Z`,
      });
    }
    await devices().onEvent('unknown-serial', { type: 'tamper' });
    // A device deleted while its events wait for the batch: its events go, the others stay.
    const gone = await makeDevice();
    await devices().onEvent(gone.serial_number, { type: 'tamper' });
    await admin.delete(`/devices/${gone.id}`);
    await devices().flushEvents();
    expect(devices().stats.unstoredAtStop).toBe(0);
    const byDevice = encodeURIComponent(JSON.stringify({ rules: [{ field: 'device_id', operator: 'equals', value: d.id }] }));
    const list = await admin.get(`/devices/events?filters=${byDevice}&sort=occurred_at`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().meta.total).toBe(5);
    expect(list.json().data[0]).toMatchObject({
      device_name: 'events door',
      type: 'access_granted',
      identifier: '=card0',
      occurred_at: '2026-01-01T10:00:00.000Z',
    });
    const csv = await admin.get(`/devices/events/download?export_format=csv&filters=${byDevice}&sort=-occurred_at`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[1]).toContain("'=card4");
    const xlsx = await admin.raw('GET', `/devices/events/download?export_format=xlsx&filters=${byDevice}`);
    expect(xlsx.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    expect(book.worksheets[0]!.rowCount).toBe(6);
    const bad = await admin.get(`/devices/events/download?export_format=pdf`);
    expect(bad.statusCode).toBe(400);
    const badSort = await admin.get('/devices/events/download?sort=data');
    expect(badSort.statusCode).toBe(400);
  });

  it('stores tabs, line breaks, backslashes and quotes as sent; a NUL (which PostgreSQL cannot hold) is dropped, not the batch', async () => {
    const d = await makeDevice({ name: 'awkward text' });
    const other = await makeDevice({ name: 'same batch' });
    const identifier = 'a\tb\nc\\d\re"f\\N';
    const data = { note: 'x\\u0000y', tab: '\t', nul: 'p\u0000q', slash: '\\\\', quote: '"', nested: { k: ['\\N', '\n'] } };
    await devices().onEvent(d.serial_number, { type: 'call', identifier, data });
    await devices().onEvent(d.serial_number, { type: 'call', identifier: 'nul\u0000here' });
    await devices().onEvent(other.serial_number, { type: 'call', identifier: 'plain' });
    await devices().flushEvents();
    expect(devices().stats.unstoredAtStop).toBe(0);
    const rows = await queryRows<{ identifier: string; data: Record<string, unknown> }>(
      t.database.db,
      sql`SELECT identifier, data FROM device_events WHERE device_id = ${d.id} ORDER BY id`,
    );
    expect(rows).toEqual([
      { identifier, data: { ...data, nul: 'pq' } },
      { identifier: 'nulhere', data: {} },
    ]);
    const [plain] = await queryRows<{ identifier: string }>(
      t.database.db,
      sql`SELECT identifier FROM device_events WHERE device_id = ${other.id}`,
    );
    expect(plain?.identifier).toBe('plain');
  });

  it('downloads the events stored when it began: later arrivals do not shift its pages', async () => {
    const d = await makeDevice();
    for (let i = 0; i < 5; i++) await devices().onEvent(d.serial_number, { type: 'call', time: `2026-02-0${i + 1}T00:00:00Z` });
    await devices().flushEvents();
    const actor = {
      userId: t.project.adminId,
      projectId: t.project.projectId,
      login: 'admin',
      roleId: null,
      permissions: new Set(['can_view_all_devices']),
      groupIds: [],
    };
    const filters = { match: 'match_all' as const, rules: [{ field: 'device_id', operator: 'equals' as const, value: d.id }] };
    const pages = new DevicesRepository(t.database.db).eventPages(actor, { filters, sort: '-occurred_at' }, 2);
    const seen = ((await pages.next()).value ?? []).map((e: { id: number }) => Number(e.id));
    // Newer than all of them: with plain offsets it would push a seen row onto the next page.
    await devices().onEvent(d.serial_number, { type: 'call', time: '2026-03-01T00:00:00Z' });
    await devices().flushEvents();
    for await (const page of pages) seen.push(...page.map((e) => Number(e.id)));
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });

  it('records when devices were last heard from, one statement per flush, never moving back in time', async () => {
    const a = await makeDevice();
    const b = await makeDevice();
    await devices().onPresence(a.serial_number, { online: true });
    await devices().onPresence(b.serial_number, { online: true });
    const later = new Date(Date.now() + 60_000);
    await devices().onLastSeen(
      new Map([
        [a.serial_number, later],
        [b.serial_number, later],
        ['NO-SUCH-DEVICE', later],
      ]),
    );
    const seen = async (id: number) => (await admin.get(`/devices/${id}`)).json().data.last_seen_at as string;
    expect(await seen(a.id)).toBe(later.toISOString());
    expect(await seen(b.id)).toBe(later.toISOString());
    // A late flush from another instance carries an older time: it does not win.
    await devices().onLastSeen(new Map([[a.serial_number, new Date(Date.now() - 60_000)]]));
    expect(await seen(a.id)).toBe(later.toISOString());
  });

  it('pages a download after the last row it sent for every order, ties included, the same rows as one query', async () => {
    const d = await makeDevice();
    // 250 events on 7 instants and 3 types, some without an identifier: many ties on every key.
    const types = ['call', 'door_opened', 'access_denied'];
    for (let i = 0; i < 250; i++) {
      await devices().onEvent(d.serial_number, {
        type: types[i % 3]!,
        identifier: i % 4 ? `card-${i % 5}` : null,
        time: `2026-04-0${1 + (i % 7)}T08:00:00Z`,
      });
    }
    await devices().flushEvents();
    const actor = {
      userId: t.project.adminId,
      projectId: t.project.projectId,
      login: 'admin',
      roleId: null,
      permissions: new Set(['can_view_all_devices']),
      groupIds: [],
    };
    const filters = { match: 'match_all' as const, rules: [{ field: 'device_id', operator: 'equals' as const, value: d.id }] };
    const repo = new DevicesRepository(t.database.db);
    for (const sort of ['-occurred_at', 'occurred_at', 'type', '-type', '-id', 'received_at', 'identifier', 'type,-occurred_at']) {
      const paged: number[] = [];
      for await (const page of repo.eventPages(actor, { filters, sort }, 17)) paged.push(...page.map((e) => Number(e.id)));
      const whole: number[] = [];
      for await (const page of repo.eventPages(actor, { filters, sort }, 10_000)) whole.push(...page.map((e) => Number(e.id)));
      expect(whole, sort).toHaveLength(250);
      expect(paged, sort).toEqual(whole);
    }
  });

  it('answers the identifiers and schedules the device refused at its last sync', async () => {
    const d = await makeDevice();
    expect((await admin.get(`/devices/${d.id}/sync-errors`)).json().data).toEqual({ identifiers: [], schedules: [] });
    // The acknowledgement of its sync task that is on its way (one of another task changes nothing).
    const [sync] = await queryRows<{ id: number }>(
      t.database.db,
      sql`INSERT INTO device_tasks (project_id, device_id, type, payload, state) VALUES (${t.project.projectId}, ${d.id}, 'sync', '{"mode":"delta"}', 'started') RETURNING id`,
    );
    await devices().onSyncAck(d.serial_number, { task_id: 1, errors: [{ entity: 'identifier', id: 8, message: 'not mine' }] });
    expect((await admin.get(`/devices/${d.id}/sync-errors`)).json().data).toEqual({ identifiers: [], schedules: [] });
    await devices().onSyncAck(d.serial_number, {
      task_id: Number(sync?.id),
      errors: [
        { entity: 'identifier', id: 7, message: 'memory full' },
        { entity: 'schedule', id: 3, message: 'too many intervals' },
      ],
    });
    expect((await admin.get(`/devices/${d.id}/sync-errors`)).json().data).toEqual({
      identifiers: [{ id: 7, message: 'memory full' }],
      schedules: [{ id: 3, message: 'too many intervals' }],
    });
  });

  it('presence and events do not empty the read cache', async () => {
    const d = await makeDevice();
    // Every change committed so far is heard before each step (not a sleep, which a busy machine outlasts).
    const heard = async () => expect(await t.database.changesHeard(5000)).toBe(true);
    const cache = t.app.readCache.stats;
    // What a cached users list depends on, and whether everything was forgotten: named when the hit is missed.
    const watched = () =>
      JSON.stringify({ changes: [...cache.changes].filter(([table]) => table !== 'devices'), forgotten: cache.forgotten });
    await admin.get('/users');
    await heard();
    await admin.get('/users');
    const before = { hits: cache.answerHits, watched: watched() };
    await devices().onPresence(d.serial_number, { online: true });
    await devices().onEvent(d.serial_number, { type: 'call' });
    await devices().flushEvents();
    await heard();
    expect(watched()).toBe(before.watched);
    await admin.get('/users');
    expect(cache.answerHits).toBe(before.hits + 1);
  });

  it('one look for dead instances: takes over what it hears, declares the rest offline, and gets back what was taken from it', async () => {
    const [heardOrphan, lostOrphan, takenFromMe] = [await makeDevice(), await makeDevice(), await makeDevice()];
    const heard = new Set([heardOrphan.serial_number, takenFromMe.serial_number]);
    const hearing = Object.assign(new RecordingGateway(), {
      holdsOnline: async (serials: readonly string[]) => serials.filter((s) => heard.has(s)),
    });
    devices().attachGateway(hearing);
    try {
      await devices().onPresence(takenFromMe.serial_number, { online: true });
      const status = async (id: number) =>
        (
          await queryRows<{ online: boolean; instance_id: string | null }>(
            t.database.db,
            sql`SELECT online, instance_id FROM device_status WHERE device_id = ${id}`,
          )
        )[0];
      const me = (await status(takenFromMe.id))?.instance_id;
      expect(me).toBeTruthy();
      // Another instance took this one for dead and declared its device offline; two devices of an instance that died.
      await t.database.db.execute(
        sql`UPDATE device_status SET online = FALSE, instance_id = 'gone:' || instance_id WHERE device_id = ${takenFromMe.id}`,
      );
      for (const d of [heardOrphan, lostOrphan])
        await t.database.db.execute(
          sql`INSERT INTO device_status (device_id, online, instance_id) VALUES (${d.id}, TRUE, 'dead-instance')
            ON CONFLICT (device_id) DO UPDATE SET online = TRUE, instance_id = 'dead-instance'`,
        );
      expect(await devices().checkLiveness()).toBe(1);
      expect(await status(heardOrphan.id)).toEqual({ online: true, instance_id: me });
      expect(await status(lostOrphan.id)).toEqual({ online: false, instance_id: 'gone:dead-instance' });
      await vi.waitFor(async () => expect(await status(takenFromMe.id)).toEqual({ online: true, instance_id: me }), { timeout: 5000 });
    } finally {
      devices().attachGateway(gw);
    }
  });
});

/**
 * A second server instance on the same database: on PostgreSQL through its own connection pool (as
 * another process would), on PGlite through the one embedded database.
 */
async function secondInstance(): Promise<TestApp & { closeAll(): Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  let database = t.database;
  if (url) {
    const [row] = await queryRows<{ name: string }>(t.database.db, sql`SELECT current_database() AS name`);
    const own = new URL(url);
    own.pathname = `/${row!.name}`;
    database = await openDatabase({ databaseUrl: own.toString(), poolSize: 3 });
  }
  const second = await buildTestApp({ database });
  return {
    ...second,
    async closeAll() {
      await second.app.close();
      if (database !== t.database) await database.close();
    },
  };
}

describe('two instances sharing a database', () => {
  it('hand each task to a device once', async () => {
    const second = await secondInstance();
    try {
      const gw2 = new RecordingGateway();
      second.app.services.devices.attachGateway(gw2);
      const list: { id: number; serial_number: string }[] = [];
      for (let i = 0; i < 6; i++) list.push(await makeDevice());
      for (const d of list) {
        await admin.post(`/devices/${d.id}/settings/apply`);
        await admin.post(`/devices/${d.id}/settings/apply`);
      }
      // Both instances hear every device come online and both sweep at once.
      await Promise.all(
        list.flatMap((d) => [
          devices().onPresence(d.serial_number, { online: true }),
          second.app.services.devices.onPresence(d.serial_number, { online: true }),
        ]),
      );
      await Promise.all([devices().sweep(), second.app.services.devices.sweep()]);
      const all = [...gw.ids(), ...gw2.ids()];
      expect(all).toHaveLength(list.length);
      expect(new Set(all).size).toBe(all.length);
    } finally {
      await second.closeAll();
    }
  });

  it('send again, once, a task whose sender died before the device answered (lease ran out)', async () => {
    const second = await secondInstance();
    try {
      const gw2 = new RecordingGateway();
      second.app.services.devices.attachGateway(gw2);
      const d = await makeDevice();
      await devices().onPresence(d.serial_number, { online: true });
      const id = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
      expect(gw.ids(d.serial_number)).toEqual([id]);
      // Within the lease nothing is sent again.
      await Promise.all([devices().sweep(), second.app.services.devices.sweep()]);
      expect([...gw.ids(d.serial_number), ...gw2.ids(d.serial_number)]).toEqual([id]);
      await t.database.db.execute(sql`UPDATE device_tasks SET sent_at = now() - interval '1 hour' WHERE id = ${id}`);
      await Promise.all([devices().sweep(), second.app.services.devices.sweep()]);
      expect([...gw.ids(d.serial_number), ...gw2.ids(d.serial_number)]).toEqual([id, id]);
      expect(await task(id)).toMatchObject({ state: 'queued', attempts: 2 });
    } finally {
      await second.closeAll();
    }
  });
});

function multipart(name: string, data: Buffer) {
  const boundary = '----atrium-device-test';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('remote control sessions', () => {
  it('are refused for an offline device, a device not on mqtt and a wrong device login; opened for 60 s and kept alive', async () => {
    const d = await makeDevice({ device_login: 'admin', device_password: 'local' });
    const put = (body: Record<string, unknown>) =>
      admin.put('/devices/remote-control', { serial_number: d.serial_number, login: 'admin', password: 'local', ...body });
    expect((await put({})).json()).toMatchObject({ message: 'device status offline, unable to connect', code: 'device_offline' });
    await devices().onPresence(d.serial_number, { online: true });
    expect((await put({ password: 'nope' })).statusCode).toBe(403);
    devices().attachGateway(null);
    expect((await put({})).json()).toMatchObject({ message: 'device or service not available', code: 'device_unavailable' });
    devices().attachGateway(gw);
    const res = await put({});
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json().data;
    expect(Date.parse(s.expires_at) - Date.now()).toBeGreaterThan(55_000);
    expect(gw.sent.at(-1)).toMatchObject({
      serial: d.serial_number,
      task: { id: s.task_id, type: 'remote_control', payload: { session: s.session } },
    });
    const kept = await admin.patch(`/devices/remote-control/${s.session}`);
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json().data.session).toBe(s.session);
    expect((await admin.patch(`/devices/remote-control/${crypto.randomUUID()}`)).statusCode).toBe(404);
    expect((await admin.patch('/devices/remote-control/not-a-session')).statusCode).toBe(400);
    await storedAsHttp(d.id);
    expect((await put({})).json()).toMatchObject({ message: 'device protocol not mqtt, unable to connect', code: 'device_not_mqtt' });
    expect((await admin.put('/devices/remote-control', { serial_number: 'no-such' })).statusCode).toBe(404);
  });
});

describe('found devices and IP search input', () => {
  it('adds found devices one by one, saying which were not added', async () => {
    const taken = await makeDevice();
    const fresh = serial();
    const res = await admin.put('/devices/found', {
      items: [
        { serial_number: fresh, type: 'monitor', model: 'AM-7', ip_address: '127.0.0.9', domain_id: t.project.rootGroupId },
        { serial_number: taken.serial_number, type: 'panel', model: 'AP-100', ip_address: '127.0.0.10', domain_id: t.project.rootGroupId },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.created).toHaveLength(1);
    expect(res.json().data.created[0]).toMatchObject({ serial_number: fresh, type: 'monitor', ip_address: '127.0.0.9', port: 80 });
    expect(res.json().data.not_created).toEqual([
      { serial_number: taken.serial_number, message: 'serial number in use', code: 'serial_in_use' },
    ]);
  });

  it('refuses a reversed or too large range, and callers who may not add devices', async () => {
    const reversed = await admin.post('/devices/search', { start_ip: '127.0.0.9', end_ip: '127.0.0.1', request_id: 'r1' });
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().details[0].field).toBe('end_ip');
    const huge = await admin.post('/devices/search', { start_ip: '10.0.0.0', end_ip: '10.0.255.255', request_id: 'r2' });
    expect(huge.json().details[0]).toMatchObject({ field: 'end_ip', params: { max: 1024 } });
    expect((await admin.post('/devices/search', { start_ip: '1.2.3', end_ip: '1.2.3.4', request_id: 'r3' })).statusCode).toBe(400);
    const viewer = await memberWith(['can_view_all_devices']);
    expect((await viewer.post('/devices/search', { start_ip: '127.0.0.1', end_ip: '127.0.0.1', request_id: 'r4' })).statusCode).toBe(403);
  });
});

describe('device backup import', () => {
  it('restores settings from a (gzipped) image and queues their apply; a bad file is an invalid backup image', async () => {
    const d = await makeDevice();
    const image = {
      format: 'atrium-device-backup',
      version: 1,
      serial_number: d.serial_number,
      device_settings: { sip: { talk_timeout: 33 } },
    };
    const send = (name: string, data: Buffer, api = admin) =>
      t.app.inject({ method: 'POST', url: '/api/v0/devices/backup/import', ...withAuth(api, multipart(name, data)) });
    const ok = await send('backup.json.gz', gzipSync(JSON.stringify(image)));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toMatchObject({ type: 'apply_settings', device_id: d.id });
    expect((await admin.get(`/devices/${d.id}`)).json().data.device_settings.sip.talk_timeout).toBe(33);
    for (const bad of [
      Buffer.from('not a backup'),
      Buffer.from(JSON.stringify({ ...image, format: 'other' })),
      Buffer.from([0x1f, 0x8b, 1, 2]),
    ]) {
      const res = await send('bad.bin', bad);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ message: 'invalid backup image', code: 'invalid_backup_image' });
    }
    expect((await admin.post('/devices/backup/import', {})).json().message).toBe('wrong file body');
    const viewer = await memberWith(['can_view_all_devices', 'can_edit_devices']);
    const denied = await send('backup.json', Buffer.from(JSON.stringify(image)), viewer);
    expect(denied.json()).toMatchObject({ message: 'action prohibited', details: [{ permission: 'can_import_device_backup' }] });
  });
});

describe('a group holding devices', () => {
  it('is not deleted until its devices are moved', async () => {
    const g = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const below = await makeGroup(t.database.db, t.project.projectId, g);
    const d = await makeDevice({ domain_id: below });
    const refused = await admin.delete(`/domains/${g}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      message: 'devices must first be moved before deleting a group',
      details: [{ id: g, devices_count: 1 }],
    });
    await admin.patch(`/devices/${d.id}`, { domain_id: t.project.rootGroupId });
    expect((await admin.delete(`/domains/${g}`)).statusCode).toBe(200);
  });
});
