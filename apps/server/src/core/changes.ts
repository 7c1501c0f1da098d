/** Blank and absent are the same (no) value when a field is compared with what is stored. */
const blankAsNull = (v: unknown) => (v === undefined || v === '' ? null : v);

/** Whether a PATCH field really changes the stored value: sent, and other than it (blank and null alike). */
export const changes = (sent: unknown, stored: unknown): boolean => sent !== undefined && blankAsNull(sent) !== blankAsNull(stored);
