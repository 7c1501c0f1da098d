import {
  BACKUP_ENTITIES,
  BACKUP_FILE_KEY,
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BACKUP_LIMITS,
  type Backup,
  type BackupApplyResult,
  type BackupEntity,
  type BackupListQuery,
  type BulkDeleteResult,
  type ListMeta,
  type MakeBackupBody,
} from '@atrium/contract';
import { and, eq, sql } from 'drizzle-orm';
import { qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db, Tx } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import type { FileStore } from '../../core/files.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import { type BackupSigner, invalidBackup, type ReadArchive, readArchive, writeArchive } from './backups.archive.js';
import { BACKUP_CATALOG, type BackupTable } from './backups.catalog.js';
import { BackupsRepository, type TableShape } from './backups.repository.js';
import { backups } from './backups.table.js';

/** What devices hold follows from these entities: restoring any of them queues a full sync of the project's devices. */
export const DEVICE_SYNC_ENTITIES: readonly BackupEntity[] = ['groups', 'users', 'devices', 'identifiers', 'time_rules', 'access_rules'];

/** How a restore reaches the devices (modules/access and modules/devices): queued in its transaction, sent after. */
export interface DeviceSyncHooks {
  queueFullSync?: (tx: Tx, actor: Actor, deviceIds: number[]) => Promise<number>;
  dispatch?: () => Promise<void>;
}

/** Spec entities §6: backups create, delete, view, apply, apply from file, download. */
export const BACKUP_PERMISSIONS = {
  create: 'can_create_backups',
  delete: 'can_delete_backups',
  view: 'can_view_backups',
  apply: 'can_apply_backups',
  applyFile: 'can_apply_backups_from_file',
  download: 'can_download_backups',
} as const;

const B = qualifiedColumns(backups);

