import { CreateSipNumberBodySchema, DUMMY_PASSWORD, UpdateSipNumberBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { patchTransform } from '../../app/kit/patch';
import { FORWARD_TARGET, forwardRulesBody, forwardRulesForm, numbersOf, numbersText, validateNumbers } from './forwarding';
import * as messages from './messages';
import {
  newSipNumberRecord,
  ownerTypeOf,
  sipNumberBody,
  toFormValues,
  validateForwardMode,
  validateOwner,
  validateSipNumber,
  validateSipPassword,
} from './transform';

const stored = {
  id: 7,
  number: '1001',
  name: 'Reception',
  password: DUMMY_PASSWORD,
  is_active: true,
  is_reserved: false,
  user_id: 4,
  device_id: null,
  domain_id: 2,
  forward_mode: 'manual',
  forward_rules: { redirect_if_no_answer: { timeout: 15, numbers: ['1002', '+441234567890'] }, redirect_if_error: null },
  forward_group_id: null,
  purpose: 'master_sip_number',
  owner_info: 'Anna',
  created_by: 1,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  can_edit: true,
  can_delete: true,
  user: { id: 4, name: 'Anna' },
};

describe('numbers typed as one text', () => {
  it('splits on commas, semicolons and lines, keeps each number once', () => {
    expect(numbersOf('101, 102;103\n101 ,')).toEqual(['101', '102', '103']);
    expect(numbersOf(['101', ' 102 '])).toEqual(['101', '102']);
    expect(numbersText(['101', '102'])).toBe('101, 102');
    expect(numbersOf(null)).toEqual([]);
  });

  it('names the first number that is not one', () => {
    const check = validateNumbers(FORWARD_TARGET);
    expect(check('101, +441234567890')).toBeUndefined();
    expect(check('101, 12a')).toEqual({ message: 'telephony.errors.bad_number', args: { number: '12a' } });
    expect(check('+7 912 345')).toMatchObject({ args: { number: '+7 912 345' } });
    expect(check('')).toBeUndefined();
    expect(validateNumbers(FORWARD_TARGET, { required: true })('')).toBe('validation.forward_needs_number');
  });
});

describe('forward rules', () => {
  it('a rule switched off is null; one the API lacks starts off with the 10 s default', () => {
    const form = forwardRulesForm(null);
    expect(form).toEqual({
      redirect_if_no_answer: { enabled: false, timeout: 10, numbers: '' },
      redirect_if_error: { enabled: false, numbers: '' },
    });
    expect(forwardRulesBody(form)).toEqual({ redirect_if_no_answer: null, redirect_if_error: null });
    expect(
      forwardRulesBody({
        redirect_if_no_answer: { enabled: true, timeout: '20', numbers: '101, 102' },
        redirect_if_error: { enabled: true, numbers: '103' },
      }),
    ).toEqual({ redirect_if_no_answer: { timeout: 20, numbers: ['101', '102'] }, redirect_if_error: { numbers: ['103'] } });
  });

  it('reads back what the API gave', () => {
    expect(forwardRulesBody(forwardRulesForm(stored.forward_rules))).toEqual(stored.forward_rules);
  });
});

describe('virtual number body', () => {
  it('a new number: what the contract takes, owner a user by default', () => {
    const values = { ...newSipNumberRecord(), number: ' 1005 ', password: 'Secret123', domain_id: 2, user_id: 4 };
    const body = sipNumberBody(values, 'create');
    expect(CreateSipNumberBodySchema.parse(body)).toMatchObject({ number: '1005', user_id: 4, device_id: null, purpose: null });
    expect(body).toMatchObject({ forward_mode: 'disabled', forward_group_id: null, password: 'Secret123' });
    expect(body).not.toHaveProperty('owner_type');
    expect(body).not.toHaveProperty('is_master');
  });

  it('keeps only the owner of the type picked', () => {
    const base = { ...newSipNumberRecord(), number: '1005', password: 'Secret123', domain_id: 2, user_id: 4, device_id: 9 };
    expect(sipNumberBody({ ...base, owner_type: 'device' }, 'create')).toMatchObject({
      user_id: null,
      device_id: 9,
      purpose: 'device_sip_number',
    });
    expect(sipNumberBody({ ...base, owner_type: 'group' }, 'create')).toMatchObject({
      user_id: null,
      device_id: null,
      purpose: 'group_sip_number',
    });
    expect(sipNumberBody({ ...base, owner_type: 'none' }, 'create')).toMatchObject({ user_id: null, device_id: null, purpose: null });
    expect(sipNumberBody({ ...base, owner_type: 'user', is_master: true }, 'create')).toMatchObject({
      user_id: 4,
      device_id: null,
      purpose: 'master_sip_number',
    });
  });

  it('sends the forward group only when picked', () => {
    const base = { ...newSipNumberRecord(), number: '1005', password: 'Secret123', domain_id: 2, forward_group_id: 3 };
    expect(sipNumberBody({ ...base, forward_mode: 'picked' }, 'create')).toMatchObject({ forward_group_id: 3 });
    expect(sipNumberBody({ ...base, forward_mode: 'manual' }, 'create')).toMatchObject({ forward_group_id: null });
  });

  it('on edit, the password is omitted when unchanged and only changes are sent', () => {
    const transform = patchTransform((v) => sipNumberBody(v, 'edit'));
    const form = toFormValues(stored);
    expect(form).toMatchObject({ owner_type: 'user', is_master: true });
    expect(transform(form, { previousData: stored })).toEqual({});
    const renamed = transform({ ...form, name: 'Lobby' }, { previousData: stored });
    expect(renamed).toEqual({ name: 'Lobby' });
    expect(UpdateSipNumberBodySchema.parse(renamed)).toEqual({ name: 'Lobby' });
    expect(transform({ ...form, password: 'NewPass42' }, { previousData: stored })).toEqual({ password: 'NewPass42' });
    expect(transform({ ...form, password: '' }, { previousData: stored })).toEqual({});
  });

  it('the owner type of a number as read', () => {
    expect(ownerTypeOf({ user_id: 1 })).toBe('user');
    expect(ownerTypeOf({ device_id: 1 })).toBe('device');
    expect(ownerTypeOf({ purpose: 'group_sip_number' })).toBe('group');
    expect(ownerTypeOf({})).toBe('none');
  });
});

describe('virtual number checks (spec comms §5)', () => {
  it('the SIP password needs digits, lowercase and uppercase Latin letters', () => {
    expect(validateSipPassword('secret123')).toBe('validation.sip_password');
    expect(validateSipPassword('SECRET123')).toBe('validation.sip_password');
    expect(validateSipPassword('SecretWord')).toBe('validation.sip_password');
    expect(validateSipPassword('Пароль123a')).toBe('validation.sip_password');
    expect(validateSipPassword('Secret123')).toBeUndefined();
    // The placeholder stands for the password kept as it is.
    expect(validateSipPassword(DUMMY_PASSWORD)).toBeUndefined();
  });

  it('a number is 2 to 16 digits', () => {
    expect(validateSipNumber('1')).toBe('telephony.errors.sip_number');
    expect(validateSipNumber('12a')).toBe('telephony.errors.sip_number');
    expect(validateSipNumber('1001')).toBeUndefined();
  });

  it('own rules need a number; the picked owner must be chosen', () => {
    const rules = forwardRulesForm(null);
    expect(validateForwardMode('manual', { forward_rules: rules })).toBe('validation.forward_needs_number');
    expect(
      validateForwardMode('manual', { forward_rules: { ...rules, redirect_if_error: { enabled: true, numbers: '101' } } }),
    ).toBeUndefined();
    expect(validateForwardMode('disabled', { forward_rules: rules })).toBeUndefined();
    expect(validateOwner('user')(null, { owner_type: 'user' })).toBe('validation.required');
    expect(validateOwner('user')(null, { owner_type: 'device' })).toBeUndefined();
  });
});

describe('telephony texts', () => {
  const keysOf = (tree: object, prefix = ''): string[] =>
    Object.entries(tree).flatMap(([k, v]) => (v && typeof v === 'object' ? keysOf(v, `${prefix}${k}.`) : [`${prefix}${k}`]));

  it('exist in both languages', () => {
    expect(keysOf(messages.ru)).toEqual(keysOf(messages.en));
  });
});

describe('a new number in the form', () => {
  it('keeps the owner type it starts with', () => {
    expect(toFormValues(newSipNumberRecord())).toMatchObject({ owner_type: 'user', is_master: false });
  });
});
