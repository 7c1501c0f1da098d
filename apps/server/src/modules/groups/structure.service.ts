import type { Writable } from 'node:stream';
import { ERRORS, type ErrorCode, emptyLicenseInfo, STRUCTURE_COLUMNS, type StructureImportResult, scopeCodes } from '@atrium/contract';
import ExcelJS from 'exceljs';
import { z } from 'zod';
import { scopeOf } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { cellText, checkXlsx, ErrorList, rowLimiter, xlsxReader } from '../../core/spreadsheet.js';
import type { LicenseCheck } from '../users/users.service.js';
import type { users } from '../users/users.table.js';
import type { GroupsRepository } from './groups.repository.js';
import type { RoleAssigner } from './groups.service.js';
import type { StructureRepository } from './structure.repository.js';

const BATCH = 500;
const COL = Object.fromEntries(STRUCTURE_COLUMNS.map((c, i) => [c, i + 1])) as Record<(typeof STRUCTURE_COLUMNS)[number], number>;
const HEADER: Record<(typeof STRUCTURE_COLUMNS)[number], string> = {
  object_id: 'Object ID',
  object: 'Object',
  domain_type: 'Object type',
  logic_address: 'Logical address',
  user_id: 'User ID',
  login: 'Login',
  name: 'Name',
  email: 'E-mail',
  phone: 'Phone',
  license_count: 'Licence count',
  license_from: 'Licence from',
  license_to: 'Licence to',
};

interface ParsedRow {
  row: number;
  objectId: number;
  userId: number | null;
  login: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  licenseCount: number | null;
  period: { from: number; to: number } | null;
}
type RowError = StructureImportResult['errors'][number];

class RowProblem extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly field: string,
  ) {
    super(code);
  }
}

const parseId = (v: unknown, field: string): number | null => {
  const s = cellText(v);
  if (s === null) return null;
  const n = Number(s);
  if (!Number.isInteger(n) || n <= 0) throw new RowProblem('import_cannot_parse_id', field);
  return n;
};

/** A local date and time of the sheet (a date cell or text), as Unix seconds, using the caller's offset. */
function parseLocalTime(v: unknown, tzOffset: number): number | null {
  if (v === null || v === undefined || v === '') return null;
  let utcMs: number;
  if (v instanceof Date) utcMs = v.getTime();
  else {
    const s = cellText(v);
    if (s === null) return null;
    const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?(?:\.\d+)?Z?$/.exec(s);
    const ru = /^(\d{2})\.(\d{2})\.(\d{4})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
    const m = iso ? [iso[1], iso[2], iso[3], iso[4], iso[5], iso[6]] : ru ? [ru[3], ru[2], ru[1], ru[4], ru[5], ru[6]] : null;
    if (!m) return Number.NaN;
    const [y, mo, d, h, mi, se] = m.map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
    utcMs = Date.UTC(y, mo - 1, d, h, mi, se);
    const check = new Date(utcMs);
    if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return Number.NaN;
  }
  return Math.floor((utcMs - tzOffset * 60_000) / 1000);
}

const emailSchema = z.email();

/** The user columns of a row: a row with none of them names only its group. */
const USER_COLUMNS = ['user_id', 'login', 'name', 'email', 'phone', 'license_count', 'license_from', 'license_to'] as const;

function parseRow(values: unknown[], row: number, tzOffset: number): ParsedRow | null {
  const at = (c: number) => values[c];
  const objectId = parseId(at(COL.object_id), 'object_id');
  if (objectId === null) throw new RowProblem('import_cannot_parse_id', 'object_id');
  if (USER_COLUMNS.every((c) => cellText(at(COL[c])) === null)) return null;
  const userId = parseId(at(COL.user_id), 'user_id');
  const email = cellText(at(COL.email));
  if (email !== null && !emailSchema.safeParse(email).success) throw new RowProblem('import_cannot_parse_email', 'email');
  const countText = cellText(at(COL.license_count));
  let licenseCount: number | null = null;
  if (countText !== null) {
    licenseCount = Number(countText);
    if (!Number.isInteger(licenseCount) || licenseCount < 0) throw new RowProblem('import_cannot_parse_license_count', 'license_count');
  }
  const from = parseLocalTime(at(COL.license_from), tzOffset);
  const to = parseLocalTime(at(COL.license_to), tzOffset);
  let period: ParsedRow['period'] = null;
  if (from !== null || to !== null) {
    if (from === null || to === null || Number.isNaN(from) || Number.isNaN(to) || from > to) {
      throw new RowProblem('import_cannot_parse_license_period', 'license_from');
    }
    period = { from, to };
  }
  return {
    row,
    objectId,
    userId,
    login: cellText(at(COL.login)),
    name: cellText(at(COL.name)),
    email,
    phone: cellText(at(COL.phone)),
    licenseCount,
    period,
  };
}

