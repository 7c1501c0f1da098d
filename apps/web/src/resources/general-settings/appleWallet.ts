import type { AppleWalletSettings, UpdateAppleWalletBody } from '@atrium/contract';

export type AppleWalletFormValues = Omit<AppleWalletSettings, 'private_key' | 'private_key_passphrase'> & {
  private_key: string;
  private_key_passphrase: string;
};

/** The form starts from what the server read; secrets are never read back, so their inputs start empty. */
export const walletFormValues = (s: AppleWalletSettings): AppleWalletFormValues => ({ ...s, private_key: '', private_key_passphrase: '' });

const orNull = (v: string | null | undefined) => (v?.trim() ? v.trim() : null);

/**
 * The PATCH body: every look and signing field as the form has it; an empty secret is sent as null
 * (the masked value: the server keeps what it has), a typed one replaces it. Clearing a certificate
 * clears it ('').
 */
export function walletBody(v: AppleWalletFormValues): UpdateAppleWalletBody {
  return {
    developer_name: v.developer_name.trim(),
    developer_name_color: v.developer_name_color,
    background_color: v.background_color,
    font_color: v.font_color,
    barcode_alt_text: orNull(v.barcode_alt_text),
    backfields: (v.backfields ?? [])
      .filter((f) => f?.name?.trim() && f?.value?.trim())
      .map((f) => ({ name: f.name.trim(), value: f.value.trim() })),
    pass_type_identifier: orNull(v.pass_type_identifier),
    team_identifier: orNull(v.team_identifier),
    certificate: v.certificate?.trim() ? v.certificate.trim() : '',
    wwdr_certificate: v.wwdr_certificate?.trim() ? v.wwdr_certificate.trim() : '',
    private_key: v.private_key.trim() ? v.private_key.trim() : null,
    private_key_passphrase: v.private_key_passphrase ? v.private_key_passphrase : null,
  };
}
