import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, login, type TestApp } from '../../../test/helpers.js';
import { type ScopeTree, scopeTree } from './scope.fixture.js';
import { userGroups } from './users.table.js';

// A group-scoped administrator must not take over a more privileged account in their groups, nor
// learn of users and groups outside their scope through relations, counts and answers.

let t: TestApp;
let tree: ScopeTree;
/** Edits and deletes users of group A and below; may assign only their own role. */
const GROUP_ADMIN = [
  'can_view_descendant_users',
  'can_edit_descendant_users',
  'can_delete_descendant_users',
  'can_create_users',
  'can_view_users_roles',
  'can_edit_users_roles',
  'can_delete_available_roles',
  'can_view_descendant_domains',
  'can_edit_descendant_domains',
];

beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
});
afterAll(() => t.close());

const db = () => t.app.database.db;

/** An Administrator (the built-in role) who is a member of group A1, and the group admin of A. */
async function setting() {
  const victim = await makeUser(db(), { projectId: t.project.projectId, roleId: t.project.roleId, groupIds: [tree.groups.A1] });
  const attacker = await tree.actor(GROUP_ADMIN, ['A']);
  return { victim, attacker };
}

describe('acting on a more privileged user', () => {
  it('refuses the password, e-mail, role, groups, flags, avatar, registration link and delete of an Administrator', async () => {
    const { victim, attacker } = await setting();
    const api = attacker.api;
    const refused = [
      await api.post(`/users/${victim.id}/password`, { new_password: 'taken-over-123' }),
      await api.patch(`/users/${victim.id}`, { email: 'attacker@example.org' }),
      await api.patch(`/users/${victim.id}`, { role: attacker.roleId }),
      await api.patch(`/users/${victim.id}`, { domains: [tree.groups.A1a] }),
      await api.patch(`/users/${victim.id}`, { is_group_admin: true }),
      await api.patch(`/users/${victim.id}`, { name: 'Renamed' }),
      await api.post(`/users/${victim.id}/registration-link`),
      await api.delete(`/users/${victim.id}`),
    ];
    expect(refused.map((r) => r.statusCode)).toEqual(refused.map(() => 403));
    // The victim's password still signs in.
    expect(await login(t.app, victim.login, victim.password)).toBeTruthy();
    const bulk = (await api.post('/users/delete', { items: [victim.id] })).json().data;
    expect(bulk.deleted).toEqual([]);
    // Nor through the group's member list: moving the Administrator out of (or into) a group is acting on them.
    const move = await api.patch(`/domains/${tree.groups.A1}`, { users: [] });
    expect(move.statusCode).toBe(403);
  });

  it('still lets the group admin act on users whose role grants nothing beyond their own', async () => {
    const { attacker } = await setting();
    const peer = await makeUser(db(), { projectId: t.project.projectId, roleId: attacker.roleId, groupIds: [tree.groups.A1] });
    const plain = await makeUser(db(), { projectId: t.project.projectId, roleId: null, groupIds: [tree.groups.A1] });
    expect((await attacker.api.patch(`/users/${peer.id}`, { name: 'Peer renamed' })).statusCode).toBe(200);
    expect((await attacker.api.post(`/users/${plain.id}/password`, { new_password: 'reset-by-admin-1' })).statusCode).toBe(200);
    expect((await attacker.api.delete(`/users/${plain.id}`)).statusCode).toBe(200);
  });

  it('an actor holding the grant-beyond-own permission may act on anyone in scope', async () => {
    const { victim } = await setting();
    const boss = await tree.actor([...GROUP_ADMIN, 'can_grant_more_permissions'], ['A']);
    expect((await boss.api.patch(`/users/${victim.id}`, { name: 'Renamed by boss' })).statusCode).toBe(200);
  });

  it('refuses editing or deleting a shared role whose holders lie outside the scope', async () => {
    const actor = await tree.actor([...GROUP_ADMIN, 'can_edit_own_roles', 'can_delete_own_roles'], ['A']);
    const ownRole = async () => {
      const id = await makeRole(db(), t.project.projectId, ['can_view_descendant_users']);
      await db().execute(sql`UPDATE roles SET created_by = ${actor.id} WHERE id = ${id}`);
      await makeUser(db(), { projectId: t.project.projectId, roleId: id, groupIds: [tree.groups.A1] });
      return id;
    };
    // A role of the actor's own, held only by users they see: theirs to change.
    const mine = await ownRole();
    expect((await actor.api.patch(`/roles/${mine}`, { name: 'renamed mine' })).statusCode).toBe(200);
    const shared = await ownRole();
    await makeUser(db(), { projectId: t.project.projectId, roleId: shared, groupIds: [tree.groups.B1] });
    expect((await actor.api.patch(`/roles/${shared}`, { name: 'renamed' })).statusCode).toBe(403);
    expect((await actor.api.delete(`/roles/${shared}`)).statusCode).toBe(403);
  });
});

