import type { AppInstance } from '../../app.js';

/** The realtime socket: token by header or access_token query, then subscribe / unsubscribe / publish. */
export async function realtimeRoutes(app: AppInstance): Promise<void> {
  app.get('/ws', { websocket: true, schema: { tags: ['realtime'], hide: true } }, (socket, req) => {
    app.realtime.attach(socket, req.actor);
  });
}
