import { UNLIMITED_PERIOD } from '@atrium/contract';
import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { projects, serverSettings } from '../projects/projects.table.js';
import { licenseNotices, licenses, licenseUsage } from './licenses.table.js';

export type LicenseRow = typeof licenses.$inferSelect;
export type LicenseUsageRow = typeof licenseUsage.$inferSelect;

/** What a project uses of its counted features, counted live. */
export interface UsageCounts {
  sip: number;
  mobileApp: number;
  ukey2: number;
}

export class LicensesRepository {
  constructor(readonly db: Db) {}

  transaction<T>(fn: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  rows(projectId: number, db: DbOrTx = this.db): Promise<LicenseRow[]> {
    return db.select().from(licenses).where(eq(licenses.projectId, projectId)).orderBy(asc(licenses.id));
  }

  async byId(projectId: number, id: number): Promise<LicenseRow | undefined> {
    const [row] = await this.db
      .select()
      .from(licenses)
      .where(and(eq(licenses.projectId, projectId), eq(licenses.id, id)));
    return row;
  }

  async insert(tx: DbOrTx, row: typeof licenses.$inferInsert): Promise<LicenseRow | undefined> {
    const [created] = await tx.insert(licenses).values(row).onConflictDoNothing().returning();
    return created;
  }

  async remove(tx: DbOrTx, projectId: number, id: number): Promise<LicenseRow | undefined> {
    const [gone] = await tx
      .delete(licenses)
      .where(and(eq(licenses.projectId, projectId), eq(licenses.id, id)))
      .returning();
    return gone;
  }

  async project(projectId: number): Promise<{ id: number; uid: string; name: string } | undefined> {
    const [p] = await this.db
      .select({ id: projects.id, uid: projects.uid, name: projects.name })
      .from(projects)
      .where(eq(projects.id, projectId));
    return p;
  }

  projectIds(): Promise<{ id: number }[]> {
    return this.db.select({ id: projects.id }).from(projects).orderBy(asc(projects.id));
  }

  /** The deployment's instance id, made by whichever instance asks first. */
  async instanceId(make: () => string): Promise<string> {
    await this.db.insert(serverSettings).values({ key: 'license_instance_id', value: make() }).onConflictDoNothing();
    const [row] = await this.db
      .select({ value: serverSettings.value })
      .from(serverSettings)
      .where(eq(serverSettings.key, 'license_instance_id'));
    return String(row?.value);
  }

  /**
   * SIP numbers, mobile apps (each user with the mobile app licence holds its count, one by default,
   * until its period ends) and UKEY2 keys of the project, as of `nowMs`.
   */
  async usage(projectId: number, db: DbOrTx = this.db, nowMs: number = Date.now()): Promise<UsageCounts> {
    const nowS = Math.floor(nowMs / 1000);
    const [row] = await queryRows<{ sip: number; mobile: number; ukey2: number }>(
      db,
      sql`SELECT (SELECT count(*)::int FROM sip_numbers WHERE project_id = ${projectId}) AS sip,
                 (SELECT coalesce(sum(coalesce((license_info -> 'mobile_app' ->> 'license_count')::int, 1)), 0)::int
                    FROM users WHERE project_id = ${projectId} AND (license_info -> 'mobile_app' ->> 'is_enabled')::boolean IS TRUE
                     AND coalesce((license_info -> 'mobile_app' -> 'period' ->> 'to')::bigint, ${UNLIMITED_PERIOD.to}) >= ${nowS}) AS mobile,
                 (SELECT count(*)::int FROM identifiers WHERE project_id = ${projectId} AND type = 'ukey2') AS ukey2`,
    );
    return { sip: Number(row?.sip ?? 0), mobileApp: Number(row?.mobile ?? 0), ukey2: Number(row?.ukey2 ?? 0) };
  }

  /** What the general settings give new users: the self-registration clients and the basic licence. */
  async newUserLicenseSettings(db: DbOrTx, projectId: number): Promise<{ clients: unknown; basic: unknown }> {
    const [row] = await queryRows<{ clients: unknown; basic: unknown }>(
      db,
      sql`SELECT settings -> 'user_self_register_settings' -> 'clients' AS clients,
                 settings -> 'license_settings' -> 'basic_license' AS basic
            FROM ${projects} WHERE id = ${projectId}`,
    );
    return { clients: row?.clients ?? null, basic: row?.basic ?? null };
  }

  /** Mobile apps in use: the project's registered mobile clients (issue 14). */
  async mobileClients(projectId: number): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      this.db,
      sql`SELECT count(*)::int AS n FROM mobile_clients WHERE project_id = ${projectId}`,
    );
    return Number(row?.n ?? 0);
  }

  async recordUsage(row: typeof licenseUsage.$inferInsert): Promise<void> {
    const { projectId: _p, day: _d, ...set } = row;
    await this.db
      .insert(licenseUsage)
      .values(row)
      .onConflictDoUpdate({ target: [licenseUsage.projectId, licenseUsage.day], set });
  }

  usageDays(projectId: number, from: string, to: string): Promise<LicenseUsageRow[]> {
    return this.db
      .select()
      .from(licenseUsage)
      .where(and(eq(licenseUsage.projectId, projectId), gte(licenseUsage.day, from), lte(licenseUsage.day, to)))
      .orderBy(asc(licenseUsage.day));
  }

  /** Keeps the project's licence features where the group consistency rules read them (groups module). */
  async setProjectLicense(projectId: number, info: Record<string, unknown> | null): Promise<void> {
    await this.db
      .update(projects)
      .set({ licenseInfo: info })
      .where(
        and(
          eq(projects.id, projectId),
          sql`${projects.licenseInfo} IS DISTINCT FROM ${info === null ? null : JSON.stringify(info)}::jsonb`,
        ),
      );
  }

  /** Groups of the project with their licence info, path and name (licence-period report, expiry notices). */
  licensedGroups(projectId: number, visible: ReturnType<typeof sql> = sql`TRUE`) {
    return queryRows<{ id: number; name: string; path: number[]; info: unknown }>(
      this.db,
      sql`SELECT g.id, g.name, g.path, g.license_info AS info FROM groups g
           WHERE g.project_id = ${projectId} AND (g.license_info ->> 'is_enabled')::boolean IS TRUE AND ${visible}
           ORDER BY g.name, g.id`,
    );
  }

  /**
   * Who hears of a licence ending: the project's users who may manage licences, and for a group's
   * licence also the users who may view that group's licences (their groups, or their groups and
   * below it).
   */
  async recipients(projectId: number, group: { id: number; path: number[] } | null): Promise<number[]> {
    const path = `{${group?.path.map((n) => Math.trunc(n)).join(',') ?? ''}}`;
    const rows = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT DISTINCT u.id FROM users u LEFT JOIN roles r ON r.id = u.role_id
           WHERE u.project_id = ${projectId} AND (
             r.is_builtin OR 'can_manage_licenses' = ANY(r.permissions)
             OR (${group !== null} AND (
               'can_view_all_domain_licenses' = ANY(r.permissions)
               OR ('can_view_descendant_domain_licenses' = ANY(r.permissions)
                   AND EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = u.id AND ug.group_id = ANY(${path}::int[])))
               OR ('can_view_self_domain_licenses' = ANY(r.permissions)
                   AND EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = u.id AND ug.group_id = ${group?.id ?? 0})))))
           ORDER BY u.id`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Claims the right to send the notice `subject` today: true for the one caller (of every
   * instance) that finds the last notice at least `everyDays` ago.
   */
  async claimNotice(projectId: number, subject: string, today: string, everyDays: number): Promise<boolean> {
    const rows = await this.db
      .insert(licenseNotices)
      .values({ projectId, subject, sentOn: today })
      .onConflictDoUpdate({
        target: [licenseNotices.projectId, licenseNotices.subject],
        set: { sentOn: today },
        setWhere: sql`${licenseNotices.sentOn} <= ${today}::date - ${everyDays}::int`,
      })
      .returning({ subject: licenseNotices.subject });
    return rows.length > 0;
  }
}
