import type { User } from '@atrium/contract';
import { useRecordContext } from 'react-admin';
import { type UserAccess, userAccess } from '../../app/action-rules';
import { useActions } from '../../app/kit/useActions';

/**
 * The action rules of one user narrowed by what the server answered for that record: without
 * `can_edit` nothing of it changes (form, password, link, avatar), without `can_delete` no delete.
 * The rules still say which fields (all or one's own profile); the flags settle what the console
 * cannot tell, such as whether a user's groups lie below the signed-in user's.
 */
export function recordUserAccess(access: UserAccess, user: Partial<Pick<User, 'can_edit' | 'can_delete'>>): UserAccess {
  const edit = user.can_edit !== false;
  return {
    edit: edit ? access.edit : 'none',
    delete: access.delete && user.can_delete !== false,
    changePassword: access.changePassword && edit,
    sendRegistrationLink: access.sendRegistrationLink && edit,
    avatar: access.avatar && edit,
  };
}

/** What the signed-in user may do with the user record in context (action-rules.ts and the record's flags), or null before it loads. */
export function useUserAccess(): UserAccess | null {
  const record = useRecordContext<User>();
  const { permissions, me } = useActions();
  return record ? recordUserAccess(userAccess(permissions, me, record), record) : null;
}
