import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { groups } from '../groups/groups.table.js';
import { roles } from '../roles/roles.table.js';
import { projectLocale } from '../users/project-locale.js';
import { userGroups, users } from '../users/users.table.js';
import { ssoLogins, ssoProviders, ssoTickets } from './sso.table.js';

export type SsoProviderRow = typeof ssoProviders.$inferSelect;
export type SsoProviderValues = Omit<typeof ssoProviders.$inferInsert, 'id' | 'projectId' | 'createdAt' | 'updatedAt'>;

export class SsoRepository {
  constructor(private readonly db: Db) {}

  list(projectId: number): Promise<SsoProviderRow[]> {
    return this.db.select().from(ssoProviders).where(eq(ssoProviders.projectId, projectId)).orderBy(ssoProviders.name, ssoProviders.id);
  }

  async find(projectId: number, id: number): Promise<SsoProviderRow | undefined> {
    const [row] = await this.db
      .select()
      .from(ssoProviders)
      .where(and(eq(ssoProviders.projectId, projectId), eq(ssoProviders.id, id)));
    return row;
  }

  /** A provider of any project, for the signed-out flow. */
  async byId(id: number): Promise<SsoProviderRow | undefined> {
    const [row] = await this.db.select().from(ssoProviders).where(eq(ssoProviders.id, id));
    return row;
  }

  /** Enabled providers of every project: the login page's buttons. */
  enabled(): Promise<{ id: number; name: string }[]> {
    return this.db
      .select({ id: ssoProviders.id, name: ssoProviders.name })
      .from(ssoProviders)
      .where(eq(ssoProviders.isEnabled, true))
      .orderBy(ssoProviders.name, ssoProviders.id);
  }

  async insert(tx: DbOrTx, projectId: number, v: SsoProviderValues): Promise<SsoProviderRow> {
    const [row] = await tx
      .insert(ssoProviders)
      .values({ ...v, projectId })
      .returning();
    return row as SsoProviderRow;
  }

  async update(tx: DbOrTx, id: number, v: Partial<SsoProviderValues>): Promise<SsoProviderRow> {
    const [row] = await tx
      .update(ssoProviders)
      .set({ ...v, updatedAt: sql`now()` })
      .where(eq(ssoProviders.id, id))
      .returning();
    return row as SsoProviderRow;
  }

  async remove(tx: DbOrTx, id: number): Promise<void> {
    await tx.delete(ssoProviders).where(eq(ssoProviders.id, id));
  }

  /** Whether the role and the group belong to the project. */
  async roleInProject(projectId: number, roleId: number): Promise<boolean> {
    const [r] = await this.db
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.id, roleId), eq(roles.projectId, projectId)));
    return !!r;
  }

  async groupInProject(projectId: number, groupId: number): Promise<boolean> {
    const [g] = await this.db
      .select({ id: groups.id })
      .from(groups)
      .where(and(eq(groups.id, groupId), eq(groups.projectId, projectId)));
    return !!g;
  }

  async startLogin(v: typeof ssoLogins.$inferInsert): Promise<void> {
    await this.db.delete(ssoLogins).where(sql`${ssoLogins.expiresAt} < now()`);
    await this.db.insert(ssoLogins).values(v);
  }

  /** Takes a started sign-in by its state: removed as it is read, so a state works once. */
  async takeLogin(state: string) {
    const [row] = await this.db
      .delete(ssoLogins)
      .where(and(eq(ssoLogins.state, state), gt(ssoLogins.expiresAt, sql`now()`)))
      .returning();
    return row;
  }

  async insertTicket(v: typeof ssoTickets.$inferInsert): Promise<void> {
    await this.db.delete(ssoTickets).where(sql`${ssoTickets.expiresAt} < now()`);
    await this.db.insert(ssoTickets).values(v);
  }

  /** Takes a ticket by its hash: removed as it is read, so it is exchanged once. */
  async takeTicket(ticketHash: string) {
    const [row] = await this.db
      .delete(ssoTickets)
      .where(and(eq(ssoTickets.ticketHash, ticketHash), gt(ssoTickets.expiresAt, sql`now()`)))
      .returning();
    return row;
  }

  /** Users of the project whose e-mail or login is the value (case-insensitive). */
  async usersMatching(projectId: number, field: 'email' | 'login', value: string): Promise<{ id: number }[]> {
    const column = field === 'email' ? users.email : users.login;
    return this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, projectId), sql`lower(${column}) = lower(${value})`))
      .limit(2);
  }

  async loginOf(userId: number): Promise<string | undefined> {
    const [u] = await this.db.select({ login: users.login }).from(users).where(eq(users.id, userId));
    return u?.login;
  }

  /** A user made on first sign-on: no password (they sign in through the provider), the provider's role and group. */
  async createUser(
    tx: DbOrTx,
    v: { projectId: number; login: string; name: string; email: string | null; roleId: number | null; groupId: number | null },
  ): Promise<number> {
    const [u] = await tx
      .insert(users)
      .values({
        projectId: v.projectId,
        login: v.login,
        name: v.name,
        email: v.email,
        roleId: v.roleId,
        locale: projectLocale(v.projectId),
        activatedAt: sql`now()`,
      })
      .returning({ id: users.id });
    const id = (u as { id: number }).id;
    if (v.groupId) await tx.insert(userGroups).values({ userId: id, groupId: v.groupId });
    return id;
  }
}
