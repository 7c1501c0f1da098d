import { PERMISSION_FAMILIES, PERMISSIONS, type PermissionDef, type PermissionFamily, type Scope } from '@atrium/contract';

/** Scope columns of the editor, narrowest first. */
export const SCOPES: readonly Scope[] = ['own', 'domain', 'descendants', 'all'];

/**
 * One line of the permission editor: either one plain permission, or one action on one resource
 * with its scope variants side by side (`can_view_users`, `can_view_descendant_users`, `can_view_all_users`).
 */
export type PermissionRow =
  | { kind: 'plain'; key: string; permission: PermissionDef }
  | { kind: 'scoped'; key: string; resource: string; action: string; scopes: Partial<Record<Scope, PermissionDef>> };

export interface FamilyBlock {
  family: PermissionFamily;
  label: { en: string; ru: string };
  rows: PermissionRow[];
}

/** The codes a row grants. */
export const rowCodes = (row: PermissionRow): string[] =>
  row.kind === 'plain' ? [row.permission.code] : SCOPES.flatMap((s) => (row.scopes[s] ? [row.scopes[s].code] : []));

/** The catalogue grouped by family (in the catalogue's order), scope variants of one action joined in one row. */
export function groupPermissions(catalogue: readonly PermissionDef[] = PERMISSIONS): FamilyBlock[] {
  const blocks = new Map<PermissionFamily, FamilyBlock>();
  const scopedRows = new Map<string, PermissionRow & { kind: 'scoped' }>();
  for (const p of catalogue) {
    let block = blocks.get(p.family);
    if (!block) {
      block = { family: p.family, label: PERMISSION_FAMILIES[p.family], rows: [] };
      blocks.set(p.family, block);
    }
    if (p.resource && p.action && p.scope) {
      const key = `${p.family}:${p.resource}:${p.action}`;
      let row = scopedRows.get(key);
      if (!row) {
        row = { kind: 'scoped', key, resource: p.resource, action: p.action, scopes: {} };
        scopedRows.set(key, row);
        block.rows.push(row);
      }
      // A second code for the same scope would be lost in one column: give it a line of its own.
      if (row.scopes[p.scope]) block.rows.push({ kind: 'plain', key: p.code, permission: p });
      else row.scopes[p.scope] = p;
    } else block.rows.push({ kind: 'plain', key: p.code, permission: p });
  }
  return [...blocks.values()];
}

const matches = (p: PermissionDef | undefined, q: string) =>
  !!p && (p.code.toLowerCase().includes(q) || p.en.toLowerCase().includes(q) || p.ru.toLowerCase().includes(q));

/**
 * The blocks whose rows match the search text (a code or a label in either language; a family's
 * name matches all its rows); blocks left without rows are dropped.
 */
export function filterBlocks(blocks: readonly FamilyBlock[], search: string, rowLabel?: (row: PermissionRow) => string): FamilyBlock[] {
  const q = search.trim().toLowerCase();
  if (!q) return [...blocks];
  return blocks
    .map((b) => {
      if (b.label.en.toLowerCase().includes(q) || b.label.ru.toLowerCase().includes(q)) return b;
      const rows = b.rows.filter((row) => {
        if (rowLabel?.(row).toLowerCase().includes(q)) return true;
        return row.kind === 'plain' ? matches(row.permission, q) : SCOPES.some((s) => matches(row.scopes[s], q));
      });
      return { ...b, rows };
    })
    .filter((b) => b.rows.length > 0);
}

/** Whether none, some or all of `codes` are selected. */
export function selectionState(selected: readonly string[], codes: readonly string[]): 'none' | 'some' | 'all' {
  const set = new Set(selected);
  const n = codes.filter((c) => set.has(c)).length;
  return n === 0 ? 'none' : n === codes.length ? 'all' : 'some';
}

/** `selected` with `codes` added (on) or removed (off), keeping the catalogue's order and unknown codes. */
export function setCodes(selected: readonly string[], codes: readonly string[], on: boolean): string[] {
  const set = new Set(selected);
  for (const c of codes) {
    if (on) set.add(c);
    else set.delete(c);
  }
  const order = new Map(PERMISSIONS.map((p, i) => [p.code, i]));
  return [...set].sort((a, b) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER));
}

/**
 * Codes the holder may switch on: their own, or any with the grant-beyond-own permission. A code
 * the role already has can always be switched off.
 */
export function grantable(code: string, holder: readonly string[]): boolean {
  return holder.includes('can_grant_more_permissions') || holder.includes(code);
}
