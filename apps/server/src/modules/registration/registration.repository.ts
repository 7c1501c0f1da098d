import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import { AttemptCounter } from '../../core/attempts.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';
import { userGroups, users } from '../users/users.table.js';
import { userTokens } from './registration.table.js';

export type TokenKind = (typeof userTokens.$inferSelect)['kind'];
export type TokenRow = typeof userTokens.$inferSelect;

export interface RegistrationUser {
  id: number;
  projectId: number;
  login: string;
  name: string;
  email: string | null;
  locale: string;
  activatedAt: Date | null;
}

const userColumns = {
  id: users.id,
  projectId: users.projectId,
  login: users.login,
  name: users.name,
  email: users.email,
  locale: users.locale,
  activatedAt: users.activatedAt,
};

// Serialises registrations in one project, so two of them never both create the private-client role.
const REGISTRATION_LOCK = 727_010;

export class RegistrationRepository {
  /** Guesses at registration and recovery secrets, per key (core/attempts.ts). */
  readonly attempts: AttemptCounter;

  constructor(private readonly db: Db) {
    this.attempts = new AttemptCounter(db);
  }

  /** The project self-registration joins: the first one (a single-project server has only it). */
  async defaultProject(): Promise<{ id: number; name: string } | undefined> {
    const [p] = await this.db.select({ id: projects.id, name: projects.name }).from(projects).orderBy(asc(projects.id)).limit(1);
    return p;
  }

