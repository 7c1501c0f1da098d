import type { Identifier } from '@atrium/contract';
import { CreateGuestBodySchema, UpdateGuestBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { isGuestKeyPath } from './guestKeyPath';
import { browserLocale, doorNames } from './guestPage';
import { createGuestBody, guestFormValues, newGuestValues, passesLeft, passLimitOf, updateGuestBody, validPeriodEnd } from './transform';

const NOW = new Date('2025-03-01T09:00:00.000Z');

const guest = (over: Partial<Identifier> = {}): Identifier =>
  ({
    id: 7,
    name: 'Courier',
    description: null,
    is_active: true,
    type: 'qr',
    value: 'G0123456789ABCDEF01234567',
    owner_id: null,
    owner: null,
    period_restrict_active: true,
    period_restrict_from: '2025-03-01T09:00:00.000Z',
    period_restrict_to: '2025-03-02T09:00:00.000Z',
    passes_restrict_active: true,
    passes_restrict_max_count: 3,
    passes_restrict_passes_count: 1,
    access_rules: [4, 5],
    guest_type: 'courier',
    is_revoked: false,
    revoked_at: null,
    created_by: 1,
    created_at: '2025-03-01T09:00:00.000Z',
    updated_at: '2025-03-01T09:00:00.000Z',
    can_edit: true,
    can_delete: true,
    ...over,
  }) as Identifier;

describe('a new guest', () => {
  it('is a guest valid from now for 24 hours, without a pass limit (1 once switched on)', () => {
    const v = newGuestValues(NOW);
    expect(v).toMatchObject({ restrict_period: true, restrict_pass_count: false, pass_limit: 1, guest_type: 'guest', access_rules: [] });
    expect(v.valid_from).toBe('2025-03-01T09:00:00.000Z');
    expect(v.valid_to).toBe('2025-03-02T09:00:00.000Z');
  });

  it('sends a body the contract accepts once a rule is picked', () => {
    const body = createGuestBody({ ...newGuestValues(NOW), access_rules: [4] });
    expect(CreateGuestBodySchema.safeParse(body).success).toBe(true);
    expect(body).not.toHaveProperty('name');
    expect(body.key_message).toBeNull();
  });
});

describe('the pass limit (spec entities §5)', () => {
  it('is sent only while the restriction is on', () => {
    expect(passLimitOf({ restrict_pass_count: true, pass_limit: '5' })).toBe(5);
    expect(createGuestBody({ ...newGuestValues(NOW), access_rules: [4], restrict_pass_count: true, pass_limit: 5 }).pass_limit).toBe(5);
  });

  it('is 0 when the restriction is off, whatever the field holds', () => {
    expect(passLimitOf({ restrict_pass_count: false, pass_limit: 5 })).toBe(0);
    const body = createGuestBody({ ...newGuestValues(NOW), access_rules: [4], restrict_pass_count: false, pass_limit: 9 });
    expect(body.pass_limit).toBe(0);
    expect(updateGuestBody({ ...guestFormValues(guest(), NOW), restrict_pass_count: false }).pass_limit).toBe(0);
  });
});

describe('the validity period', () => {
  it('sends both ends as ISO while on, and null when off', () => {
    const on = createGuestBody({ ...newGuestValues(NOW), access_rules: [4], valid_from: new Date(NOW), valid_to: '2025-03-05T10:00' });
    expect(on.valid_from).toBe('2025-03-01T09:00:00.000Z');
    expect(on.valid_to).toBe(new Date('2025-03-05T10:00').toISOString());
    const off = createGuestBody({ ...newGuestValues(NOW), access_rules: [4], restrict_period: false });
    expect(off).toMatchObject({ restrict_period: false, valid_from: null, valid_to: null });
    expect(CreateGuestBodySchema.safeParse(off).success).toBe(true);
  });

  it('must end after it starts', () => {
    const values = { restrict_period: true, valid_from: '2025-03-02T09:00:00.000Z' };
    expect(validPeriodEnd('2025-03-01T09:00:00.000Z', values)).toBe('validation.invalid_value');
    expect(validPeriodEnd('2025-03-03T09:00:00.000Z', values)).toBeUndefined();
    expect(validPeriodEnd('2025-03-01T09:00:00.000Z', { ...values, restrict_period: false })).toBeUndefined();
  });
});

describe('editing a guest', () => {
  it('starts from the pass as granted', () => {
    expect(guestFormValues(guest(), NOW)).toMatchObject({
      name: 'Courier',
      access_rules: [4, 5],
      restrict_period: true,
      valid_from: '2025-03-01T09:00:00.000Z',
      restrict_pass_count: true,
      pass_limit: 3,
      guest_type: 'courier',
      key_message: '',
    });
  });

  it('offers the defaults for a restriction that was off', () => {
    const v = guestFormValues(
      guest({ period_restrict_active: false, period_restrict_from: null, period_restrict_to: null, passes_restrict_active: false }),
      NOW,
    );
    expect(v).toMatchObject({ restrict_period: false, valid_from: NOW.toISOString(), pass_limit: 1 });
  });

  it('sends no guest type (fixed once granted) and keeps an untouched message', () => {
    const body = updateGuestBody(guestFormValues(guest(), NOW));
    expect(body).not.toHaveProperty('guest_type');
    expect(body).not.toHaveProperty('key_message');
    expect(UpdateGuestBodySchema.safeParse(body).success).toBe(true);
    expect(updateGuestBody({ ...guestFormValues(guest(), NOW), key_message: ' Gate B ' }).key_message).toBe('Gate B');
  });
});

it('counts the passes left, or none when unlimited', () => {
  expect(passesLeft(guest())).toBe(2);
  expect(passesLeft(guest({ passes_restrict_passes_count: 5 }))).toBe(0);
  expect(passesLeft(guest({ passes_restrict_active: false }))).toBeNull();
});

describe('the public page', () => {
  it('is told from the console pages by the key alone', () => {
    expect(isGuestKeyPath('/guest-access/AbCdEfGhIjKlMnOpQrStUv_-')).toBe(true);
    expect(isGuestKeyPath('/guest-access/AbCdEfGhIjKlMnOpQrStUv_-/')).toBe(true);
    expect(isGuestKeyPath('/guest-access')).toBe(false);
    expect(isGuestKeyPath('/guest-access/add')).toBe(false);
    expect(isGuestKeyPath('/guest-access/12')).toBe(false);
    expect(isGuestKeyPath('/guest-access/1234567890123456')).toBe(false);
    expect(isGuestKeyPath('/guest-access/12/edit')).toBe(false);
    expect(isGuestKeyPath('/guest-access/AbCdEfGhIjKlMnOpQrStUv_-/edit')).toBe(false);
    expect(isGuestKeyPath(`/guest-access/${'a'.repeat(65)}`)).toBe(false);
    expect(isGuestKeyPath('/guest-access/abc.def.ghi.jkl.mno')).toBe(false);
  });

  it('speaks the first language of the browser the console knows', () => {
    expect(browserLocale(['ru-RU', 'en'])).toBe('ru');
    expect(browserLocale(['de-DE', 'en-GB'])).toBe('en');
    expect(browserLocale(['fr'])).toBe('en');
  });

  it('names doors, with the lock when one device has several', () => {
    const doors = [
      { token: 'a', name: 'Gate', lock: 1 },
      { token: 'b', name: 'Gate', lock: 2 },
      { token: 'c', name: 'Lobby', lock: 1 },
    ];
    expect(doorNames(doors, (n, l) => `${n} #${l}`).map((d) => d.name)).toEqual(['Gate #1', 'Gate #2', 'Lobby']);
  });
});
