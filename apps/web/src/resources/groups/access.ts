import type { Group } from '@atrium/contract';
import { useRecordContext } from 'react-admin';
import { type GroupAccess, groupAccess } from '../../app/action-rules';
import { useActions } from '../../app/kit/useActions';

const FULL_ACCESS: GroupAccess = {
  edit: true,
  sections: { general: true, white_label: true, notifications: true, guest_access: true },
  licenses: true,
  logo: true,
  delete: false,
  createChild: true,
};

const NO_ACCESS: GroupAccess = {
  edit: false,
  sections: { general: false, white_label: false, notifications: false, guest_access: false },
  licenses: false,
  logo: false,
  delete: false,
  createChild: false,
};

/**
 * The action rules of one group narrowed by what the server answered for it: without `can_edit`
 * no tab, licence or logo changes, without `can_delete` no delete. Adding a group below it is not
 * an edit of it and stays with the rules.
 */
export function recordGroupAccess(access: GroupAccess, group: Partial<Pick<Group, 'can_edit' | 'can_delete'>>): GroupAccess {
  const deletable = access.delete && group.can_delete !== false;
  if (group.can_edit !== false) return { ...access, delete: deletable };
  return { ...NO_ACCESS, delete: deletable, createChild: access.createChild };
}

/** What the signed-in user may do with the group in context (action-rules.ts and the record's flags); everything on create. */
export function useGroupAccess(mode: 'create' | 'edit'): GroupAccess {
  const record = useRecordContext<Group>();
  const { permissions, me } = useActions();
  if (mode === 'create') return FULL_ACCESS;
  if (!record) return NO_ACCESS;
  return recordGroupAccess(groupAccess(permissions, me, record), record);
}
