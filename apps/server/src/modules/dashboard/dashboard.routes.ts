import { DashboardSchema, DeviceListQuerySchema, dataResponse } from '@atrium/contract';
import type { AppInstance } from '../../app.js';
import { DashboardRepository } from './dashboard.repository.js';
import { DashboardService, ONE_GROUP, ONE_ROW } from './dashboard.service.js';

const ONLINE_DEVICES = DeviceListQuerySchema.parse({
  size: 1,
  filters: JSON.stringify({ match: 'match_all', rules: [{ field: 'online', operator: 'equals', value: true }] }),
});

/** The home page's summary: counts and recent changes, scoped to the caller. */
export async function dashboardRoutes(app: AppInstance): Promise<void> {
  const { users, groups, roles, devices } = app.services;
  const dashboard = new DashboardService(new DashboardRepository(app.database.db), {
    users: (actor) => users.list(actor, ONE_ROW),
    groups: (actor) => groups.list(actor, ONE_GROUP),
    roles: (actor) => roles.list(actor, ONE_ROW),
    devices: (actor) => devices.list(actor, ONE_ROW),
    onlineDevices: (actor) => devices.list(actor, ONLINE_DEVICES),
  });
  app.get('/dashboard', { schema: { tags: ['dashboard'], response: { 200: dataResponse(DashboardSchema) } } }, async (req) => ({
    data: await dashboard.summary(req.actor),
  }));
}
