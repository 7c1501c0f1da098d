import { isPermissionCode, PERMISSION_CODES } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import {
  ACTION_RULES,
  type ActionCode,
  canDo,
  groupAccess,
  type Me,
  roleAccess,
  SELF_DOMAIN_SECTIONS,
  scopeOf,
  userAccess,
} from './action-rules';
import type { Rule, RuleContext } from './menu-rules';

const ctx = (permissions: readonly string[]): RuleContext => ({ permissions, userLicense: null, serverLicense: null, restrictors: [] });

/**
 * Each action: every permission that alone allows it. Each one must allow it alone; a role with every
 * other permission of the catalogue must not.
 */
const cases: Record<ActionCode, string[]> = {
  'users.create': ['can_create_users'],
  'users.edit': ['can_edit_users', 'can_edit_descendant_users', 'can_edit_all_users'],
  'users.edit_own_profile': ['can_edit_own_profile'],
  'users.delete': ['can_delete_users', 'can_delete_descendant_users', 'can_delete_all_users'],
  'users.bulk_delete': ['can_delete_users', 'can_delete_descendant_users', 'can_delete_all_users'],
  'users.change_password': ['can_edit_users', 'can_edit_descendant_users', 'can_edit_all_users'],
  'users.send_registration_link': ['can_edit_users', 'can_edit_descendant_users', 'can_edit_all_users', 'can_edit_own_profile'],
  'users.import': ['can_create_users', 'can_edit_users', 'can_edit_descendant_users', 'can_edit_all_users'],
  'users.export': ['can_view_users', 'can_view_descendant_users', 'can_view_all_users'],
  'roles.create': ['can_create_roles'],
  'roles.edit': ['can_edit_own_roles', 'can_edit_available_roles', 'can_edit_users_roles', 'can_edit_all_roles'],
  'roles.delete': ['can_delete_own_roles', 'can_delete_available_roles', 'can_delete_all_roles'],
  'roles.bulk_delete': ['can_delete_own_roles', 'can_delete_available_roles', 'can_delete_all_roles'],
  'groups.create_root': ['can_create_root_domains'],
  'groups.create_child': ['can_create_descendant_domains', 'can_create_root_domains', 'can_edit_all_domains'],
  'groups.create': ['can_create_descendant_domains', 'can_create_root_domains', 'can_edit_all_domains'],
  'groups.edit': [
    'can_edit_all_domains',
    'can_edit_descendant_domains',
    'can_manage_self_domain_general',
    'can_manage_self_domain_white_label',
    'can_manage_self_domain_notifications',
    'can_manage_self_domain_guest_access',
  ],
  'groups.delete': ['can_delete_all_domains', 'can_delete_own_domains', 'can_delete_descendant_domains'],
  'groups.generate': ['can_create_descendant_domains', 'can_create_root_domains', 'can_edit_all_domains'],
  'groups.import_structure': ['can_create_users', 'can_edit_users', 'can_edit_descendant_users', 'can_edit_all_users'],
  'groups.export_structure': ['can_view_users', 'can_view_descendant_users', 'can_view_all_users'],
  'groups.white_label': ['can_edit_all_domains', 'can_edit_descendant_domains', 'can_manage_self_domain_white_label'],
  'domain_types.create': ['can_change_project_settings'],
  'domain_types.edit': ['can_change_project_settings'],
  'domain_types.delete': ['can_change_project_settings'],
  'devices.create': ['can_create_devices'],
  'devices.edit': ['can_edit_devices'],
  'devices.delete': ['can_delete_devices'],
  'devices.tasks': ['can_view_device_tasks'],
  'devices.events': ['can_view_device_events'],
};

const codesOf = (rule: Rule): string[] => {
  if ('permission' in rule) return [rule.permission];
  if ('anyPermission' in rule) return [...rule.anyPermission];
  if ('all' in rule) return rule.all.flatMap(codesOf);
  if ('any' in rule) return rule.any.flatMap(codesOf);
  return [];
};

