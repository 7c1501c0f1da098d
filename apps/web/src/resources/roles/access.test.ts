import { describe, expect, it } from 'vitest';
import { type Me, roleAccess } from '../../app/action-rules';
import { recordRoleAccess } from './access';

const me: Me = { userId: 1, roleId: 10, groupIds: [100] };
/** A role some user might hold: "users' roles" cannot be told by the console, so the rules allow. */
const role = { id: 20, is_builtin: false, created_by_user: null };
const USERS_ROLES = ['can_edit_users_roles', 'can_delete_all_roles'];

describe('the actions on one role follow its can_edit and can_delete', () => {
  it('keeps what the rules allow when the server allows it too', () => {
    expect(recordRoleAccess(roleAccess(USERS_ROLES, me, role), { can_edit: true, can_delete: true })).toEqual({
      edit: true,
      editPermissions: true,
      delete: true,
    });
  });

  it('without can_edit the role is read-only, its permissions included', () => {
    expect(recordRoleAccess(roleAccess(USERS_ROLES, me, role), { can_edit: false, can_delete: true })).toEqual({
      edit: false,
      editPermissions: false,
      delete: true,
    });
  });

  it('without can_delete there is no delete', () => {
    expect(recordRoleAccess(roleAccess(USERS_ROLES, me, role), { can_edit: true, can_delete: false }).delete).toBe(false);
  });

  it('never widens what the rules refuse: the built-in role keeps its permissions and is never deleted', () => {
    const builtin = { ...role, is_builtin: true };
    expect(recordRoleAccess(roleAccess(USERS_ROLES, me, builtin), { can_edit: true, can_delete: true })).toEqual({
      edit: true,
      editPermissions: false,
      delete: false,
    });
    expect(recordRoleAccess(roleAccess([], me, role), { can_edit: true, can_delete: true })).toEqual({
      edit: false,
      editPermissions: false,
      delete: false,
    });
  });
});
