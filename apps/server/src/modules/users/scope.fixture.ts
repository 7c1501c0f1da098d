// Test-only: a project tree with two branches, three levels below the root, users in every group,
// and a second project — the fixture of the scope tests of users and roles.

import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, client, login, type TestApp } from '../../../test/helpers.js';

export type Api = ReturnType<typeof client>;

export interface ScopeTree {
  groups: { R: number; A: number; A1: number; A1a: number; B: number; B1: number };
  /** One user per group, named after it. */
  users: { R: number; A: number; A1: number; A1a: number; B: number; B1: number };
  other: { projectId: number; userId: number; roleId: number; groupId: number; admin: Api };
  admin: Api;
  /** Signs in a new user of the first project with these permissions in these groups. */
  actor(permissions: string[], groups: (keyof ScopeTree['groups'])[]): Promise<{ id: number; roleId: number; token: string; api: Api }>;
}

export async function scopeTree(t: TestApp): Promise<ScopeTree> {
  const db = t.app.database.db;
  const p = t.project.projectId;
  const R = t.project.rootGroupId;
  const A = await makeGroup(db, p, R, 'A');
  const A1 = await makeGroup(db, p, A, 'A1');
  const A1a = await makeGroup(db, p, A1, 'A1a');
  const B = await makeGroup(db, p, R, 'B');
  const B1 = await makeGroup(db, p, B, 'B1');
  const groups = { R, A, A1, A1a, B, B1 };
  const users = {} as ScopeTree['users'];
  for (const [k, g] of Object.entries(groups)) {
    users[k as keyof typeof groups] = (await makeUser(db, { projectId: p, groupIds: [g], login: `u-${k}`.toLowerCase() })).id;
  }
  const second = await t.app.services.projects.createProject({
    name: 'Second',
    adminLogin: 'admin2',
    adminName: 'Admin 2',
    adminPassword: 'admin-password-2',
  });
  const otherUser = await makeUser(db, { projectId: second.projectId, groupIds: [second.rootGroupId], login: 'u-other' });
  const admin = await adminClient(t);
  const otherAdmin = client(t.app, await login(t.app, 'admin2', 'admin-password-2'));
  let n = 0;
  return {
    groups,
    users,
    other: { projectId: second.projectId, userId: otherUser.id, roleId: second.roleId, groupId: second.rootGroupId, admin: otherAdmin },
    admin,
    async actor(permissions, where) {
      const roleId = await makeRole(db, p, permissions);
      const u = await makeUser(db, { projectId: p, roleId, groupIds: where.map((w) => groups[w]), login: `actor-${++n}` });
      const token = await login(t.app, u.login, u.password);
      return { id: u.id, roleId, token, api: client(t.app, token) };
    },
  };
}

export interface RecordFlags {
  can_edit: boolean;
  can_delete: boolean;
}

/**
 * The per-record flags of `ids` as the actor reads them, from the single record and from the list
 * (`/users`, `/roles`, `/domains`); the two must agree, so a test states one expectation for both.
 */
export async function flagsOf(api: Api, path: string, ids: readonly number[]): Promise<Map<number, RecordFlags>> {
  const listed = (await api.get(`${path}?size=1000`)).json().data as ({ id: number } & RecordFlags)[];
  const out = new Map<number, RecordFlags>();
  for (const id of ids) {
    const one = await api.get(`${path}/${id}`);
    if (one.statusCode !== 200) throw new Error(`${path}/${id} answered ${one.statusCode}`);
    const { can_edit, can_delete } = one.json().data as RecordFlags;
    const row = listed.find((r) => r.id === id);
    if (!row || row.can_edit !== can_edit || row.can_delete !== can_delete) {
      throw new Error(
        `${path}/${id}: the list says ${JSON.stringify(row && { can_edit: row.can_edit, can_delete: row.can_delete })}, the record ${JSON.stringify({ can_edit, can_delete })}`,
      );
    }
    out.set(id, { can_edit, can_delete });
  }
  return out;
}
