import { sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from '../../core/db/client.js';
import { AppError } from '../../core/errors.js';

/**
 * UKEY2 keys are counted against the UKEY2 licence (spec entities §2, §8): the project's count from the
 * server licence, and each group's own count (its licence info) for the keys owned by its users and
 * those of the groups below it. Called inside the transaction that adds or changes UKEY2 keys, after
 * the write: a breach rolls the whole write back. Writers of one project take turns on an advisory
 * lock, so two imports cannot both squeeze under the limit.
 */
export interface Ukey2License {
  /** UKEY2 is licensed on this server. */
  enabled: boolean;
  /** Keys the project may hold; null: no limit. */
  count: number | null;
}

export async function assertUkey2WithinLicense(tx: DbOrTx, projectId: number, license: Ukey2License): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('atrium.ukey2'), ${projectId})`);
  const [project] = await queryRows<{ used: number }>(
    tx,
    sql`SELECT count(*)::int AS used FROM identifiers WHERE project_id = ${projectId} AND type = 'ukey2'`,
  );
  const used = Number(project?.used ?? 0);
  if (used > 0 && !license.enabled) throw new AppError('ukey2_not_licensed', [{ field: 'type', message: 'ukey2 is not licensed' }]);
  if (license.count !== null && used > license.count) {
    const message = 'exceeding the maximum ukey2 in the project';
    throw new AppError('ukey2_limit_project', [{ field: 'type', message, params: { max_count: license.count, used } }]);
  }
  // Groups with their own UKEY2 count, and how many keys their users (theirs and below) hold.
  const over = await queryRows<{ id: number; name: string; max: number; used: number }>(
    tx,
    sql`SELECT g.id, g.name, (g.license_info -> 'ukey2' ->> 'license_count')::int AS max,
          (SELECT count(DISTINCT i.id)::int FROM identifiers i
             JOIN user_groups ug ON ug.user_id = i.owner_id
             JOIN groups d ON d.id = ug.group_id AND d.path && ARRAY[g.id]
            WHERE i.project_id = g.project_id AND i.type = 'ukey2') AS used
        FROM groups g
       WHERE g.project_id = ${projectId} AND jsonb_typeof(g.license_info -> 'ukey2' -> 'license_count') = 'number'`,
  );
  const breach = over.find((g) => Number(g.used) > Number(g.max));
  if (breach) {
    const message = 'exceeding the maximum ukey2 in the group';
    const params = { domain_id: breach.id, domain: breach.name, max_count: Number(breach.max), used: Number(breach.used) };
    throw new AppError('ukey2_limit_group', [{ field: 'owner_id', message, params }]);
  }
}
