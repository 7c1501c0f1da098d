import { decodeJwt } from 'jose';
import type { AppInstance } from '../../app.js';
import { RealtimeRepository } from './realtime.repository.js';
import { RealtimeSessionService } from './realtime.service.js';

/** The realtime socket: token by header or access_token query, then subscribe / unsubscribe / publish. */
export async function realtimeRoutes(app: AppInstance): Promise<void> {
  // Built here, not with the other services: only the socket route uses it.
  const sessions = new RealtimeSessionService(app.services.auth, new RealtimeRepository(app.database.db));
  app.get('/ws', { websocket: true, schema: { tags: ['realtime'], hide: true } }, (socket, req) => {
    const header = req.headers.authorization;
    // The auth hook has verified this token already, taken from the header first as here.
    const token = header?.startsWith('Bearer ') ? header.slice(7) : String((req.query as Record<string, unknown>).access_token);
    const { exp } = decodeJwt(token);
    app.realtime.attach(socket, req.actor, {
      token,
      expiresAt: (exp ?? 0) * 1000,
      check: () => sessions.current(token),
      log: req.log,
    });
  });
}
