import type { CreateElevatorRuleBody, UpdateElevatorRuleBody } from '@atrium/contract';

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const idOf = (v: unknown): number => Number(v && typeof v === 'object' ? (v as { id: unknown }).id : v);
const idsOf = (v: unknown): number[] => (Array.isArray(v) ? [...new Set(v.map(idOf).filter((n) => Number.isInteger(n) && n > 0))] : []);
const floorsOf = (v: unknown): number[] =>
  Array.isArray(v) ? [...new Set(v.map(Number).filter((n) => Number.isInteger(n)))].sort((a, b) => a - b) : [];

/**
 * The elevators table as the API keeps it: an elevator with no floor picked is dropped (spec
 * entities §5), its floors sorted, each elevator once (a second row adds its floors to the first).
 */
export function ruleElevatorsBody(v: unknown): { id: number; floors: number[] }[] {
  const byId = new Map<number, number[]>();
  for (const row of Array.isArray(v) ? v : []) {
    if (!row || typeof row !== 'object') continue;
    const r = row as Record<string, unknown>;
    const id = idOf(r.id);
    if (!Number.isInteger(id) || id <= 0) continue;
    byId.set(id, floorsOf([...(byId.get(id) ?? []), ...floorsOf(r.floors)]));
  }
  return [...byId.entries()].filter(([, floors]) => floors.length > 0).map(([id, floors]) => ({ id, floors }));
}

/**
 * The form's values (or the record as read) → the body the API takes: only its fields, '' → null,
 * users as ids. Applied to both the values and the record on edit, so `patchTransform` sends only what changed.
 */
export function elevatorRuleBody(
  values: Record<string, unknown>,
  mode: 'create' | 'edit',
): CreateElevatorRuleBody | UpdateElevatorRuleBody {
  const out: Record<string, unknown> = {};
  if (values.name !== undefined) out.name = String(values.name ?? '').trim();
  if (values.description !== undefined) out.description = blank(values.description) ? null : String(values.description).trim();
  if (mode === 'create' && out.description === null) delete out.description;
  if (values.users !== undefined || mode === 'create') out.users = idsOf(values.users);
  if (values.elevators !== undefined || mode === 'create') out.elevators = ruleElevatorsBody(values.elevators);
  return out as CreateElevatorRuleBody | UpdateElevatorRuleBody;
}

/** A new elevator access rule: one elevator row to fill in. */
export const newElevatorRuleRecord = () => ({ name: '', users: [], elevators: [{ id: null, floors: [] }] });

/** "at least one elevator and elevator floor must be selected" (spec entities §5). */
export function validateRuleElevators(value: unknown): string | undefined {
  return ruleElevatorsBody(value).length > 0 ? undefined : 'elevator_rules.must_have_floor';
}

/** "at least one user must be selected". */
export const validateRuleUsers = (value: unknown): string | undefined =>
  idsOf(value).length > 0 ? undefined : 'elevator_rules.must_have_user';
