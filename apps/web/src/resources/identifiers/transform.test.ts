import type { Identifier } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { identifierBody, newIdentifierRecord, toFormValues } from './transform';

const stored = {
  id: 7,
  name: 'Lobby card',
  description: null,
  is_active: true,
  type: 'card',
  value: '0004A1B2',
  owner_id: 3,
  owner: { id: 3, name: 'Ann', login: 'ann' },
  period_restrict_active: false,
  period_restrict_from: null,
  period_restrict_to: null,
  passes_restrict_active: true,
  passes_restrict_max_count: 10,
  passes_restrict_passes_count: 4,
  access_rules: [1, 2],
  is_revoked: false,
  can_edit: true,
} as unknown as Identifier;

describe('identifier form → API body', () => {
  it('sends a new card in the stored form: typed decimal as hex, blanks left out, no read-only fields', () => {
    const body = identifierBody({ ...newIdentifierRecord(), name: 'Guest', description: '', value_text: '303538' }, 'dec');
    expect(body).toEqual({
      name: 'Guest',
      is_active: true,
      type: 'card',
      value: '4A1B2',
      period_restrict_active: false,
      period_restrict_from: null,
      period_restrict_to: null,
      passes_restrict_active: false,
      passes_restrict_max_count: 0,
      access_rules: [],
    });
  });

  it('keeps the stored value when its text was not touched (a decimal round trip would drop leading zeros)', () => {
    const values = toFormValues(stored, 'dec');
    expect(values.value_text).toBe('303538');
    const body = identifierBody({ ...values, name: 'Lobby' }, 'dec', stored) as Record<string, unknown>;
    expect(body.value).toBe('0004A1B2');
    expect(body).not.toHaveProperty('passes_restrict_passes_count');
    expect(body).not.toHaveProperty('owner');
    expect(body.name).toBe('Lobby');
  });

  it('sends a typed value, and the period as ISO instants while its restriction is on', () => {
    const body = identifierBody(
      {
        ...toFormValues(stored, 'hex'),
        value_text: '04-a1-b2-c3',
        period_restrict_active: true,
        period_restrict_from: '2025-03-01T09:00',
        period_restrict_to: '',
        passes_restrict_active: false,
      },
      'hex',
      stored,
    ) as Record<string, unknown>;
    expect(body.value).toBe('04A1B2C3');
    expect(body.period_restrict_from).toBe(new Date('2025-03-01T09:00').toISOString());
    expect(body.period_restrict_to).toBeNull();
    expect(body.passes_restrict_max_count).toBe(0);
  });

  it('re-reads the value when the type changes, and clears an emptied owner', () => {
    const body = identifierBody({ ...toFormValues(stored, 'hex'), type: 'access_code', value_text: '123456', owner_id: '' }, 'hex', stored);
    expect(body.value).toBe('123456');
    expect(body.owner_id).toBeNull();
  });
});
