import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t.close());

describe('markers', () => {
  it('are made with a colour in a group, seen by that branch, and put on users by those who may apply them', async () => {
    const branch = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const other = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId);
    const m = (await admin.put('/markers', { name: 'Wheelchair', color: '#1A73E8', domain_id: branch })).json().data;
    expect(m).toMatchObject({ name: 'Wheelchair', color: '#1a73e8', domain_id: branch, users_count: 0 });
    const bad = await admin.put('/markers', { name: 'x', color: 'blue', domain_id: branch });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('color');
    const elsewhere = (await admin.put('/markers', { name: 'Board', color: '#ff0000', domain_id: other })).json().data;

    // (Acting on a user needs their role to be within one's own: this operator may act on everyone.)
    const role = await makeRole(t.database.db, t.project.projectId, [
      'can_view_markers',
      'can_apply_markers',
      'can_view_users',
      'can_edit_users',
      'can_grant_more_permissions',
    ]);
    const operator = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [branch] });
    const resident = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, []),
      groupIds: [branch],
    });
    const op = client(t.app, await login(t.app, operator.login, operator.password));
    expect((await op.get('/markers')).json().data.map((x: { id: number }) => x.id)).toEqual([m.id]);
    expect((await op.get(`/markers/${elsewhere.id}`)).statusCode).toBe(404);
    // Viewing is not changing.
    expect((await op.patch(`/markers/${m.id}`, { name: 'Renamed' })).statusCode).toBe(403);
    expect((await op.put('/markers', { name: 'Mine', color: '#00ff00', domain_id: branch })).statusCode).toBe(403);

    // Applied by the operator: a marker of another branch is not theirs to put on anyone.
    expect((await op.patch(`/users/${resident.id}`, { markers: [elsewhere.id] })).json()).toMatchObject({ code: 'invalid_related_entity' });
    const applied = await op.patch(`/users/${resident.id}`, { markers: [m.id] });
    expect(applied.statusCode, applied.body).toBe(200);
    // The admin put the other branch's marker on the resident too; the operator still sees only theirs.
    expect((await admin.patch(`/users/${resident.id}`, { markers: [m.id, elsewhere.id] })).statusCode).toBe(200);
    const seen = (await op.get(`/users/${resident.id}?with=markers`)).json().data.markers_info;
    expect(seen).toEqual([{ id: m.id, name: 'Wheelchair', color: '#1a73e8' }]);
    const listed = (
      await admin.get(
        `/users?with=markers&filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'id', operator: 'equals', value: resident.id }] }))}`,
      )
    ).json().data[0].markers_info;
    expect(listed.map((x: { id: number }) => x.id).sort()).toEqual([m.id, elsewhere.id].sort());
    expect((await admin.get(`/markers/${m.id}`)).json().data.users_count).toBe(1);

    // Without "apply markers": refused.
    const editor = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, [
        'can_view_users',
        'can_edit_users',
        'can_view_markers',
        'can_grant_more_permissions',
      ]),
      groupIds: [branch],
    });
    const ed = client(t.app, await login(t.app, editor.login, editor.password));
    expect((await ed.patch(`/users/${resident.id}`, { markers: [] })).statusCode).toBe(403);

    // Deleted: gone from the users too.
    expect((await admin.post('/markers/delete', { items: [m.id, elsewhere.id] })).json().data.deleted.sort()).toEqual(
      [m.id, elsewhere.id].sort(),
    );
    expect((await admin.get(`/users/${resident.id}?with=markers`)).json().data.markers_info).toEqual([]);
  });
});
