import { ACS_TYPES, type Notification, type NotificationClass, type NotificationType, REALTIME_EVENTS, topics } from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { RealtimeHub } from '../../core/realtime.js';
import type { NotificationRow, NotificationsRepository } from './notifications.repository.js';

export interface NewNotification {
  type: NotificationType;
  data?: Record<string, unknown>;
  significance?: 'important' | 'other';
  icon?: string | null;
  color?: string | null;
  popupAction?: { code: 'goto:page'; params: { page: string; query?: Record<string, string> } } | null;
  sound?: { file: string; mode: 'once' | 'loop' } | null;
}

export function toNotification(r: NotificationRow): Notification {
  return {
    id: r.id,
    type: r.type as NotificationType,
    data: r.data,
    significance: r.significance as Notification['significance'],
    icon: r.icon,
    color: r.color,
    popup_action: (r.popupAction as Notification['popup_action']) ?? null,
    sound: (r.sound as Notification['sound']) ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    read_at: r.readAt?.toISOString() ?? null,
  };
}

export class NotificationsService {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly realtime: RealtimeHub,
    /** A notification's insert may queue its pushes (core/push-outbox.ts): the push worker looks at once. */
    private readonly pushQueued: () => void = () => undefined,
  ) {}

  /**
   * Creates a notification for a user and pushes it to their open consoles at once. Any area may
   * call it. An ACS notification for a user who turned those off is neither kept nor sent: null.
   */
  async notify(projectId: number, userId: number, n: NewNotification): Promise<Notification | null> {
    if (ACS_TYPES.includes(n.type) && !(await this.repo.wantsAcs(userId))) return null;
    const row = await this.repo.insert({
      projectId,
      userId,
      type: n.type,
      data: n.data ?? {},
      significance: n.significance ?? 'other',
      icon: n.icon ?? null,
      color: n.color ?? null,
      popupAction: n.popupAction ?? null,
      sound: n.sound ?? null,
    });
    this.pushQueued();
    const notification = toNotification(row);
    await this.realtime.publish(projectId, topics.user(userId), REALTIME_EVENTS.notification, notification);
    return notification;
  }

  async list(actor: Actor, cls: NotificationClass, offset: number, limit: number) {
    const { rows, total } = await this.repo.list(actor.userId, cls, offset, limit);
    return { data: rows.map(toNotification), meta: { total, offset, limit } };
  }

  async unread(actor: Actor, limit: number) {
    const { rows, total } = await this.repo.unread(actor.userId, limit);
    return { data: rows.map(toNotification), meta: { total } };
  }

  async markRead(ctx: RequestContext, id?: number): Promise<number> {
    const { actor } = ctx;
    if (id !== undefined && !(await this.repo.exists(actor.userId, id))) throw new AppError('not_found');
    return this.repo.transaction(async (tx) => {
      const updated = await this.repo.markRead(tx, actor.userId, id);
      await recordAudit(tx, ctx, { entity: 'notification', entityId: id ?? null, action: 'read', after: { updated } });
      return updated;
    });
  }
}
