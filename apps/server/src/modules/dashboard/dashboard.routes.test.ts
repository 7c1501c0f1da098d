import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());

const db = () => t.app.database.db;

describe('GET /dashboard', () => {
  it('counts what the administrator sees and lists the latest changes of the project, newest first', async () => {
    const created = await admin.put('/roles', { name: 'Dashboard role', permissions: [] });
    expect(created.statusCode, created.body).toBe(200);
    const res = await admin.get('/dashboard');
    expect(res.statusCode, res.body).toBe(200);
    const { counts, recent_changes } = res.json().data;
    expect(counts).toEqual({
      users: (await admin.get('/users')).json().meta.total,
      groups: (await admin.get('/domains')).json().meta.total,
      roles: (await admin.get('/roles')).json().meta.total,
    });
    expect(recent_changes[0]).toMatchObject({
      entity: 'role',
      action: 'create',
      entity_id: String(created.json().data.id),
      user_name: 'Admin',
    });
  });

  it('a group-scoped user counts only what is in their groups, sees only their own changes, and null for what they may not list', async () => {
    const branch = await makeGroup(db(), t.project.projectId, t.project.rootGroupId);
    await makeUser(db(), { projectId: t.project.projectId, groupIds: [branch] });
    await makeUser(db(), { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    const roleId = await makeRole(db(), t.project.projectId, ['can_view_users', 'can_edit_own_profile']);
    const me = await makeUser(db(), { projectId: t.project.projectId, roleId, groupIds: [branch] });
    const api = client(t.app, await login(t.app, me.login, me.password));
    await api.patch('/profile', { name: 'Scoped Person' });

    const res = await api.get('/dashboard');
    expect(res.statusCode, res.body).toBe(200);
    const { counts, recent_changes } = res.json().data;
    expect(counts.users).toBe((await api.get('/users')).json().meta.total);
    expect(counts.users).toBeLessThan((await admin.get('/users')).json().meta.total);
    expect(counts.roles).toBeNull();
    // No device view permission: no devices widget.
    expect(res.json().data.devices).toBeNull();
    expect(recent_changes.length).toBeGreaterThan(0);
    for (const c of recent_changes) expect(c.user_id).toBe(me.id);
  });

  it('counts the devices the caller sees and those online now', async () => {
    const serial = `DASH${Date.now()}`;
    const created = await admin.put('/devices', {
      name: 'Dash panel',
      model: 'AP-100',
      serial_number: serial,
      domain_id: t.project.rootGroupId,
    });
    expect(created.statusCode, created.body).toBe(200);
    await t.app.services.devices.onPresence(serial, { online: true, model: 'AP-100' });
    const { devices } = (await admin.get('/dashboard')).json().data;
    expect(devices.total).toBe((await admin.get('/devices')).json().meta.total);
    expect(devices.online).toBe(1);
  });

  it('is refused without a sign-in', async () => {
    expect((await client(t.app).get('/dashboard')).statusCode).toBe(401);
  });
});
