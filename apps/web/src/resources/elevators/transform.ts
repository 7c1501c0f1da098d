import { type CreateElevatorBody, deviceModel, type UpdateElevatorBody } from '@atrium/contract';

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const rows = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : [];
const int = (v: unknown, fallback: number): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isInteger(n) ? n : fallback;
};
const idOf = (v: unknown): number => Number(v && typeof v === 'object' ? (v as { id: unknown }).id : v);
const ints = (v: unknown): number[] =>
  Array.isArray(v) ? [...new Set(v.map(Number).filter((n) => Number.isInteger(n)))].sort((a, b) => a - b) : [];

/** Relay ports one floor may use (the contract's limit). */
const MAX_PORTS = 8;

/** A react-admin validation failure: a translation key with its placeholders. */
export type Failure = string | { message: string; args: Record<string, string | number> };

export const DEVICE_MODES = ['call-up', 'call-down', 'access'] as const;
export const RELAY_MODES = ['COM-NC', 'COM-NO'] as const;
export const DEFAULT_RELAY_OPEN_TIME = 10;

/** How many lift relays a controller's model has (0 when the device or its model is not known). */
export const relaysOf = (device: { type?: string; model?: string } | undefined): number =>
  (device?.type && device.model && deviceModel(device.type, device.model)?.capabilities.lift_relays) || 0;

/** The relay port picker's choices: 1…the model's relays. */
export const portChoices = (relays: number) => Array.from({ length: Math.max(0, relays) }, (_, i) => ({ id: i + 1, name: String(i + 1) }));

/**
 * Apartments as people type them ("12, 14; 15A" or one per line) or as the API lists them → the
 * API's list: trimmed, no blanks, each once, in the order typed.
 */
export const apartmentsOf = (v: unknown): string[] => {
  const parts = Array.isArray(v) ? v.map((x) => String(x ?? '')) : typeof v === 'string' ? v.split(/[,;\s]+/) : [];
  return [...new Set(parts.map((p) => p.trim()).filter(Boolean))];
};

/** The apartments of a floor as the form edits them: one text, comma separated. */
export const apartmentsText = (v: unknown): string => apartmentsOf(v).join(', ');

/** A floor row as the API takes it. */
export const floorBody = (f: Record<string, unknown>) => ({
  floor: int(f.floor, 0),
  name: blank(f.name) ? null : String(f.name).trim(),
  apartments: apartmentsOf(f.apartments),
  is_public: f.is_public === true,
  is_panel_floor: f.is_panel_floor === true,
  ports: ints(f.ports),
});

const settingsBody = (v: unknown) => {
  const s = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const release = (s.lift_release_time && typeof s.lift_release_time === 'object' ? s.lift_release_time : {}) as Record<string, unknown>;
  return {
    device_mode: (DEVICE_MODES as readonly unknown[]).includes(s.device_mode)
      ? (s.device_mode as (typeof DEVICE_MODES)[number])
      : 'call-up',
    relay_mode: (RELAY_MODES as readonly unknown[]).includes(s.relay_mode) ? (s.relay_mode as (typeof RELAY_MODES)[number]) : 'COM-NC',
    invert_all_relays: s.invert_all_relays === true,
    relay_open_time: int(s.relay_open_time, DEFAULT_RELAY_OPEN_TIME),
    lift_release_time: { card: int(release.card, 0), api: int(release.api, 0) },
  };
};

/** The controllers table as the API takes it: rows with a device picked. */
export const controllersBody = (v: unknown) =>
  rows(v)
    .filter((c) => !blank(c.device_id))
    .map((c) => ({
      device_id: idOf(c.device_id),
      enabled: c.enabled !== false,
      // Sorted by floor, as the form shows them: a reordering alone is no change.
      floor_map: rows(c.floor_map)
        .map(floorBody)
        .sort((a, b) => a.floor - b.floor),
      settings: settingsBody(c.settings),
    }));

/**
 * The form's values (or the record as read) → the body the API takes: only its fields (the record
 * carries `device_name`, `can_edit`…). Applied to both the values and the record on edit, so
 * `patchTransform` sends only what changed. Whether the elevator has an access-mode controller
 * follows from its controllers' modes.
 */
export function elevatorBody(values: Record<string, unknown>, mode: 'create' | 'edit'): CreateElevatorBody | UpdateElevatorBody {
  const out: Record<string, unknown> = {};
  if (values.name !== undefined) out.name = String(values.name ?? '').trim();
  if (values.domain_id !== undefined && !blank(values.domain_id)) out.domain_id = idOf(values.domain_id);
  if (values.controllers !== undefined || mode === 'create') {
    const controllers = controllersBody(values.controllers);
    out.controllers = controllers;
    out.has_access_mode_controller = controllers.some((c) => c.settings.device_mode === 'access');
  }
  return out as CreateElevatorBody | UpdateElevatorBody;
}

const floorSort = (a: Record<string, unknown>, b: Record<string, unknown>) => int(a.floor, 0) - int(b.floor, 0);

/** A floor map sorted by floor, lowest first (empty floor numbers last). */
export const sortFloors = <T extends Record<string, unknown>>(list: T[]): T[] =>
  [...list].sort((a, b) => (blank(a.floor) ? 1 : 0) - (blank(b.floor) ? 1 : 0) || floorSort(a, b));

/** The record as the form edits it: floors sorted by floor, apartments as comma-separated text. */
export const toFormValues = <T extends { controllers?: unknown }>(record: T): T => ({
  ...record,
  controllers: rows(record.controllers).map((c) => ({
    ...c,
    floor_map: sortFloors(rows(c.floor_map)).map((f) => ({ ...f, apartments: apartmentsText(f.apartments) })),
  })),
});

