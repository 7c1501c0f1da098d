import type { ApiRoute } from '../../app/kit/apiRoutes';

/** Forward rule groups search by name with `search`. */
export const FORWARD_RULE_ROUTES: Record<string, ApiRoute> = { 'forward-rules': { queryParams: ['search'] } };
/** Relations the list and the edit page ask for. */
export const FORWARD_GROUP_WITH = { meta: { with: ['domain'] } };
