import { CreateElevatorRuleBodySchema, UpdateElevatorRuleBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { patchTransform } from '../../../app/kit/patch';
import { elevatorRuleBody, newElevatorRuleRecord, ruleElevatorsBody, validateRuleElevators, validateRuleUsers } from './transform';

const stored = {
  id: 4,
  name: 'Tower residents',
  description: null,
  users: [1, 2],
  elevators: [{ id: 3, floors: [2, 5] }],
  created_by: 1,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  can_edit: true,
  can_delete: true,
};

describe('elevator access rule form → API body', () => {
  it('drops elevators with no floor chosen, as the spec says, and the API takes it', () => {
    const body = elevatorRuleBody(
      {
        ...newElevatorRuleRecord(),
        name: ' Tower ',
        description: '',
        users: [2, 2, 5],
        elevators: [
          { id: 3, floors: [5, 2, 2] },
          { id: 8, floors: [] },
          { id: null, floors: [1] },
        ],
      },
      'create',
    );
    expect(body).toEqual({ name: 'Tower', users: [2, 5], elevators: [{ id: 3, floors: [2, 5] }] });
    expect(CreateElevatorRuleBodySchema.safeParse(body).success).toBe(true);
  });

  it('an elevator listed twice keeps the floors of both rows', () => {
    expect(
      ruleElevatorsBody([
        { id: 3, floors: [1] },
        { id: '3', floors: [4, 1] },
      ]),
    ).toEqual([{ id: 3, floors: [1, 4] }]);
  });

  it('at least one user and one elevator floor must be chosen', () => {
    expect(validateRuleUsers([])).toBe('elevator_rules.must_have_user');
    expect(validateRuleUsers([1])).toBeUndefined();
    expect(validateRuleElevators([{ id: 3, floors: [] }])).toBe('elevator_rules.must_have_floor');
    expect(validateRuleElevators(undefined)).toBe('elevator_rules.must_have_floor');
    expect(validateRuleElevators([{ id: 3, floors: [2] }])).toBeUndefined();
    expect(CreateElevatorRuleBodySchema.safeParse(elevatorRuleBody({ name: 'x', users: [1], elevators: [] }, 'create')).success).toBe(
      false,
    );
  });

  it('on edit sends only what changed, without read-only fields', () => {
    const transform = patchTransform((v) => elevatorRuleBody(v, 'edit'));
    expect(transform({ ...stored }, { previousData: stored })).toEqual({});
    const changed = transform({ ...stored, description: ' Night ', elevators: [{ id: 3, floors: [2] }] }, { previousData: stored });
    expect(changed).toEqual({ description: 'Night', elevators: [{ id: 3, floors: [2] }] });
    expect(UpdateElevatorRuleBodySchema.safeParse(changed).success).toBe(true);
  });
});
