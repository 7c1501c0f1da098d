import type { Actor } from '../../core/context.js';
import type { AuthService } from '../auth/auth.service.js';
import type { RealtimeRepository } from './realtime.repository.js';

/** Whether a realtime socket's sign-in still holds, checked again and again while it is open. */
export class RealtimeSessionService {
  constructor(
    private readonly auth: AuthService,
    private readonly repo: RealtimeRepository,
  ) {}

  /**
   * Who the socket's token stands for now, or null: the token expired, the user was deleted, or
   * its sign-in ended (signed out, revoked). A token naming its sign-in (`sessionId`, the refresh
   * token family) ends with that one; a token naming none, once the user has no sign-in left.
   */
  async current(token: string): Promise<Actor | null> {
    const actor = await this.auth.actorFromToken(token);
    if (!actor) return null;
    return (await this.repo.hasLiveSession(actor.userId, actor.sessionId)) ? actor : null;
  }
}