describe('answers stay inside the scope', () => {
  it('with=domains names only groups the caller may see', async () => {
    const both = await makeUser(db(), { projectId: t.project.projectId, groupIds: [tree.groups.A1, tree.groups.B1] });
    const actor = await tree.actor(['can_view_descendant_users'], ['A']);
    const one = (await actor.api.get(`/users/${both.id}?with=domains`)).json().data;
    expect(one.domains_info.map((g: { id: number }) => g.id)).toEqual([tree.groups.A1]);
    const listed = (await actor.api.get('/users?with=domains&size=1000')).json().data.find((u: { id: number }) => u.id === both.id);
    expect(listed.domains_info.map((g: { id: number }) => g.id)).toEqual([tree.groups.A1]);
    // The ids too, not only the names.
    expect(one.domains).toEqual([tree.groups.A1]);
    expect(listed.domains).toEqual([tree.groups.A1]);
  });

  it('an edit of the groups by a scoped administrator keeps the groups it cannot see', async () => {
    const both = await makeUser(db(), { projectId: t.project.projectId, groupIds: [tree.groups.A1, tree.groups.B1] });
    const actor = await tree.actor(GROUP_ADMIN, ['A']);
    const res = await actor.api.patch(`/users/${both.id}`, { domains: [tree.groups.A1a] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.domains).toEqual([tree.groups.A1a]);
    const kept = await db().select({ id: userGroups.groupId }).from(userGroups).where(eq(userGroups.userId, both.id));
    expect(kept.map((r) => r.id).sort((x, y) => x - y)).toEqual([tree.groups.A1a, tree.groups.B1].sort((x, y) => x - y));
  });

  it('with=users_count counts only holders the caller may see, and a gentle delete names only them', async () => {
    const actor = await tree.actor(
      ['can_view_descendant_users', 'can_view_all_roles', 'can_delete_all_roles', 'can_grant_more_permissions'],
      ['A'],
    );
    const role = await makeRole(db(), t.project.projectId, []);
    const seen = await makeUser(db(), { projectId: t.project.projectId, roleId: role, groupIds: [tree.groups.A1] });
    await makeUser(db(), { projectId: t.project.projectId, roleId: role, groupIds: [tree.groups.B1], login: 'hidden-holder' });
    const row = (await actor.api.get('/roles?with=users_count&size=1000')).json().data.find((r: { id: number }) => r.id === role);
    expect(row.users_count).toBe(1);
    const gentle = await actor.api.raw('DELETE', `/roles/${role}?gently=true`);
    expect(gentle.statusCode).toBe(409);
    const text = gentle.body;
    expect(text).toContain(String(seen.id));
    expect(text).not.toContain('hidden-holder');
  });

  it('device_status_notify answers a user outside the scope exactly like a missing one', async () => {
    const actor = await tree.actor(['can_view_descendant_users', 'can_view_descendant_domains', 'can_edit_descendant_domains'], ['A']);
    const g = await makeGroup(db(), t.project.projectId, tree.groups.A, 'notify-target');
    const outside = await actor.api.patch(`/domains/${g}`, { device_status_notify: [{ user_id: tree.users.B1 }] });
    const missing = await actor.api.patch(`/domains/${g}`, { device_status_notify: [{ user_id: 987654 }] });
    expect(outside.statusCode).toBe(missing.statusCode);
    expect(outside.json().message).toBe(missing.json().message);
    expect(outside.statusCode).toBe(400);
    const inside = await actor.api.patch(`/domains/${g}`, { device_status_notify: [{ user_id: tree.users.A1 }] });
    expect(inside.statusCode).toBe(200);
  });
});
