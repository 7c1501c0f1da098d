import type { AppleWalletSettings } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { walletBody, walletFormValues } from './appleWallet';

const read: AppleWalletSettings = {
  developer_name: 'Riverside',
  developer_name_color: '#ffffff',
  background_color: '#102030',
  font_color: '#ffffff',
  barcode_alt_text: null,
  backfields: [{ name: 'Concierge', value: '+1 555 0100' }],
  pass_type_identifier: 'pass.com.example',
  team_identifier: 'ABCDE12345',
  certificate: '-----BEGIN CERTIFICATE-----x',
  wwdr_certificate: '-----BEGIN CERTIFICATE-----y',
  private_key: null,
  private_key_passphrase: null,
  has_private_key: true,
  is_configured: true,
};

describe('Apple Wallet form', () => {
  it('keeps the secrets the server holds unless new ones are typed', () => {
    const values = walletFormValues(read);
    expect(values.private_key).toBe('');
    expect(walletBody(values)).toMatchObject({ private_key: null, private_key_passphrase: null, certificate: read.certificate });
    expect(walletBody({ ...values, private_key: ' -----BEGIN PRIVATE KEY-----z ', private_key_passphrase: 'pw' })).toMatchObject({
      private_key: '-----BEGIN PRIVATE KEY-----z',
      private_key_passphrase: 'pw',
    });
  });
  it('drops half-filled back fields and sends cleared optional texts as null', () => {
    const body = walletBody({
      ...walletFormValues(read),
      barcode_alt_text: '  ',
      team_identifier: '',
      backfields: [
        { name: 'Wi-Fi', value: 'guest' },
        { name: ' ', value: 'x' },
      ],
    });
    expect(body).toMatchObject({ barcode_alt_text: null, team_identifier: null, backfields: [{ name: 'Wi-Fi', value: 'guest' }] });
  });
});
