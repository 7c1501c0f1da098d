import { CreateAccessRuleBodySchema, DEVICE_MODELS, UpdateAccessRuleBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { patchTransform } from '../../app/kit/patch';
import { accessRuleBody, lockChoices, locksOf, newAccessRuleRecord, validateDevices } from './transform';

const stored = {
  id: 5,
  name: 'Main door',
  description: 'Front',
  is_shareable: false,
  prohibition: false,
  available_for_guest: true,
  devices: [{ id: 4, lock_number: 2 }],
  identifiers: [11],
  users: [],
  domains: [3],
  time_rules: [7],
  created_by: 1,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  can_edit: true,
  can_delete: true,
};

describe('access rule form → API body', () => {
  it('a new rule sends its picked devices and links, and the API takes it', () => {
    const body = accessRuleBody(
      { ...newAccessRuleRecord(), name: ' Gate ', description: '', devices: [{ id: 4, lock_number: 1 }, { id: null }], users: [1, 1, 2] },
      'create',
    );
    expect(body).toEqual({
      name: 'Gate',
      is_shareable: false,
      prohibition: false,
      available_for_guest: false,
      devices: [{ id: 4, lock_number: 1 }],
      identifiers: [],
      users: [1, 2],
      domains: [],
      time_rules: [],
    });
    expect(CreateAccessRuleBodySchema.safeParse(body).success).toBe(true);
  });

  it('a rule with no device is refused before it is sent: "must have a device"', () => {
    expect(validateDevices([])).toBe('access_rules.must_have_device');
    expect(validateDevices([{ id: null, lock_number: 1 }])).toBe('access_rules.must_have_device');
    expect(validateDevices(undefined)).toBe('access_rules.must_have_device');
    expect(validateDevices([{ id: 4, lock_number: 1 }])).toBeUndefined();
    expect(
      validateDevices([
        { id: 4, lock_number: 1 },
        { id: 4, lock_number: 1 },
      ]),
    ).toBe('access_rules.duplicate_lock');
    expect(
      validateDevices([
        { id: 4, lock_number: 1 },
        { id: 4, lock_number: 2 },
      ]),
    ).toBeUndefined();
    expect(CreateAccessRuleBodySchema.safeParse(accessRuleBody({ name: 'x', devices: [] }, 'create')).success).toBe(false);
  });

  it('on edit sends only what changed, without read-only fields', () => {
    const transform = patchTransform((v) => accessRuleBody(v, 'edit'));
    expect(transform({ ...stored }, { previousData: stored })).toEqual({});
    const changed = transform({ ...stored, prohibition: true, devices: [{ id: 4, lock_number: 1 }] }, { previousData: stored });
    expect(changed).toEqual({ prohibition: true, devices: [{ id: 4, lock_number: 1 }] });
    expect(UpdateAccessRuleBodySchema.safeParse(changed).success).toBe(true);
    expect(transform({ ...stored, description: '' }, { previousData: stored })).toEqual({ description: null });
  });

  it('offers the locks of the device model, at least one', () => {
    const withLocks = DEVICE_MODELS.find((m) => m.capabilities.locks > 1);
    if (withLocks) expect(locksOf({ type: withLocks.type, model: withLocks.model })).toBe(withLocks.capabilities.locks);
    const noLocks = DEVICE_MODELS.find((m) => m.capabilities.locks === 0);
    if (noLocks) expect(locksOf({ type: noLocks.type, model: noLocks.model })).toBe(1);
    expect(locksOf(undefined)).toBe(1);
    expect(locksOf({ type: 'panel', model: 'unknown' })).toBe(1);
    expect(lockChoices(3)).toEqual([
      { id: 1, name: '1' },
      { id: 2, name: '2' },
      { id: 3, name: '3' },
    ]);
  });
});
