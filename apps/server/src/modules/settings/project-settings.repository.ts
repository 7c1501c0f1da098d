import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { projects } from '../projects/projects.table.js';
import { roles } from '../roles/roles.table.js';

/** A project's row as the settings read it: name, description and the `settings` document. */
export interface StoredProject {
  id: number;
  name: string;
  description: string | null;
  settings: Record<string, unknown>;
}

/** The project settings document (projects.settings): read, locked for a change, merged. */
export class ProjectSettingsRepository {
  constructor(private readonly db: Db) {}

  async project(projectId: number, db: DbOrTx = this.db, forUpdate = false): Promise<StoredProject | undefined> {
    const query = db
      .select({ id: projects.id, name: projects.name, description: projects.description, settings: projects.settings })
      .from(projects)
      .where(eq(projects.id, projectId));
    const [row] = forUpdate ? await query.for('update') : await query;
    return row;
  }

  /** The server's first project: the one public calls (sign-in page, registration) and the SIP listeners follow. */
  async defaultProjectId(): Promise<number | null> {
    const [p] = await this.db.select({ id: projects.id }).from(projects).orderBy(asc(projects.id)).limit(1);
    return p?.id ?? null;
  }

  /** Sets top-level keys of the settings document (and the name or description) and removes `drop`. */
  async write(
    tx: DbOrTx,
    projectId: number,
    v: { set?: Record<string, unknown>; drop?: string[]; name?: string; description?: string | null },
  ): Promise<void> {
    let doc = sql`${projects.settings} || ${JSON.stringify(v.set ?? {})}::jsonb`;
    for (const key of v.drop ?? []) doc = sql`(${doc}) - ${key}::text`;
    await tx
      .update(projects)
      .set({
        settings: doc,
        ...(v.name !== undefined ? { name: v.name } : {}),
        ...(v.description !== undefined ? { description: v.description } : {}),
      })
      .where(eq(projects.id, projectId));
  }

  /** Which of these role ids are roles of the project. */
  async roleIds(projectId: number, ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await this.db
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.projectId, projectId), inArray(roles.id, ids)));
    return new Set(rows.map((r) => r.id));
  }
}
