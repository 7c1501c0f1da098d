import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  ERRORS,
  type IDENTIFIER_COLUMNS,
  IDENTIFIER_TYPES,
  type IdentifierImportResult,
  type IdentifierType,
  VALIDATION_MESSAGES as M,
  normalizeIdentifierValue,
} from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, type DbOrTx, queryRows } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { cellText, ErrorList, sheetRows } from '../../core/spreadsheet.js';
import type { Ukey2License } from './ukey2-license.js';

/** How long an attempt that found duplicates waits for its continue call. */
const PENDING_TTL_MS = 60 * 60 * 1000;
const BATCH = 1000;

interface Row {
  row: number;
  name: string;
  type: IdentifierType;
  value: string;
  ownerLogin: string | null;
  isActive: boolean;
  periodFrom: string | null;
  periodTo: string | null;
  passesMax: number | null;
  description: string | null;
}

type RowError = { row: number; field: string; message: string };

const emptyResult = (): IdentifierImportResult => ({
  status: 'imported',
  filepath: null,
  rows: 0,
  created: 0,
  updated: 0,
  skipped: 0,
  duplicates: [],
  duplicates_total: 0,
  errors: [],
  errors_total: 0,
});

const truthy = (s: string) => ['1', 'true', 'yes', 'да', 'y'].includes(s.toLowerCase());
const falsy = (s: string) => ['0', 'false', 'no', 'нет', 'n'].includes(s.toLowerCase());

/**
 * The two-step identifier import of spec entities §4: an attempt reads the workbook (as a stream,
 * once per pass; never the whole of it in memory) and reports row errors and duplicates of
 * identifiers already in the project; with no duplicates it imports at once, otherwise the file
 * waits (an hour at most) for a continue call that skips the duplicates, replaces them, or cancels.
 * Rows with errors are never written; everything else is written in one transaction.
 */
export class IdentifierImport {
  constructor(
    private readonly db: Db,
    private readonly dataDir: string,
    /** Syncs written identifiers to the doors concerned, in the import's transaction. */
    private readonly sync: (tx: Parameters<Parameters<Db['transaction']>[0]>[0], ids: number[], devicesBefore: number[]) => Promise<void>,
    private readonly devicesOf: (tx: Parameters<Parameters<Db['transaction']>[0]>[0], ids: number[]) => Promise<number[]>,
    /** The UKEY2 licence, read before the import's transaction (see AccessService.ukey2License). */
    private readonly ukey2License: (projectId: number) => Promise<Ukey2License>,
    /** Checks the UKEY2 counts after the rows are written, in the import's transaction: a breach undoes the import. */
    private readonly ukey2Within: (tx: DbOrTx, projectId: number, license: Ukey2License) => Promise<void>,
    /** Whether licence plates are licensed to the importer (core/license-guard.ts): a plate row is refused otherwise. */
    private readonly platesLicensed: (actor: Actor) => Promise<boolean> = async () => true,
  ) {}

  private pendingDir(projectId: number) {
    return path.join(this.dataDir, 'imports', 'identifiers', String(projectId));
  }

  private pendingFile(ctx: RequestContext, id: string) {
    if (!/^[0-9a-f-]{36}$/.test(id)) throw notFound();
    // The user's id is part of the name: one user's pending import is not another's to continue.
    return path.join(this.pendingDir(ctx.actor.projectId), `${ctx.actor.userId}-${id}.xlsx`);
  }

  private assertMay(ctx: RequestContext) {
    for (const code of ['can_import_identifiers', 'can_create_identifiers']) {
      if (!ctx.actor.permissions.has(code)) throw prohibited([{ permission: code }]);
    }
  }