describe('action rules', () => {
  it('has a case for every action and names only catalogue codes', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(ACTION_RULES).sort());
    for (const rule of Object.values(ACTION_RULES)) for (const code of codesOf(rule)) expect(isPermissionCode(code), code).toBe(true);
  });

  for (const [action, allowing] of Object.entries(cases) as [ActionCode, string[]][]) {
    describe(action, () => {
      for (const code of allowing) {
        it(`allowed with ${code} alone`, () => expect(canDo(action, ctx([code]))).toBe(true));
      }
      it('denied with every other permission', () => {
        expect(canDo(action, ctx(PERMISSION_CODES.filter((c) => !allowing.includes(c))))).toBe(false);
      });
      it('denied without a role', () => {
        expect(canDo(action, ctx([]))).toBe(false);
        expect(canDo(action, { ...ctx([]), permissions: null })).toBe(false);
      });
    });
  }

  it('scopeOf picks the widest scope, like the server', () => {
    expect(scopeOf(['can_edit_users', 'can_edit_all_users'], 'users', 'edit')).toBe('all');
    expect(scopeOf(['can_edit_users', 'can_edit_descendant_users'], 'users', 'edit')).toBe('descendants');
    expect(scopeOf(['can_delete_own_domains'], 'groups', 'delete')).toBe('domain');
    expect(scopeOf(['can_edit_own_roles'], 'roles', 'edit')).toBe('own');
    expect(scopeOf(['can_view_users'], 'users', 'edit')).toBeNull();
  });
});

const me: Me = { userId: 10, roleId: 5, groupIds: [100] };

describe('userAccess', () => {
  const other = { id: 20, domains: [100], activated: false };
  const elsewhere = { id: 21, domains: [200], activated: false };
  const self = { id: 10, domains: [100], activated: true };

  it('view only: read-only, no delete, password or link', () => {
    expect(userAccess(['can_view_descendant_users'], me, other)).toEqual({
      edit: 'none',
      delete: false,
      changePassword: false,
      sendRegistrationLink: false,
      avatar: false,
    });
  });
  it('an edit scope: the whole form, password, link and avatar', () => {
    const a = userAccess(['can_edit_all_users'], me, other);
    expect(a).toMatchObject({ edit: 'all', changePassword: true, sendRegistrationLink: true, avatar: true, delete: false });
  });
  it('the domain scope covers users of my groups only', () => {
    expect(userAccess(['can_edit_users'], me, other).edit).toBe('all');
    expect(userAccess(['can_edit_users'], me, elsewhere).edit).toBe('none');
    expect(userAccess(['can_delete_users'], me, other).delete).toBe(true);
    expect(userAccess(['can_delete_users'], me, elsewhere).delete).toBe(false);
  });
  it('descendants and all cover every visible user', () => {
    expect(userAccess(['can_edit_descendant_users'], me, elsewhere).edit).toBe('all');
    expect(userAccess(['can_delete_descendant_users'], me, elsewhere).delete).toBe(true);
    expect(userAccess(['can_delete_all_users'], me, elsewhere).delete).toBe(true);
  });
  it('own record with edit-own-profile: own fields and avatar, no password, no delete', () => {
    expect(userAccess(['can_edit_own_profile', 'can_delete_all_users'], me, self)).toEqual({
      edit: 'own_profile',
      delete: false,
      changePassword: false,
      sendRegistrationLink: false,
      avatar: true,
    });
    expect(userAccess(['can_edit_own_profile'], me, other).edit).toBe('none');
    expect(userAccess([], me, self).edit).toBe('none');
  });
  it('no registration link for an activated user', () => {
    expect(userAccess(['can_edit_all_users'], me, { ...other, activated: true }).sendRegistrationLink).toBe(false);
  });
});

describe('roleAccess', () => {
  const mine = { id: 7, is_builtin: false, created_by_user: { id: 10 } };
  const theirs = { id: 8, is_builtin: false, created_by_user: { id: 99 } };
  const builtin = { id: 1, is_builtin: true, created_by_user: null };

  it('no edit or delete permission: read-only', () => {
    expect(roleAccess(['can_view_all_roles'], me, mine)).toEqual({ edit: false, editPermissions: false, delete: false });
  });
  it('own scope: roles I created', () => {
    expect(roleAccess(['can_edit_own_roles', 'can_delete_own_roles'], me, mine)).toEqual({
      edit: true,
      editPermissions: true,
      delete: true,
    });
    expect(roleAccess(['can_edit_own_roles', 'can_delete_own_roles'], me, theirs)).toEqual({
      edit: false,
      editPermissions: false,
      delete: false,
    });
  });
  it('available: roles my role lists, when the list is known', () => {
    const perms = ['can_edit_available_roles', 'can_delete_available_roles'];
    expect(roleAccess(perms, me, theirs, [8])).toMatchObject({ edit: true, delete: true });
    expect(roleAccess(perms, me, theirs, [9])).toMatchObject({ edit: false, delete: false });
    expect(roleAccess(perms, me, theirs)).toMatchObject({ edit: true, delete: true });
  });
  it('users roles and all', () => {
    expect(roleAccess(['can_edit_users_roles'], me, theirs).edit).toBe(true);
    expect(roleAccess(['can_edit_all_roles', 'can_delete_all_roles'], me, theirs)).toEqual({
      edit: true,
      editPermissions: true,
      delete: true,
    });
  });
  it('the built-in role: name only, never deleted; my own role is never deleted', () => {
    expect(roleAccess(['can_edit_all_roles', 'can_delete_all_roles'], me, builtin)).toEqual({
      edit: true,
      editPermissions: false,
      delete: false,
    });
    expect(roleAccess(['can_delete_all_roles'], me, { ...theirs, id: 5 }).delete).toBe(false);
  });
});

