// Face ID for guests (spec entities §8, licence `face_id.is_enabled_for_guests`): with the licence, a
// door whose model and settings recognise faces, and a guest with a photo, the guest's open makes the
// door wait for the guest's face; the page answers once the door did (or did not) open. Without the
// licence the door opens as before, at once and with no face asked for.
import { randomUUID } from 'node:crypto';
import { fullLicenseInfo } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { installLicense, removeLicenses } from '../../../test/licenses.js';
import { queryRows } from '../../core/db/client.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let devices: DeviceHarness;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  devices = await deviceHarness(t);
});
afterAll(async () => {
  await devices.close();
  await t.close();
});

const ok = <T>(res: { statusCode: number; body: string; json(): { data: T } }): T => {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

async function setFaceLicense(on: boolean) {
  await removeLicenses(t);
  await installLicense(t, { ...fullLicenseInfo(), face_id: { is_enabled_for_guests: on } });
}

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const photoForm = () => {
  const boundary = '----atrium-guest-photo';
  return {
    payload: Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="guest.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
};

const openTasks = (deviceId: number) =>
  queryRows<{ state: string; error: string | null; payload: { lock: number; face?: { identifier_id: number; photo_url: string } } }>(
    t.database.db,
    sql`SELECT state, error, payload FROM device_tasks WHERE device_id = ${deviceId} AND type = 'open_lock' ORDER BY id`,
  );

/** A face-recognising panel (AP-300F, face recognition on), a rule for guests on its lock 1, a resident who may grant guests. */
async function setup() {
  const serial = `FACE-${randomUUID().slice(0, 8).toUpperCase()}`;
  const door = await devices.device({ serial, model: 'AP-300F' });
  ok(await admin.patch(`/devices/${door.id}`, { device_settings: { face_recognition: { enabled: true } } }));
  const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
  const rule = ok<{ id: number }>(
    await admin.put('/access-rules', {
      name: `Guests ${serial}`,
      available_for_guest: true,
      devices: [{ id: door.id, lock_number: 1 }],
      domains: [building],
    }),
  );
  const resident = await makeUser(t.database.db, {
    projectId: t.project.projectId,
    roleId: await makeRole(t.database.db, t.project.projectId, ['can_create_guest_identifiers']),
    groupIds: [building],
  });
  const res = client(t.app, await login(t.app, resident.login, resident.password));
  const now = Date.now();
  const grant = ok<{ identifier: { id: number }; key: string }>(
    await res.put('/guest-access', {
      access_rules: [rule.id],
      valid_from: new Date(now - 60_000).toISOString(),
      valid_to: new Date(now + 86_400_000).toISOString(),
      restrict_pass_count: true,
      pass_limit: 2,
    }),
  );
  await devices.synced(door.id);
  const anon = client(t.app);
  const info = ok<{ doors: { token: string }[]; passes_left: number }>(await anon.get(`/guest-access/key/${grant.key}`));
  const open = () => anon.post(`/guest-access/key/${grant.key}/open`, { token: info.doors[0]!.token });
  const passesLeft = async () => ok<{ passes_left: number }>(await anon.get(`/guest-access/key/${grant.key}`)).passes_left;
  return { door, res, grant, open, passesLeft };
}

describe('face ID for guests', () => {
  it('with the licence, a face-recognising door opens for the guest only when it sees their face', async () => {
    await setFaceLicense(true);
    const { door, res, grant, open, passesLeft } = await setup();

    // The grantor attaches the guest's photo (no identifier permissions needed); someone else may not.
    const form = photoForm();
    const withPhoto = ok<{ photo_url: string }>(
      await res.raw('POST', `/guest-access/${grant.identifier.id}/photo`, form.payload, form.headers),
    );
    expect(withPhoto.photo_url).toMatch(/^\/api\/v0\/files\/identifiers\//);
    const stranger = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, ['can_create_guest_identifiers']),
      groupIds: [t.project.rootGroupId],
    });
    const other = client(t.app, await login(t.app, stranger.login, stranger.password));
    expect((await other.raw('POST', `/guest-access/${grant.identifier.id}/photo`, form.payload, form.headers)).statusCode).toBe(404);

    // Nobody in front of the camera: the door stays shut, the page says so, the pass is not counted.
    const refused = await open();
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'guest_face_not_recognized', message: 'face not recognized' });
    expect(await passesLeft()).toBe(2);
    expect(door.sim.opened.filter((o) => o.by === 'task')).toEqual([]);
    const [first] = await openTasks(door.id);
    expect(first).toMatchObject({
      state: 'error',
      error: 'face_not_recognized',
      payload: { lock: 1, face: { identifier_id: grant.identifier.id } },
    });
    expect(first!.payload.face!.photo_url).toMatch(/^https?:\/\/.+\/api\/v0\/files\/identifiers\//);
    expect(first!.payload.face!.photo_url.endsWith(withPhoto.photo_url)).toBe(true);

    // Someone else's face is not the guest's.
    door.sim.showFace(grant.identifier.id + 1000);
    expect((await open()).statusCode).toBe(403);
    expect(await passesLeft()).toBe(2);

    // The guest looks into the camera: it opens, and the pass is counted.
    door.sim.showFace(grant.identifier.id);
    expect(ok(await open())).toEqual({ opened: true, passes_left: 1 });
    expect(door.sim.opened.filter((o) => o.by === 'task').map((o) => o.lock)).toEqual([1]);
    expect(await passesLeft()).toBe(1);

    // A door that fails otherwise: "device problem", and the pass is given back.
    door.sim.failureRate = 1;
    const broken = await open();
    expect(broken.statusCode).toBe(503);
    expect(broken.json().message).toBe('device problem');
    expect(await passesLeft()).toBe(1);
    door.sim.failureRate = 0;

    // The last pass: opened, then the limit.
    expect(ok(await open())).toEqual({ opened: true, passes_left: 0 });
    expect((await open()).json().message).toBe('pass limit reached');
    door.sim.showFace(null);
  });

  it('without the licence, or without a photo, the door opens at once with no face asked for', async () => {
    await setFaceLicense(false);
    const { door, res, grant, open, passesLeft } = await setup();
    const form = photoForm();
    ok(await res.raw('POST', `/guest-access/${grant.identifier.id}/photo`, form.payload, form.headers));
    expect(ok(await open())).toEqual({ opened: true, passes_left: 1 });
    await expect.poll(() => door.sim.opened.filter((o) => o.by === 'task').length).toBe(1);
    expect((await openTasks(door.id)).map((x) => x.payload)).toEqual([{ lock: 1 }]);
    expect(await passesLeft()).toBe(1);

    // Licensed, but the guest has no photo: as before too.
    await setFaceLicense(true);
    const second = await setup();
    expect(ok(await second.open())).toEqual({ opened: true, passes_left: 1 });
    await expect.poll(() => second.door.sim.opened.filter((o) => o.by === 'task').length).toBe(1);
    expect((await openTasks(second.door.id)).map((x) => x.payload)).toEqual([{ lock: 1 }]);
  });

  it('a task awaited in vain: stopped when no device took it, left running (timeout) when one did', async () => {
    const svc = t.app.services.devices;
    const queue = (deviceId: number) =>
      t.database.db.transaction(async (tx) => svc.queueOneInTx(tx, { deviceId, type: 'open_lock', payload: { lock: 1 } }, null));
    // A slow door: started, not done in time.
    const slow = await devices.device({ serial: `SLOW-${randomUUID().slice(0, 8).toUpperCase()}`, model: 'AP-300F' });
    slow.sim.taskDelayMs = 1500;
    const busy = (await queue(slow.id))!;
    await svc.dispatch();
    expect(await svc.awaitTask(busy, { timeoutMs: 400, pollMs: 50 })).toEqual({ state: 'timeout', error: null });
    expect(await svc.awaitTask(busy, { timeoutMs: 5000 })).toEqual({ state: 'completed', error: null });
    // A door gone away: its task waits, and is stopped so that it never opens later.
    const away = await devices.device({ serial: `AWAY-${randomUUID().slice(0, 8).toUpperCase()}`, model: 'AP-300F' });
    await away.sim.stop();
    await expect.poll(async () => (await admin.get(`/devices/${away.id}`)).json().data.online, { timeout: 10_000 }).toBe(false);
    const later = (await queue(away.id))!;
    await svc.dispatch();
    expect(await svc.awaitTask(later, { timeoutMs: 300, pollMs: 50 })).toEqual({ state: 'stopped', error: 'timeout' });
    expect((await openTasks(away.id)).map((x) => x.state)).toEqual(['stopped']);
  });
});
