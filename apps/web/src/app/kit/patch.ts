/**
 * The parts of `body` that differ from `before` (both already in the API's form), so a PATCH carries
 * only real changes, not fields whose read and write shapes merely differ (objects vs ids, dates vs seconds).
 */
export function patchOf(body: Record<string, unknown>, before: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!before) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (JSON.stringify(v) !== JSON.stringify(before[k])) out[k] = v;
  return out;
}

/** A react-admin `transform` for edit pages: `toBody` applied to the values and to the record, then `patchOf`. */
export const patchTransform =
  (toBody: (values: Record<string, unknown>) => Record<string, unknown>) =>
  (values: Record<string, unknown>, options?: { previousData?: Record<string, unknown> }) =>
    patchOf(toBody(values), options?.previousData ? toBody(options.previousData) : undefined);
