import { toNumber } from '@atrium/contract';

/** A domain type form's values as the API takes them: a numeric type code, a null group when none. */
export function domainTypeBody(values: Record<string, unknown>): { type: number; name: string; domain_id: number | null } {
  const group = values.domain_id;
  return {
    type: toNumber(values.type) ?? 0,
    name: String(values.name ?? '').trim(),
    domain_id: group === '' || group === undefined || group === null ? null : Number(group),
  };
}