  /** Removes pending files older than their time to live. */
  async cleanExpired(projectId: number): Promise<void> {
    const dir = this.pendingDir(projectId);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const file = path.join(dir, name);
      const s = await stat(file).catch(() => null);
      if (s && Date.now() - s.mtimeMs > PENDING_TTL_MS) await rm(file, { force: true });
    }
  }

  /** The attempt: `upload` is the uploaded file (a temporary the caller removes unless it was kept). */
  async attempt(ctx: RequestContext, upload: string, id: string): Promise<IdentifierImportResult> {
    this.assertMay(ctx);
    await this.cleanExpired(ctx.actor.projectId);
    const check = await this.read(ctx, upload);
    if (check.duplicates_total > 0) {
      const pending = this.pendingFile(ctx, id);
      await mkdir(path.dirname(pending), { recursive: true });
      await rename(upload, pending);
      return { ...check, status: 'duplicates', filepath: id };
    }
    return this.write(ctx, upload, 'skip');
  }

  async continue(ctx: RequestContext, id: string, action: 'skip' | 'replace' | 'cancel'): Promise<IdentifierImportResult> {
    this.assertMay(ctx);
    const file = this.pendingFile(ctx, id);
    const s = await stat(file).catch(() => null);
    if (!s || Date.now() - s.mtimeMs > PENDING_TTL_MS) {
      await rm(file, { force: true });
      throw notFound();
    }
    try {
      if (action === 'cancel') {
        return { ...emptyResult(), status: 'cancelled' };
      }
      return await this.write(ctx, file, action);
    } finally {
      await rm(file, { force: true });
    }
  }

  /** Reads every row: errors, duplicates (in the project, or repeated in the file), nothing written. */
  private async read(ctx: RequestContext, file: string): Promise<IdentifierImportResult> {
    const errors = new ErrorList<RowError>();
    const duplicates = new ErrorList<{ row: number; type: string; value: string; existing_id: number | null }>();
    const plates = await this.platesLicensed(ctx.actor);
    const rows = await this.eachBatch(ctx, file, errors, plates, async (batch) => {
      const existing = await this.existing(ctx.actor.projectId, batch);
      const owners = await this.owners(ctx, batch, errors, this.db);
      for (const r of batch) {
        if (owners.failed.has(r.row)) continue;
        const id = existing.get(`${r.type}\0${r.value}`);
        if (id !== undefined) duplicates.push({ row: r.row, type: r.type, value: r.value, existing_id: id });
      }
    });
    return {
      status: 'imported',
      filepath: null,
      rows,
      created: 0,
      updated: 0,
      skipped: 0,
      duplicates: duplicates.items,
      duplicates_total: duplicates.total,
      errors: errors.items,
      errors_total: errors.total,
    };
  }

  private async write(ctx: RequestContext, file: string, action: 'skip' | 'replace'): Promise<IdentifierImportResult> {
    const errors = new ErrorList<RowError>();
    const result = emptyResult();
    const ukey2 = await this.ukey2License(ctx.actor.projectId);
    // Read before the transaction, as the UKEY2 licence: inside it, on the embedded database's single connection, it would wait for it.
    const plates = await this.platesLicensed(ctx.actor);
    await this.db.transaction(async (tx) => {
      const written: number[] = [];
      const devicesBefore = new Set<number>();
      result.rows = await this.eachBatch(ctx, file, errors, plates, async (batch) => {
        const existing = await this.existing(ctx.actor.projectId, batch, tx);
        const owners = await this.owners(ctx, batch, errors, tx);
        const fresh = batch.filter((r) => !existing.has(`${r.type}\0${r.value}`) && !owners.failed.has(r.row));
        const dup = batch.filter((r) => existing.has(`${r.type}\0${r.value}`) && !owners.failed.has(r.row));
        if (action === 'skip') result.skipped += dup.length;
        const values = (list: Row[]) =>
          JSON.stringify(
            list.map((r) => ({
              name: r.name,
              type: r.type,
              value: r.value,
              owner_id: r.ownerLogin ? (owners.ids.get(r.ownerLogin.toLowerCase()) ?? null) : null,
              is_active: r.isActive,
              period_restrict_active: r.periodFrom !== null || r.periodTo !== null,
              period_restrict_from: r.periodFrom,
              period_restrict_to: r.periodTo,
              passes_restrict_active: r.passesMax !== null,
              passes_restrict_max_count: r.passesMax ?? 0,
              description: r.description,
            })),
          );
        const cols = sql`x(name text, type text, value text, owner_id int, is_active boolean, period_restrict_active boolean,
          period_restrict_from timestamptz, period_restrict_to timestamptz, passes_restrict_active boolean,
          passes_restrict_max_count int, description text)`;
        if (fresh.length) {
          const ids = await queryRows<{ id: number }>(
            tx,
            sql`INSERT INTO identifiers (project_id, name, type, value, owner_id, is_active, period_restrict_active, period_restrict_from,
                period_restrict_to, passes_restrict_active, passes_restrict_max_count, passes_restrict_since, description, created_by)
              SELECT ${ctx.actor.projectId}, x.name, x.type, x.value, x.owner_id, x.is_active, x.period_restrict_active, x.period_restrict_from,
                x.period_restrict_to, x.passes_restrict_active, x.passes_restrict_max_count,
                CASE WHEN x.passes_restrict_active THEN now() END, x.description, ${ctx.actor.userId}
              FROM jsonb_to_recordset(${values(fresh)}::jsonb) AS ${cols}
              ON CONFLICT (project_id, type, value) DO NOTHING
              RETURNING id`,
          );
          result.created += ids.length;
          written.push(...ids.map((r) => Number(r.id)));
        }
        if (action === 'replace' && dup.length) {
          const ids = dup.map((r) => existing.get(`${r.type}\0${r.value}`) as number);
          for (const d of await this.devicesOf(tx, ids)) devicesBefore.add(d);
          // Only identifiers the importer may edit are replaced; the others are skipped.
          const rows = await queryRows<{ id: number }>(
            tx,
            sql`UPDATE identifiers i SET name = x.name, owner_id = x.owner_id, is_active = x.is_active,
                period_restrict_active = x.period_restrict_active, period_restrict_from = x.period_restrict_from,
                period_restrict_to = x.period_restrict_to, passes_restrict_active = x.passes_restrict_active,
                passes_restrict_max_count = x.passes_restrict_max_count, description = x.description, updated_at = now()
              FROM jsonb_to_recordset(${values(dup)}::jsonb) AS ${cols}
              WHERE i.project_id = ${ctx.actor.projectId} AND i.type = x.type AND i.value = x.value
                AND ${ctx.actor.permissions.has('can_edit_identifiers')}
                AND (${ctx.actor.permissions.has('can_view_all_identifiers')} OR i.created_by = ${ctx.actor.userId} OR i.owner_id = ${ctx.actor.userId})
              RETURNING i.id`,
          );
          result.updated += rows.length;
          result.skipped += dup.length - rows.length;
          written.push(...rows.map((r) => Number(r.id)));
        }
      });
      if (written.length) {
        await this.ukey2Within(tx, ctx.actor.projectId, ukey2);
        await this.sync(tx, written, [...devicesBefore]);
      }
      await recordAudit(tx, ctx, {
        entity: 'identifier',
        action: 'import',
        after: { action, rows: result.rows, created: result.created, updated: result.updated, skipped: result.skipped },
      });
    });
    result.errors = errors.items;
    result.errors_total = errors.total;
    return result;
  }

  /** Parses rows in batches; a row that cannot be an identifier is an error, as is a repeat within the file. */
  /** Answers how many data rows the sheet has (those with errors included). */
  private async eachBatch(
    ctx: RequestContext,
    file: string,
    errors: ErrorList<RowError>,
    /** Licence plates are licensed to the importer: a plate row is an error otherwise. */
    plates: boolean,
    handle: (batch: Row[]) => Promise<void>,
  ): Promise<number> {
    void ctx;
    let header: Map<string, number> | null = null;
    let dataRows = 0;
    const seen = new Set<string>();
    let batch: Row[] = [];
    for await (const { number, values } of sheetRows(file)) {
      if (!header) {
        header = new Map(Array.from(values, (v, i) => [String(cellText(v) ?? '').toLowerCase(), i] as const));
        if (!header.has('value'))
          throw new AppError('invalid_file', [
            { field: 'file', message: 'the spreadsheet has no column {column}', params: { column: 'value' } },
          ]);
        continue;
      }
      dataRows++;
      const get = (column: (typeof IDENTIFIER_COLUMNS)[number]) => {
        const i = header?.get(column);
        return i === undefined ? null : cellText(values[i]);
      };
      const fail = (field: string, message: string) => errors.push({ row: number, field, message });
      const typeText = (get('type') ?? 'card').toLowerCase();
      if (!IDENTIFIER_TYPES.includes(typeText as IdentifierType)) {
        fail('type', M.invalid_value);
        continue;
      }
      const type = typeText as IdentifierType;
      if (type === 'license_plate' && !plates) {
        fail('type', ERRORS.feature_not_licensed.message);
        continue;
      }
      const value = normalizeIdentifierValue(type, get('value') ?? '');
      if (value === null) {
        fail('value', M.invalid_value);
        continue;
      }
      const key = `${type}\0${value}`;
      if (seen.has(key)) {
        fail('value', M.unique);
        continue;
      }
      seen.add(key);
      const date = (field: 'period_restrict_from' | 'period_restrict_to') => {
        const t = get(field);
        if (t === null) return null;
        const d = new Date(t);
        if (Number.isNaN(d.getTime())) throw new Error(field);
        return d.toISOString();
      };
      let periodFrom: string | null;
      let periodTo: string | null;
      try {
        periodFrom = date('period_restrict_from');
        periodTo = date('period_restrict_to');
      } catch (e) {
        fail((e as Error).message, M.invalid_value);
        continue;
      }
      if (periodFrom && periodTo && periodFrom >= periodTo) {
        fail('period_restrict_to', M.invalid_value);
        continue;
      }
      const activeText = get('is_active');
      if (activeText !== null && !truthy(activeText) && !falsy(activeText)) {
        fail('is_active', M.invalid_value);
        continue;
      }
      const passesText = get('passes_restrict_max_count');
      const passesMax = passesText === null ? null : Number(passesText);
      if (passesMax !== null && (!Number.isInteger(passesMax) || passesMax < 0 || passesMax > 1_000_000)) {
        fail('passes_restrict_max_count', M.invalid_value);
        continue;
      }
      const name = (get('name') ?? value).slice(0, 255);
      batch.push({
        row: number,
        name,
        type,
        value,
        ownerLogin: get('owner_login'),
        isActive: activeText === null ? true : truthy(activeText),
        periodFrom,
        periodTo,
        passesMax,
        description: get('description')?.slice(0, 1000) ?? null,
      });
      if (batch.length >= BATCH) {
        await handle(batch);
        batch = [];
      }
    }
    if (batch.length) await handle(batch);
    return dataRows;
  }

  private async existing(projectId: number, batch: Row[], db: Parameters<typeof queryRows>[0] = this.db) {
    const json = JSON.stringify(batch.map((r) => ({ type: r.type, value: r.value })));
    const rows = await queryRows<{ id: number; type: string; value: string }>(
      db,
      sql`SELECT i.id, i.type, i.value FROM identifiers i JOIN jsonb_to_recordset(${json}::jsonb) AS x(type text, value text)
        ON i.type = x.type AND i.value = x.value WHERE i.project_id = ${projectId}`,
    );
    return new Map(rows.map((r) => [`${r.type}\0${r.value}`, Number(r.id)]));
  }

  /** Owners by login, among the users the importer may see; a login that is not one is a row error. */
  private async owners(ctx: RequestContext, batch: Row[], errors: ErrorList<RowError>, db: Parameters<typeof queryRows>[0]) {
    const logins = [...new Set(batch.map((r) => r.ownerLogin?.toLowerCase()).filter((l): l is string => !!l))];
    const ids = new Map<string, number>();
    if (logins.length) {
      const { userVisible } = await import('../../core/acl.js');
      const rows = await queryRows<{ id: number; login: string }>(
        db,
        sql`SELECT u.id, lower(u.login) AS login FROM users u WHERE u.project_id = ${ctx.actor.projectId}
          AND lower(u.login) IN (${sql.join(
            logins.map((l) => sql`${l}`),
            sql`, `,
          )}) AND ${userVisible(ctx.actor, sql`u.id`, sql`u.created_by`)}`,
      );
      for (const r of rows) ids.set(r.login, Number(r.id));
    }
    const failed = new Set<number>();
    for (const r of batch) {
      if (r.ownerLogin && !ids.has(r.ownerLogin.toLowerCase())) {
        failed.add(r.row);
        errors.push({ row: r.row, field: 'owner_login', message: 'user not found' });
      }
    }
    return { ids, failed };
  }
}
