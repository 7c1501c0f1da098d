import {
  MarkReadQuerySchema,
  NotificationListQuerySchema,
  NotificationSchema,
  NotificationSettingsBodySchema,
  NotificationSettingsSchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

const ListAnswer = z.object({
  data: z.array(NotificationSchema),
  meta: z.object({ total: z.number().int(), offset: z.number().int(), limit: z.number().int() }),
});

export async function notificationsRoutes(app: AppInstance): Promise<void> {
  const { notifications, profile } = app.services;
  const tags = ['notifications'];

  app.get('/notifications', { schema: { tags, querystring: NotificationListQuerySchema, response: { 200: ListAnswer } } }, (req) =>
    notifications.list(req.actor, req.query.type, req.query.offset, req.query.limit),
  );

  app.get(
    '/notifications/unread',
    {
      schema: {
        tags,
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
        response: { 200: z.object({ data: z.array(NotificationSchema), meta: z.object({ total: z.number().int() }) }) },
      },
    },
    (req) => notifications.unread(req.actor, req.query.limit),
  );

  app.post(
    '/notifications/read',
    { schema: { tags, querystring: MarkReadQuerySchema, response: { 200: z.object({ data: z.object({ updated: z.number().int() }) }) } } },
    async (req) => ({ data: { updated: await notifications.markRead(req.ctx, req.query.id) } }),
  );

  app.get(
    '/notifications/settings',
    { schema: { tags, response: { 200: z.object({ data: NotificationSettingsSchema }) } } },
    async (req) => ({
      data: await profile.notificationSettings(req.actor),
    }),
  );

  app.post(
    '/notifications/settings',
    { schema: { tags, body: NotificationSettingsBodySchema, response: { 200: z.object({ data: NotificationSettingsSchema }) } } },
    async (req) => ({ data: await profile.saveNotificationSettings(req.ctx, req.body) }),
  );
}