export const BACKUP_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${B.id}`, type: 'number' },
    name: { expr: sql`${B.name}`, type: 'text' },
    size: { expr: sql`${B.size}`, type: 'number' },
    created_at: { expr: sql`${B.createdAt}`, type: 'date' },
    applied_at: { expr: sql`${B.appliedAt}`, type: 'date' },
  },
  defaultSort: '-created_at',
  tiebreak: sql`${B.id} DESC`,
};

const iso = (d: Date | string | null): string | null => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());

/** The tables of these entities, in restore order (parents first). */
const tablesOf = (entities: readonly BackupEntity[]): { entity: BackupEntity; table: BackupTable }[] =>
  BACKUP_ENTITIES.filter((e) => entities.includes(e)).flatMap((entity) => BACKUP_CATALOG[entity].map((table) => ({ entity, table })));

interface PgError {
  code?: string;
  message?: string;
  table?: string;
  detail?: string;
}
const pgError = (e: unknown): PgError => {
  const err = e as { cause?: unknown; code?: string };
  return (err && typeof err === 'object' && err.cause && typeof err.cause === 'object' ? err.cause : err) as PgError;
};

/** A foreign key refused the change (23503), or its RESTRICT rule did (23001). */
const isReferenceError = (e: unknown): boolean => ['23503', '23001'].includes(pgError(e).code ?? '');

type Row = Record<string, unknown>;

/**
 * Backups (issue 14): a zip of the chosen entities of a project, stored in the file store. Applying
 * one is all or nothing, in one transaction: every chosen table gets exactly the backup's rows back
 * (same ids and values), and the project's rows that are not in the backup are removed. See
 * docs/decisions.md, "Backups", for what is kept, what references must hold, and why.
 */
export class BackupsService {
  private readonly repo: BackupsRepository;

  constructor(
    private readonly db: Db,
    private readonly files: FileStore,
    /** Signs what this server makes and checks what it is given (backups.archive.ts). */
    readonly signer: BackupSigner,
    private readonly devices: DeviceSyncHooks = {},
  ) {
    this.repo = new BackupsRepository(db);
  }

  private assert(actor: Actor, permission: string): void {
    if (!actor.permissions.has(permission)) throw prohibited([{ permission }]);
  }

  private toBackup(r: typeof backups.$inferSelect): Backup {
    return {
      id: r.id,
      name: r.name,
      entities: r.entities.filter((e): e is BackupEntity => (BACKUP_ENTITIES as readonly string[]).includes(e)),
      size: r.size,
      counts: r.counts,
      created_by: r.createdBy,
      created_at: iso(r.createdAt) as string,
      applied_at: iso(r.appliedAt),
    };
  }

  async list(actor: Actor, q: BackupListQuery): Promise<{ data: Backup[]; meta: ListMeta }> {
    this.assert(actor, BACKUP_PERMISSIONS.view);
    const where = and(
      eq(backups.projectId, actor.projectId),
      filtersSql(BACKUP_LIST, q),
      q.search ? sql`${B.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: backups, id: sql`${B.id}`, where, spec: BACKUP_LIST, query: q });
    const rows = page.ids.length ? await this.repo.byIds(page.ids) : [];
    return {
      data: inPageOrder(page.ids, rows).map((r) => this.toBackup(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  private async find(actor: Actor, id: number) {
    const r = await this.repo.find(actor.projectId, id);
    if (!r) throw notFound();
    return r;
  }

  async get(actor: Actor, id: number): Promise<Backup> {
    this.assert(actor, BACKUP_PERMISSIONS.view);
    return this.toBackup(await this.find(actor, id));
  }

  /** Makes a backup of the chosen entities as they are at one moment (one repeatable-read snapshot). */
  async make(ctx: RequestContext, body: MakeBackupBody): Promise<Backup> {
    this.assert(ctx.actor, BACKUP_PERMISSIONS.create);
    const projectId = ctx.actor.projectId;
    const project = await this.repo.project(projectId);
    if (!project) throw notFound();
    const entities = BACKUP_ENTITIES.filter((e) => body.entities.includes(e));
    const chosen = tablesOf(entities);
    const createdAt = new Date();
    const dumped = await this.db.transaction(
      async (tx) => {
        const shapes = await this.repo.shapes(
          tx,
          chosen.map((c) => c.table.name),
        );
        const out: { name: string; columns: string[]; json: string; rows: number; entity: BackupEntity; main: boolean }[] = [];
        for (const { entity, table } of chosen) {
          const shape = shapes.get(table.name)!;
          const d = await this.repo.dump(tx, table, shape, projectId);
          out.push({
            name: table.name,
            columns: shape.columns,
            json: d.json,
            rows: d.rows,
            entity,
            main: BACKUP_CATALOG[entity][0] === table,
          });
        }
        return out;
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    // The files the rows name, read once each; one missing from the store is left out (the row keeps its key).
    const files: { key: string; data: Buffer }[] = [];
    const seen = new Set<string>();
    for (const { table } of chosen) {
      const d = dumped.find((x) => x.name === table.name)!;
      if (!table.files?.length || !d.rows) continue;
      for (const row of JSON.parse(d.json) as Row[]) {
        for (const col of table.files) {
          const key = row[col];
          if (typeof key !== 'string' || seen.has(key) || !BACKUP_FILE_KEY.test(key)) continue;
          seen.add(key);
          const data = await this.files.find(key);
          if (data) files.push({ key, data });
        }
      }
    }
    const expanded = dumped.reduce((n, d) => n + Buffer.byteLength(d.json), 0) + files.reduce((n, f) => n + f.data.length, 0);
    if (expanded > BACKUP_LIMITS.maxExpandedBytes - 1024 * 1024) {
      throw new AppError('cannot_perform_action', [
        { message: 'the backup would be larger than {max} MB', params: { max: Math.round(BACKUP_LIMITS.maxExpandedBytes / 1048576) } },
      ]);
    }
    const zip = await writeArchive(
      {
        format: BACKUP_FORMAT,
        version: BACKUP_FORMAT_VERSION,
        project_uid: project.uid,
        name: body.name,
        entities,
        created_at: createdAt.toISOString(),
      },
      dumped,
      files,
      this.signer,
    );
    const counts = Object.fromEntries(dumped.filter((d) => d.main).map((d) => [d.entity, d.rows]));
    const fileKey = await this.files.put(`backups/${projectId}`, 'zip', zip);
    try {
      const id = await this.db.transaction(async (tx) => {
        const [r] = await tx
          .insert(backups)
          .values({ projectId, name: body.name, entities, fileKey, size: zip.length, counts, createdBy: ctx.actor.userId, createdAt })
          .returning({ id: backups.id });
        await recordAudit(tx, ctx, { entity: 'backup', entityId: r!.id, action: 'create', after: { name: body.name, entities, counts } });
        return r!.id;
      });
      return this.toBackup((await this.repo.find(projectId, id))!);
    } catch (e) {
      await this.files.remove(fileKey);
      throw e;
    }
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    this.assert(ctx.actor, BACKUP_PERMISSIONS.delete);
    const b = await this.find(ctx.actor, id);
    await this.db.transaction(async (tx) => {
      await tx.delete(backups).where(eq(backups.id, id));
      await recordAudit(tx, ctx, { entity: 'backup', entityId: id, action: 'delete', before: this.toBackup(b) });
    });
    await this.files.remove(b.fileKey);
  }

  async bulkDelete(ctx: RequestContext, items: readonly number[]): Promise<BulkDeleteResult> {
    this.assert(ctx.actor, BACKUP_PERMISSIONS.delete);
    return bulkDelete(items, (id) => this.delete(ctx, id));
  }

  /** The stored zip and a file name for it. */
  async download(actor: Actor, id: number): Promise<{ fileName: string; data: Buffer }> {
    this.assert(actor, BACKUP_PERMISSIONS.download);
    const b = await this.find(actor, id);
    const data = await this.files.get(b.fileKey);
    const safe = b.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'backup';
    return { fileName: `atrium-backup-${b.id}-${safe}.zip`, data };
  }

  /** Applies a stored backup. */
  async apply(ctx: RequestContext, id: number): Promise<BackupApplyResult> {
    this.assert(ctx.actor, BACKUP_PERMISSIONS.apply);
    const b = await this.find(ctx.actor, id);
    const archive = await readArchive(await this.files.get(b.fileKey));
    return this.restore(ctx, archive, { backupId: b.id });
  }

  /**
   * Applies a backup file uploaded by the caller (for example one downloaded earlier). A file this
   * server did not sign (edited, made before signatures, or by a server with another key) is refused
   * unless the caller accepts it on purpose; then the answer and the audit log say it was unverified.
   */
  async applyFile(ctx: RequestContext, file: Buffer, opts: { acceptUnsigned?: boolean } = {}): Promise<BackupApplyResult> {
    this.assert(ctx.actor, BACKUP_PERMISSIONS.applyFile);
    return this.restore(ctx, await readArchive(file), { acceptUnsigned: opts.acceptUnsigned === true });
  }

  /**
   * Checks an archive against this project and the database, then writes it in one transaction.
   * A file of another project, another format version, with unknown tables or columns, rows of
   * another project or references into another project is refused as an invalid backup image
   * before anything is written.
   */
  private async restore(
    ctx: RequestContext,
    archive: ReadArchive,
    source: { backupId?: number; acceptUnsigned?: boolean },
  ): Promise<BackupApplyResult> {
    const { manifest } = archive;
    const verified = this.signer.verify(archive.manifestBytes, archive.signature);
    if (!verified && !source.acceptUnsigned)
      throw invalidBackup(
        archive.signature === null
          ? 'the backup is not signed by this server'
          : 'the backup signature does not match: it was changed, or made by another server',
      );
    const projectId = ctx.actor.projectId;
    const project = await this.repo.project(projectId);
    if (!project) throw notFound();
    if (manifest.version !== BACKUP_FORMAT_VERSION) throw invalidBackup('the backup was made by another version of Atrium');
    if (manifest.project_uid !== project.uid) throw invalidBackup('the backup belongs to another project');
    const entities = BACKUP_ENTITIES.filter((e) => manifest.entities.includes(e));
    const chosen = tablesOf(entities);
    const expected = chosen.map((c) => c.table.name);
    const named = Object.keys(manifest.tables);
    if (named.length !== expected.length || !expected.every((t) => named.includes(t)))
      throw invalidBackup('the backup does not hold its entities');

    // Parsed once to check every row's shape and project; the JSON text itself goes to the database.
    const parsed = new Map<string, Row[]>();
    for (const name of expected) {
      let rows: unknown;
      try {
        rows = JSON.parse(archive.tables.get(name)!);
      } catch {
        throw invalidBackup('a data file is not JSON');
      }
      if (!Array.isArray(rows) || rows.length !== manifest.tables[name]!.rows) throw invalidBackup('a data file does not hold its rows');
      if (!rows.every((r) => r && typeof r === 'object' && !Array.isArray(r))) throw invalidBackup('a data file does not hold its rows');
      parsed.set(name, rows as Row[]);
    }
    this.checkGroups(parsed.get('groups'));

    const written: string[] = [];
    const result = await this.db
      .transaction(async (tx) => {
        // One apply per project at a time.
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('atrium.backups'), ${projectId})`);
        const referenced = new Set<string>();
        const shapes = await this.repo.shapes(tx, expected);
        for (const s of shapes.values()) for (const target of s.references.values()) referenced.add(target);
        const targets = await this.repo.shapes(tx, [...referenced]);
        for (const { table } of chosen) {
          const shape = shapes.get(table.name)!;
          const columns = manifest.tables[table.name]!.columns;
          this.checkColumns(shape, columns, parsed.get(table.name)!, projectId);
          const json = archive.tables.get(table.name)!;
          if (shape.hasProjectId && (await this.repo.foreignIds(tx, table.name, json, projectId)) > 0) {
            throw invalidBackup('the backup holds rows of another project');
          }
          for (const [column, target] of shape.references) {
            if (!columns.includes(column) || !targets.get(target)?.hasProjectId) continue;
            if ((await this.repo.foreignReferences(tx, table.name, column, target, json, projectId)) > 0) {
              throw invalidBackup('the backup refers to rows of another project');
            }
          }
        }

        const rowsJson = new Map(archive.tables);
        for (const { table } of chosen) {
          const rewritten = await this.restoreFiles(tx, table, parsed.get(table.name)!, archive.files, projectId, written);
          if (rewritten) rowsJson.set(table.name, rewritten);
        }

        const removed: Record<string, number> = {};
        const count = (entity: BackupEntity, table: BackupTable, n: number) => {
          if (BACKUP_CATALOG[entity][0] === table) removed[entity] = (removed[entity] ?? 0) + n;
        };
        const reversed = [...chosen].reverse();
        // First the rows the backup does not hold, where nothing still points at them (so their
        // unique values are free for the backup's rows); the rest once the backup's rows point elsewhere.
        for (const { entity, table } of reversed) {
          const n = await tx
            .transaction(async (sp) => this.repo.deleteMissing(sp, table, shapes.get(table.name)!, rowsJson.get(table.name)!, projectId))
            .catch((e: unknown) => {
              if (isReferenceError(e)) return 0;
              throw e;
            });
          count(entity, table, n);
        }
        await this.phase('write', async () => {
          for (const { table } of chosen) {
            await this.repo.upsert(tx, table, shapes.get(table.name)!, manifest.tables[table.name]!.columns, rowsJson.get(table.name)!);
          }
          for (const { table } of chosen) {
            await this.repo.setDeferred(
              tx,
              table,
              shapes.get(table.name)!,
              manifest.tables[table.name]!.columns,
              rowsJson.get(table.name)!,
            );
          }
        });
        await this.phase('remove', async () => {
          for (const { entity, table } of reversed) {
            count(entity, table, await this.repo.deleteMissing(tx, table, shapes.get(table.name)!, rowsJson.get(table.name)!, projectId));
          }
        });
        for (const { table } of chosen)
          if (shapes.get(table.name)!.primaryKey.join() === 'id') await this.repo.advanceSequence(tx, table.name);

        const restored = Object.fromEntries(entities.map((e) => [e, parsed.get(BACKUP_CATALOG[e][0]!.name)!.length]));
        for (const e of entities) removed[e] ??= 0;
        const out: BackupApplyResult = {
          name: manifest.name,
          entities,
          created_at: manifest.created_at,
          restored,
          removed,
          signature: verified ? 'verified' : 'unverified',
        };
        if (this.devices.queueFullSync && entities.some((e) => DEVICE_SYNC_ENTITIES.includes(e))) {
          await this.devices.queueFullSync(tx, ctx.actor, await this.repo.deviceIds(tx, projectId));
        }
        if (source.backupId) await this.repo.markApplied(tx, source.backupId);
        await recordAudit(tx, ctx, {
          entity: 'backup',
          entityId: source.backupId ?? null,
          action: source.backupId ? 'apply' : 'apply_file',
          after: out,
        });
        return out;
      })
      .catch(async (e: unknown) => {
        for (const key of written) await this.files.remove(key);
        throw this.applyError(e);
      });
    await this.devices.dispatch?.();
    return result;
  }

  /**
   * A row's file key is kept when it is the row's own today; otherwise the backup must hold the file:
   * written back at its key when nothing is there, kept when the same file is there. Anything else
   * becomes empty, so a crafted backup can never point a row at a file it does not hold (another
   * project's avatar or audio). Answers the table's rows as JSON when any key changed.
   */
  private async restoreFiles(
    tx: Tx,
    table: BackupTable,
    rows: Row[],
    held: ReadonlyMap<string, Buffer>,
    projectId: number,
    written: string[],
  ): Promise<string | null> {
    if (!table.files?.length || !rows.length) return null;
    const current = await this.repo.fileKeys(tx, table.name, table.files, projectId);
    let changed = false;
    for (const row of rows) {
      for (const col of table.files) {
        const key = row[col];
        if (key === null || key === undefined || current.get(Number(row.id))?.[col] === key) continue;
        let keep = false;
        const data = typeof key === 'string' && BACKUP_FILE_KEY.test(key) ? held.get(key) : undefined;
        if (data && typeof key === 'string') {
          const there = await this.files.find(key);
          if (!there) {
            await this.files.putAt(key, data);
            written.push(key);
            keep = true;
          } else keep = there.equals(data);
        }
        if (!keep) {
          row[col] = null;
          changed = true;
        }
      }
    }
    return changed ? JSON.stringify(rows) : null;
  }

  /** Runs a write phase, naming it in the error a database refusal becomes. */
  private async phase(name: 'write' | 'remove', work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (e) {
      const pg = pgError(e);
      if (isReferenceError(e)) {
        // The referencing table is the error's; the referenced one is named in its text.
        const missing = /is not present in table "([a-z_]+)"/.exec(pg.detail ?? '')?.[1];
        const removed = /^update or delete on table "([a-z_]+)"/.exec(pg.message ?? '')?.[1];
        throw new AppError('backup_cannot_be_applied', [
          removed
            ? { table: pg.table ?? null, references: removed, message: 'rows outside the backup still refer to rows it removes' }
            : { table: pg.table ?? null, references: missing ?? null, message: 'the backup refers to rows that no longer exist' },
        ]);
      }
      if (pg.code === '23505') {
        throw new AppError('backup_cannot_be_applied', [
          { table: pg.table ?? null, message: 'a value of the backup is already used', phase: name },
        ]);
      }
      throw e;
    }
  }

  private applyError(e: unknown): unknown {
    if (e instanceof AppError) return e;
    const code = pgError(e).code ?? '';
    // A value the column cannot hold (type, null, check): the file was not made by Atrium.
    if (code.startsWith('22') || code === '23502' || code === '23514' || code === '42804')
      return invalidBackup('a value does not fit its column');
    return e;
  }

  /** The backup's columns must all exist here, with the key (and project) present in every row. */
  private checkColumns(shape: TableShape, columns: readonly string[], rows: readonly Row[], projectId: number): void {
    if (!columns.every((c) => shape.columns.includes(c))) throw invalidBackup('the backup has columns this version does not know');
    if (!shape.primaryKey.length || !shape.primaryKey.every((c) => columns.includes(c)))
      throw invalidBackup('the backup lacks a key column');
    if (shape.hasProjectId && !columns.includes('project_id')) throw invalidBackup('the backup lacks a key column');
    const known = new Set(columns);
    for (const r of rows) {
      for (const k of Object.keys(r)) if (!known.has(k)) throw invalidBackup('a row has a column the manifest does not name');
      for (const k of shape.primaryKey) if (r[k] === null || r[k] === undefined) throw invalidBackup('a row has no key');
      if (shape.hasProjectId && r.project_id !== projectId) throw invalidBackup('the backup holds rows of another project');
    }
  }

  /** Every group's ancestry must be made of the backup's own groups, ending with the group itself. */
  private checkGroups(rows: readonly Row[] | undefined): void {
    if (!rows) return;
    const ids = new Set(rows.map((r) => r.id));
    for (const g of rows) {
      const path = g.path;
      if (!Array.isArray(path) || !path.length || path.at(-1) !== g.id || !path.every((p) => ids.has(p))) {
        throw invalidBackup('a group has a broken ancestry');
      }
      if ((g.parent_id ?? null) !== (path.length > 1 ? path.at(-2) : null)) throw invalidBackup('a group has a broken ancestry');
    }
  }
}
