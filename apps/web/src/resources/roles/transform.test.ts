import { describe, expect, it } from 'vitest';
import { describeDependencies, roleBody, roleIds } from './transform';

describe('role form transform', () => {
  it('sends ids of available roles whether read as objects or picked as ids', () => {
    expect(roleIds([{ id: 2, name: 'A' }, 5, '7', null, 'x'])).toEqual([2, 5, 7]);
    expect(roleIds(undefined)).toEqual([]);
  });
  it('trims the name, sends an empty description as null, keeps only code strings and drops the record flags', () => {
    expect(
      roleBody({
        name: ' Guards ',
        description: '  ',
        permissions: ['can_view_users', 3],
        available_roles: [{ id: 1, name: 'x' }],
        two_factor_required: true,
        can_edit: true,
        can_delete: true,
      }),
    ).toEqual({
      name: 'Guards',
      description: null,
      permissions: ['can_view_users'],
      available_roles: [1],
      two_factor_required: true,
    });
    expect(roleBody({ name: 'x' }).two_factor_required).toBe(false);
  });
});

describe('dependencies of a gentle delete', () => {
  const t = (key: string, o: Record<string, unknown> = {}) => `${key}:${JSON.stringify(o)}`;
  it('names who uses each role and how many more', () => {
    const text = describeDependencies([{ id: 3, users_count: 3, users: [{ login: 'ann' }, { login: 'bob' }] }], t);
    expect(text).toBe('roles.in_use_by:{"id":3,"users":"roles.and_more:{\\"users\\":\\"ann, bob\\",\\"smart_count\\":1}"}');
  });
  it('answers null when nothing is in use', () => {
    expect(describeDependencies([], t)).toBeNull();
  });
});
