import { http, LOGIN_TIMEOUT_MS } from './http';
import { pendingProjects, type Session, sessionStore } from './session';
import { remove, STORAGE_KEYS, write } from './storage';

/** What a sign-in leads to: the console, or the project choice when the login has several. */
export type SignInResult = { kind: 'signed-in' } | { kind: 'choose-project' };

/** POST /login; one session signs in at once, several go to /choose-project (spec core §4). */
export async function signIn(login: string, password: string, remember: boolean): Promise<SignInResult> {
  const { sessions } = await http.data<{ sessions: Session[] }>('/login', {
    method: 'POST',
    body: { login, password },
    auth: false,
    timeout: LOGIN_TIMEOUT_MS,
  });
  if (sessions.length === 1) {
    enter(sessions[0] as Session, remember);
    return { kind: 'signed-in' };
  }
  if (sessions.length === 0) throw new Error('incorrect login/password');
  pendingProjects.set(sessions, remember);
  return { kind: 'choose-project' };
}

/** Enters one project's session. */
export function enter(session: Session, remember: boolean): void {
  pendingProjects.clear();
  write(STORAGE_KEYS.adoptProfileLocale, '1', 'session');
  sessionStore.start(session, remember);
}

/**
 * Forgets tokens, projects and per-user state at once, then tells the server (POST /logout, best
 * effort) without waiting for its answer: whatever happens next — a reload, a closed tab, a slow
 * server, someone else signing in — this browser is signed out, and the sign-out is over.
 */
export function signOut(): void {
  const session = sessionStore.get().session;
  remove(STORAGE_KEYS.adoptProfileLocale);
  sessionStore.end('logout');
  if (!session) return;
  // Not awaited: react-admin finishes its sign-out (store reset, the move to /login) when this
  // returns; after a slow answer it would do so over the next person's session.
  void http
    .request('/logout', {
      method: 'POST',
      body: { token: session.refresh },
      bearer: session.token,
      refresh: false,
      timeout: 5000,
      keepalive: true,
    })
    .catch(() => undefined);
}
