import { useMemo } from 'react';
import { type ActionCode, canDo, type Me } from '../action-rules';
import { useSessionData } from '../SessionContext';

/**
 * The action rules of action-rules.ts for the signed-in user: `can(action)` for what the role allows
 * at all, and `permissions` with `me` for the per-record `…Access` functions. Re-evaluates when the
 * profile reloads (a role change reloads it at once, ARCHITECTURE §5).
 */
export function useActions() {
  const { ruleContext, profile, permissions } = useSessionData();
  return useMemo(() => {
    const me: Me = { userId: profile.id, roleId: profile.role?.id ?? null, groupIds: profile.domains.map((d) => d.id) };
    return { me, permissions, can: (action: ActionCode) => canDo(action, ruleContext) };
  }, [ruleContext, profile, permissions]);
}
