import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, type TestApp } from '../../../test/helpers.js';
import { flagsOf, type ScopeTree, scopeTree } from './scope.fixture.js';

// Every scope variant of view, edit and delete of users and roles (spec §6) against one tree:
//   R ─ A ─ A1 ─ A1a
//     └ B ─ B1            and a second project.
// The actor sits in A. Edit and delete apply only to what the view rule lets the actor see, and each
// record the actor sees says so in can_edit / can_delete (read from the record and from the list).

let t: TestApp;
let tree: ScopeTree;
beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
});
afterAll(() => t.close());

type G = keyof ScopeTree['groups'];
const ALL: G[] = ['R', 'A', 'A1', 'A1a', 'B', 'B1'];

const userView: [string, string[], G[]][] = [
  ['domain', ['can_view_users'], ['A']],
  ['descendants', ['can_view_descendant_users'], ['A', 'A1', 'A1a']],
  ['all', ['can_view_all_users'], ALL],
  ['none', [], []],
];

describe('users: view', () => {
  it.each(userView)('scope %s sees exactly its users, never another project', async (_s, perms, visible) => {
    const actor = await tree.actor(perms, ['A']);
    for (const g of ALL) {
      const res = await actor.api.get(`/users/${tree.users[g]}`);
      expect([g, res.statusCode]).toEqual([g, visible.includes(g) ? 200 : 404]);
    }
    expect((await actor.api.get(`/users/${tree.other.userId}`)).statusCode).toBe(404);
    // Users always see themselves.
    expect((await actor.api.get(`/users/${actor.id}`)).statusCode).toBe(200);
    const list = await actor.api.get('/users?size=1000');
    if (!perms.length) {
      expect(list.statusCode).toBe(403);
      return;
    }
    const ids = list.json().data.map((u: { id: number }) => u.id);
    for (const g of ALL) expect([g, ids.includes(tree.users[g])]).toEqual([g, visible.includes(g)]);
    expect(ids).not.toContain(tree.other.userId);
  });

  it('a creator sees the users they created even outside their scope', async () => {
    const actor = await tree.actor(['can_view_users'], ['A']);
    const made = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.B1], createdBy: actor.id });
    expect((await actor.api.get(`/users/${made.id}`)).statusCode).toBe(200);
    const ids = (await actor.api.get('/users?size=1000')).json().data.map((u: { id: number }) => u.id);
    expect(ids).toContain(made.id);
  });
});

const userEdit: [string, string[], G[], G[]][] = [
  // [scope, permissions (view all + edit scope), editable, visible]
  ['domain', ['can_view_all_users', 'can_edit_users'], ['A'], ALL],
  ['descendants', ['can_view_all_users', 'can_edit_descendant_users'], ['A', 'A1', 'A1a'], ALL],
  ['all', ['can_view_all_users', 'can_edit_all_users'], ALL, ALL],
  ['all but seeing only the domain', ['can_view_users', 'can_edit_all_users'], ['A'], ['A']],
  ['none', ['can_view_all_users'], [], ALL],
];

describe('users: edit', () => {
  it.each(userEdit)('scope %s', async (_s, perms, editable, visible) => {
    const actor = await tree.actor(perms, ['A']);
    const flags = await flagsOf(
      actor.api,
      '/users',
      visible.map((g) => tree.users[g]),
    );
    for (const g of visible) expect([g, flags.get(tree.users[g])?.can_edit]).toEqual([g, editable.includes(g)]);
    for (const g of ALL) {
      const res = await actor.api.patch(`/users/${tree.users[g]}`, { description: `edited by ${actor.id}` });
      const want = editable.includes(g) ? 200 : visible.includes(g) ? 403 : 404;
      expect([g, res.statusCode]).toEqual([g, want]);
    }
    expect((await actor.api.patch(`/users/${tree.other.userId}`, { description: 'x' })).statusCode).toBe(404);
  });

  it('users may edit their own record with can_edit_own_profile, but not its administrative fields', async () => {
    const actor = await tree.actor(['can_edit_own_profile'], ['A']);
    expect((await actor.api.get(`/users/${actor.id}`)).json().data).toMatchObject({ can_edit: true, can_delete: false });
    expect((await actor.api.patch(`/users/${actor.id}`, { name: 'Me myself' })).statusCode).toBe(200);
    const res = await actor.api.patch(`/users/${actor.id}`, { domains: [tree.groups.A, tree.groups.B] });
    expect(res.statusCode).toBe(403);
    expect(res.json().details).toEqual([{ field: 'domains', message: 'only an administrator may change this field' }]);
    const without = await tree.actor([], ['A']);
    expect((await without.api.get(`/users/${without.id}`)).json().data).toMatchObject({ can_edit: false, can_delete: false });
    expect((await without.api.patch(`/users/${without.id}`, { name: 'Nope' })).statusCode).toBe(403);
  });

  it('own record: editable by an edit scope covering it, never deletable', async () => {
    const actor = await tree.actor(['can_view_users', 'can_edit_users', 'can_delete_all_users'], ['A']);
    const flags = await flagsOf(actor.api, '/users', [actor.id, tree.users.A]);
    expect(flags.get(actor.id)).toEqual({ can_edit: true, can_delete: false });
    expect(flags.get(tree.users.A)).toEqual({ can_edit: true, can_delete: true });
    expect((await actor.api.delete(`/users/${actor.id}`)).statusCode).toBe(400);
  });
});

