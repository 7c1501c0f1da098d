import { and, eq, isNull, sql } from 'drizzle-orm';
import { AttemptCounter } from '../../core/attempts.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';
import { userGroups, users } from '../users/users.table.js';
import { refreshTokens } from './auth.table.js';

export interface LoginCandidate {
  userId: number;
  passwordHash: string | null;
  project: { id: number; uid: string; name: string };
}

export interface ActorRow {
  userId: number;
  projectId: number;
  login: string;
  roleId: number | null;
  permissions: string[] | null;
  isBuiltin: boolean | null;
  groupIds: number[];
}

export class AuthRepository {
  /** Failed sign-ins per address and per login (core/attempts.ts). */
  readonly attempts: AttemptCounter;

  constructor(private readonly db: Db) {
    this.attempts = new AttemptCounter(db);
    this.actorQuery = actorStatement(db);
  }

  /** Every user with this login, one per project it belongs to. */
  async candidatesByLogin(login: string): Promise<LoginCandidate[]> {
    const rows = await this.db
      .select({ userId: users.id, passwordHash: users.passwordHash, id: projects.id, uid: projects.uid, name: projects.name })
      .from(users)
      .innerJoin(projects, eq(projects.id, users.projectId))
      .where(sql`lower(${users.login}) = lower(${login})`)
      .orderBy(projects.id);
    return rows.map((r) => ({ userId: r.userId, passwordHash: r.passwordHash, project: { id: r.id, uid: r.uid, name: r.name } }));
  }

  async project(projectId: number) {
    const [p] = await this.db
      .select({ id: projects.id, uid: projects.uid, name: projects.name })
      .from(projects)
      .where(eq(projects.id, projectId));
    return p;
  }

  /**
   * Runs on every signed-in request, so it is a prepared statement: parsed and planned once per
   * connection instead of on each call.
   */
  private readonly actorQuery: ReturnType<typeof actorStatement>;

  /**
   * The caller of an access token, only while its sign-in (`sessionId`, the refresh token family)
   * is live: a signed-out, reset or reused sign-in refuses its access tokens at once, not when they
   * expire. A token without a sign-in (none is issued so) is judged by its signature and expiry alone.
   */
  async actor(userId: number, projectId: number, sessionId?: string): Promise<ActorRow | undefined> {
    const [row] = await this.actorQuery.execute({ userId, projectId, sessionId: sessionId ?? '' });
    return row;
  }

  async projectOfUser(db: DbOrTx, userId: number): Promise<number | undefined> {
    const [u] = await db.select({ projectId: users.projectId }).from(users).where(eq(users.id, userId));
    return u?.projectId;
  }

  async markActivated(userId: number): Promise<void> {
    await this.db
      .update(users)
      .set({ activatedAt: sql`now()` })
      .where(and(eq(users.id, userId), isNull(users.activatedAt)));
  }

  async insertRefresh(db: DbOrTx, row: { tokenHash: string; userId: number; familyId: string; expiresAt: Date }): Promise<void> {
    await db.insert(refreshTokens).values(row);
  }

  /** Locks the refresh token row so two concurrent rotations cannot both succeed. */
  async refreshForUpdate(db: DbOrTx, tokenHash: string) {
    const rows = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).for('update');
    return rows[0];
  }

  async markRotated(db: DbOrTx, tokenHash: string): Promise<void> {
    await db.update(refreshTokens).set({ rotatedAt: sql`now()` }).where(eq(refreshTokens.tokenHash, tokenHash));
  }
}

function actorStatement(db: Db) {
  return db
    .select({
      userId: users.id,
      projectId: users.projectId,
      login: users.login,
      roleId: users.roleId,
      // The built-in role holds every permission: its list is not sent or parsed on every request.
      permissions: sql<string[] | null>`CASE WHEN ${roles.isBuiltin} THEN NULL ELSE ${roles.permissions} END`,
      isBuiltin: roles.isBuiltin,
      groupIds: sql<
        number[]
      >`coalesce((SELECT array_agg(ug.group_id ORDER BY ug.group_id) FROM ${userGroups} ug WHERE ug.user_id = ${users.id}), '{}')`,
    })
    .from(users)
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(
      and(
        eq(users.id, sql.placeholder('userId')),
        eq(users.projectId, sql.placeholder('projectId')),
        sql`(${sql.placeholder('sessionId')}::text = '' OR EXISTS (SELECT 1 FROM ${refreshTokens} rt
          WHERE rt.family_id = ${sql.placeholder('sessionId')}::text AND rt.user_id = ${users.id}
            AND rt.revoked_at IS NULL AND rt.expires_at > now()))`,
      ),
    )
    .prepare('atrium_actor');
}