describe('groupAccess', () => {
  const own = { id: 100, path: [1, 100] };
  const below = { id: 101, path: [1, 100, 101] };
  const aside = { id: 200, path: [1, 200] };
  const meTwo: Me = { ...me, groupIds: [100, 300] };

  it('no permission: nothing', () => {
    const a = groupAccess([], me, own);
    expect(a.edit || a.licenses || a.logo || a.delete || a.createChild).toBe(false);
    for (const s of SELF_DOMAIN_SECTIONS) expect(a.sections[s]).toBe(false);
  });
  it('edit descendants: my groups and below, not aside', () => {
    expect(groupAccess(['can_edit_descendant_domains'], me, below).edit).toBe(true);
    expect(groupAccess(['can_edit_descendant_domains'], me, own).sections.general).toBe(true);
    expect(groupAccess(['can_edit_descendant_domains'], me, aside).edit).toBe(false);
    expect(groupAccess(['can_edit_all_domains'], me, aside).edit).toBe(true);
  });
  it('self-domain permissions: per section, only in a group I belong to', () => {
    for (const s of SELF_DOMAIN_SECTIONS) {
      const a = groupAccess([`can_manage_self_domain_${s}`], me, own);
      expect(a.edit).toBe(false);
      expect(a.sections[s]).toBe(true);
      for (const other of SELF_DOMAIN_SECTIONS.filter((o) => o !== s)) expect(a.sections[other]).toBe(false);
      expect(groupAccess([`can_manage_self_domain_${s}`], me, below).sections[s]).toBe(false);
    }
    expect(groupAccess(['can_manage_self_domain_white_label'], me, own).logo).toBe(true);
    expect(groupAccess(['can_manage_self_domain_general'], me, own).logo).toBe(false);
  });
  it('delete: own groups, below, all; never the only group of mine', () => {
    expect(groupAccess(['can_delete_own_domains'], meTwo, own).delete).toBe(true);
    expect(groupAccess(['can_delete_own_domains'], meTwo, below).delete).toBe(false);
    expect(groupAccess(['can_delete_descendant_domains'], meTwo, below).delete).toBe(true);
    expect(groupAccess(['can_delete_descendant_domains'], meTwo, aside).delete).toBe(false);
    expect(groupAccess(['can_delete_all_domains'], meTwo, aside).delete).toBe(true);
    expect(groupAccess(['can_delete_all_domains'], me, own).delete).toBe(false);
  });
  it('licence counts by their own scope', () => {
    expect(groupAccess(['can_edit_self_domain_license_counts'], me, own).licenses).toBe(true);
    expect(groupAccess(['can_edit_self_domain_license_counts'], me, below).licenses).toBe(false);
    expect(groupAccess(['can_edit_descendant_domain_license_counts'], me, below).licenses).toBe(true);
    expect(groupAccess(['can_edit_all_domains'], me, below).licenses).toBe(false);
  });
  it('add a child: below my groups with create-descendants, anywhere with create-root or edit-all', () => {
    expect(groupAccess(['can_create_descendant_domains'], me, below).createChild).toBe(true);
    expect(groupAccess(['can_create_descendant_domains'], me, aside).createChild).toBe(false);
    expect(groupAccess(['can_create_root_domains'], me, aside).createChild).toBe(true);
    expect(groupAccess(['can_edit_all_domains'], me, aside).createChild).toBe(true);
  });
});
