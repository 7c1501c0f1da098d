import { type SQL, sql } from 'drizzle-orm';

/**
 * The push of new notifications to their users' mobile apps (issue 14), written in the very
 * statement that inserts them: a CTE reading `rows` (a CTE of inserted notifications: id,
 * project_id, user_id) that adds one push delivery per platform of the user's apps holding a push
 * token, when the project's push server is on. Two index probes per notification, no trigger, no
 * extra round trip; the push worker (modules/mobile-clients) sends them.
 */
export const enqueuePushFrom = (rows: string): SQL =>
  sql.raw(`INSERT INTO push_deliveries (project_id, user_id, notification_id, platform)
    SELECT DISTINCT r.project_id, r.user_id, r.id, mc.platform FROM ${rows} r
      JOIN mobile_clients mc ON mc.user_id = r.user_id AND mc.push_token IS NOT NULL
     WHERE (SELECT (p.settings -> 'push_server' ->> 'is_enabled')::boolean FROM projects p WHERE p.id = r.project_id) IS TRUE
    ON CONFLICT DO NOTHING`);