  async projectName(projectId: number): Promise<string> {
    const [p] = await this.db.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId));
    return p?.name ?? '';
  }

  async lockProject(tx: DbOrTx, projectId: number): Promise<void> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${REGISTRATION_LOCK}, ${projectId})`);
  }

  async rootGroup(tx: DbOrTx, projectId: number): Promise<{ id: number; path: number[] } | undefined> {
    const [g] = await tx
      .select({ id: groups.id, path: groups.path })
      .from(groups)
      .where(and(eq(groups.projectId, projectId), isNull(groups.parentId)))
      .orderBy(asc(groups.id))
      .limit(1);
    return g;
  }

  async createGroup(tx: DbOrTx, v: { projectId: number; parent: { id: number; path: number[] }; name: string }): Promise<number> {
    const [g] = await tx
      .insert(groups)
      .values({ projectId: v.projectId, parentId: v.parent.id, name: v.name, path: [] })
      .returning({ id: groups.id });
    if (!g) throw new Error('group insert returned nothing');
    await tx
      .update(groups)
      .set({ path: [...v.parent.path, g.id] })
      .where(eq(groups.id, g.id));
    return g.id;
  }

  async roleByName(tx: DbOrTx, projectId: number, name: string): Promise<number | undefined> {
    const [r] = await tx
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.projectId, projectId), sql`lower(${roles.name}) = lower(${name})`))
      .orderBy(asc(roles.id))
      .limit(1);
    return r?.id;
  }

  /**
   * The role the general settings give self-registered clients of this type
   * (`user_self_register_settings.clients[].role_id`), when it is still a role of the project.
   */
  async selfRegisterRole(tx: DbOrTx, projectId: number, type: string): Promise<number | undefined> {
    const [first] = await queryRows<{ id: number }>(
      tx,
      sql`
      SELECT r.id FROM ${projects} p
      CROSS JOIN LATERAL jsonb_array_elements(coalesce(p.settings->'user_self_register_settings'->'clients', '[]'::jsonb)) c
      JOIN ${roles} r ON r.project_id = p.id AND r.id = (c->>'role_id')::int
      WHERE p.id = ${projectId} AND c->>'type' = ${type} AND jsonb_typeof(c->'role_id') = 'number'
      LIMIT 1`,
    );
    return first ? Number(first.id) : undefined;
  }

  async createRole(tx: DbOrTx, v: { projectId: number; name: string; description: string; permissions: string[] }): Promise<number> {
    const [r] = await tx.insert(roles).values(v).returning({ id: roles.id });
    if (!r) throw new Error('role insert returned nothing');
    return r.id;
  }

  async loginTaken(db: DbOrTx, projectId: number, login: string): Promise<boolean> {
    const [u] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, projectId), sql`lower(${users.login}) = lower(${login})`))
      .limit(1);
    return !!u;
  }

  async emailTaken(db: DbOrTx, projectId: number, email: string): Promise<boolean> {
    const [u] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.projectId, projectId), sql`lower(${users.email}) = lower(${email})`))
      .limit(1);
    return !!u;
  }

  async createUser(
    tx: DbOrTx,
    v: {
      projectId: number;
      login: string;
      name: string;
      email: string | null;
      passwordHash: string;
      locale: string;
      roleId: number;
      groupId: number;
      profile: Record<string, unknown>;
      licenseInfo?: Record<string, unknown> | null;
    },
  ): Promise<number> {
    const { groupId, ...row } = v;
    const [u] = await tx
      .insert(users)
      .values({ ...row, activatedAt: sql`now()` })
      .returning({ id: users.id });
    if (!u) throw new Error('user insert returned nothing');
    await tx.insert(userGroups).values({ userId: u.id, groupId });
    return u.id;
  }

  async user(db: DbOrTx, userId: number): Promise<RegistrationUser | undefined> {
    const [u] = await db.select(userColumns).from(users).where(eq(users.id, userId));
    return u;
  }

  async userInProject(projectId: number, userId: number): Promise<RegistrationUser | undefined> {
    const [u] = await this.db
      .select(userColumns)
      .from(users)
      .where(and(eq(users.id, userId), eq(users.projectId, projectId)));
    return u;
  }

  /** Every account with this e-mail, in any project. */
  async usersByEmail(email: string): Promise<RegistrationUser[]> {
    return this.db.select(userColumns).from(users).where(sql`lower(${users.email}) = lower(${email})`).orderBy(asc(users.id));
  }

  /** Sets the password and marks the account activated (it proved it can read its mail). */
  async setPassword(tx: DbOrTx, userId: number, passwordHash: string): Promise<void> {
    await tx
      .update(users)
      .set({ passwordHash, activatedAt: sql`coalesce(${users.activatedAt}, now())`, updatedAt: sql`now()` })
      .where(eq(users.id, userId));
  }

  async markInvited(tx: DbOrTx, userId: number): Promise<void> {
    await tx.update(users).set({ isInvited: true, updatedAt: sql`now()` }).where(eq(users.id, userId));
  }

  async insertToken(
    db: DbOrTx,
    v: {
      tokenHash: string;
      kind: TokenKind;
      projectId: number;
      userId?: number | null;
      payload?: Record<string, unknown>;
      expiresAt: Date;
    },
  ): Promise<void> {
    await db.insert(userTokens).values(v);
  }

  /** A token row locked for the rest of the transaction, so it can be used only once. */
  async tokenForUpdate(tx: DbOrTx, tokenHash: string, kind: TokenKind): Promise<TokenRow | undefined> {
    const [row] = await tx
      .select()
      .from(userTokens)
      .where(and(eq(userTokens.tokenHash, tokenHash), eq(userTokens.kind, kind)))
      .for('update');
    return row;
  }

  async token(tokenHash: string, kind: TokenKind): Promise<TokenRow | undefined> {
    const [row] = await this.db
      .select()
      .from(userTokens)
      .where(and(eq(userTokens.tokenHash, tokenHash), eq(userTokens.kind, kind)));
    return row;
  }

  async markUsed(tx: DbOrTx, tokenHash: string): Promise<void> {
    await tx.update(userTokens).set({ usedAt: sql`now()` }).where(eq(userTokens.tokenHash, tokenHash));
  }

  async setPayload(tx: DbOrTx, tokenHash: string, payload: Record<string, unknown>): Promise<void> {
    await tx.update(userTokens).set({ payload }).where(eq(userTokens.tokenHash, tokenHash));
  }

  /** Invalidates the user's earlier tokens of one kind: only the newest link works. */
  async invalidateUserTokens(tx: DbOrTx, userId: number, kind: TokenKind): Promise<void> {
    await tx
      .update(userTokens)
      .set({ usedAt: sql`now()` })
      .where(and(eq(userTokens.userId, userId), eq(userTokens.kind, kind), isNull(userTokens.usedAt)));
  }

  /** Drops tokens that expired more than `graceSeconds` ago. */
  async purgeExpired(graceSeconds: number): Promise<void> {
    await this.db.delete(userTokens).where(lt(userTokens.expiresAt, sql`now() - make_interval(secs => ${graceSeconds})`));
  }
}
