import { createPrivateKey, X509Certificate } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { APPLE_WALLET_DEFAULTS, type AppleWalletSettings, type Identifier, type UpdateAppleWalletBody } from '@atrium/contract';
import { eq, sql } from 'drizzle-orm';
import { PKPass } from 'passkit-generator';
import { recordAudit } from '../../core/audit.js';
import { type Actor, can, type RequestContext } from '../../core/context.js';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { AppError, prohibited } from '../../core/errors.js';
import { projects } from '../projects/projects.table.js';

/** What is stored under the project settings' `apple_wallet` key; secrets stay here and are never read back. */
interface Stored {
  developer_name?: string;
  developer_name_color?: string;
  background_color?: string;
  font_color?: string;
  barcode_alt_text?: string | null;
  backfields?: { name: string; value: string }[];
  pass_type_identifier?: string | null;
  team_identifier?: string | null;
  certificate?: string | null;
  wwdr_certificate?: string | null;
  private_key?: string | null;
  private_key_passphrase?: string | null;
}

const SECRETS = ['private_key', 'private_key_passphrase'] as const;

/** `#rrggbb` as Wallet wants it: `rgb(r, g, b)`. */
export function walletColor(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

/**
 * A square PNG of one colour: Wallet refuses a pass without an icon, and the project has no logo
 * to give yet (the white-label logo belongs to the settings issue). Written here because a few
 * lines of zlib are smaller than an image library for one flat square.
 */
export function solidPng(size: number, hex: string): Buffer {
  const n = Number.parseInt(hex.slice(1), 16);
  const row = Buffer.alloc(1 + size * 3);
  for (let x = 0; x < size; x++) row.set([(n >> 16) & 255, (n >> 8) & 255, n & 255], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** CRC-32 of PNG chunks (ISO 3309), for the pass icon this file draws and tests that edit a PNG header. */
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 255] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Why these settings cannot sign a pass Wallet would accept, or null. A signer does not notice a key
 * that is not the certificate's, nor a certificate the WWDR authority did not issue: the pass would
 * only be refused on the phone. Checked on save and before signing.
 */
export function signingProblem(s: Stored): { field: string; message: string } | null {
  if (!s.certificate || !s.private_key || !s.wwdr_certificate) return null;
  let cert: X509Certificate;
  let wwdr: X509Certificate;
  try {
    cert = new X509Certificate(s.certificate);
  } catch {
    return { field: 'certificate', message: 'the certificate cannot be read' };
  }
  try {
    wwdr = new X509Certificate(s.wwdr_certificate);
  } catch {
    return { field: 'wwdr_certificate', message: 'the certificate cannot be read' };
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey({ key: s.private_key, ...(s.private_key_passphrase ? { passphrase: s.private_key_passphrase } : {}) });
  } catch {
    return { field: 'private_key_passphrase', message: 'the key cannot be read with this passphrase' };
  }
  if (!cert.checkPrivateKey(key)) return { field: 'private_key', message: 'the key does not belong to the certificate' };
  if (!cert.checkIssued(wwdr) || !cert.verify(wwdr.publicKey))
    return { field: 'wwdr_certificate', message: 'the certificate was not issued by this authority' };
  return null;
}

/** Apple Wallet settings of a project (spec comms §3, §7) and the signed `.pkpass` of a QR identifier. */
export class AppleWalletService {
  constructor(private readonly db: Db) {}

  /** The stored settings; `forUpdate` locks the project's row for a change in `db`'s transaction. */
  private async stored(projectId: number, db: DbOrTx = this.db, forUpdate = false): Promise<Stored> {
    const query = db
      .select({ v: sql<Stored | null>`${projects.settings} -> 'apple_wallet'` })
      .from(projects)
      .where(eq(projects.id, projectId));
    const [row] = forUpdate ? await query.for('update') : await query;
    return row?.v ?? {};
  }

  private view(s: Stored): AppleWalletSettings {
    const configured = Boolean(s.pass_type_identifier && s.team_identifier && s.certificate && s.wwdr_certificate && s.private_key);
    return {
      developer_name: s.developer_name ?? APPLE_WALLET_DEFAULTS.developer_name,
      developer_name_color: s.developer_name_color ?? APPLE_WALLET_DEFAULTS.developer_name_color,
      background_color: s.background_color ?? APPLE_WALLET_DEFAULTS.background_color,
      font_color: s.font_color ?? APPLE_WALLET_DEFAULTS.font_color,
      barcode_alt_text: s.barcode_alt_text ?? null,
      backfields: s.backfields ?? [],
      pass_type_identifier: s.pass_type_identifier ?? null,
      team_identifier: s.team_identifier ?? null,
      certificate: s.certificate ?? null,
      wwdr_certificate: s.wwdr_certificate ?? null,
      private_key: null,
      private_key_passphrase: null,
      has_private_key: Boolean(s.private_key),
      is_configured: configured,
    };
  }

  async get(actor: Actor): Promise<AppleWalletSettings> {
    if (!can(actor, 'can_view_project_settings') && !can(actor, 'can_change_project_settings')) {
      throw prohibited([{ permission: 'can_view_project_settings' }]);
    }
    return this.view(await this.stored(actor.projectId));
  }

  async update(ctx: RequestContext, body: UpdateAppleWalletBody): Promise<AppleWalletSettings> {
    if (!can(ctx.actor, 'can_change_project_settings')) throw prohibited([{ permission: 'can_change_project_settings' }]);
    return this.db.transaction(async (tx) => {
      const before = await this.stored(ctx.actor.projectId, tx, true);
      const next: Stored = { ...before };
      for (const [k, v] of Object.entries(body) as [keyof Stored, unknown][]) {
        if (v === undefined) continue;
        // A masked secret comes back as null: it stays. An empty string clears it.
        if ((SECRETS as readonly string[]).includes(k) && v === null) continue;
        (next as Record<string, unknown>)[k] = v === '' ? null : v;
      }
      const problem = signingProblem(next);
      if (problem) throw new AppError('apple_wallet_cannot_sign', [problem]);
      await tx
        .update(projects)
        .set({ settings: sql`jsonb_set(${projects.settings}, '{apple_wallet}', ${JSON.stringify(next)}::jsonb, true)` })
        .where(eq(projects.id, ctx.actor.projectId));
      const masked = (s: Stored) => ({ ...this.view(s), has_private_key: Boolean(s.private_key) });
      await recordAudit(tx, ctx, {
        entity: 'apple_wallet_settings',
        entityId: ctx.actor.projectId,
        action: 'update',
        before: masked(before),
        after: masked(next),
      });
      return this.view(next);
    });
  }

  /** The signed pass of a QR identifier the caller may see (the caller's visibility is checked by the access area). */
  async pass(projectId: number, identifier: Identifier): Promise<Buffer> {
    if (identifier.type !== 'qr') throw new AppError('apple_wallet_qr_only', [{ field: 'type', message: identifier.type }]);
    const s = await this.stored(projectId);
    const v = this.view(s);
    if (!v.is_configured || !s.certificate || !s.wwdr_certificate || !s.private_key) throw new AppError('apple_wallet_not_configured');
    const problem = signingProblem(s);
    if (problem) throw new AppError('apple_wallet_cannot_sign', [problem]);
    const passJson = {
      formatVersion: 1,
      passTypeIdentifier: s.pass_type_identifier,
      teamIdentifier: s.team_identifier,
      serialNumber: `identifier-${projectId}-${identifier.id}`,
      organizationName: v.developer_name,
      description: identifier.name,
      logoText: v.developer_name,
      foregroundColor: walletColor(v.font_color),
      labelColor: walletColor(v.developer_name_color),
      backgroundColor: walletColor(v.background_color),
      // A revoked or inactive key's pass is shown as void by Wallet.
      voided: identifier.is_revoked || !identifier.is_active,
      generic: {
        primaryFields: [{ key: 'name', label: 'Key', value: identifier.name }],
        secondaryFields: identifier.owner ? [{ key: 'owner', label: 'Holder', value: identifier.owner.name }] : [],
        auxiliaryFields:
          identifier.period_restrict_active && identifier.period_restrict_to
            ? [
                {
                  key: 'valid_to',
                  label: 'Valid until',
                  value: identifier.period_restrict_to,
                  dateStyle: 'PKDateStyleMedium',
                  timeStyle: 'PKDateStyleShort',
                },
              ]
            : [],
        backFields: v.backfields.map((f, i) => ({ key: `back${i}`, label: f.name, value: f.value })),
      },
    };
    const icon = solidPng(58, v.background_color);
    try {
      const pass = new PKPass(
        { 'pass.json': Buffer.from(JSON.stringify(passJson)), 'icon.png': solidPng(29, v.background_color), 'icon@2x.png': icon },
        {
          wwdr: s.wwdr_certificate,
          signerCert: s.certificate,
          signerKey: s.private_key,
          ...(s.private_key_passphrase ? { signerKeyPassphrase: s.private_key_passphrase } : {}),
        },
      );
      pass.setBarcodes({
        format: 'PKBarcodeFormatQR',
        message: identifier.value,
        messageEncoding: 'iso-8859-1',
        ...(v.barcode_alt_text ? { altText: v.barcode_alt_text } : {}),
      });
      if (identifier.period_restrict_active && identifier.period_restrict_to)
        pass.setExpirationDate(new Date(identifier.period_restrict_to));
      return pass.getAsBuffer();
    } catch (e) {
      throw new AppError('apple_wallet_cannot_sign', [{ field: 'certificate', message: (e as Error).message.slice(0, 200) }]);
    }
  }
}
