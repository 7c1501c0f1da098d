import {
  auditSubject,
  DASHBOARD_RECENT_CHANGES,
  type Dashboard,
  GroupListQuerySchema,
  type ListMeta,
  ListQuerySchema,
} from '@atrium/contract';
import type { Actor } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { DashboardRepository } from './dashboard.repository.js';

type Lister = (actor: Actor) => Promise<{ meta: ListMeta }>;

/** What the caller's lists would count: their own services, so the scopes are the lists' scopes. */
export interface DashboardSources {
  users: Lister;
  groups: Lister;
  roles: Lister;
  devices: Lister;
  onlineDevices: Lister;
}

export const ONE_ROW = ListQuerySchema.parse({ size: 1 });
export const ONE_GROUP = GroupListQuerySchema.parse({ size: 1 });

/** The home page's summary of what exists, as far as the caller may see it. */
export class DashboardService {
  constructor(
    private readonly repo: DashboardRepository,
    private readonly sources: DashboardSources,
  ) {}

  /** The list's total, or null when the caller may not list that kind of record. */
  private async count(actor: Actor, list: Lister): Promise<number | null> {
    try {
      return (await list(actor)).meta.total;
    } catch (e) {
      if (e instanceof AppError && e.status === 403) return null;
      throw e;
    }
  }

  async summary(actor: Actor): Promise<Dashboard> {
    const [users, groups, roles, devices, online] = await Promise.all([
      this.count(actor, this.sources.users),
      this.count(actor, this.sources.groups),
      this.count(actor, this.sources.roles),
      this.count(actor, this.sources.devices),
      this.count(actor, this.sources.onlineDevices),
    ]);
    const everyone = actor.permissions.has('can_view_audit');
    const rows = await this.repo.recentChanges(actor.projectId, DASHBOARD_RECENT_CHANGES, everyone ? undefined : actor.userId);
    return {
      counts: { users, groups, roles },
      devices: devices === null ? null : { total: devices, online: online ?? 0 },
      recent_changes: rows.map((r) => ({
        id: r.id,
        entity: r.entity,
        entity_id: r.entityId,
        action: r.action,
        user_id: r.userId,
        user_name: r.userName,
        subject: auditSubject(r.before, r.after),
        created_at: r.createdAt.toISOString(),
      })),
    };
  }
}
