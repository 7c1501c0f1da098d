import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { domainTypes, groups } from '../groups/groups.table.js';
import { roles } from '../roles/roles.table.js';
import { userGroups, users } from '../users/users.table.js';
import { projects, serverSettings } from './projects.table.js';

export class ProjectsRepository {
  constructor(private readonly db: Db) {}

  async setting<T>(key: string): Promise<T | undefined> {
    const [row] = await this.db.select({ value: serverSettings.value }).from(serverSettings).where(eq(serverSettings.key, key));
    return row?.value as T | undefined;
  }

  /** The value stored under `key`, created from `make()` by whichever instance gets there first. */
  async settingOrCreate<T>(key: string, make: () => T): Promise<T> {
    await this.db.insert(serverSettings).values({ key, value: make() }).onConflictDoNothing();
    return (await this.setting<T>(key)) as T;
  }

  async byId(id: number) {
    const [p] = await this.db.select().from(projects).where(eq(projects.id, id));
    return p;
  }

  async count(db: DbOrTx): Promise<number> {
    const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(projects);
    return row?.n ?? 0;
  }

  async lockBootstrap(tx: DbOrTx): Promise<void> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(727002)`);
  }

  async createProject(tx: DbOrTx, name: string) {
    const [p] = await tx
      .insert(projects)
      .values({ uid: randomBytes(6).toString('hex'), name })
      .returning();
    if (!p) throw new Error('project insert returned nothing');
    return p;
  }

  async createDomainTypes(tx: DbOrTx, projectId: number, types: readonly { type: number; name: string }[]) {
    return tx
      .insert(domainTypes)
      .values(types.map((t) => ({ ...t, projectId })))
      .returning();
  }

  async createRootGroup(tx: DbOrTx, projectId: number, name: string, domainTypeId: number | null) {
    const [g] = await tx.insert(groups).values({ projectId, name, path: [], domainTypeId }).returning({ id: groups.id });
    if (!g) throw new Error('group insert returned nothing');
    await tx
      .update(groups)
      .set({ path: [g.id] })
      .where(eq(groups.id, g.id));
    return g.id;
  }

  async createBuiltinRole(tx: DbOrTx, projectId: number, name: string, permissions: string[]) {
    const [r] = await tx.insert(roles).values({ projectId, name, permissions, isBuiltin: true }).returning({ id: roles.id });
    if (!r) throw new Error('role insert returned nothing');
    return r.id;
  }

  async createAdmin(
    tx: DbOrTx,
    v: { projectId: number; login: string; name: string; passwordHash: string; roleId: number; groupId: number },
  ) {
    const [u] = await tx
      .insert(users)
      .values({ projectId: v.projectId, login: v.login, name: v.name, passwordHash: v.passwordHash, roleId: v.roleId, isGroupAdmin: true })
      .returning({ id: users.id });
    if (!u) throw new Error('user insert returned nothing');
    await tx.insert(userGroups).values({ userId: u.id, groupId: v.groupId });
    return u.id;
  }
}
