import { CallElevatorBodySchema, CreateElevatorBodySchema, DEVICE_MODELS, UpdateElevatorBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { patchTransform } from '../../app/kit/patch';
import * as messages from './messages';
import {
  apartmentsOf,
  callBody,
  elevatorBody,
  newElevatorRecord,
  nextFloorRow,
  portChoices,
  relaysOf,
  rowOf,
  sortFloors,
  toFormValues,
  validateControllers,
  validateFloorMap,
  validateFloorRow,
  validatePorts,
} from './transform';

const floor = <T extends Record<string, unknown>>(f: T) => ({
  name: null,
  apartments: [],
  is_public: false,
  is_panel_floor: false,
  ports: [1],
  ...f,
});
const stored = {
  id: 3,
  name: 'Lift A',
  domain_id: 2,
  has_access_mode_controller: false,
  controllers: [
    {
      device_id: 9,
      device_name: 'LC lobby',
      enabled: true,
      floor_map: [floor({ floor: 2, apartments: ['5', '6'], ports: [2] }), floor({ floor: 1, is_panel_floor: true, ports: [1] })],
      settings: {
        device_mode: 'call-up' as const,
        relay_mode: 'COM-NC' as const,
        invert_all_relays: false,
        relay_open_time: 10,
        lift_release_time: { card: 0, api: 0 },
      },
    },
  ],
  created_by: 1,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  can_edit: true,
  can_delete: true,
};

describe('elevator form → API body', () => {
  it('a new elevator sends its group, its controllers with floor maps and spec defaults, and the API takes it', () => {
    const values = {
      ...newElevatorRecord(),
      name: ' Lift B ',
      domain_id: 4,
      controllers: [
        {
          device_id: 7,
          enabled: true,
          floor_map: [
            { floor: '1', name: ' Lobby ', apartments: '', is_panel_floor: true, ports: [1] },
            { floor: 2, apartments: '3, 4;4 5A', ports: [3, 2, 2] },
          ],
          settings: { device_mode: 'access', relay_open_time: '12', lift_release_time: { card: 5 } },
        },
        { device_id: null, floor_map: [] },
      ],
    };
    const body = elevatorBody(values, 'create');
    expect(body).toEqual({
      name: 'Lift B',
      domain_id: 4,
      has_access_mode_controller: true,
      controllers: [
        {
          device_id: 7,
          enabled: true,
          floor_map: [
            { floor: 1, name: 'Lobby', apartments: [], is_public: false, is_panel_floor: true, ports: [1] },
            { floor: 2, name: null, apartments: ['3', '4', '5A'], is_public: false, is_panel_floor: false, ports: [2, 3] },
          ],
          settings: {
            device_mode: 'access',
            relay_mode: 'COM-NC',
            invert_all_relays: false,
            relay_open_time: 12,
            lift_release_time: { card: 5, api: 0 },
          },
        },
      ],
    });
    expect(CreateElevatorBodySchema.safeParse(body).success).toBe(true);
  });

  it('an elevator without a group or a controller is refused by the API too', () => {
    expect(CreateElevatorBodySchema.safeParse(elevatorBody({ name: 'x', controllers: [] }, 'create')).success).toBe(false);
  });

  it('the form edits floors sorted, apartments as text; an untouched edit sends nothing', () => {
    const form = toFormValues(stored);
    expect(form.controllers[0]?.floor_map.map((f) => [f.floor, f.apartments])).toEqual([
      [1, ''],
      [2, '5, 6'],
    ]);
    const transform = patchTransform((v) => elevatorBody(v, 'edit'));
    expect(transform(form as never, { previousData: stored })).toEqual({});
    expect(transform({ ...form, name: 'Lift C' } as never, { previousData: stored })).toEqual({ name: 'Lift C' });
    const moved = { ...form, controllers: [{ ...form.controllers[0], floor_map: [{ ...form.controllers[0]?.floor_map[0], ports: [3] }] }] };
    const changed = transform(moved as never, { previousData: stored });
    expect(changed).toMatchObject({ controllers: [{ device_id: 9, floor_map: [{ floor: 1, ports: [3] }] }] });
    expect(UpdateElevatorBodySchema.safeParse(changed).success).toBe(true);
  });

  it('reads apartments as people type them', () => {
    expect(apartmentsOf(' 12, 14;15A\n16  12 ')).toEqual(['12', '14', '15A', '16']);
    expect(apartmentsOf(['1', ' 2 ', ''])).toEqual(['1', '2']);
    expect(apartmentsOf(null)).toEqual([]);
  });

  it('sorts floors, blanks last, and adds the next floor on a free port', () => {
    expect(sortFloors([{ floor: 3 }, { floor: '' }, { floor: -1 }, { floor: 1 }]).map((f) => f.floor)).toEqual([-1, 1, 3, '']);
    expect(
      nextFloorRow(
        [
          { floor: 1, ports: [1] },
          { floor: 4, ports: [2, 3] },
        ],
        16,
      ),
    ).toMatchObject({ floor: 5, ports: [4] });
    expect(nextFloorRow([], 16)).toMatchObject({ floor: 1, ports: [1] });
    expect(nextFloorRow([{ floor: 1, ports: [1] }], 1)).toMatchObject({ floor: 2, ports: [] });
  });

  it('the call dialog sends a floor, an apartment only when picked, and a direction', () => {
    expect(callBody({ floor: 3, apartment: '', direction: 'up' })).toEqual({ floor: 3, direction: 'up' });
    expect(callBody({ floor: '2', apartment: ' 7 ', direction: 'down' })).toEqual({ floor: 2, apartment: '7', direction: 'down' });
    expect(CallElevatorBodySchema.safeParse(callBody({ floor: 2, apartment: '7' })).success).toBe(true);
  });
});

describe('the elevator rules of spec entities §5, checked before saving', () => {
  it('must have a controller, each once', () => {
    expect(validateControllers([])).toBe('elevators.errors.no_controller');
    expect(validateControllers([{ device_id: null }])).toBe('elevators.errors.no_controller');
    expect(validateControllers([{ device_id: 1 }, { device_id: 1 }])).toBe('elevators.errors.duplicate_controller');
    expect(validateControllers([{ device_id: 1 }, { device_id: 2 }])).toBeUndefined();
  });

  it('a controller must have a floor map, each floor once, no more floors than relays', () => {
    const check = validateFloorMap(2);
    expect(check([])).toBe('elevators.errors.no_floor_map');
    expect(check([floor({ floor: 1 }), floor({ floor: '1', ports: [2] })])).toBe('elevators.errors.duplicate_floor');
    expect(check([floor({ floor: 1 }), floor({ floor: 2 }), floor({ floor: 3 })])).toEqual({
      message: 'elevators.errors.too_many_floors',
      args: { max: 2 },
    });
    expect(check([floor({ floor: 1 }), floor({ floor: 2, ports: [2] })])).toBeUndefined();
  });

  it('relay ports are within the model, at least one and at most eight', () => {
    expect(validatePorts(16)([])).toMatchObject({ message: 'elevators.errors.no_ports' });
    expect(validatePorts(16)([17])).toEqual({ message: 'elevators.errors.ports_range', args: { max: 16 } });
    expect(validatePorts(16)([1, 2, 3, 4, 5, 6, 7, 8, 9])).toMatchObject({ message: 'elevators.errors.too_many_ports' });
    expect(validatePorts(16)([16])).toBeUndefined();
    expect(validateFloorMap(4)([floor({ floor: 5, ports: [5] })])).toEqual({
      message: 'elevators.errors.floor_ports_range',
      args: { floor: 5, max: 4 },
    });
  });

  it('a floor is not both public and the panel floor; the panel floor has no apartments', () => {
    expect(validateFloorMap(16)([floor({ floor: 1, is_public: true, is_panel_floor: true })])).toMatchObject({
      message: 'elevators.errors.floor_public_and_panel',
      args: { floor: 1 },
    });
    expect(validateFloorMap(16)([floor({ floor: 2, is_panel_floor: true, apartments: '4' })])).toMatchObject({
      message: 'elevators.errors.floor_apartments_on_panel',
    });
    const values = { controllers: [{ floor_map: [floor({ floor: 1 }), floor({ floor: 2, is_public: true, is_panel_floor: true })] }] };
    expect(rowOf(values, 'controllers.0.floor_map.1.is_public')).toBe(values.controllers[0]?.floor_map[1]);
    expect(validateFloorRow('public_and_panel')(true, values, { finalSource: 'controllers.0.floor_map.1.is_panel_floor' })).toMatchObject({
      message: 'elevators.errors.public_and_panel',
    });
    expect(
      validateFloorRow('public_and_panel')(false, values, { finalSource: 'controllers.0.floor_map.0.is_panel_floor' }),
    ).toBeUndefined();
    // The apartments input only speaks of apartments on the panel floor.
    expect(validateFloorRow('apartments_on_panel')('', values, { finalSource: 'controllers.0.floor_map.1.apartments' })).toBeUndefined();
  });

  it('offers the relay ports of the controller model', () => {
    const lc16 = DEVICE_MODELS.find((m) => m.model === 'LC-16');
    expect(relaysOf(lc16 ? { type: lc16.type, model: lc16.model } : undefined)).toBe(16);
    expect(relaysOf({ type: 'panel', model: 'nope' })).toBe(0);
    expect(relaysOf(undefined)).toBe(0);
    expect(portChoices(3)).toEqual([
      { id: 1, name: '1' },
      { id: 2, name: '2' },
      { id: 3, name: '3' },
    ]);
  });
});

describe('elevator texts', () => {
  const keysOf = (tree: object, prefix = ''): string[] =>
    Object.entries(tree).flatMap(([k, v]) => (v && typeof v === 'object' ? keysOf(v, `${prefix}${k}.`) : [`${prefix}${k}`]));

  it('every check names a text that exists in both languages', () => {
    const en = keysOf(messages.en);
    expect(keysOf(messages.ru)).toEqual(en);
    for (const issue of ['public_and_panel', 'apartments_on_panel', 'no_ports', 'too_many_ports', 'ports_range']) {
      expect(en).toContain(`elevators.errors.${issue}`);
      expect(en).toContain(`elevators.errors.floor_${issue}`);
    }
  });
});
