import { type GeneralSettings, type SipSettings, UpdateSipSettingsBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import {
  brokerForm,
  generalBody,
  generalFormValues,
  numberOrNull,
  pushBody,
  pushFormValues,
  sipBody,
  validateBasicQty,
  validateClientFeatures,
  validateClientType,
  validateLicensePeriod,
  whiteLabelBody,
} from './projectSettings';

const general: GeneralSettings = {
  name: 'Riverside',
  description: null,
  can_user_register_by_token: true,
  can_user_recovery_password: true,
  can_user_register_by_self: false,
  server_url: 'https://atrium.example',
  time_zone: 'Europe/Moscow',
  mail_settings: {
    type: 'smtp',
    settings: {
      host: 'smtp.example',
      port: 587,
      username: 'mailer',
      password: null,
      has_password: true,
      from_address: 'noreply@example.com',
      from_name: null,
      encryption: 'tls',
    },
  },
  logs_life: 90,
  admin_email: null,
  notify_about_offline_device: false,
  notify_about_device_task_failed: false,
  locale: 'en',
  guest_identifier_limits: { max_passes_count: 5, max_period_days: null },
  mobile_sdk_settings: { is_enabled: true, api_key: null, has_api_key: true },
  user_self_register_settings: { clients: [] },
  license_settings: { basic_license: { period: null, qty: null } },
};

describe('general tab form', () => {
  it('sends a masked password and key as null, and typed ones as they are', () => {
    const v = generalFormValues(general);
    expect(v.mail_settings.settings.password).toBe('');
    const body = generalBody(v);
    expect(body.mail_settings).toEqual({
      type: 'smtp',
      settings: {
        host: 'smtp.example',
        port: 587,
        username: 'mailer',
        password: null,
        from_address: 'noreply@example.com',
        from_name: null,
        encryption: 'tls',
      },
    });
    expect(body.mobile_sdk_settings).toEqual({ is_enabled: true, api_key: null });
    const typed = generalBody({
      ...v,
      mail_settings: { ...v.mail_settings, settings: { ...v.mail_settings.settings, password: 's3cret' } },
      mobile_sdk_settings: { is_enabled: true, api_key: 'k' },
    });
    expect(typed.mail_settings).toMatchObject({ settings: { password: 's3cret' } });
    expect(typed.mobile_sdk_settings?.api_key).toBe('k');
  });

  it('sends numbers as numbers and empty limits as null', () => {
    const v = generalFormValues(general);
    const body = generalBody({
      ...v,
      logs_life: '30' as unknown as number,
      guest_identifier_limits: { max_passes_count: '' as unknown as null, max_period_days: '7' as unknown as number },
      mail_settings: { ...v.mail_settings, settings: { ...v.mail_settings.settings, port: '2525' } },
    });
    expect(body.logs_life).toBe(30);
    expect(body.guest_identifier_limits).toEqual({ max_passes_count: null, max_period_days: 7 });
    expect(body.mail_settings).toMatchObject({ settings: { port: 2525 } });
    expect(generalBody({ ...v, mail_settings: { ...v.mail_settings, type: 'none' } }).mail_settings).toEqual({ type: 'none' });
    expect(numberOrNull('1,5')).toBe(1.5);
    expect(numberOrNull('abc')).toBeNull();
  });
});

const sip: SipSettings = {
  port: 5060,
  ws_port: 8443,
  server: { internal_ip: null, external_ip: '203.0.113.7' },
  rtp: { min: 10000, max: 20000 },
  is_early_media_enabled: false,
  interfaces: [{ transport: 'udp', address: '0.0.0.0', port: 5060 }],
  local_networks: ['10.0.0.0/8'],
  nodes: [{ type: 'embedded', address: '203.0.113.7', state: 'running', started_at: '2026-01-01T00:00:00.000Z' }],
  codecs: ['opus'],
  auto_forward_rules: { is_enabled: false, device_protocol: 'UDP', use_address: 'server_url' },
  resident_phonebook_settings: { is_enabled: false, show_all_groups: false },
};

describe('SIP tab form', () => {
  it('sends the ports as numbers, empty addresses as null and the networks trimmed', () => {
    const body = sipBody({
      ...sip,
      port: '5070' as unknown as number,
      server: { internal_ip: ' ', external_ip: '203.0.113.7' },
      local_networks: [' 10.0.0.0/8 ', ''],
    });
    expect(body).toMatchObject({ port: 5070, server: { internal_ip: null, external_ip: '203.0.113.7' }, local_networks: ['10.0.0.0/8'] });
  });
  it('never sends the read-only interfaces and nodes (the server refuses them)', () => {
    const body = sipBody(sip) as Record<string, unknown>;
    expect(body).not.toHaveProperty('interfaces');
    expect(body).not.toHaveProperty('nodes');
    expect(UpdateSipSettingsBodySchema.safeParse(body).success).toBe(true);
  });
});

describe('push and broker forms', () => {
  it('keeps the push token unless a new one is typed', () => {
    const v = pushFormValues({ is_enabled: true, url: 'https://push.example', token: null, has_token: true });
    expect(pushBody(v)).toEqual({ is_enabled: true, url: 'https://push.example', token: null });
    expect(pushBody({ ...v, token: 't' }).token).toBe('t');
  });
  it('sends the certificate pair only when both files are picked', () => {
    const cert = new File(['-----BEGIN CERTIFICATE-----'], 'c.pem');
    const key = new File(['-----BEGIN PRIVATE KEY-----'], 'k.pem');
    expect([...brokerForm(true, cert, key).keys()]).toEqual(['use_user_certs', 'certfile', 'keyfile']);
    expect([...brokerForm(false, cert, null).keys()]).toEqual(['use_user_certs']);
    expect(brokerForm(false, null, null).get('use_user_certs')).toBe('false');
  });
});

describe('licences of new users in the general tab', () => {
  const range = (min: number, max: number) => ({ message: 'validation.range', args: { min, max } });
  const required = { message: 'validation.required', args: {} };
  it('takes whole days from 1 to 36500 as a period, empty as unlimited', () => {
    expect(validateLicensePeriod('')).toBeUndefined();
    expect(validateLicensePeriod(null)).toBeUndefined();
    expect(validateLicensePeriod(30)).toBeUndefined();
    expect(validateLicensePeriod(0)).toEqual(range(1, 36_500));
    expect(validateLicensePeriod(2.5)).toEqual(range(1, 36_500));
    expect(validateLicensePeriod(36_501)).toEqual(range(1, 36_500));
  });
  it('needs a quantity for a basic licence with a period, and features for a client licence with one', () => {
    const basic = (period: unknown) => ({ license_settings: { basic_license: { period } } });
    expect(validateBasicQty(null, basic(null))).toBeUndefined();
    expect(validateBasicQty('', basic(30))).toEqual(required);
    expect(validateBasicQty(0, basic(null))).toEqual(range(1, 1000));
    expect(validateBasicQty(2, basic(30))).toBeUndefined();
    const values = { user_self_register_settings: { clients: [{ type: 'private', license_settings: { period: 30, features: [] } }] } };
    const props = { finalSource: 'user_self_register_settings.clients.0.license_settings.features' };
    expect(validateClientFeatures([], values, props)).toEqual(required);
    expect(validateClientFeatures(['sip'], values, props)).toBeUndefined();
    values.user_self_register_settings.clients[0]!.license_settings.period = null as never;
    expect(validateClientFeatures([], values, props)).toBeUndefined();
  });
  it('refuses a client type named twice', () => {
    const values = { user_self_register_settings: { clients: [{ type: 'private' }, { type: 'company' }] } };
    expect(validateClientType('private', values)).toBeUndefined();
    values.user_self_register_settings.clients[1]!.type = 'private';
    expect(validateClientType('private', values)).toEqual({ message: 'validation.unique', args: {} });
  });
  it('sends periods and quantities as numbers, empty ones as null', () => {
    const v = generalFormValues({
      ...general,
      user_self_register_settings: { clients: [{ type: 'private', role_id: null, license_settings: { period: null, features: ['sip'] } }] },
    });
    (v.license_settings.basic_license as { period: unknown }).period = '30';
    (v.license_settings.basic_license as { qty: unknown }).qty = '';
    expect(generalBody(v).license_settings).toEqual({ basic_license: { period: 30, qty: null } });
    expect(generalBody(v).user_self_register_settings?.clients).toEqual([
      { type: 'private', role_id: null, license_settings: { period: null, features: ['sip'] } },
    ]);
  });
});

describe('white-label body', () => {
  it('sends the app store links with the rest, an emptied field as null', () => {
    expect(
      whiteLabelBody({
        name: 'Riverside',
        address: '',
        email: null,
        phone: null,
        logo_url: '/api/v0/files/logos/x.png',
        app_store_url: ' https://apps.apple.com/app/id1 ',
        google_play_url: '',
      }),
    ).toEqual({
      name: 'Riverside',
      address: null,
      email: null,
      phone: null,
      app_store_url: 'https://apps.apple.com/app/id1',
      google_play_url: null,
    });
  });
});
