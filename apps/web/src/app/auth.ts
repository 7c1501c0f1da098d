import { http, LOGIN_TIMEOUT_MS } from './http';
import { pendingProjects, type Session, sessionStore } from './session';
import { remove, STORAGE_KEYS, write } from './storage';

/** A project whose user has two-factor sign-in on: its challenge waits for a code (issue 14). */
export interface TwoFactorPending {
  challenge: string;
  project: { id: number; uid: string; name: string };
  /** The user's role requires two-factor sign-in and they have none yet: they set it up first. */
  enrolment_required?: boolean;
}

/** What a sign-in leads to: the console, the project choice when the login has several, or the code step. */
export type SignInResult =
  | { kind: 'signed-in' }
  | { kind: 'choose-project' }
  | { kind: 'two-factor'; challenges: TwoFactorPending[]; remember: boolean };

/** POST /login; one session signs in at once, several go to /choose-project (spec core §4). */
export async function signIn(login: string, password: string, remember: boolean): Promise<SignInResult> {
  const answer = await http.data<LoginAnswer>('/login', {
    method: 'POST',
    body: { login, password },
    auth: false,
    timeout: LOGIN_TIMEOUT_MS,
  });
  return proceed(answer, remember);
}

/** Single sign-on (issue 14): the one-time ticket the provider's round trip left enters like a sign-in. */
export async function signInWithTicket(ticket: string, remember: boolean): Promise<SignInResult> {
  return proceed(
    await http.data<LoginAnswer>('/sso/exchange', { method: 'POST', body: { ticket }, auth: false, timeout: LOGIN_TIMEOUT_MS }),
    remember,
  );
}

type LoginAnswer = { sessions: Session[]; two_factor?: TwoFactorPending[] };

function proceed({ sessions, two_factor }: LoginAnswer, remember: boolean): SignInResult {
  // two-factor sign-in (issue 14): with no project open without a code, the code step comes next.
  if (!sessions.length && two_factor?.length) return { kind: 'two-factor', challenges: two_factor, remember };
  if (sessions.length === 1) {
    enter(sessions[0] as Session, remember);
    return { kind: 'signed-in' };
  }
  if (sessions.length === 0) throw new Error('incorrect login/password');
  pendingProjects.set(sessions, remember);
  return { kind: 'choose-project' };
}

/** The second step of sign-in (issue 14): the challenge and a TOTP or recovery code enter the project. */
export async function signInWithCode(challenge: string, code: string, remember: boolean): Promise<void> {
  const { sessions } = await http.data<{ sessions: Session[] }>('/login/two-factor', {
    method: 'POST',
    body: { challenge, code },
    auth: false,
    timeout: LOGIN_TIMEOUT_MS,
  });
  enter(sessions[0] as Session, remember);
}

/** A role requires two-factor sign-in and the user has none: a new secret for their authenticator app. */
export async function startSignInEnrolment(challenge: string): Promise<{ secret: string; otpauth_url: string; qr: string }> {
  return http.data('/login/two-factor/enrol', { method: 'POST', body: { challenge }, auth: false, timeout: LOGIN_TIMEOUT_MS });
}

/**
 * The first code of an enrolment at sign-in: two-factor sign-in is on and the session is made, but
 * entered only once the recovery codes (shown this once) were seen: `enter` does it.
 */
export async function signInWithEnrolment(
  challenge: string,
  code: string,
  remember: boolean,
): Promise<{ recoveryCodes: string[]; enter: () => void }> {
  const { sessions, recovery_codes } = await http.data<{ sessions: Session[]; recovery_codes?: string[] }>('/login/two-factor', {
    method: 'POST',
    body: { challenge, code },
    auth: false,
    timeout: LOGIN_TIMEOUT_MS,
  });
  return { recoveryCodes: recovery_codes ?? [], enter: () => enter(sessions[0] as Session, remember) };
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
