import { z } from 'zod';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Apple Wallet settings (spec comms §3 and §7: GET and PATCH /settings/apple-wallet): how an
// identifier's pass looks, and what signs it. Apple signs nothing for us: the pass is signed with the
// project's Pass Type ID certificate and key, chained to Apple's WWDR intermediate certificate.

const Color = z
  .string()
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, M.invalid_value)
  .transform((v) => v.toLowerCase());

const Pem = (label: string) =>
  z
    .string()
    .trim()
    .max(64 * 1024)
    .refine(
      (v) => v.includes(`-----BEGIN ${label}`) || (label === 'PRIVATE KEY' && /-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY/.test(v)),
      M.invalid_value,
    );

export const AppleWalletBackfieldSchema = z.strictObject({
  name: z.string().trim().min(1).max(64),
  value: z.string().trim().min(1).max(500),
});

/** What the console reads: the private key and its passphrase are never sent back, only whether they are set. */
export const AppleWalletSettingsSchema = z.object({
  developer_name: z.string(),
  developer_name_color: z.string(),
  background_color: z.string(),
  font_color: z.string(),
  barcode_alt_text: z.string().nullable(),
  backfields: z.array(z.object({ name: z.string(), value: z.string() })),
  pass_type_identifier: z.string().nullable(),
  team_identifier: z.string().nullable(),
  certificate: z.string().nullable(),
  wwdr_certificate: z.string().nullable(),
  /** Always null on read (masked). */
  private_key: z.null(),
  private_key_passphrase: z.null(),
  has_private_key: z.boolean(),
  /** Whether passes can be signed: identifiers, certificate, key and WWDR certificate are all set. */
  is_configured: z.boolean(),
});
export type AppleWalletSettings = z.infer<typeof AppleWalletSettingsSchema>;

/** PATCH: what is absent stays; a masked secret sent back as null stays too; '' clears it. */
export const UpdateAppleWalletBodySchema = z.strictObject({
  developer_name: z.string().trim().min(1).max(64).optional(),
  developer_name_color: Color.optional(),
  background_color: Color.optional(),
  font_color: Color.optional(),
  barcode_alt_text: z.string().trim().max(64).nullable().optional(),
  backfields: z.array(AppleWalletBackfieldSchema).max(20).optional(),
  pass_type_identifier: z
    .string()
    .trim()
    .regex(/^pass\.[A-Za-z0-9.-]+$/, M.invalid_value)
    .nullable()
    .optional(),
  team_identifier: z
    .string()
    .trim()
    .regex(/^[A-Z0-9]{10}$/, M.invalid_value)
    .nullable()
    .optional(),
  certificate: Pem('CERTIFICATE').or(z.literal('')).nullable().optional(),
  wwdr_certificate: Pem('CERTIFICATE').or(z.literal('')).nullable().optional(),
  private_key: Pem('PRIVATE KEY').or(z.literal('')).nullable().optional(),
  private_key_passphrase: z.string().max(200).nullable().optional(),
});
export type UpdateAppleWalletBody = z.infer<typeof UpdateAppleWalletBodySchema>;

export const APPLE_WALLET_DEFAULTS = {
  developer_name: 'Atrium',
  developer_name_color: '#ffffff',
  background_color: '#1f3a5f',
  font_color: '#ffffff',
  barcode_alt_text: null,
  backfields: [],
} as const;