/** A new floor row: the floor above the highest one (1 in an empty map), on the lowest free relay port. */
export function nextFloorRow(list: unknown, relays: number) {
  const floors = rows(list);
  const numbers = floors.map((f) => int(f.floor, Number.NaN)).filter((n) => Number.isInteger(n));
  const used = new Set(floors.flatMap((f) => ints(f.ports)));
  const port = Array.from({ length: relays }, (_, i) => i + 1).find((p) => !used.has(p));
  return {
    floor: numbers.length ? Math.max(...numbers) + 1 : 1,
    name: '',
    apartments: '',
    is_public: false,
    is_panel_floor: false,
    ports: port ? [port] : [],
  };
}

/** A controller row to fill in: its defaults as the spec gives them, one floor to start from. */
export const newControllerRow = () => ({
  device_id: null,
  enabled: true,
  floor_map: [nextFloorRow([], 1)],
  settings: settingsBody({}),
});

/** A new elevator: one controller row to fill in. */
export const newElevatorRecord = () => ({ name: '', domain_id: null, controllers: [newControllerRow()] });

// --- checks of spec entities §5 said next to the field, before the server refuses them ---------

/** "must have a controller", and no controller listed twice. */
export function validateControllers(value: unknown): Failure | undefined {
  const list = controllersBody(value);
  if (list.length === 0) return 'elevators.errors.no_controller';
  const ids = list.map((c) => c.device_id);
  return new Set(ids).size === ids.length ? undefined : 'elevators.errors.duplicate_controller';
}

/** A controller's floor map: at least one floor, each floor once, no more floors than the model has relays. */
export const validateFloorMap =
  (relays: number) =>
  (value: unknown): Failure | undefined => {
    const floors = rows(value).map(floorBody);
    if (floors.length === 0) return 'elevators.errors.no_floor_map';
    const numbers = floors.map((f) => f.floor);
    if (new Set(numbers).size !== numbers.length) return 'elevators.errors.duplicate_floor';
    if (relays > 0 && floors.length > relays) return { message: 'elevators.errors.too_many_floors', args: { max: relays } };
    return floorRowsFailure(floors, relays);
  };

/** What is wrong with one floor row, if anything (a code of `elevators.errors`). */
export type FloorIssue = 'public_and_panel' | 'apartments_on_panel' | 'no_ports' | 'too_many_ports' | 'ports_range';

/** A floor is not both public and the panel floor, and the panel floor serves no apartments. */
export function floorConflict(row: { is_public?: unknown; is_panel_floor?: unknown; apartments?: unknown }): FloorIssue | undefined {
  if (row.is_public === true && row.is_panel_floor === true) return 'public_and_panel';
  if (row.is_panel_floor === true && apartmentsOf(row.apartments).length > 0) return 'apartments_on_panel';
  return undefined;
}

/** Relay ports: at least one, at most 8, each within the model's relays. */
export function portsIssue(value: unknown, relays: number): FloorIssue | undefined {
  const ports = ints(value);
  if (ports.length === 0) return 'no_ports';
  if (ports.length > MAX_PORTS) return 'too_many_ports';
  if (relays > 0 && ports.some((p) => p < 1 || p > relays)) return 'ports_range';
  return undefined;
}

const failure = (issue: FloorIssue, args: Record<string, number>): Failure => ({
  message: `elevators.errors.${issue}`,
  args: { max: MAX_PORTS, ...args },
});

/** The first row rule broken in a floor map, named by its floor, for the summary under the table. */
function floorRowsFailure(floors: ReturnType<typeof floorBody>[], relays: number): Failure | undefined {
  for (const f of floors) {
    const issue = floorConflict(f) ?? portsIssue(f.ports, relays);
    if (issue)
      return { message: `elevators.errors.floor_${issue}`, args: { floor: f.floor, max: issue === 'ports_range' ? relays : MAX_PORTS } };
  }
  return undefined;
}

/** The relay ports picker's validator for a controller with `relays` relays. */
export const validatePorts = (relays: number) => (value: unknown) => {
  const issue = portsIssue(value, relays);
  return issue ? failure(issue, issue === 'ports_range' ? { max: relays } : {}) : undefined;
};

/** The floor row an input belongs to, from the whole form and the input's source (`controllers.0.floor_map.2.ports`). */
export function rowOf(values: unknown, source: unknown): Record<string, unknown> | undefined {
  if (typeof source !== 'string') return undefined;
  let node: unknown = values;
  for (const part of source.split('.').slice(0, -1)) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

/**
 * A react-admin validator of a floor row's input that says the row rules it concerns: the switches
 * say "not both public and the panel floor", the apartments "none on the panel floor".
 */
export const validateFloorRow =
  (...concerns: FloorIssue[]) =>
  (_: unknown, values: unknown, props?: { finalSource?: string; source?: string }) => {
    const row = rowOf(values, props?.finalSource ?? props?.source);
    const issue = row ? floorConflict(row) : undefined;
    return issue && concerns.includes(issue) ? failure(issue, {}) : undefined;
  };

/** The call dialog's values → `POST /elevators/{id}/call`: a floor, an apartment when one was picked, up unless down. */
export const callBody = (v: Record<string, unknown>) => ({
  floor: int(v.floor, 0),
  ...(blank(v.apartment) ? {} : { apartment: String(v.apartment).trim() }),
  direction: v.direction === 'down' ? ('down' as const) : ('up' as const),
});
