import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeUser } from '../../test/factories/user.factory.js';
import { buildTestApp, type TestApp } from '../../test/helpers.js';
import { groups } from '../modules/groups/groups.table.js';
import { userGroups, users } from '../modules/users/users.table.js';
import { aclPredicate, scopeOf } from './acl.js';
import type { Actor } from './context.js';

// Fixture tree: root ─ A ─ A1 ─ A1x
//                    └ B ─ B1
let t: TestApp;
const g: Record<string, number> = {};
const u: Record<string, number> = {};
beforeAll(async () => {
  t = await buildTestApp();
  const db = t.app.database.db;
  const p = t.project.projectId;
  g.A = await makeGroup(db, p, t.project.rootGroupId, 'A');
  g.A1 = await makeGroup(db, p, g.A, 'A1');
  g.A1x = await makeGroup(db, p, g.A1, 'A1x');
  g.B = await makeGroup(db, p, t.project.rootGroupId, 'B');
  g.B1 = await makeGroup(db, p, g.B, 'B1');
  for (const [name, group] of Object.entries(g))
    u[name] = (await makeUser(db, { projectId: p, login: `in-${name}`, groupIds: [group] })).id;
  u.mine = (await makeUser(db, { projectId: p, login: 'made-by-actor', groupIds: [g.B1], createdBy: 4242 })).id;
});
afterAll(() => t?.close());

const actor = (permissions: string[], groupIds: number[]): Actor => ({
  userId: 4242,
  projectId: t.project.projectId,
  login: 'actor',
  roleId: null,
  permissions: new Set(permissions),
  groupIds,
});

/** The fixture users the actor may act on, by the group they are in. */
async function visible(a: Actor, action: string): Promise<string[]> {
  const predicate = aclPredicate(a, 'users', action, {
    inGroups: (cond) =>
      sql`EXISTS (SELECT 1 FROM ${userGroups} ug JOIN ${groups} g ON g.id = ug.group_id WHERE ug.user_id = ${users.id} AND ${cond})`,
    createdBy: sql`${users.createdBy}`,
  });
  const rows = await t.app.database.db
    .select({ login: users.login })
    .from(users)
    .where(and(eq(users.projectId, t.project.projectId), sql`(${users.login} LIKE 'in-%' OR ${users.login} = 'made-by-actor')`, predicate))
    .orderBy(users.login);
  return rows.map((r) => r.login.replace(/^in-/, ''));
}

describe('ACL predicate', () => {
  it('picks the widest granted scope', () => {
    expect(scopeOf(actor(['can_view_users', 'can_view_all_users'], []), 'users', 'view')).toBe('all');
    expect(scopeOf(actor(['can_view_descendant_users'], []), 'users', 'view')).toBe('descendants');
    expect(scopeOf(actor([], []), 'users', 'view')).toBeNull();
  });

  it.each([
    ['domain: my groups only', ['can_view_users'], ['A'], 'view', ['A', 'made-by-actor']],
    ['descendants: my groups and below', ['can_view_descendant_users'], ['A'], 'view', ['A', 'A1', 'A1x', 'made-by-actor']],
    ['descendants of two branches', ['can_view_descendant_users'], ['A1', 'B'], 'view', ['A1', 'A1x', 'B', 'B1', 'made-by-actor']],
    ['all', ['can_view_all_users'], [], 'view', ['A', 'A1', 'A1x', 'B', 'B1', 'made-by-actor']],
    ['no permission: only what I created', [], ['A'], 'view', ['made-by-actor']],
    ['creator may view, not edit', [], ['A'], 'edit', []],
    ['edit at descendants', ['can_edit_descendant_users'], ['B'], 'edit', ['B', 'B1', 'made-by-actor']],
    ['edit in my groups does not reach below', ['can_edit_users'], ['A'], 'edit', ['A']],
    ['delete all', ['can_delete_all_users'], [], 'delete', ['A', 'A1', 'A1x', 'B', 'B1', 'made-by-actor']],
    ['a view permission grants no delete', ['can_view_all_users'], ['A'], 'delete', []],
  ])('%s', async (_label, permissions, groupNames, action, expected) => {
    const a = actor(
      permissions,
      groupNames.map((n) => g[n]!),
    );
    expect(await visible(a, action)).toEqual([...expected].sort());
  });

  it('a user without groups sees nothing by group scope', async () => {
    expect(await visible(actor(['can_view_descendant_users'], []), 'view')).toEqual(['made-by-actor']);
  });
});
