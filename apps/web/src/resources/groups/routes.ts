import { DOMAIN_SEARCH_MIN_LENGTH } from '@atrium/contract';
import type { ApiRoute } from '../../app/kit/apiRoutes';
import { GROUPS_API } from '../../app/kit/GroupPicker';

/** Groups are "domains" on the API; their list searches with `search` of a minimum length. */
export const GROUP_ROUTES: Record<string, ApiRoute> = {
  groups: { path: GROUPS_API, queryParams: ['search'], minLength: { search: DOMAIN_SEARCH_MIN_LENGTH } },
};