const rowError = (row: number, code: ErrorCode, field?: string): RowError => ({
  row,
  code,
  message: ERRORS[code].message,
  ...(field ? { field } : {}),
});

const localText = (seconds: number | undefined, tzOffset: number) =>
  seconds === undefined ? null : new Date(seconds * 1000 + tzOffset * 60_000).toISOString().slice(0, 16).replace('T', ' ');

/**
 * Users-by-group spreadsheets of a group's structure (spec entities §7): the export streams rows
 * straight to the response; the import streams the uploaded file row by row and works in batches,
 * so neither holds a whole 10,000-row workbook in memory.
 */
export class StructureService {
  constructor(
    private readonly db: Db,
    private readonly groups: GroupsRepository,
    private readonly repo: StructureRepository,
    private readonly roles: RoleAssigner,
  ) {}

  private newUserLicense: ((projectId: number) => Promise<Record<string, unknown> | null>) | undefined;
  private licenseCheck: LicenseCheck | undefined;
  /**
   * The licences module (issue 14), as for users made one by one: the basic licence for a created
   * user whose row names no licence, and the project's mobile-app count checked inside each batch's
   * transaction, so a batch that would exceed it is not written.
   */
  onNewUser(license: (projectId: number) => Promise<Record<string, unknown> | null>, check: LicenseCheck): void {
    this.newUserLicense = license;
    this.licenseCheck = check;
  }

  /** A row's licence columns: a mobile-app licence for that many apps within that period (as the export writes it). */
  private static rowLicense(r: ParsedRow): Record<string, unknown> {
    return {
      mobile_app: {
        ...emptyLicenseInfo().mobile_app,
        is_enabled: true,
        license_count: r.licenseCount,
        ...(r.period ? { period: r.period } : {}),
      },
    };
  }

  /** Whether the actor may act on holders of this role; answered once per role and import. */
  private async mayActOn(actor: Actor, roleId: number | null, known: Map<number | null, boolean>): Promise<boolean> {
    const seen = known.get(roleId);
    if (seen !== undefined) return seen;
    let ok = true;
    try {
      await this.roles.assertMayActOnHolder(actor, roleId);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      ok = false;
    }
    known.set(roleId, ok);
    return ok;
  }

  private placementScope(actor: Actor): 'all' | 'domain' | 'descendants' {
    const s = scopeOf(actor, 'users', 'edit') ?? scopeOf(actor, 'users', 'view') ?? 'domain';
    return s === 'own' ? 'domain' : s;
  }

  /** Checks the caller may import into the group; call before reading the upload. */
  async assertMayImport(actor: Actor, groupId: number, roleId: number | null): Promise<void> {
    if (!(await this.groups.find(this.db, actor, groupId))) throw notFound();
    const mayEdit = Object.values(scopeCodes('users', 'edit')).some((c) => actor.permissions.has(c));
    if (!actor.permissions.has('can_create_users') && !mayEdit) throw prohibited([{ permission: 'can_create_users' }]);
    if (roleId !== null) await this.roles.assertAssignable(actor, roleId);
  }

