import type { RegisterMobileClientBody } from '@atrium/contract';
import { and, asc, eq, sql } from 'drizzle-orm';
import { type Db, type DbOrTx, queryRows, type Tx } from '../../core/db/client.js';
import { mobileClients } from './mobile-clients.table.js';

export type MobileClientRow = typeof mobileClients.$inferSelect;

/** What a registration needs to know of the project and the user before it writes. */
export interface RegistrationContext {
  userLicense: unknown;
  sdk: { is_enabled?: boolean; api_key?: string | null } | null;
}

/** The only reader and writer of mobile clients. */
export class MobileClientsRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async context(projectId: number, userId: number): Promise<RegistrationContext> {
    const [r] = await queryRows<{ license: unknown; sdk: RegistrationContext['sdk'] }>(
      this.db,
      sql`SELECT (SELECT license_info FROM users WHERE id = ${userId} AND project_id = ${projectId}) AS license,
                 (SELECT settings -> 'mobile_sdk_settings' FROM projects WHERE id = ${projectId}) AS sdk`,
    );
    return { userLicense: r?.license ?? null, sdk: r?.sdk ?? null };
  }

  /**
   * The users whose mobile apps use `number` as their SIP number, in the project of the call record
   * `callId`, with their stored licence info.
   */
  async appUsersOfNumber(callId: string, number: string): Promise<{ projectId: number; userId: number; license: unknown }[]> {
    const rows = await queryRows<{ project_id: number; user_id: number; license: unknown }>(
      this.db,
      sql`SELECT DISTINCT c.project_id, mc.user_id, u.license_info AS license
        FROM call_records c
        JOIN mobile_clients mc ON mc.project_id = c.project_id AND mc.sip_number = ${number}
        JOIN users u ON u.id = mc.user_id
        WHERE c.id = ${callId}`,
    );
    return rows.map((r) => ({ projectId: Number(r.project_id), userId: Number(r.user_id), license: r.license }));
  }

  /** Which user holds the install in the project now, and its secret's hash, if any; locked to the end of the write. */
  async holder(
    projectId: number,
    mobileClientId: string,
    db: DbOrTx = this.db,
  ): Promise<{ userId: number; secretHash: string | null } | null> {
    const [r] = await db
      .select({ userId: mobileClients.userId, secretHash: mobileClients.clientSecretHash })
      .from(mobileClients)
      .where(and(eq(mobileClients.projectId, projectId), eq(mobileClients.mobileClientId, mobileClientId)))
      .for('update');
    return r ?? null;
  }

  /**
   * Registers the install for the user (again): new, or the same mobile_client_id updated, moved to
   * this user if `from` held it (the caller proved it holds the phone), its auth_at now. An absent
   * field keeps its stored value; `secretHash` replaces the stored one when given. The update applies
   * only while the row is still the user's or `from`'s: an install another user took meanwhile is not
   * moved (undefined then). A push token belongs to one install: another client of the project
   * holding it loses it (the install was reset or is now signed in as someone else), so nobody's
   * pushes reach another's phone.
   */
  async upsert(
    tx: DbOrTx,
    projectId: number,
    userId: number,
    b: RegisterMobileClientBody,
    isSdk: boolean,
    secretHash: string | undefined,
    from: number | null,
  ): Promise<MobileClientRow | undefined> {
    const keep = <T>(v: T | undefined, column: string) =>
      v === undefined ? sql.raw(`mobile_clients.${column}`) : sql`excluded.${sql.raw(column)}`;
    const [row] = await tx
      .insert(mobileClients)
      .values({
        projectId,
        userId,
        mobileClientId: b.mobile_client_id,
        platform: b.platform,
        info: b.info ?? null,
        vendorId: b.vendor_id ?? null,
        pushToken: b.push_token ?? null,
        sipNumber: b.sip_number ?? null,
        ukey2: b.ukey2 ?? null,
        isSdk,
        clientSecretHash: secretHash ?? null,
      })
      .onConflictDoUpdate({
        target: [mobileClients.projectId, mobileClients.mobileClientId],
        set: {
          userId: sql`excluded.user_id`,
          platform: sql`excluded.platform`,
          isSdk: sql`excluded.is_sdk`,
          info: keep(b.info, 'info'),
          vendorId: keep(b.vendor_id, 'vendor_id'),
          pushToken: keep(b.push_token, 'push_token'),
          sipNumber: keep(b.sip_number, 'sip_number'),
          ukey2: keep(b.ukey2, 'ukey2'),
          clientSecretHash: keep(secretHash, 'client_secret_hash'),
          authAt: sql`now()`,
          updatedAt: sql`now()`,
        },
        setWhere:
          from === null || from === userId ? sql`mobile_clients.user_id = ${userId}` : sql`mobile_clients.user_id IN (${userId}, ${from})`,
      })
      .returning();
    if (!row) return undefined;
    if (row.pushToken !== null) {
      await tx.execute(sql`UPDATE mobile_clients SET push_token = NULL, updated_at = now()
        WHERE project_id = ${projectId} AND push_token = ${row.pushToken} AND id <> ${row.id}`);
    }
    return row;
  }

  ofUser(projectId: number, userId: number): Promise<MobileClientRow[]> {
    return this.db
      .select()
      .from(mobileClients)
      .where(and(eq(mobileClients.projectId, projectId), eq(mobileClients.userId, userId)))
      .orderBy(asc(mobileClients.id));
  }

  async find(projectId: number, userId: number, id: number): Promise<MobileClientRow | undefined> {
    const [r] = await this.db
      .select()
      .from(mobileClients)
      .where(and(eq(mobileClients.projectId, projectId), eq(mobileClients.userId, userId), eq(mobileClients.id, id)));
    return r;
  }

  async remove(tx: DbOrTx, projectId: number, userId: number, id: number): Promise<MobileClientRow | undefined> {
    const [r] = await tx
      .delete(mobileClients)
      .where(and(eq(mobileClients.projectId, projectId), eq(mobileClients.userId, userId), eq(mobileClients.id, id)))
      .returning();
    return r;
  }

  /** Apps of the project, of the user, and of each group with its own mobile-app count (its users' and those below), inside the write. */
  async counts(
    tx: DbOrTx,
    projectId: number,
    userId: number,
  ): Promise<{ project: number; user: number; groups: { id: number; name: string; max: number; used: number }[] }> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('atrium.mobile_app'), ${projectId})`);
    const [c] = await queryRows<{ project: number; user: number }>(
      tx,
      sql`SELECT (SELECT count(*)::int FROM mobile_clients WHERE project_id = ${projectId}) AS project,
                 (SELECT count(*)::int FROM mobile_clients WHERE user_id = ${userId}) AS user`,
    );
    const groups = await queryRows<{ id: number; name: string; max: number; used: number }>(
      tx,
      sql`SELECT g.id, g.name, (g.license_info -> 'mobile_app' ->> 'license_count')::int AS max,
            (SELECT count(DISTINCT mc.id)::int FROM mobile_clients mc
               JOIN user_groups ug ON ug.user_id = mc.user_id
               JOIN groups d ON d.id = ug.group_id AND d.path && ARRAY[g.id]
              WHERE mc.project_id = g.project_id) AS used
          FROM groups g
         WHERE g.project_id = ${projectId} AND jsonb_typeof(g.license_info -> 'mobile_app' -> 'license_count') = 'number'
           AND EXISTS (SELECT 1 FROM user_groups ug JOIN groups ud ON ud.id = ug.group_id
                        WHERE ug.user_id = ${userId} AND ud.path && ARRAY[g.id])`,
    );
    return {
      project: Number(c?.project ?? 0),
      user: Number(c?.user ?? 0),
      groups: groups.map((g) => ({ id: Number(g.id), name: g.name, max: Number(g.max), used: Number(g.used) })),
    };
  }
}
