import type { ApiRoute } from '../../app/kit/apiRoutes';

/** The console's announces are the API's /announcements; the list searches with `search`. */
export const ANNOUNCEMENTS_API = 'announcements';
export const ANNOUNCE_ROUTES: Record<string, ApiRoute> = {
  announces: { path: ANNOUNCEMENTS_API, queryParams: ['search'] },
};
