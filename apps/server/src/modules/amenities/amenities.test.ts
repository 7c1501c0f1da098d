// Amenities and reservations through the API (spec comms §3–§8): every rule of §5 and message of §8,
// the scopes of the three permission families, the race for the last place, statuses moved by time,
// and the reservation's QR opening the amenity's door in the simulator during its slot only.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let devices: DeviceHarness;
let door: Awaited<ReturnType<DeviceHarness['device']>>;
let gymRule: number;
let building: number;
let flat: number;
/** A resident of a flat of the building, for whom the administrator books. */
let holder: number;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  devices = await deviceHarness(t);
  building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
  flat = await makeGroup(t.database.db, t.project.projectId, building);
  holder = (await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [flat] })).id;
});
afterAll(async () => {
  await devices.close();
  await t.close();
});

/** The gym's door (a QR-reading panel online in the simulator) and its rule, made in the first test that needs them. */
let doorReady: Promise<void> | null = null;
const withDoor = () =>
  (doorReady ??= (async () => {
    door = await devices.device({ serial: `GYM-${randomUUID().slice(0, 6)}`.toUpperCase(), model: 'AP-200' });
    gymRule = ok<{ id: number }>(await admin.put('/access-rules', { name: 'Gym door', devices: [{ id: door.id, lock_number: 1 }] })).id;
  })());

