/**
 * Browser storage with the spec's rule: failing to read a stored setting is logged and yields null
 * (private modes and full quotas throw). Every key the console keeps is named here.
 */
export const STORAGE_KEYS = {
  /** The signed-in session: local storage with remember-me, session storage without. */
  session: 'atrium.user',
  /** Sessions of a multi-project login waiting for /choose-project (session storage). */
  projects: 'atrium.projects',
  /** Whether the pending sign-in asked to be remembered (session storage). */
  rememberMe: 'atrium.remember',
  /** Expanded sections of the side menu. (The locale and theme live in react-admin's store, see locale.tsx.) */
  sideMenu: 'atrium.side-menu',
  /** Set at sign-in: adopt the profile's locale once it loads. */
  adoptProfileLocale: 'atrium.adopt-locale',
} as const;

type Area = 'local' | 'session';

function area(which: Area): Storage | null {
  try {
    return which === 'local' ? globalThis.localStorage : globalThis.sessionStorage;
  } catch (error) {
    console.error('storage unavailable', error);
    return null;
  }
}

export function readRaw(key: string, which: Area = 'local'): string | null {
  try {
    return area(which)?.getItem(key) ?? null;
  } catch (error) {
    console.error(`cannot read ${key}`, error);
    return null;
  }
}

export function readJson<T>(key: string, which: Area = 'local'): T | null {
  const raw = readRaw(key, which);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch (error) {
    console.error(`cannot parse ${key}`, error);
    return null;
  }
}

export function write(key: string, value: unknown, which: Area = 'local'): void {
  try {
    area(which)?.setItem(key, typeof value === 'string' ? value : JSON.stringify(value));
  } catch (error) {
    console.error(`cannot write ${key}`, error);
  }
}

export function remove(key: string, which: Area | 'both' = 'both'): void {
  try {
    if (which !== 'session') area('local')?.removeItem(key);
    if (which !== 'local') area('session')?.removeItem(key);
  } catch (error) {
    console.error(`cannot remove ${key}`, error);
  }
}