const userDelete: [string, string[], G[], G[]][] = [
  ['domain', ['can_view_all_users', 'can_delete_users'], ['A'], ALL],
  ['descendants', ['can_view_all_users', 'can_delete_descendant_users'], ['A', 'A1', 'A1a'], ALL],
  ['all', ['can_view_all_users', 'can_delete_all_users'], ALL, ALL],
  ['all but seeing only below', ['can_view_descendant_users', 'can_delete_all_users'], ['A', 'A1', 'A1a'], ['A', 'A1', 'A1a']],
  ['none', ['can_view_all_users'], [], ALL],
];

describe('users: delete', () => {
  it.each(userDelete)('scope %s', async (_s, perms, deletable, visible) => {
    const actor = await tree.actor(perms, ['A']);
    const targets = {} as Record<G, number>;
    for (const g of ALL) {
      targets[g] = (await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups[g]] })).id;
    }
    const flags = await flagsOf(
      actor.api,
      '/users',
      visible.map((g) => targets[g]),
    );
    for (const g of visible) expect([g, flags.get(targets[g])?.can_delete]).toEqual([g, deletable.includes(g)]);
    for (const g of ALL) {
      const res = await actor.api.delete(`/users/${targets[g]}`);
      const want = deletable.includes(g) ? 200 : visible.includes(g) ? 403 : 404;
      expect([g, res.statusCode]).toEqual([g, want]);
    }
    expect((await actor.api.delete(`/users/${tree.other.userId}`)).statusCode).toBe(404);
  });
});