const ok = <T>(res: { statusCode: number; body: string; json(): { data: T } }): T => {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const DAY = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const tomorrow = () => dateOf(Date.now() + DAY);
const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const wholeWeek = { duration: 3600, items: [{ days: ALL_DAYS, from: 0, to: 86_400 }] };

async function amenity(extra: Record<string, unknown> = {}) {
  await withDoor();
  return ok<{ id: number; number_of_persons: { min: number; max: number } }>(
    await admin.put('/amenities', {
      name: `Gym ${randomUUID().slice(0, 4)}`,
      domains: [building],
      access_rules: [gymRule],
      number_of_persons: { min: 1, max: 3 },
      time_slots: wholeWeek,
      ...extra,
    }),
  );
}

async function resident(permissions = ['can_create_amenity_reservations'], groupIds = [flat]) {
  const u = await makeUser(t.database.db, {
    projectId: t.project.projectId,
    roleId: await makeRole(t.database.db, t.project.projectId, permissions),
    groupIds,
  });
  return { ...u, api: client(t.app, await login(t.app, u.login, u.password)) };
}

const book = (api: typeof admin, body: Record<string, unknown>) =>
  api.put('/amenities/reservations', { number_of_persons: 1, user_offset: 0, ...(api === admin ? { user_id: holder } : {}), ...body });

describe('amenities', () => {
  it('take groups, access rules and slots, with the defaults of the spec, and refuse every rule of §5 with its field', async () => {
    await withDoor();
    const made = ok<{
      number_of_persons: unknown;
      time_slots: { duration: number; items: { days: string[] }[] };
      files: unknown;
      live_reservations: number;
      created_by_user: { id: number } | null;
    }>(
      await admin.put('/amenities', {
        name: 'Laundry',
        domains: [building],
        access_rules: [gymRule],
        time_slots: { items: [{ days: ['sun', 'mon'], from: 32_400, to: 64_800 }] },
      }),
    );
    expect(made).toMatchObject({
      number_of_persons: { min: 1, max: 500 },
      time_slots: { duration: 3600, items: [{ days: ['mon', 'sun'], from: 32_400, to: 64_800 }] },
      files: { image: null, terms_of_use: null },
      live_reservations: 0,
      created_by_user: { id: t.project.adminId },
    });

    const bad = async (body: Record<string, unknown>) => {
      const res = await admin.put('/amenities', {
        name: 'X',
        domains: [building],
        access_rules: [gymRule],
        time_slots: wholeWeek,
        ...body,
      });
      expect(res.statusCode, res.body).toBe(400);
      return res.json().details as { field: string; message: string }[];
    };
    // Must have a group, an access rule and a time slot.
    expect((await bad({ domains: [] }))[0]?.field).toBe('domains');
    expect((await bad({ access_rules: [] }))[0]?.field).toBe('access_rules');
    expect((await bad({ time_slots: { duration: 3600, items: [] } }))[0]?.field).toBe('time_slots.items');
    // From below to; a multiple of the duration; at least one day; no two slots intersecting.
    expect(await bad({ time_slots: { duration: 3600, items: [{ days: ['mon'], from: 7200, to: 3600 }] } })).toContainEqual(
      expect.objectContaining({ field: 'time_slots.items.0.to', message: 'validation.amenity_slot_order' }),
    );
    expect(await bad({ time_slots: { duration: 3600, items: [{ days: ['mon'], from: 0, to: 5400 }] } })).toContainEqual(
      expect.objectContaining({ field: 'time_slots.items.0.to', message: 'validation.amenity_slot_multiple' }),
    );
    expect(await bad({ time_slots: { duration: 3600, items: [{ days: [], from: 0, to: 3600 }] } })).toContainEqual(
      expect.objectContaining({ field: 'time_slots.items.0.days', message: 'validation.at_least_one_day' }),
    );
    expect(
      await bad({
        time_slots: {
          duration: 1800,
          items: [
            { days: ['mon', 'tue'], from: 3600, to: 7200 },
            { days: ['tue'], from: 5400, to: 9000 },
          ],
        },
      }),
    ).toContainEqual(expect.objectContaining({ field: 'time_slots.items.1.from', message: 'validation.amenity_slots_intersect' }));
    // The same hours on other days do not intersect.
    ok(
      await admin.put('/amenities', {
        name: 'Sauna',
        domains: [building],
        access_rules: [gymRule],
        time_slots: {
          items: [
            { days: ['mon'], from: 3600, to: 7200 },
            { days: ['tue'], from: 3600, to: 7200 },
          ],
        },
      }),
    );
    expect((await bad({ number_of_persons: { min: 5, max: 2 } }))[0]?.field).toBe('number_of_persons.max');
    expect((await bad({ number_of_persons: { min: 0, max: 2 } }))[0]?.field).toBe('number_of_persons.min');
    expect((await bad({ time_slots: { duration: 3600, items: [{ days: ['mon'], from: 0, to: 90_000 }] } }))[0]?.field).toBe(
      'time_slots.items.0.to',
    );

    // An access rule whose doors cannot read a QR code.
    const monitor = ok<{ id: number }>(
      await admin.put('/devices', {
        name: 'Lobby monitor',
        type: 'monitor',
        model: 'AM-10',
        serial_number: `M${randomUUID().slice(0, 8)}`,
        domain_id: building,
      }),
    );
    const monitorRule = ok<{ id: number }>(
      await admin.put('/access-rules', { name: 'Monitor lock', devices: [{ id: monitor.id, lock_number: 1 }] }),
    );
    const noQr = await admin.put('/amenities', {
      name: 'Pool',
      domains: [building],
      access_rules: [monitorRule.id],
      time_slots: wholeWeek,
    });
    expect(noQr.statusCode).toBe(400);
    expect(noQr.json()).toMatchObject({ code: 'amenity_rule_without_qr', message: 'the access rule has devices without qr support' });
    expect(noQr.json().details[0].devices).toEqual([{ rule_id: monitorRule.id, device_id: monitor.id, name: 'Lobby monitor' }]);
  });

  it('answer the free places of each slot of a date, past slots marked', async () => {
    const a = await amenity();
    const date = tomorrow();
    const r = ok<{ id: number }>(
      await book(admin, { amenity_id: a.id, date, number_of_persons: 2, time_slots: [{ from: 36_000, to: 39_600 }] }),
    );
    const state = ok<{ day: string; slots: { from: number; reserved: number; free_places: number; is_past: boolean }[] }>(
      await admin.get(`/amenities/${a.id}/state/${date}?user_offset=0`),
    );
    expect(state.slots).toHaveLength(24);
    expect(state.slots.find((s) => s.from === 36_000)).toEqual({ from: 36_000, to: 39_600, reserved: 2, free_places: 1, is_past: false });
    expect(state.slots.find((s) => s.from === 39_600)).toMatchObject({ reserved: 0, free_places: 3 });
    // Editing a reservation: its own persons do not count against it.
    expect(
      ok<{ slots: { from: number; free_places: number }[] }>(await admin.get(`/amenities/${a.id}/state/${date}?except=${r.id}`)).slots.find(
        (s) => s.from === 36_000,
      )?.free_places,
    ).toBe(3);
    // Today (UTC, no offset): the slots begun by now are past, the others not, whatever the hour the test runs at.
    const before = Date.now();
    const today = ok<{ slots: { from: number; is_past: boolean }[] }>(await admin.get(`/amenities/${a.id}/state/${dateOf(before)}`));
    const after = Date.now();
    const midnight = Date.parse(`${dateOf(before)}T00:00:00Z`);
    expect(today.slots[0]?.is_past).toBe(true);
    for (const slot of today.slots) {
      const start = midnight + slot.from * 1000;
      if (start <= before) expect(slot.is_past).toBe(true);
      else if (start > after) expect(slot.is_past).toBe(false);
    }
    expect((await admin.get(`/amenities/${a.id}/state/2026-02-30`)).statusCode).toBe(400);
    expect((await admin.get(`/amenities/${a.id}/state/${date}?user_offset=900`)).statusCode).toBe(400);
  });

  it('keep their image (an image) and terms of use (a PDF); removing a missing file is "amenity file not found"', async () => {
    const a = await amenity();
    const token = await login(t.app, t.adminLogin, t.adminPassword);
    const post = (kind: string, data: Buffer, field = 'file') => {
      const boundary = `----b${randomUUID()}`;
      return t.app.inject({
        method: 'POST',
        url: `/api/v0/amenities/${a.id}/${kind}`,
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
          data,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` },
      });
    };
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const withImage = ok<{ files: { image: string | null } }>(await post('image', png));
    expect(withImage.files.image).toMatch(/^\/api\/v0\/files\/amenities\/[0-9a-f-]{36}\.png$/);
    expect((await t.app.inject({ method: 'GET', url: withImage.files.image! })).statusCode).toBe(200);
    expect((await post('image', Buffer.from('not an image'))).json()).toMatchObject({ code: 'invalid_file' });
    expect((await post('terms-of-use', png)).json()).toMatchObject({ code: 'invalid_file' });
    const withTerms = ok<{ files: { terms_of_use: string | null } }>(await post('terms-of-use', Buffer.from('%PDF-1.4\n%EOF')));
    expect(withTerms.files.terms_of_use).toMatch(/\.pdf$/);
    expect((await post('image', Buffer.alloc(5 * 1024 * 1024 + 10, 0x89))).statusCode).toBe(413);
    expect((await post('image', png, 'other')).json()).toMatchObject({ code: 'wrong_file_body' });
    expect(ok<{ files: { image: string | null } }>(await admin.delete(`/amenities/${a.id}/image`)).files.image).toBeNull();
    const again = await admin.delete(`/amenities/${a.id}/image`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ code: 'amenity_file_not_found', message: 'amenity file not found' });
  });
});

describe('reservations', () => {
  it('refuse every amenity error of §8 with its message', async () => {
    const a = await amenity();
    const date = tomorrow();
    const expectError = async (res: { statusCode: number; json(): { code: string; message: string } }, code: string, message: string) => {
      expect(res.json()).toMatchObject({ code, message });
    };
    // Must have a time slot.
    const none = await book(admin, { amenity_id: a.id, date, time_slots: [] });
    expect(none.statusCode).toBe(400);
    expect(none.json().details[0].field).toBe('time_slots');
    await expectError(
      await book(admin, { amenity_id: a.id, date: dateOf(Date.now() - 2 * DAY), time_slots: [{ from: 36_000, to: 39_600 }] }),
      'amenity_date_not_in_future',
      'the reservation date must be in the future',
    );
    await expectError(
      await book(admin, {
        amenity_id: a.id,
        date,
        time_slots: [
          { from: 36_000, to: 39_600 },
          { from: 43_200, to: 46_800 },
        ],
      }),
      'amenity_inconsistent_slots',
      'inconsistent time slots',
    );
    await expectError(
      await book(admin, { amenity_id: a.id, date, time_slots: [{ from: 36_000, to: 37_800 }] }),
      'amenity_slot_mismatch',
      'the time slot does not match the amenity time slots',
    );
    const hour = Math.floor((Date.now() % DAY) / 3_600_000) * 3600;
    await expectError(
      await book(admin, { amenity_id: a.id, date: dateOf(Date.now()), time_slots: [{ from: hour, to: hour + 3600 }] }),
      'amenity_slot_not_in_future',
      'the time slot is not in the future',
    );
    await expectError(
      await book(admin, { amenity_id: a.id, date, number_of_persons: 4, time_slots: [{ from: 36_000, to: 39_600 }] }),
      'amenity_person_limits',
      'the number of persons is out of the amenity limits',
    );
    const picky = await amenity({ number_of_persons: { min: 2, max: 3 } });
    await expectError(
      await book(admin, { amenity_id: picky.id, date, number_of_persons: 1, time_slots: [{ from: 36_000, to: 39_600 }] }),
      'amenity_person_limits',
      'the number of persons is out of the amenity limits',
    );
    await expectError(
      await book(admin, { amenity_id: 999_999, date, time_slots: [{ from: 36_000, to: 39_600 }] }),
      'amenity_not_found',
      'amenity not found',
    );
    // Two consecutive slots are one reservation; the places they take are gone for others.
    ok(
      await book(admin, {
        amenity_id: a.id,
        date,
        number_of_persons: 3,
        time_slots: [
          { from: 39_600, to: 43_200 },
          { from: 36_000, to: 39_600 },
        ],
      }),
    );
    await expectError(
      await book(admin, { amenity_id: a.id, date, time_slots: [{ from: 39_600, to: 43_200 }] }),
      'amenity_no_free_places',
      'no free places',
    );
    // Not for a user outside the amenity's groups.
    const elsewhere = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const outsider = await resident(['can_create_amenity_reservations'], [elsewhere]);
    await expectError(
      await book(admin, { amenity_id: a.id, user_id: outsider.id, date, time_slots: [{ from: 50_400, to: 54_000 }] }),
      'amenity_not_allowed_for_user',
      'the amenity is not allowed for the user',
    );
    // A door of the amenity's rule that cannot read the QR (added after the amenity was made).
    const monitor = ok<{ id: number }>(
      await admin.put('/devices', {
        name: 'Gym monitor',
        type: 'monitor',
        model: 'AM-10',
        serial_number: `M${randomUUID().slice(0, 8)}`,
        domain_id: building,
      }),
    );
    const rule = ok<{ id: number }>(await admin.put('/access-rules', { name: 'Spa', devices: [{ id: door.id, lock_number: 2 }] }));
    const spa = await amenity({ access_rules: [rule.id] });
    ok(
      await admin.patch(`/access-rules/${rule.id}`, {
        devices: [
          { id: door.id, lock_number: 2 },
          { id: monitor.id, lock_number: 1 },
        ],
      }),
    );
    await expectError(
      await book(admin, { amenity_id: spa.id, date, time_slots: [{ from: 36_000, to: 39_600 }] }),
      'amenity_devices_without_qr',
      'the amenity has unsupported devices without qr',
    );
  });

  it('are edited and cancelled only in statuses that allow it; an amenity with live reservations cannot be deleted or have its slots changed', async () => {
    const a = await amenity();
    const date = tomorrow();
    const r = ok<{
      id: number;
      status: string;
      identifier: { id: number; type: string; value: string };
      can_edit: boolean;
      can_cancel: boolean;
    }>(await book(admin, { amenity_id: a.id, date, number_of_persons: 2, time_slots: [{ from: 36_000, to: 39_600 }] }));
    expect(r).toMatchObject({ status: 'reserved', identifier: { type: 'qr' }, can_edit: true, can_cancel: true });
    // Moved to a later slot (the client's clock 3 hours east of UTC): the QR's validity follows.
    const moved = ok<{ time_slots: unknown; starts_at: string; ends_at: string; user_offset: number }>(
      await admin.patch(`/amenities/reservations/${r.id}`, { time_slots: [{ from: 43_200, to: 46_800 }], user_offset: 180 }),
    );
    expect(moved).toMatchObject({
      time_slots: [{ from: 43_200, to: 46_800 }],
      user_offset: 180,
      starts_at: `${date}T09:00:00.000Z`,
      ends_at: `${date}T10:00:00.000Z`,
    });
    const [qr] = await queryRows<{ period_restrict_from: Date; period_restrict_to: Date }>(
      t.database.db,
      sql`SELECT period_restrict_from, period_restrict_to FROM identifiers WHERE id = ${r.identifier.id}`,
    );
    expect(new Date(qr!.period_restrict_from).toISOString()).toBe(`${date}T09:00:00.000Z`);

    const slotsChange = await admin.patch(`/amenities/${a.id}`, { time_slots: { duration: 1800, items: wholeWeek.items } });
    expect(slotsChange.json()).toMatchObject({
      code: 'amenity_has_reservations',
      message: 'editing and deleting are prohibited while the amenity has reservations',
    });
    // Other fields may change, and a change leaves the rest as it was.
    expect(
      ok<{ number_of_persons: unknown }>(await admin.patch(`/amenities/${a.id}`, { name: 'Gym (renovated)' })).number_of_persons,
    ).toEqual({
      min: 1,
      max: 3,
    });
    const del = await admin.delete(`/amenities/${a.id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().code).toBe('amenity_has_reservations');
    const delLive = await admin.delete(`/amenities/reservations/${r.id}`);
    expect(delLive.json()).toMatchObject({ code: 'reservation_live', message: 'editing and deleting are prohibited' });

    const canceled = ok<{ status: string; can_edit: boolean; can_cancel: boolean }>(
      await admin.post(`/amenities/reservations/${r.id}/cancel`),
    );
    expect(canceled).toMatchObject({ status: 'canceled', can_edit: false, can_cancel: false });
    const [revoked] = await queryRows<{ revoked_at: Date | null }>(
      t.database.db,
      sql`SELECT revoked_at FROM identifiers WHERE id = ${r.identifier.id}`,
    );
    expect(revoked?.revoked_at).not.toBeNull();
    expect((await admin.post(`/amenities/reservations/${r.id}/cancel`)).json()).toMatchObject({
      code: 'reservation_not_cancelable',
      message: 'the reservation status is not cancelable',
    });
    expect((await admin.patch(`/amenities/reservations/${r.id}`, { number_of_persons: 1, user_offset: 0 })).json()).toMatchObject({
      code: 'reservation_not_editable',
      message: 'the reservation status is not editable',
    });
    // Its places are free again, and the amenity can now go.
    expect(
      ok<{ slots: { from: number; free_places: number }[] }>(await admin.get(`/amenities/${a.id}/state/${date}`)).slots.find(
        (s) => s.from === 43_200,
      )?.free_places,
    ).toBe(3);
    ok(await admin.delete(`/amenities/reservations/${r.id}`));
    ok(await admin.delete(`/amenities/${a.id}`));
  });

  it('keep a log of what happened, in the reader’s language', async () => {
    const a = await amenity();
    const r = ok<{ id: number }>(await book(admin, { amenity_id: a.id, date: tomorrow(), time_slots: [{ from: 36_000, to: 39_600 }] }));
    ok(await admin.patch(`/amenities/reservations/${r.id}`, { number_of_persons: 2, user_offset: 0 }));
    ok(await admin.post(`/amenities/reservations/${r.id}/cancel`));
    const logs = (await admin.get(`/amenities/reservations/${r.id}/logs`)).json();
    expect(logs.meta.total).toBe(3);
    expect(logs.data.map((l: { event: string }) => l.event)).toEqual(['canceled', 'updated', 'created']);
    expect(logs.data[2].translated_info).toMatch(/^Reserved for \d{4}-\d{2}-\d{2}, 10:00–11:00, persons: 1$/);
    await t.database.db.execute(sql`UPDATE users SET locale = 'ru' WHERE id = ${t.project.adminId}`);
    const ru = (await admin.get(`/amenities/reservations/${r.id}/logs`)).json();
    expect(ru.data[0].translated_info).toBe('Бронирование отменено, QR-код отозван');
    await t.database.db.execute(sql`UPDATE users SET locale = 'en' WHERE id = ${t.project.adminId}`);
  });

  it('give bookings racing for the last place one success', async () => {
    const a = await amenity({ number_of_persons: { min: 1, max: 1 } });
    const date = tomorrow();
    const slot = [{ from: 64_800, to: 68_400 }];
    const answers = await Promise.all(Array.from({ length: 6 }, () => book(admin, { amenity_id: a.id, date, time_slots: slot })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(answers.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'amenity_no_free_places')).toBe(true);
    const [n] = await queryRows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM amenity_reservations WHERE amenity_id = ${a.id}`,
    );
    expect(n?.n).toBe(1);
  });

  it('move by time: reserved, active at the start, expired at the end; inactive while their QR is switched off', async () => {
    const a = await amenity();
    const date = tomorrow();
    const r = ok<{ id: number; identifier: { id: number } }>(
      await book(admin, { amenity_id: a.id, date, time_slots: [{ from: 64_800, to: 68_400 }] }),
    );
    const other = ok<{ id: number; identifier: { id: number } }>(
      await book(admin, { amenity_id: a.id, date, time_slots: [{ from: 72_000, to: 75_600 }] }),
    );
    const status = async (id: number) => ok<{ status: string }>(await admin.get(`/amenities/reservations/${id}`)).status;
    const sweep = (at: string) => t.app.services.reservations.tick(new Date(at));
    await sweep(`${date}T17:59:59Z`);
    expect(await status(r.id)).toBe('reserved');
    await sweep(`${date}T18:00:00Z`);
    expect(await status(r.id)).toBe('active');
    // An active reservation can be neither edited nor deleted, but the operator could still cancel it.
    expect((await admin.patch(`/amenities/reservations/${r.id}`, { number_of_persons: 2, user_offset: 0 })).json().code).toBe(
      'reservation_not_editable',
    );
    await sweep(`${date}T19:00:00Z`);
    expect(await status(r.id)).toBe('expired');
    expect((await admin.post(`/amenities/reservations/${r.id}/cancel`)).json().code).toBe('reservation_not_cancelable');
    const logs = ok<{ event: string; info: { from: string; to: string } }[]>(await admin.get(`/amenities/reservations/${r.id}/logs`));
    expect(logs.filter((l) => l.event === 'status_changed').map((l) => l.info)).toEqual([
      { from: 'active', to: 'expired' },
      { from: 'reserved', to: 'active' },
    ]);
    // An operator switches the other one's QR off: inactive until it is on again.
    ok(await admin.patch(`/identifiers/${other.identifier.id}`, { is_active: false }));
    await sweep(`${date}T12:00:00Z`);
    expect(await status(other.id)).toBe('inactive');
    ok(await admin.patch(`/identifiers/${other.identifier.id}`, { is_active: true }));
    await sweep(`${date}T12:00:00Z`);
    expect(await status(other.id)).toBe('reserved');
    // Sweeping twice moves nothing twice.
    expect(await sweep(`${date}T12:00:00Z`)).toBe(0);
  });

  it('give a QR that opens the amenity door in the simulator during the slot only, and not once cancelled', async () => {
    const a = await amenity();
    const date = tomorrow();
    const r = ok<{ id: number; identifier: { value: string } }>(
      await book(admin, { amenity_id: a.id, date, time_slots: [{ from: 64_800, to: 68_400 }] }),
    );
    await devices.synced(door.id);
    const qr = r.identifier.value;
    expect(await door.sim.present(qr, { lock: 1, at: new Date(`${date}T18:10:00Z`) })).toMatchObject({ granted: true });
    expect(await door.sim.present(qr, { lock: 1, at: new Date(`${date}T20:10:00Z`) })).toMatchObject({ granted: false, reason: 'expired' });
    expect(await door.sim.present(qr, { lock: 1, at: new Date(`${date}T17:50:00Z`) })).toMatchObject({
      granted: false,
      reason: 'not_yet_valid',
    });
    // Only the amenity's lock.
    expect(await door.sim.present(qr, { lock: 2, at: new Date(`${date}T18:10:00Z`) })).toMatchObject({ granted: false });
    ok(await admin.post(`/amenities/reservations/${r.id}/cancel`));
    await devices.synced(door.id);
    expect(await door.sim.present(qr, { lock: 1, at: new Date(`${date}T18:10:00Z`) })).toMatchObject({ granted: false, reason: 'revoked' });
  });
});

describe('who may do what', () => {
  it('amenities: the view scopes, edit and delete scopes, create, and residents seeing what they may book', async () => {
    const otherBuilding = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const mine = await amenity();
    const theirs = await amenity({ domains: [otherBuilding] });
    const operator = await resident(['can_view_domain_amenities', 'can_edit_own_amenities'], [building]);
    const seen = ok<{ id: number }[]>(await operator.api.get('/amenities?size=1000')).map((x) => x.id);
    expect(seen).toContain(mine.id);
    expect(seen).not.toContain(theirs.id);
    expect((await operator.api.get(`/amenities/${theirs.id}`)).statusCode).toBe(404);
    expect((await operator.api.get(`/amenities/${theirs.id}/state/${tomorrow()}`)).statusCode).toBe(404);
    // Edit "own" covers only what they created; there is no create permission.
    expect((await operator.api.patch(`/amenities/${mine.id}`, { name: 'Mine now' })).statusCode).toBe(403);
    expect(
      (await operator.api.put('/amenities', { name: 'New', domains: [building], access_rules: [gymRule], time_slots: wholeWeek }))
        .statusCode,
    ).toBe(403);
    expect((await operator.api.delete(`/amenities/${mine.id}`)).statusCode).toBe(403);

    const builder = await resident(
      ['can_create_amenities', 'can_view_own_amenities', 'can_edit_own_amenities', 'can_delete_own_amenities', 'can_view_all_access_rules'],
      [building],
    );
    const made = ok<{ id: number; can_edit: boolean; can_delete: boolean }>(
      await builder.api.put('/amenities', { name: 'Roof terrace', domains: [building], access_rules: [gymRule], time_slots: wholeWeek }),
    );
    expect(made).toMatchObject({ can_edit: true, can_delete: true });
    // A group outside their branch is not theirs to give an amenity.
    expect(
      (
        await builder.api.put('/amenities', { name: 'Far', domains: [otherBuilding], access_rules: [gymRule], time_slots: wholeWeek })
      ).json().code,
    ).toBe('invalid_related_entity');
    ok(await builder.api.patch(`/amenities/${made.id}`, { name: 'Roof' }));
    expect((await builder.api.patch(`/amenities/${mine.id}`, { name: 'x' })).statusCode).toBe(404);
    ok(await builder.api.delete(`/amenities/${made.id}`));

    // A resident who may book sees the amenities of their building (not others), read-only.
    const tenant = await resident();
    const bookable = ok<{ id: number; can_edit: boolean }[]>(await tenant.api.get('/amenities?size=1000'));
    expect(bookable.map((x) => x.id)).toContain(mine.id);
    expect(bookable.map((x) => x.id)).not.toContain(theirs.id);
    expect(bookable.find((x) => x.id === mine.id)?.can_edit).toBe(false);
    expect((await tenant.api.patch(`/amenities/${mine.id}`, { name: 'x' })).statusCode).toBe(403);
    // Someone without any of it sees nothing.
    const stranger = await resident([]);
    expect(ok<unknown[]>(await stranger.api.get('/amenities'))).toEqual([]);
  });

  it('reservations and their logs: residents book for themselves, see their own; operators act within their scope', async () => {
    const a = await amenity();
    const date = tomorrow();
    const tenant = await resident();
    const neighbour = await resident();
    const mine = ok<{ id: number; user: { id: number } }>(
      await book(tenant.api, { amenity_id: a.id, date, time_slots: [{ from: 28_800, to: 32_400 }] }),
    );
    expect(mine.user.id).toBe(tenant.id);
    // Not for someone else they cannot see.
    expect(
      (await book(tenant.api, { amenity_id: a.id, user_id: neighbour.id, date, time_slots: [{ from: 28_800, to: 32_400 }] })).json().code,
    ).toBe('invalid_related_entity');
    expect((await neighbour.api.get(`/amenities/reservations/${mine.id}`)).statusCode).toBe(404);
    expect(ok<{ id: number }[]>(await neighbour.api.get('/amenities/reservations')).map((r) => r.id)).not.toContain(mine.id);
    expect(ok<{ id: number }[]>(await tenant.api.get('/amenities/reservations')).map((r) => r.id)).toEqual([mine.id]);
    // Without edit rights they cannot change or cancel even their own; logs need their own permission.
    expect((await tenant.api.post(`/amenities/reservations/${mine.id}/cancel`)).statusCode).toBe(403);
    expect((await tenant.api.get(`/amenities/reservations/${mine.id}/logs`)).statusCode).toBe(403);
    const fuller = await resident([
      'can_create_amenity_reservations',
      'can_edit_own_amenity_reservations',
      'can_view_own_amenity_reservation_logs',
    ]);
    const theirs = ok<{ id: number }>(await book(fuller.api, { amenity_id: a.id, date, time_slots: [{ from: 32_400, to: 36_000 }] }));
    ok(await fuller.api.get(`/amenities/reservations/${theirs.id}/logs`));
    expect((await fuller.api.post(`/amenities/reservations/${mine.id}/cancel`)).statusCode).toBe(404);
    ok(await fuller.api.post(`/amenities/reservations/${theirs.id}/cancel`));
    // Without the create permission: refused.
    expect(
      (await book((await resident(['can_view_all_amenities'])).api, { amenity_id: a.id, date, time_slots: [{ from: 36_000, to: 39_600 }] }))
        .statusCode,
    ).toBe(403);

    // A concierge of the building (domain scope) sees and cancels the building's reservations, not another's.
    const otherBuilding = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const far = await amenity({ domains: [otherBuilding] });
    const farUser = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [otherBuilding] });
    const farR = ok<{ id: number }>(
      await book(admin, { amenity_id: far.id, user_id: farUser.id, date, time_slots: [{ from: 36_000, to: 39_600 }] }),
    );
    const concierge = await resident(
      [
        'can_view_domain_amenity_reservations',
        'can_edit_domain_amenity_reservations',
        'can_view_domain_amenity_reservation_logs',
        'can_view_domain_amenities',
      ],
      [building],
    );
    const listed = ok<{ id: number }[]>(await concierge.api.get('/amenities/reservations?size=1000')).map((r) => r.id);
    expect(listed).toContain(mine.id);
    expect(listed).not.toContain(farR.id);
    expect((await concierge.api.get(`/amenities/reservations/${farR.id}/logs`)).statusCode).toBe(404);
    ok(await concierge.api.get(`/amenities/reservations/${mine.id}/logs`));
    ok(await concierge.api.post(`/amenities/reservations/${mine.id}/cancel`));
    expect((await concierge.api.post(`/amenities/reservations/${farR.id}/cancel`)).statusCode).toBe(404);
    // Deleting needs its own permission.
    expect((await concierge.api.delete(`/amenities/reservations/${mine.id}`)).statusCode).toBe(403);
    // Filters are whitelisted.
    expect(
      (
        await admin.get(
          `/amenities/reservations?filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'secret', operator: 'equals', value: 1 }] }))}`,
        )
      ).statusCode,
    ).toBe(400);
    const byStatus = ok<{ status: string }[]>(
      await admin.get(
        `/amenities/reservations?size=1000&filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'status', operator: 'equals', value: 'canceled' }] }))}`,
      ),
    );
    expect(byStatus.length).toBeGreaterThan(0);
    expect(byStatus.every((r) => r.status === 'canceled')).toBe(true);
  });
});
