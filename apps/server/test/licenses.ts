import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fullLicenseInfo, type LicenseFile, type LicenseInfo, type LicensePayload, UNLIMITED_PERIOD } from '@atrium/contract';
import { eq } from 'drizzle-orm';
import { signLicense } from '../src/modules/licenses/license-file.js';
import { licenses } from '../src/modules/licenses/licenses.table.js';
import type { TestApp } from './helpers.js';

/** The development issuer's private key (tools/license): test apps without LICENSE_PUBLIC_KEY accept what it signs. */
export const DEV_ISSUER_KEY = readFileSync(path.resolve(import.meta.dirname, '../../../tools/license/dev-issuer.pem'), 'utf8');

/** A licence payload: every feature, unlimited, bound to nothing, unless told otherwise. */
export function licensePayload(over: Partial<LicensePayload> = {}): LicensePayload {
  return {
    format: 1,
    id: randomUUID(),
    customer: 'Test customer',
    instance_id: null,
    project_uid: null,
    issued_at: new Date().toISOString(),
    period: { ...UNLIMITED_PERIOD },
    grace_days: 30,
    features: fullLicenseInfo(),
    ...over,
  };
}

export const signedLicense = (over: Partial<LicensePayload> = {}, key: string = DEV_ISSUER_KEY): LicenseFile =>
  signLicense(licensePayload(over), key);

/** Installs a signed licence with these features in the test project, as if uploaded (no permission needed). */
export async function installLicense(t: TestApp, features: LicenseInfo, over: Partial<LicensePayload> = {}): Promise<void> {
  const file = signedLicense({ features, ...over });
  await t.database.db.insert(licenses).values({
    projectId: t.project.projectId,
    licenseId: file.license.id,
    source: 'file',
    file,
    periodFrom: file.license.period.from,
    periodTo: file.license.period.to,
  });
  t.app.services.licenses.invalidate();
}

/** Removes every licence of the test project: it runs on the development licence again. */
export async function removeLicenses(t: TestApp): Promise<void> {
  await t.database.db.delete(licenses).where(eq(licenses.projectId, t.project.projectId));
  t.app.services.licenses.invalidate();
}
