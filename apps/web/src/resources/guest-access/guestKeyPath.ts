/** A guest key as the server makes them (contract GuestKeyParamsSchema): 16–64 url-safe characters. */
const GUEST_KEY = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * True for the guest's public page `/guest-access/<key>`. It shares its prefix with the console's
 * `/guest-access/add` and `/guest-access/<id>/edit`; only a key's shape (16–64 url-safe characters,
 * one segment) tells them apart, and no console path has it.
 */
export function isGuestKeyPath(pathname: string): boolean {
  const m = /^\/guest-access\/([^/]+)\/?$/.exec(pathname);
  return !!m?.[1] && GUEST_KEY.test(m[1]) && !/^\d+$/.test(m[1]);
}
