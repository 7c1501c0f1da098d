import { UNLIMITED_PERIOD } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { dateToSeconds, generateBody, groupBody, licenseIssues, parseExcept, secondsToDate } from './transform';

describe('licence periods', () => {
  it('unlimited bounds show as empty and empty dates are unlimited', () => {
    expect(secondsToDate(UNLIMITED_PERIOD.from)).toBe('');
    expect(secondsToDate(UNLIMITED_PERIOD.to)).toBe('');
    expect(dateToSeconds('', 'from')).toBe(UNLIMITED_PERIOD.from);
    expect(dateToSeconds(undefined, 'to')).toBe(UNLIMITED_PERIOD.to);
  });
  it('a day runs from its first to its last second (UTC)', () => {
    expect(dateToSeconds('2026-03-01', 'from')).toBe(Date.UTC(2026, 2, 1) / 1000);
    expect(dateToSeconds('2026-03-01', 'to')).toBe(Date.UTC(2026, 2, 2) / 1000 - 1);
    expect(secondsToDate(Date.UTC(2026, 2, 1) / 1000)).toBe('2026-03-01');
  });
  it('a licence block round-trips through the form (dates in the inputs)', () => {
    const info = {
      is_enabled: true,
      notifications: { is_active: true, period: 'weekly', notify_before: 7 },
      licenses: [
        {
          type: 'sip',
          is_active: true,
          is_device_license: false,
          device: null,
          quantity: 5,
          period: { from: Date.UTC(2026, 0, 1) / 1000, to: UNLIMITED_PERIOD.to },
          restrict_period: { is_active: false, ...UNLIMITED_PERIOD },
        },
      ],
    };
    expect(groupBody({ name: 'A', license_info: info }).license_info).toEqual(info);
    const edited = { ...info, licenses: [{ ...info.licenses[0], period: { from: '2026-01-01', to: '' } }] };
    expect(groupBody({ name: 'A', license_info: edited }).license_info).toEqual(info);
  });
});

describe('group form transform', () => {
  it('sends blanks as null, numbers as numbers and drops read-only parts (the record flags among them)', () => {
    const body = groupBody({
      id: 3,
      path: [1, 3],
      has_children: true,
      can_edit: true,
      can_delete: false,
      name: ' Entrance 1 ',
      description: '',
      parent_id: '1',
      domain_type_id: 3,
      logic_address: '1',
      whitelabel_settings: { is_enabled: true, logo: '/files/x.png', name: ' ', email: 'a@b.co' },
      guest_identifier_limits: { max_passes_count: '', max_period_days: '30' },
      device_status_notify: [{ user_id: 4, notify_about_offline_device: true }, { user_id: null }],
      internal_subnetworks: ['10.0.0.0/8', ' ', ' 192.168.0.0/16 '],
      license_info: null,
    });
    expect(body).toEqual({
      name: 'Entrance 1',
      description: null,
      parent_id: 1,
      domain_type_id: 3,
      logic_address: 1,
      whitelabel_settings: { is_enabled: true, name: null, address: null, email: 'a@b.co', phone: null },
      guest_identifier_limits: { max_passes_count: null, max_period_days: 30 },
      device_status_notify: [{ user_id: 4, notify_about_offline_device: true, notify_about_device_task_failed: false }],
      is_resident_phonebook_enabled: false,
      internal_subnetworks: ['10.0.0.0/8', '192.168.0.0/16'],
    });
  });
  it('a type without logical addresses (5) sends null', () => {
    expect(groupBody({ name: 'S', logic_address: 4 }, 5).logic_address).toBeNull();
    expect(groupBody({ name: 'S', logic_address: 4 }, 4).logic_address).toBe(4);
  });
  it('reads each licence consistency problem of an error', () => {
    const error = {
      body: {
        code: 'license_consistency',
        message: 'license consistency error',
        details: [
          { code: 'license_quantity_exceeded', message: 'license quantity exceeded', type: 'sip' },
          { code: 'x', message: 'license period is outside the parent period', type: 'ukey2' },
        ],
      },
    };
    expect(licenseIssues(error)).toEqual([
      { message: 'license quantity exceeded', type: 'sip' },
      { message: 'license period is outside the parent period', type: 'ukey2' },
    ]);
    expect(licenseIssues({ body: { code: 'not_found' } })).toEqual([]);
  });
});

describe('generate dialog transform', () => {
  it('reads skipped numbers in any separator, once each', () => {
    expect(parseExcept('13, 14 13;x -1')).toEqual([13, 14]);
    expect(parseExcept(undefined)).toEqual([]);
  });
  it('builds the levels and drops the parent for root level only', () => {
    const values = {
      parent_id: 4,
      root_level_only: false,
      levels: [
        { domain_type_id: 4, count: '3', prefix: 'Floor ', logic_number: true, from: '1', except: '' },
        { domain_type_id: 6, count: 4, prefix: 'Apt ', except: '13', is_start_youngest_num: true },
      ],
    };
    expect(generateBody(values)).toEqual({
      parent_id: 4,
      root_level_only: false,
      domains: [
        {
          id: 4,
          count: 3,
          prefix: 'Floor ',
          logic_number: true,
          numeration: { from: 1, except: [], is_in_youngest_num: false, is_start_youngest_num: false },
        },
        {
          id: 6,
          count: 4,
          prefix: 'Apt ',
          logic_number: true,
          numeration: { from: 1, except: [13], is_in_youngest_num: false, is_start_youngest_num: true },
        },
      ],
    });
    expect(generateBody({ ...values, root_level_only: true }).parent_id).toBeNull();
  });
});
