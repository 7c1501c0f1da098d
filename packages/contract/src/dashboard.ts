import { z } from 'zod';

/** A count of the home page: null when the caller may not see that kind of record at all. */
const Count = z.number().int().nullable();

/** One recent change of the audit log, as the home page lists it. */
export const RecentChangeSchema = z.object({
  id: z.number().int(),
  entity: z.string(),
  entity_id: z.string().nullable(),
  action: z.string(),
  user_id: z.number().int().nullable(),
  user_name: z.string().nullable(),
  /** What the record is called (its name, number, login…), for a sentence a person reads; null if nothing names it. */
  subject: z.string().nullable(),
  created_at: z.string(),
});
export type RecentChange = z.infer<typeof RecentChangeSchema>;

/**
 * The home page's summary, scoped to the caller: counts of what they may see, and recent changes
 * (the whole project's with `can_view_audit`, else their own). Later areas add their own fields.
 */
export const DashboardSchema = z.object({
  counts: z.object({ users: Count, groups: Count, roles: Count }),
  /** Devices the caller may see, and how many of them are online now (null without a device view permission). */
  devices: z.object({ total: z.number().int(), online: z.number().int() }).nullable(),
  recent_changes: z.array(RecentChangeSchema),
});
export type Dashboard = z.infer<typeof DashboardSchema>;

/** How many recent changes the home page shows. */
export const DASHBOARD_RECENT_CHANGES = 10;
