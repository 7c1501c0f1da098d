import type { User } from '@atrium/contract';
import { useRecordContext } from 'react-admin';
import { type UserAccess, userAccess } from '../../app/action-rules';
import { useActions } from '../../app/kit/useActions';

/** What the signed-in user may do with the user record in context (action-rules.ts), or null before it loads. */
export function useUserAccess(): UserAccess | null {
  const record = useRecordContext<User>();
  const { permissions, me } = useActions();
  return record ? userAccess(permissions, me, record) : null;
}
