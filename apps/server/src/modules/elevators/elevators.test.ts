// Elevators end to end: a lift controller (the simulator, on the embedded broker) with its floor map,
// the spec's rules, a call to a floor, and an elevator access rule that lets a resident's card reach
// floor 5 only, as the controller decides it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';

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

const liftController = (serial: string) => devices.device({ serial, type: 'liftcontroller', model: 'LC-16' });
const synced = (deviceId: number) => devices.synced(deviceId);

const floors = [
  { floor: 1, name: 'Lobby', is_panel_floor: true, ports: [1] },
  { floor: 2, is_public: true, ports: [2] },
  { floor: 5, apartments: ['51', '52'], ports: [5] },
  { floor: 7, apartments: ['71'], ports: [7] },
];

describe('elevators', () => {
  it('keep the spec’s rules for controllers and floors', async () => {
    const lc = await liftController('LIFT-RULES');
    const put = (body: Record<string, unknown>) => admin.put('/elevators', { name: 'Lift A', domain_id: t.project.rootGroupId, ...body });
    expect((await put({ controllers: [] })).json().details[0].field).toBe('controllers');
    expect((await put({ controllers: [{ device_id: lc.id, floor_map: [] }] })).json().details[0].field).toBe('controllers.0.floor_map');
    const both = await put({
      controllers: [{ device_id: lc.id, floor_map: [{ floor: 1, is_public: true, is_panel_floor: true, ports: [1] }] }],
    });
    expect(both.json().details[0]).toMatchObject({ field: 'controllers.0.floor_map.0.is_panel_floor' });
    const flats = await put({
      controllers: [{ device_id: lc.id, floor_map: [{ floor: 1, is_panel_floor: true, apartments: ['11'], ports: [1] }] }],
    });
    expect(flats.json().details[0]).toMatchObject({ field: 'controllers.0.floor_map.0.apartments' });
    const relay = await put({ controllers: [{ device_id: lc.id, floor_map: [{ floor: 1, ports: [17] }] }] });
    expect(relay.json().details[0]).toMatchObject({ field: 'controllers.0.floor_map.0.ports', params: { max: 16 } });
    const panel = (
      await admin.put('/devices', { name: 'Panel', model: 'AP-100', serial_number: 'LIFT-NOT', domain_id: t.project.rootGroupId })
    ).json().data;
    expect((await put({ controllers: [{ device_id: panel.id, floor_map: floors }] })).json().code).toBe('invalid_related_entity');
    const ok = await put({ controllers: [{ device_id: lc.id, floor_map: floors }] });
    expect(ok.statusCode, ok.body).toBe(200);
    const again = await put({ name: 'Lift B', controllers: [{ device_id: lc.id, floor_map: floors }] });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('elevator controller already linked');
    // Floors for access rules leave out the panel floor and public floors.
    expect(
      (await admin.get(`/elevators/${ok.json().data.id}/floors?mode=access`)).json().data.map((f: { floor: number }) => f.floor),
    ).toEqual([5, 7]);
  });

  it('call the lift to a floor, and let a resident’s card reach the floors of their rule only', async () => {
    const lc = await liftController('LIFT-1');
    const lift = (
      await admin.put('/elevators', {
        name: 'Lift 1',
        domain_id: t.project.rootGroupId,
        controllers: [{ device_id: lc.id, floor_map: floors }],
      })
    ).json().data as { id: number };
    const call = await admin.post(`/elevators/${lift.id}/call`, { floor: 5, apartment: '52', direction: 'up' });
    expect(call.statusCode, call.body).toBe(200);
    await expect.poll(() => lc.sim.calls).toEqual([{ floor: 5, ports: [5], direction: 'up' }]);
    expect((await admin.post(`/elevators/${lift.id}/call`, { floor: 9 })).statusCode).toBe(400);
    // The call shows in the elevator events.
    await t.app.services.devices.flushEvents();
    await expect
      .poll(async () => (await admin.get('/elevators/events')).json().data.map((e: { type: string }) => e.type))
      .toContain('floor_called');

    const resident = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [t.project.rootGroupId],
    });
    await admin.put('/identifiers', { name: 'Lift card', value: 'F10075', owner_id: resident.id });
    // At least one elevator with floors: one without floors is dropped, and then none is left.
    const none = await admin.put('/elevators/access-rules', {
      name: 'Nothing',
      users: [resident.id],
      elevators: [{ id: lift.id, floors: [] }],
    });
    expect(none.statusCode).toBe(400);
    expect(
      (await admin.put('/elevators/access-rules', { name: 'Panel floor', users: [resident.id], elevators: [{ id: lift.id, floors: [1] }] }))
        .statusCode,
    ).toBe(400);
    const rule = (
      await admin.put('/elevators/access-rules', { name: 'Floor 5', users: [resident.id], elevators: [{ id: lift.id, floors: [5] }] })
    ).json();
    expect(rule.data).toMatchObject({ users: [resident.id], elevators: [{ id: lift.id, floors: [5] }] });
    await synced(lc.id);
    expect(await lc.sim.present('F10075', { lock: 5 })).toMatchObject({ granted: true });
    expect(await lc.sim.present('F10075', { lock: 7 })).toMatchObject({ granted: false, reason: 'lock' });

    // Elevator access switched off for the resident: the card rides nowhere.
    expect((await admin.patch(`/users/${resident.id}`, { elevator_access_disabled: true })).statusCode).toBe(200);
    await synced(lc.id);
    expect(await lc.sim.present('F10075', { lock: 5 })).toMatchObject({ granted: false, reason: 'unknown' });
    expect((await admin.patch(`/users/${resident.id}`, { elevator_access_disabled: false })).statusCode).toBe(200);
    await synced(lc.id);
    // Floor 7 added; then the rule deleted: the card is gone from the controller.
    expect(
      (await admin.patch(`/elevators/access-rules/${rule.data.id}`, { elevators: [{ id: lift.id, floors: [5, 7] }] })).statusCode,
    ).toBe(200);
    await synced(lc.id);
    expect(await lc.sim.present('F10075', { lock: 7 })).toMatchObject({ granted: true });
    expect((await admin.delete(`/elevators/access-rules/${rule.data.id}`)).statusCode).toBe(200);
    await synced(lc.id);
    expect(await lc.sim.present('F10075', { lock: 5 })).toMatchObject({ granted: false, reason: 'unknown' });

    // Without the permissions: nothing.
    const nobody = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [t.project.rootGroupId],
    });
    const no = client(t.app, await login(t.app, nobody.login, nobody.password));
    expect((await no.get('/elevators')).statusCode).toBe(403);
    expect((await no.get('/elevators/events')).statusCode).toBe(403);
    expect((await no.get('/elevators/access-rules')).statusCode).toBe(403);
    expect((await no.post(`/elevators/${lift.id}/call`, { floor: 5 })).statusCode).toBe(403);
  });
});
