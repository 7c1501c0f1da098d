import { CreateForwardGroupBodySchema, UpdateForwardGroupBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { patchTransform } from '../../app/kit/patch';
import * as messages from './messages';
import {
  forwardGroupBody,
  newForwardGroupRecord,
  toFormValues,
  validateGroupNumbers,
  validatePeriodTo,
  validateTrunk,
  validateTrunkNumbers,
} from './transform';

const stored = {
  id: 5,
  name: 'Concierge',
  domain_id: 2,
  params: {
    numbers: ['1001', '1002'],
    timeout: 45,
    days: ['mon', 'tue'],
    period: { from: 32_400, to: 64_800 },
    trunk_numbers: ['+441234567890'],
    trunk_id: 3,
  },
  forward_rules: { redirect_if_no_answer: null, redirect_if_error: { numbers: ['1003'] } },
  created_by: 1,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  can_edit: true,
  can_delete: true,
};

describe('forward rule group body', () => {
  it('a new group: every day, all day, 60 s', () => {
    const values = {
      ...newForwardGroupRecord(),
      name: ' Desk ',
      domain_id: 2,
      params: { ...newForwardGroupRecord().params, numbers: '101, 102' },
    };
    const body = CreateForwardGroupBodySchema.parse(forwardGroupBody(values));
    expect(body).toMatchObject({
      name: 'Desk',
      params: {
        numbers: ['101', '102'],
        timeout: 60,
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        period: { from: 0, to: 86_400 },
        trunk_numbers: [],
        trunk_id: null,
      },
      forward_rules: { redirect_if_no_answer: null, redirect_if_error: null },
    });
  });

  it('edits HH:MM and comma text, and reads back what the API gave', () => {
    const form = toFormValues(stored);
    expect(form.params).toMatchObject({ numbers: '1001, 1002', trunk_numbers: '+441234567890', period: { from: '09:00', to: '18:00' } });
    const transform = patchTransform(forwardGroupBody);
    expect(transform(form, { previousData: stored })).toEqual({});
    const changed = transform({ ...form, params: { ...form.params, timeout: 30 } }, { previousData: stored });
    expect(UpdateForwardGroupBodySchema.parse(changed)).toEqual({ params: { ...stored.params, timeout: 30 } });
  });

  it('without outside numbers no trunk is sent', () => {
    const form = toFormValues(stored);
    expect(forwardGroupBody({ ...form, params: { ...form.params, trunk_numbers: '' } }).params).toMatchObject({ trunk_id: null });
  });
});

describe('forward rule group checks (spec comms §5)', () => {
  it('needs a virtual number; each is 2 to 16 digits', () => {
    expect(validateGroupNumbers('')).toBe('validation.forward_needs_number');
    expect(validateGroupNumbers('101, +44')).toMatchObject({ message: 'telephony.errors.bad_number', args: { number: '+44' } });
    expect(validateGroupNumbers('101')).toBeUndefined();
  });

  it('outside numbers: no spaces, international; they need a trunk', () => {
    expect(validateTrunkNumbers('+44 1234 567890')).toBe('validation.no_spaces');
    expect(validateTrunkNumbers('12345')).toBe('validation.phone_international');
    expect(validateTrunkNumbers('+441234567890, +79123456789')).toBeUndefined();
    expect(validateTrunk(null, { params: { trunk_numbers: '+441234567890' } })).toBe('validation.required');
    expect(validateTrunk(null, { params: { trunk_numbers: '' } })).toBeUndefined();
  });

  it('the period ends after it starts', () => {
    expect(validatePeriodTo('08:00', { params: { period: { from: '09:00' } } })).toBe('forward_rules.errors.period_order');
    expect(validatePeriodTo('24:00', { params: { period: { from: '09:00' } } })).toBeUndefined();
  });

  it('texts exist in both languages', () => {
    const keysOf = (tree: object, prefix = ''): string[] =>
      Object.entries(tree).flatMap(([k, v]) => (v && typeof v === 'object' ? keysOf(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
    expect(keysOf(messages.ru)).toEqual(keysOf(messages.en));
  });
});

describe('a new group in the form', () => {
  it('starts from 00:00 to 24:00, its values kept as the form has them', () => {
    expect(toFormValues(newForwardGroupRecord()).params).toMatchObject({
      period: { from: '00:00', to: '24:00' },
      numbers: '',
      timeout: 60,
    });
  });
});
