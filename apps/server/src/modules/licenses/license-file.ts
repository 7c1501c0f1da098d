import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { type LicenseFile, LicenseFileSchema, type LicensePayload, LicensePayloadSchema } from '@atrium/contract';
import canonicalize from 'canonicalize';
import { AppError } from '../../core/errors.js';

/**
 * The development issuer's public key: accepted when LICENSE_PUBLIC_KEY is not set. Its private half
 * is committed (tools/license/dev-issuer.pem) so that `npm run license` signs development licences;
 * a production deployment sets LICENSE_PUBLIC_KEY to its issuer's key (docs/decisions.md).
 */
export const DEV_ISSUER_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAyakZsKwTJ+2Cr1+DjUJDssXRNFSbOD9XSii1aA6GfLo=
-----END PUBLIC KEY-----
`;

/** An Ed25519 public key from PEM or from the base64 of its SPKI DER. */
export function publicKeyFrom(text: string): KeyObject {
  return text.includes('BEGIN')
    ? createPublicKey(text)
    : createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
}

/** The signed message: the payload's canonical JSON (RFC 8785), so key order and spacing do not matter. */
export function licenseMessage(payload: unknown): Buffer {
  const text = canonicalize(payload);
  if (text === undefined) throw new AppError('license_invalid_file');
  return Buffer.from(text, 'utf8');
}

/** Signs a payload with the issuer's private key (PEM or KeyObject): the licence file. */
export function signLicense(payload: LicensePayload, privateKey: KeyObject | string): LicenseFile {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  const checked = LicensePayloadSchema.parse(payload);
  return { license: checked, signature: sign(null, licenseMessage(checked), key).toString('base64') };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a licence file: its shape, then the issuer's signature over the payload exactly as sent
 * (before any parsing could change it), then the payload's fields. Answers the verified payload.
 */
export function verifyLicenseFile(raw: unknown, key: KeyObject): LicensePayload {
  if (!isObject(raw) || !isObject(raw.license) || typeof raw.signature !== 'string') throw new AppError('license_invalid_file');
  const signature = Buffer.from(raw.signature, 'base64');
  let ok = false;
  try {
    ok = signature.length === 64 && verify(null, licenseMessage(raw.license), key, signature);
  } catch {
    ok = false;
  }
  if (!ok) throw new AppError('license_wrong_sign');
  const parsed = LicenseFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError(
      'license_invalid_file',
      parsed.error.issues.slice(0, 20).map((i) => ({ field: i.path.join('.'), message: i.message })),
    );
  }
  return parsed.data.license;
}

/** A licence file from uploaded bytes: JSON, at most LICENSE_FILE_MAX_BYTES (checked by the caller). */
export function parseLicenseText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('license_invalid_file');
  }
}
