import { PERMISSIONS, type PermissionDef } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { filterBlocks, grantable, groupPermissions, rowCodes, selectionState, setCodes } from './permissionGroups';

describe('permission editor grouping', () => {
  const blocks = groupPermissions();

  it('covers every code of the catalogue exactly once', () => {
    const codes = blocks.flatMap((b) => b.rows.flatMap(rowCodes));
    expect(codes.length).toBe(PERMISSIONS.length);
    expect(new Set(codes)).toEqual(new Set(PERMISSIONS.map((p) => p.code)));
  });

  it('puts the scope variants of one action side by side', () => {
    const users = blocks.find((b) => b.family === 'users');
    const view = users?.rows.find((r) => r.kind === 'scoped' && r.action === 'view');
    expect(view && rowCodes(view)).toEqual(['can_view_users', 'can_view_descendant_users', 'can_view_all_users']);
    expect(view?.kind === 'scoped' && Object.keys(view.scopes).sort()).toEqual(['all', 'descendants', 'domain']);
  });

  it('keeps families in catalogue order and plain permissions as their own rows', () => {
    expect(blocks.map((b) => b.family).slice(0, 3)).toEqual(['settings', 'roles', 'users']);
    const roles = blocks.find((b) => b.family === 'roles');
    expect(roles?.rows.some((r) => r.kind === 'plain' && r.permission.code === 'can_grant_more_permissions')).toBe(true);
  });

  it('gives a second code of the same scope a row of its own', () => {
    const defs: PermissionDef[] = [
      { code: 'a', family: 'other', resource: 'x', action: 'view', scope: 'all', en: 'A', ru: 'А' },
      { code: 'b', family: 'other', resource: 'x', action: 'view', scope: 'all', en: 'B', ru: 'Б' },
    ];
    expect(groupPermissions(defs)[0]?.rows.flatMap(rowCodes)).toEqual(['a', 'b']);
  });
});

describe('permission search', () => {
  const blocks = groupPermissions();
  it('finds by English or Russian label and by code, dropping empty families', () => {
    const en = filterBlocks(blocks, 'backups');
    expect(en.map((b) => b.family)).toContain('backups');
    const ru = filterBlocks(blocks, 'резервн');
    expect(ru.map((b) => b.family)).toEqual(['settings', 'backups']);
    const code = filterBlocks(blocks, 'can_revoke_ukey2');
    expect(code.map((b) => b.family)).toEqual(['identifiers']);
    expect(code[0]?.rows.flatMap(rowCodes)).toEqual(['can_revoke_ukey2']);
  });
  it('keeps a whole family when its name matches', () => {
    const all = blocks.find((b) => b.family === 'elevators');
    expect(filterBlocks(blocks, 'Elevators').find((b) => b.family === 'elevators')?.rows.length).toBe(all?.rows.length);
  });
  it('an empty search keeps everything', () => {
    expect(filterBlocks(blocks, '  ')).toEqual(blocks);
  });
});

describe('selection', () => {
  it('selects and clears a family', () => {
    const codes = ['can_create_users', 'can_view_users'];
    expect(selectionState([], codes)).toBe('none');
    const on = setCodes(['can_view_audit'], codes, true);
    expect(selectionState(on, codes)).toBe('all');
    expect(on).toEqual(['can_create_users', 'can_view_users', 'can_view_audit']);
    expect(selectionState(['can_view_users'], codes)).toBe('some');
    expect(setCodes(on, codes, false)).toEqual(['can_view_audit']);
  });
  it('keeps codes it does not know', () => {
    expect(setCodes(['legacy_code'], ['can_view_audit'], true)).toEqual(['can_view_audit', 'legacy_code']);
  });
  it('allows granting only what the holder has, unless they may grant more', () => {
    expect(grantable('can_view_users', ['can_view_users'])).toBe(true);
    expect(grantable('can_view_all_users', ['can_view_users'])).toBe(false);
    expect(grantable('can_view_all_users', ['can_grant_more_permissions'])).toBe(true);
  });
});
