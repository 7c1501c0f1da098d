import { and, eq, type SQL, sql } from 'drizzle-orm';
import { intArray } from '../../core/acl.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import type { BackupTable } from './backups.catalog.js';
import { backups } from './backups.table.js';

/** What the database says of a table: its columns (in order), primary key and single-column foreign keys. */
export interface TableShape {
  columns: string[];
  primaryKey: string[];
  /** column → referenced table */
  references: Map<string, string>;
  hasProjectId: boolean;
}

const ident = (name: string): SQL => {
  // Names come from BACKUP_CATALOG and the database's own catalogue; the check keeps it that way.
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an identifier: ${name}`);
  return sql.raw(`"${name}"`);
};
const list = (names: readonly string[]): SQL => sql.join(names.map(ident), sql`, `);

/** The project's rows of a table, as a condition on the table (aliased `t`). */
function scopeSql(table: BackupTable, projectId: number): SQL {
  if ('projectColumn' in table.scope) return sql`t.project_id = ${projectId}`;
  return sql`t.${ident(table.scope.column)} IN (SELECT p.id FROM ${ident(table.scope.parent)} p WHERE p.project_id = ${projectId})`;
}

const rowsParam = (rows: string): SQL => sql`${rows}::jsonb`;
/** A bound text[] of table names (each a plain identifier, so no quoting is needed). */
const textArray = (names: readonly string[]): SQL => sql`${`{${names.join(',')}}`}::text[]`;

/**
 * Backups' database work: the backups list itself, and reading and writing whole tables of a
 * project as JSON, by the database's own row conversions (`to_jsonb`, `jsonb_populate_recordset`) so
 * every column type survives the trip exactly.
 */
export class BackupsRepository {
  constructor(private readonly db: Db) {}

  // --- the backups list -------------------------------------------------------------------------

  async insert(v: typeof backups.$inferInsert): Promise<number> {
    const [r] = await this.db.insert(backups).values(v).returning({ id: backups.id });
    return r!.id;
  }

  async find(projectId: number, id: number) {
    const [r] = await this.db
      .select()
      .from(backups)
      .where(and(eq(backups.projectId, projectId), eq(backups.id, id)));
    return r;
  }

  async byIds(ids: readonly number[]) {
    return this.db
      .select()
      .from(backups)
      .where(sql`${backups.id} = ANY(${intArray(ids)})`);
  }

  async remove(id: number): Promise<void> {
    await this.db.delete(backups).where(eq(backups.id, id));
  }

  async markApplied(tx: DbOrTx, id: number): Promise<void> {
    await tx.update(backups).set({ appliedAt: new Date() }).where(eq(backups.id, id));
  }

  // --- tables -----------------------------------------------------------------------------------

  /** The shapes of these tables, from the database's catalogue. */
  async shapes(db: DbOrTx, tables: readonly string[]): Promise<Map<string, TableShape>> {
    const cols = await queryRows<{ table_name: string; column_name: string }>(
      db,
      sql`SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ANY(${textArray(tables)})
          ORDER BY table_name, ordinal_position`,
    );
    const pks = await queryRows<{ table_name: string; column_name: string }>(
      db,
      sql`SELECT c.relname AS table_name, a.attname AS column_name
          FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
          WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(${textArray(tables)})
          ORDER BY c.relname, a.attnum`,
    );
    const fks = await queryRows<{ table_name: string; column_name: string; target: string }>(
      db,
      sql`SELECT c.relname AS table_name, a.attname AS column_name, r.relname AS target
          FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
          JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
          WHERE k.contype = 'f' AND array_length(k.conkey, 1) = 1 AND c.relnamespace = current_schema()::regnamespace
            AND c.relname = ANY(${textArray(tables)})`,
    );
    const out = new Map<string, TableShape>();
    for (const t of tables) out.set(t, { columns: [], primaryKey: [], references: new Map(), hasProjectId: false });
    for (const c of cols) out.get(c.table_name)?.columns.push(c.column_name);
    for (const p of pks) out.get(p.table_name)?.primaryKey.push(p.column_name);
    for (const f of fks) out.get(f.table_name)?.references.set(f.column_name, f.target);
    for (const s of out.values()) s.hasProjectId = s.columns.includes('project_id');
    return out;
  }

  /** The project's rows of a table as JSON text, ordered by the primary key. */
  async dump(db: DbOrTx, table: BackupTable, shape: TableShape, projectId: number): Promise<{ json: string; rows: number }> {
    const [r] = await queryRows<{ json: string; rows: number }>(
      db,
      sql`SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY ${list(shape.primaryKey)}), '[]'::jsonb)::text AS json, count(*)::int AS rows
          FROM ${ident(table.name)} t WHERE ${scopeSql(table, projectId)}`,
    );
    return r!;
  }

  /** Rows of the backup whose id belongs to another project's row of the same table. */
  async foreignIds(tx: DbOrTx, table: string, rows: string, projectId: number): Promise<number> {
    const [r] = await queryRows<{ n: number }>(
      tx,
      sql`SELECT count(*)::int AS n FROM ${ident(table)} t
          JOIN jsonb_populate_recordset(NULL::${ident(table)}, ${rowsParam(rows)}) r ON r.id = t.id
          WHERE t.project_id <> ${projectId}`,
    );
    return r!.n;
  }

  /** Rows of the backup that point (by `column`) at a row of another project in `target`. */
  async foreignReferences(tx: DbOrTx, table: string, column: string, target: string, rows: string, projectId: number): Promise<number> {
    const [r] = await queryRows<{ n: number }>(
      tx,
      sql`SELECT count(*)::int AS n FROM jsonb_populate_recordset(NULL::${ident(table)}, ${rowsParam(rows)}) r
          JOIN ${ident(target)} x ON x.id = r.${ident(column)}
          WHERE x.project_id <> ${projectId}`,
    );
    return r!.n;
  }

  /** Removes the project's rows of a table that the backup does not hold; answers how many went. */
  async deleteMissing(tx: DbOrTx, table: BackupTable, shape: TableShape, rows: string, projectId: number): Promise<number> {
    const pk = list(shape.primaryKey);
    const gone = await queryRows<{ n: number }>(
      tx,
      sql`WITH d AS (DELETE FROM ${ident(table.name)} t WHERE ${scopeSql(table, projectId)}
            AND (${sql.join(
              shape.primaryKey.map((c) => sql`t.${ident(c)}`),
              sql`, `,
            )}) NOT IN (SELECT ${pk} FROM jsonb_populate_recordset(NULL::${ident(table.name)}, ${rowsParam(rows)}))
          RETURNING 1) SELECT count(*)::int AS n FROM d`,
    );
    return gone[0]!.n;
  }

  /**
   * Writes the backup's rows: new ones inserted with their ids, existing ones brought back to the
   * backup's values. Only `columns` (the backup's, all known to the table) are written; deferred
   * columns are left empty here and set by {@link setDeferred}.
   */
  async upsert(tx: DbOrTx, table: BackupTable, shape: TableShape, columns: readonly string[], rows: string): Promise<void> {
    const deferred = new Set(table.deferred ?? []);
    const values = sql.join(
      columns.map((c) => (deferred.has(c) ? sql`NULL` : sql`r.${ident(c)}`)),
      sql`, `,
    );
    const rest = columns.filter((c) => !shape.primaryKey.includes(c));
    const onConflict = rest.length
      ? sql`DO UPDATE SET ${sql.join(
          rest.map((c) => sql`${ident(c)} = EXCLUDED.${ident(c)}`),
          sql`, `,
        )}`
      : sql`DO NOTHING`;
    await tx.execute(
      sql`INSERT INTO ${ident(table.name)} (${list(columns)})
          SELECT ${values} FROM jsonb_populate_recordset(NULL::${ident(table.name)}, ${rowsParam(rows)}) r
          ON CONFLICT (${list(shape.primaryKey)}) ${onConflict}`,
    );
  }

  async setDeferred(tx: DbOrTx, table: BackupTable, shape: TableShape, columns: readonly string[], rows: string): Promise<void> {
    const cols = (table.deferred ?? []).filter((c) => columns.includes(c));
    if (!cols.length) return;
    await tx.execute(
      sql`UPDATE ${ident(table.name)} t SET ${sql.join(
        cols.map((c) => sql`${ident(c)} = r.${ident(c)}`),
        sql`, `,
      )}
          FROM jsonb_populate_recordset(NULL::${ident(table.name)}, ${rowsParam(rows)}) r
          WHERE ${sql.join(
            shape.primaryKey.map((c) => sql`t.${ident(c)} = r.${ident(c)}`),
            sql` AND `,
          )}`,
    );
  }

  /** Moves a table's id sequence past the ids the backup brought back. */
  async advanceSequence(tx: DbOrTx, table: string): Promise<void> {
    const [s] = await queryRows<{ seq: string | null }>(tx, sql`SELECT pg_get_serial_sequence(${table}, 'id') AS seq`);
    if (!s?.seq || !/^[a-z_][a-z0-9_.]*$/.test(s.seq)) return;
    await tx.execute(
      sql`SELECT setval(${s.seq}::regclass, m) FROM (SELECT max(id) AS m FROM ${ident(table)}) q
          WHERE m IS NOT NULL AND m > (SELECT last_value FROM ${sql.raw(s.seq)})`,
    );
  }

  /** The file key columns of the project's rows of a table, by row id. */
  async fileKeys(tx: DbOrTx, table: string, columns: readonly string[], projectId: number): Promise<Map<number, Record<string, unknown>>> {
    const rows = await queryRows<Record<string, unknown> & { id: number }>(
      tx,
      sql`SELECT id, ${list(columns)} FROM ${ident(table)} WHERE project_id = ${projectId}`,
    );
    return new Map(rows.map((r) => [Number(r.id), r]));
  }

  /** Every device of the project. */
  async deviceIds(tx: DbOrTx, projectId: number): Promise<number[]> {
    const rows = await queryRows<{ id: number }>(tx, sql`SELECT id FROM devices WHERE project_id = ${projectId} ORDER BY id`);
    return rows.map((r) => Number(r.id));
  }

  /** The project's uid and name. */
  async project(projectId: number): Promise<{ uid: string; name: string } | undefined> {
    const [p] = await queryRows<{ uid: string; name: string }>(this.db, sql`SELECT uid, name FROM projects WHERE id = ${projectId}`);
    return p;
  }
}
