import { CreateSipTrunkBodySchema, DUMMY_PASSWORD, UpdateSipTrunkBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { patchTransform } from '../../app/kit/patch';
import * as messages from './messages';
import { newSipTrunkRecord, sipTrunkBody, validateOutgoingNumber, validateSipUri } from './transform';

const stored = {
  id: 3,
  name: 'Provider',
  outgoing_number: '+441234567890',
  termination_uri: 'sip:sip.provider.example:5060',
  login: 'atrium',
  password: DUMMY_PASSWORD,
  domains: [2, 4],
  created_by: 1,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  can_edit: true,
  can_delete: true,
};

describe('SIP trunk body', () => {
  it('a new trunk: what the contract takes; no password typed, none sent', () => {
    const values = { ...newSipTrunkRecord(), name: 'T', outgoing_number: '+441234567890', termination_uri: 'sip:host', domains: [4, 2, 4] };
    const body = sipTrunkBody(values);
    expect(body).toEqual({ name: 'T', outgoing_number: '+441234567890', termination_uri: 'sip:host', login: null, domains: [2, 4] });
    expect(CreateSipTrunkBodySchema.safeParse(body).success).toBe(true);
    expect(sipTrunkBody({ ...values, password: 'pw' })).toMatchObject({ password: 'pw' });
  });

  it('the masked password is never sent back; a typed one is', () => {
    const transform = patchTransform(sipTrunkBody);
    expect(transform({ ...stored }, { previousData: stored })).toEqual({});
    expect(transform({ ...stored, password: '' }, { previousData: stored })).toEqual({});
    const changed = transform({ ...stored, password: 'n3w', login: 'other' }, { previousData: stored });
    expect(UpdateSipTrunkBodySchema.parse(changed)).toEqual({ password: 'n3w', login: 'other' });
  });
});

describe('SIP trunk checks (spec comms §5)', () => {
  it('the outgoing number has no spaces and is international', () => {
    expect(validateOutgoingNumber('+44 1234 567890')).toBe('validation.no_spaces');
    expect(validateOutgoingNumber('1234567')).toBe('validation.phone_international');
    expect(validateOutgoingNumber('+441234567890')).toBeUndefined();
  });

  it('the termination URI is a SIP address', () => {
    expect(validateSipUri('http://host')).toBe('validation.sip_uri');
    expect(validateSipUri('sip:sip.provider.example:5060')).toBeUndefined();
    expect(validateSipUri('sips:user@10.0.0.1;transport=tls')).toBeUndefined();
  });

  it('texts exist in both languages', () => {
    const keysOf = (tree: object, prefix = ''): string[] =>
      Object.entries(tree).flatMap(([k, v]) => (v && typeof v === 'object' ? keysOf(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
    expect(keysOf(messages.ru)).toEqual(keysOf(messages.en));
  });
});
