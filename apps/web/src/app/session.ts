import { readJson, remove, STORAGE_KEYS, write } from './storage';

/** A project a login may enter (POST /login answers one session per project). */
export interface ProjectRef {
  id: number;
  uid: string;
  name: string;
  description?: string | null;
}

/** The tokens of one signed-in project. */
export interface Session {
  token: string;
  refresh: string;
  project?: ProjectRef | null;
}

/** Why the last session ended: the guard sends an expired session back with a redirect. */
export type EndReason = 'logout' | 'expired' | null;

interface Snapshot {
  session: Session | null;
  remember: boolean;
  endReason: EndReason;
}

function load(): Snapshot {
  const local = readJson<Session>(STORAGE_KEYS.session, 'local');
  if (local?.token) return { session: local, remember: true, endReason: null };
  const session = readJson<Session>(STORAGE_KEYS.session, 'session');
  return { session: session?.token ? session : null, remember: false, endReason: null };
}

let snapshot: Snapshot = load();
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/**
 * The token holder. With remember-me the session lives in local storage (it survives the browser);
 * without, in session storage (it dies with the tab). Components read it via `useSession`.
 */
export const sessionStore = {
  get: (): Snapshot => snapshot,
  token: (): string | null => snapshot.session?.token ?? null,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** Signs in with `session`, stored where `remember` says. */
  start(session: Session, remember: boolean): void {
    remove(STORAGE_KEYS.session);
    write(STORAGE_KEYS.session, session, remember ? 'local' : 'session');
    snapshot = { session, remember, endReason: null };
    emit();
  },
  /** New tokens after a refresh, kept in the same storage as before. */
  update(tokens: { token: string; refresh: string }): void {
    if (!snapshot.session) return;
    const session = { ...snapshot.session, ...tokens };
    write(STORAGE_KEYS.session, session, snapshot.remember ? 'local' : 'session');
    snapshot = { ...snapshot, session };
    emit();
  },
  /** Ends the session: tokens, pending projects and the per-user state go. */
  end(reason: Exclude<EndReason, null>): void {
    remove(STORAGE_KEYS.session);
    remove(STORAGE_KEYS.projects);
    remove(STORAGE_KEYS.rememberMe);
    snapshot = { session: null, remember: snapshot.remember, endReason: reason };
    emit();
  },
  /** Re-reads storage (another tab may have signed in or out). */
  reload(): void {
    snapshot = { ...load(), endReason: snapshot.endReason };
    emit();
  },
};

/** Sessions of a multi-project login, kept until one is chosen. */
export const pendingProjects = {
  set(sessions: Session[], remember: boolean): void {
    write(STORAGE_KEYS.projects, sessions, 'session');
    write(STORAGE_KEYS.rememberMe, remember ? '1' : '0', 'session');
  },
  get(): { sessions: Session[]; remember: boolean } {
    const sessions = readJson<Session[]>(STORAGE_KEYS.projects, 'session') ?? [];
    return { sessions: Array.isArray(sessions) ? sessions : [], remember: readJson<number>(STORAGE_KEYS.rememberMe, 'session') === 1 };
  },
  clear(): void {
    remove(STORAGE_KEYS.projects);
    remove(STORAGE_KEYS.rememberMe);
  },
};
