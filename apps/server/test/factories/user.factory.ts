import { eq } from 'drizzle-orm';
import { hashPassword } from '../../src/core/auth/password.js';
import type { Db } from '../../src/core/db/client.js';
import { groups } from '../../src/modules/groups/groups.table.js';
import { roles } from '../../src/modules/roles/roles.table.js';
import { userGroups, users } from '../../src/modules/users/users.table.js';

let seq = 0;
const next = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

/** A role with exactly these permissions. */
export async function makeRole(db: Db, projectId: number, permissions: string[], name = `role-${next()}`): Promise<number> {
  const [r] = await db.insert(roles).values({ projectId, name, permissions }).returning({ id: roles.id });
  return r!.id;
}

/** A group under `parentId` (or a root group), with its ancestor path. */
export async function makeGroup(db: Db, projectId: number, parentId: number | null, name = `group-${next()}`): Promise<number> {
  const parentPath = parentId ? ((await db.select({ path: groups.path }).from(groups).where(eq(groups.id, parentId)))[0]?.path ?? []) : [];
  const [g] = await db.insert(groups).values({ projectId, parentId, name, path: [] }).returning({ id: groups.id });
  await db
    .update(groups)
    .set({ path: [...parentPath, g!.id] })
    .where(eq(groups.id, g!.id));
  return g!.id;
}

const hashes = new Map<string, Promise<string>>();

/** A user with a password, a role and groups. */
export async function makeUser(
  db: Db,
  v: {
    projectId: number;
    roleId?: number | null;
    groupIds?: number[];
    login?: string;
    password?: string;
    name?: string;
    createdBy?: number;
    email?: string;
  },
): Promise<{ id: number; login: string; password: string }> {
  const login = v.login ?? `user-${next()}`;
  const password = v.password ?? 'user-password-1';
  if (!hashes.has(password)) hashes.set(password, hashPassword(password));
  const [u] = await db
    .insert(users)
    .values({
      projectId: v.projectId,
      login,
      name: v.name ?? login,
      passwordHash: await hashes.get(password)!,
      roleId: v.roleId ?? null,
      createdBy: v.createdBy ?? null,
      email: v.email ?? null,
    })
    .returning({ id: users.id });
  if (v.groupIds?.length) await db.insert(userGroups).values(v.groupIds.map((groupId) => ({ userId: u!.id, groupId })));
  return { id: u!.id, login, password };
}
