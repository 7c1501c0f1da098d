import type { ApiRoute } from '../../app/kit/apiRoutes';
import { SCHEDULE_ROUTES } from '../time-rules/shared';

/** Access rules search by name with `search`; their schedules are the console's `schedules` (API /time-rules). */
export const ACCESS_RULE_ROUTES: Record<string, ApiRoute> = { 'access-rules': { queryParams: ['search'] }, ...SCHEDULE_ROUTES };
