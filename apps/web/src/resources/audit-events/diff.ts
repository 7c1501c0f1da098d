/** A plain JSON object (not an array, not null). */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep equality of JSON values (key order does not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return false;
}

/**
 * The top-level keys a change touched. An update records the whole record before and only what was
 * sent after: a key absent after was not changed, one present after changed when its value differs
 * (or is new). A create or a delete has one side only: every key of it.
 */
export function changedKeys(before: unknown, after: unknown): Set<string> {
  const b = isPlainObject(before) ? before : null;
  const a = isPlainObject(after) ? after : null;
  if (a && b) return new Set(Object.keys(a).filter((k) => !Object.hasOwn(b, k) || !sameJson(a[k], b[k])));
  return new Set(Object.keys(a ?? b ?? {}));
}

/** One line of a side of the change: a key and its value as indented JSON. */
export interface JsonLine {
  key: string | null;
  text: string;
  changed: boolean;
}

/** A side of the change as lines to show, one per top-level key (a value that is no object is one line). */
export function jsonLines(value: unknown, changed: ReadonlySet<string>): JsonLine[] {
  if (value === null || value === undefined) return [];
  if (!isPlainObject(value)) return [{ key: null, text: JSON.stringify(value, null, 2), changed: false }];
  return Object.entries(value).map(([key, v]) => ({
    key,
    text: `${JSON.stringify(key)}: ${JSON.stringify(v, null, 2) ?? 'null'}`,
    changed: changed.has(key),
  }));
}

/** Who made a change, as the list shows it: name and login, the id of someone since deleted, or the system. */
export function authorOf(e: {
  user: { name: string; login: string } | null;
  user_id: number | null;
}): { key: string; args?: Record<string, unknown> } | string {
  if (e.user) return e.user.name && e.user.name !== e.user.login ? `${e.user.name} (${e.user.login})` : e.user.login;
  if (e.user_id !== null) return { key: 'audit_events.deleted_user', args: { id: e.user_id } };
  return { key: 'audit_events.system' };
}
