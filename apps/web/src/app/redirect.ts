/** The `redirect` query of the sign-in pages, kept only when it is a path of this console. */
export function safeRedirect(search: string): string | null {
  const value = new URLSearchParams(search).get('redirect');
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  if (/^\/(login|choose-project)(\/|\?|$)/.test(value)) return null;
  return value;
}

/** The sign-in address that brings the user back to `path` afterwards. */
export const loginWithRedirect = (path: string): string =>
  path === '/' || path.startsWith('/login') ? '/login' : `/login?redirect=${encodeURIComponent(path)}`;