describe('roles: view, edit, delete by scope', () => {
  // Roles held by users of A1 and of B, one created by the actor, one of the other project.
  async function roles(actorId: number) {
    const db = t.app.database.db;
    const p = t.project.projectId;
    const heldInA1 = await makeRole(db, p, []);
    const heldInB = await makeRole(db, p, []);
    await makeUser(db, { projectId: p, roleId: heldInA1, groupIds: [tree.groups.A1] });
    await makeUser(db, { projectId: p, roleId: heldInB, groupIds: [tree.groups.B] });
    const [own] = await db
      .insert((await import('../roles/roles.table.js')).roles)
      .values({ projectId: p, name: `own-${actorId}`, permissions: [], createdBy: actorId })
      .returning();
    return { heldInA1, heldInB, own: own!.id, other: await makeRole(db, tree.other.projectId, []) };
  }
  type K = 'heldInA1' | 'heldInB' | 'own' | 'other';
  const KEYS: K[] = ['heldInA1', 'heldInB', 'own', 'other'];

  const cases: [string, 'view' | 'edit' | 'delete', string[], K[], K[]][] = [
    // [case, action, permissions, allowed, visible]
    ['view own', 'view', ['can_view_roles'], ['own'], ['own']],
    ["view users' roles", 'view', ['can_view_users_roles', 'can_view_descendant_users'], ['heldInA1', 'own'], ['heldInA1', 'own']],
    ['view all', 'view', ['can_view_all_roles'], ['heldInA1', 'heldInB', 'own'], ['heldInA1', 'heldInB', 'own']],
    ['edit own', 'edit', ['can_view_all_roles', 'can_edit_own_roles'], ['own'], ['heldInA1', 'heldInB', 'own']],
    [
      "edit users' roles",
      'edit',
      ['can_view_all_roles', 'can_edit_users_roles', 'can_view_descendant_users'],
      ['heldInA1'],
      ['heldInA1', 'heldInB', 'own'],
    ],
    ['edit all', 'edit', ['can_view_all_roles', 'can_edit_all_roles'], ['heldInA1', 'heldInB', 'own'], ['heldInA1', 'heldInB', 'own']],
    ['edit all, seeing own only', 'edit', ['can_view_roles', 'can_edit_all_roles'], ['own'], ['own']],
    ['edit none', 'edit', ['can_view_all_roles'], [], ['heldInA1', 'heldInB', 'own']],
    ['delete own', 'delete', ['can_view_all_roles', 'can_delete_own_roles'], ['own'], ['heldInA1', 'heldInB', 'own']],
    [
      'delete all',
      'delete',
      ['can_view_all_roles', 'can_delete_all_roles'],
      ['heldInA1', 'heldInB', 'own'],
      ['heldInA1', 'heldInB', 'own'],
    ],
    ['delete none', 'delete', ['can_view_all_roles'], [], ['heldInA1', 'heldInB', 'own']],
  ];

  it.each(cases)('%s', async (_name, action, perms, allowed, visible) => {
    const actor = await tree.actor(perms, ['A']);
    const r = await roles(actor.id);
    if (action !== 'view') {
      const flags = await flagsOf(
        actor.api,
        '/roles',
        visible.map((k) => r[k]),
      );
      const flag = action === 'edit' ? 'can_edit' : 'can_delete';
      for (const k of visible) expect([k, flags.get(r[k])?.[flag]]).toEqual([k, allowed.includes(k)]);
    }
    for (const k of KEYS) {
      const url = `/roles/${r[k]}`;
      const res =
        action === 'view'
          ? await actor.api.get(url)
          : action === 'edit'
            ? await actor.api.patch(url, { description: 'edited' })
            : await actor.api.delete(`${url}?gently=false`);
      const want = allowed.includes(k) ? 200 : visible.includes(k) ? 403 : 404;
      expect([k, res.statusCode]).toEqual([k, want]);
    }
    if (action === 'view') {
      const ids = (await actor.api.get('/roles?size=1000')).json().data.map((x: { id: number }) => x.id);
      for (const k of KEYS) expect([k, ids.includes(r[k])]).toEqual([k, allowed.includes(k)]);
    }
  });

  it('edit and delete of available roles follow the actor role’s available list', async () => {
    const perms = ['can_view_all_roles', 'can_edit_available_roles', 'can_delete_available_roles'];
    const actor = await tree.actor(perms, ['A']);
    const r = await roles(actor.id);
    const { roleAvailableRoles } = await import('../roles/roles.table.js');
    await t.app.database.db.insert(roleAvailableRoles).values({ roleId: actor.roleId, availableRoleId: r.heldInB });
    // heldInB is held in B, outside the actor's groups: shared with people they may not manage (issue 9).
    expect((await flagsOf(actor.api, '/roles', [r.heldInB])).get(r.heldInB)).toEqual({ can_edit: false, can_delete: false });
    expect((await actor.api.patch(`/roles/${r.heldInB}`, { description: 'no' })).statusCode).toBe(403);
    expect((await actor.api.delete(`/roles/${r.heldInB}?gently=false`)).statusCode).toBe(403);
    // An actor who sees every user has no holder outside the scope.
    const wide = await tree.actor([...perms, 'can_view_all_users'], ['A']);
    await t.app.database.db.insert(roleAvailableRoles).values({ roleId: wide.roleId, availableRoleId: r.heldInB });
    const flags = await flagsOf(wide.api, '/roles', [r.heldInB, r.heldInA1]);
    expect(flags.get(r.heldInB)).toEqual({ can_edit: true, can_delete: true });
    expect(flags.get(r.heldInA1)).toEqual({ can_edit: false, can_delete: false });
    expect((await wide.api.patch(`/roles/${r.heldInB}`, { description: 'ok' })).statusCode).toBe(200);
    expect((await wide.api.patch(`/roles/${r.heldInA1}`, { description: 'no' })).statusCode).toBe(403);
    expect((await wide.api.delete(`/roles/${r.heldInA1}?gently=false`)).statusCode).toBe(403);
    expect((await wide.api.delete(`/roles/${r.heldInB}?gently=false`)).statusCode).toBe(200);
  });

  it('the built-in role and the caller’s own role are never deletable, whatever the scope', async () => {
    const actor = await tree.actor(['can_view_all_roles', 'can_edit_all_roles', 'can_delete_all_roles'], ['A']);
    const r = await roles(actor.id);
    const flags = await flagsOf(actor.api, '/roles', [t.project.roleId, actor.roleId, r.own]);
    expect(flags.get(t.project.roleId)).toEqual({ can_edit: true, can_delete: false });
    expect(flags.get(actor.roleId)).toEqual({ can_edit: true, can_delete: false });
    expect(flags.get(r.own)).toEqual({ can_edit: true, can_delete: true });
    expect((await actor.api.delete(`/roles/${t.project.roleId}?gently=false`)).statusCode).toBe(400);
    expect((await actor.api.delete(`/roles/${actor.roleId}?gently=false`)).statusCode).toBe(400);
  });
});
