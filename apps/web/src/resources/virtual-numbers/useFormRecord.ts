import { useState } from 'react';

/**
 * The record as a form edits it, the same object for as long as the record's own fields stay the
 * same. A save answers the record without its relations (`with=`), and the refetch that follows
 * adds them back: a new object each time, and react-admin resets a form whose record changes, which
 * would wipe what the user began typing after the save. Relations are left out of the comparison.
 */
export function useFormRecord<T extends object, F>(
  record: T | undefined,
  toForm: (r: T) => F,
  relations: readonly string[],
): F | undefined {
  const key = record ? JSON.stringify(Object.entries(record).filter(([k]) => !relations.includes(k))) : '';
  const [kept, setKept] = useState(() => ({ key, value: record ? toForm(record) : undefined }));
  if (kept.key === key) return kept.value;
  // React's "adjust state when a prop changes": the next render keeps this one.
  const next = { key, value: record ? toForm(record) : undefined };
  setKept(next);
  return next.value;
}
