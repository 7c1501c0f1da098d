import type { ApiRoute } from '../../app/kit/apiRoutes';

/** The users list takes `search` (login, name or e-mail) and `branch` (a group and below) as query parameters. */
export const USER_ROUTES: Record<string, ApiRoute> = { users: { queryParams: ['search', 'branch'] } };