  async importFile(
    ctx: RequestContext,
    groupId: number,
    file: string,
    roleId: number | null,
    tzOffset: number,
  ): Promise<StructureImportResult> {
    const result: StructureImportResult = { users_attached: 0, users_created: 0, errors: [], errors_total: 0 };
    // Before any parser holds the file: refuse archives that expand too far, declare entities or are broken.
    await checkXlsx(file);
    const errors = new ErrorList<RowError>();
    const limitRow = rowLimiter();
    // The basic licence of a created user without licence columns: asked once per import, when first needed.
    let basic: Promise<Record<string, unknown> | null> | undefined;
    const basicLicense = () => (basic ??= this.newUserLicense?.(ctx.actor.projectId) ?? Promise.resolve(null));
    const reader = await xlsxReader(file);
    let batch: ParsedRow[] = [];
    try {
      for await (const sheet of reader) {
        for await (const row of sheet) {
          const values = row.values as unknown[];
          limitRow(row.number, values.length);
          if (row.number === 1) continue;
          if (!values.some((v) => cellText(v) !== null)) continue;
          try {
            const parsed = parseRow(values, row.number, tzOffset);
            // A row naming only its group (the export writes one for a building or floor without users) changes nothing.
            if (parsed) batch.push(parsed);
          } catch (e) {
            if (!(e instanceof RowProblem)) throw e;
            errors.push(rowError(row.number, e.code, e.field));
          }
          if (batch.length >= BATCH) {
            await this.importBatch(ctx, groupId, batch, roleId, result, errors, basicLicense);
            batch = [];
          }
        }
        break; // the first sheet holds the structure
      }
    } catch (e) {
      if (e instanceof RowProblem) throw e;
      if (e instanceof Error && !(e instanceof AppError) && /zip|central directory|invalid|signature/i.test(e.message)) {
        throw new AppError('invalid_file', [{ field: 'file', message: 'file must be an xlsx spreadsheet' }]);
      }
      throw e;
    }
    await this.importBatch(ctx, groupId, batch, roleId, result, errors, basicLicense);
    result.errors = errors.items.sort((a, b) => a.row - b.row);
    result.errors_total = errors.total;
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, ctx, {
        entity: 'group',
        entityId: groupId,
        action: 'import_structure',
        after: { users_attached: result.users_attached, users_created: result.users_created, errors: result.errors_total },
      });
    });
    return result;
  }

  private async importBatch(
    ctx: RequestContext,
    rootId: number,
    rows: ParsedRow[],
    roleId: number | null,
    result: StructureImportResult,
    errors: ErrorList<RowError>,
    basicLicense: () => Promise<Record<string, unknown> | null>,
  ): Promise<void> {
    if (!rows.length) return;
    const { actor } = ctx;
    const allowedObjects = await this.groups.inScope(actor, this.placementScope(actor), [...new Set(rows.map((r) => r.objectId))], rootId);
    const existing = await this.repo.usersByIdOrLogin(
      actor,
      [...new Set(rows.flatMap((r) => (r.userId ? [r.userId] : [])))],
      [...new Set(rows.flatMap((r) => (r.userId === null && r.login ? [r.login] : [])))],
    );
    const byId = new Map(existing.map((u) => [u.id, u]));
    const byLogin = new Map(existing.map((u) => [u.login.toLowerCase(), u]));
    const newEmails = rows.flatMap((r) => (r.userId === null && r.email && !byLogin.has(r.login?.toLowerCase() ?? '') ? [r.email] : []));
    const taken = await this.repo.emailsTaken(actor.projectId, newEmails);
    const mayCreate = actor.permissions.has('can_create_users');
    const roleRights = new Map<number | null, boolean>();

    const attach: { userId: number; groupId: number }[] = [];
    const pendingAttach: { login: string; groupId: number }[] = [];
    const create = new Map<string, typeof users.$inferInsert>();
    for (const r of rows) {
      if (!allowedObjects.has(r.objectId)) {
        errors.push(rowError(r.row, 'import_object_not_allowed', 'object_id'));
        continue;
      }
      const found = r.userId !== null ? byId.get(r.userId) : r.login ? byLogin.get(r.login.toLowerCase()) : undefined;
      if (r.userId !== null && !found) {
        errors.push(rowError(r.row, 'import_user_not_allowed', 'user_id'));
        continue;
      }
      if (found) {
        // Placing someone in a group is acting on them: not on a holder of a role beyond the caller's own.
        if (found.editable && found.id !== actor.userId && !(await this.mayActOn(actor, found.roleId, roleRights))) {
          errors.push(rowError(r.row, 'import_user_not_allowed', 'user_id'));
          continue;
        }
        if (!found.editable) {
          errors.push(rowError(r.row, 'import_user_not_allowed', 'user_id'));
          continue;
        }
        attach.push({ userId: found.id, groupId: r.objectId });
        result.users_attached++;
        continue;
      }
      if (!r.login) {
        errors.push(rowError(r.row, 'import_login_required', 'login'));
        continue;
      }
      const key = r.login.toLowerCase();
      if (create.has(key)) {
        pendingAttach.push({ login: key, groupId: r.objectId });
        result.users_attached++;
        continue;
      }
      if (!mayCreate) {
        errors.push(rowError(r.row, 'import_user_not_allowed', 'login'));
        continue;
      }
      if (r.email && taken.has(r.email.toLowerCase())) {
        errors.push(rowError(r.row, 'email_already_used', 'email'));
        continue;
      }
      if (r.email) taken.add(r.email.toLowerCase());
      create.set(key, {
        projectId: actor.projectId,
        login: r.login,
        name: r.name ?? r.login,
        email: r.email,
        roleId,
        profile: r.phone ? { phone: r.phone } : {},
        licenseInfo: r.licenseCount !== null || r.period ? StructureService.rowLicense(r) : await basicLicense(),
        createdBy: actor.userId,
      });
      pendingAttach.push({ login: key, groupId: r.objectId });
      result.users_created++;
    }
    const checkLicense = [...create.values()].some((u) => u.licenseInfo) ? await this.licenseCheck?.(actor.projectId) : undefined;
    await this.db.transaction(async (tx) => {
      const created = await this.repo.insertUsers(tx, [...create.values()]);
      await checkLicense?.(tx);
      const ids = new Map(created.map((u) => [u.login.toLowerCase(), u.id]));
      for (const p of pendingAttach) {
        const userId = ids.get(p.login);
        if (userId) attach.push({ userId, groupId: p.groupId });
      }
      await this.repo.attach(tx, attach);
    });
  }

  /** Writes the structure of a group (and below) with its users as xlsx into `out`. */
  async exportTo(actor: Actor, groupId: number, domainTypeId: number | undefined, tzOffset: number, out: Writable): Promise<void> {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const sheet = workbook.addWorksheet('structure');
    sheet.addRow(STRUCTURE_COLUMNS.map((c) => HEADER[c])).commit();
    let after: number[] | null = null;
    for (;;) {
      const page = await this.repo.groupPage(actor.projectId, groupId, domainTypeId, after, BATCH);
      if (!page.length) break;
      after = page[page.length - 1]?.path ?? null;
      const members = await this.repo.usersOfGroups(
        actor,
        page.map((g) => g.id),
      );
      const byGroup = new Map<number, typeof members>();
      for (const m of members) byGroup.set(m.groupId, [...(byGroup.get(m.groupId) ?? []), m]);
      for (const g of page) {
        const base = [g.id, g.names, g.typeName, g.logicAddress];
        const list = byGroup.get(g.id) ?? [];
        if (!list.length) sheet.addRow(base).commit();
        for (const u of list) {
          const lic = (u.licenseInfo as { mobile_app?: { license_count?: number | null; period?: { from: number; to: number } } } | null)
            ?.mobile_app;
          sheet
            .addRow([
              ...base,
              u.id,
              u.login,
              u.name,
              u.email,
              (u.profile as { phone?: string }).phone ?? null,
              lic?.license_count ?? null,
              localText(lic?.period?.from, tzOffset),
              localText(lic?.period?.to, tzOffset),
            ])
            .commit();
        }
      }
      if (page.length < BATCH) break;
    }
    sheet.commit();
    await workbook.commit();
  }

  async assertMayExport(actor: Actor, groupId: number): Promise<void> {
    if (!(await this.groups.find(this.db, actor, groupId))) throw notFound();
    if (!Object.values(scopeCodes('users', 'view')).some((c) => actor.permissions.has(c))) {
      throw prohibited([{ permission: 'can_view_users' }]);
    }
  }
}
