import type { Role } from '@atrium/contract';
import { useRecordContext } from 'react-admin';
import { type RoleAccess, roleAccess } from '../../app/action-rules';
import { useAvailableRoles } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';

/**
 * The action rules of one role narrowed by what the server answered for it: without `can_edit`
 * nothing of it changes, without `can_delete` no delete. The flags settle what the console cannot
 * tell, such as whether users it sees hold the role.
 */
export function recordRoleAccess(access: RoleAccess, role: Partial<Pick<Role, 'can_edit' | 'can_delete'>>): RoleAccess {
  const edit = role.can_edit !== false;
  return {
    edit: access.edit && edit,
    editPermissions: access.editPermissions && edit,
    delete: access.delete && role.can_delete !== false,
  };
}

/** What the signed-in user may do with the role in context (action-rules.ts and the record's flags); everything but delete on create. */
export function useRoleAccess(): RoleAccess {
  const record = useRecordContext<Role>();
  const { permissions, me } = useActions();
  const available = useAvailableRoles();
  // While the edit page loads there is no record yet; on create it holds only the initial values (no id).
  if (!record) return { edit: false, editPermissions: false, delete: false };
  if (record.id === undefined) return { edit: true, editPermissions: true, delete: false };
  // GET /roles/available lists my own role first; "available" roles are the others.
  const availableIds = available.data?.map((r) => r.id).filter((id) => id !== me.roleId);
  return recordRoleAccess(roleAccess(permissions, me, record, availableIds), record);
}
