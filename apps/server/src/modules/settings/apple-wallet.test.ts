// Apple Wallet: the settings tab (secrets never read back, only the project's administrators may
// change it) and a QR identifier's .pkpass, signed with a certificate chain made here: the archive's
// manifest names every file with its SHA-1, and OpenSSL verifies the detached signature against the
// self-made "WWDR" authority.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import JSZip from 'jszip';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { solidPng, walletColor } from './apple-wallet.service.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
const work = mkdtempSync(path.join(tmpdir(), 'atrium-wallet-'));
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

/** A CA standing in for Apple's WWDR intermediate, and a Pass Type ID certificate it signed. */
function chain(passphrase?: string) {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const ca = forge.pki.createCertificate();
  ca.publicKey = keys.publicKey;
  ca.serialNumber = '01';
  ca.validity.notBefore = new Date(Date.now() - 86_400_000);
  ca.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  const caName = [{ name: 'commonName', value: 'Test WWDR' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, digitalSignature: true },
  ]);
  ca.sign(keys.privateKey, forge.md.sha256.create());
  const signerKeys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = signerKeys.publicKey;
  cert.serialNumber = '02';
  cert.validity.notBefore = ca.validity.notBefore;
  cert.validity.notAfter = ca.validity.notAfter;
  cert.setSubject([{ name: 'commonName', value: 'Pass Type ID: pass.com.example.atrium' }]);
  cert.setIssuer(caName);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return {
    wwdr: forge.pki.certificateToPem(ca),
    certificate: forge.pki.certificateToPem(cert),
    key: passphrase
      ? forge.pki.encryptRsaPrivateKey(signerKeys.privateKey, passphrase, { algorithm: 'aes256' })
      : forge.pki.privateKeyToPem(signerKeys.privateKey),
  };
}

describe('Apple Wallet', () => {
  it('keeps the settings, never reads the key back, and lets only project administrators see or change them', async () => {
    const empty = (await admin.get('/settings/apple-wallet')).json().data;
    expect(empty).toMatchObject({ developer_name: 'Atrium', is_configured: false, has_private_key: false, private_key: null });

    const c = chain('secret-pass');
    const saved = await admin.patch('/settings/apple-wallet', {
      developer_name: 'Riverside Towers',
      background_color: '#102030',
      backfields: [{ name: 'Concierge', value: '+1 555 0100' }],
      pass_type_identifier: 'pass.com.example.atrium',
      team_identifier: 'ABCDE12345',
      certificate: c.certificate,
      wwdr_certificate: c.wwdr,
      private_key: c.key,
      private_key_passphrase: 'secret-pass',
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data).toMatchObject({
      is_configured: true,
      has_private_key: true,
      private_key: null,
      private_key_passphrase: null,
    });
    expect(saved.body).not.toContain('PRIVATE KEY');
    expect(saved.body).not.toContain('secret-pass');

    // The masked key sent back as null leaves it in place.
    const again = (await admin.patch('/settings/apple-wallet', { developer_name: 'Riverside', private_key: null })).json().data;
    expect(again).toMatchObject({ developer_name: 'Riverside', has_private_key: true, is_configured: true });

    // Bad input: named fields, nothing written.
    const bad = await admin.patch('/settings/apple-wallet', {
      team_identifier: 'short',
      background_color: 'red',
      certificate: 'not a pem',
    });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['background_color', 'certificate', 'team_identifier']);
    expect((await admin.get('/settings/apple-wallet')).json().data.team_identifier).toBe('ABCDE12345');

    // The audit row holds no secret.
    const audit = await queryRows<{ after: unknown }>(
      t.database.db,
      sql`SELECT after FROM audit_events WHERE entity = 'apple_wallet_settings' ORDER BY id DESC LIMIT 1`,
    );
    expect(JSON.stringify(audit[0]?.after)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(audit[0]?.after)).toContain('has_private_key');

    // Without the permissions: neither read nor change.
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_all_identifiers']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    const other = client(t.app, await login(t.app, u.login, u.password));
    expect((await other.get('/settings/apple-wallet')).statusCode).toBe(403);
    expect((await other.patch('/settings/apple-wallet', { developer_name: 'Mine' })).statusCode).toBe(403);
    const viewer = await makeRole(t.database.db, t.project.projectId, ['can_view_project_settings']);
    const v = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: viewer });
    const reader = client(t.app, await login(t.app, v.login, v.password));
    expect((await reader.get('/settings/apple-wallet')).statusCode).toBe(200);
    expect((await reader.patch('/settings/apple-wallet', { developer_name: 'Mine' })).statusCode).toBe(403);
  });

  it('signs a QR identifier’s pass: every file in the manifest with its SHA-1, the signature verified by OpenSSL', async () => {
    const qr = (await admin.put('/identifiers', { name: 'Front door QR', type: 'qr', value: 'QR-7731-ABCD' })).json().data;
    const res = await admin.get(`/identifiers/${qr.id}/pkpass`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apple.pkpass');
    const zip = await JSZip.loadAsync(res.rawPayload);
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual(['icon.png', 'icon@2x.png', 'manifest.json', 'pass.json', 'signature']);

    const manifest = JSON.parse(await zip.file('manifest.json')!.async('string')) as Record<string, string>;
    for (const name of ['icon.png', 'icon@2x.png', 'pass.json']) {
      const bytes = await zip.file(name)!.async('nodebuffer');
      expect(manifest[name]).toBe(createHash('sha1').update(bytes).digest('hex'));
    }
    const pass = JSON.parse(await zip.file('pass.json')!.async('string'));
    expect(pass).toMatchObject({
      passTypeIdentifier: 'pass.com.example.atrium',
      teamIdentifier: 'ABCDE12345',
      organizationName: 'Riverside',
      backgroundColor: walletColor('#102030'),
      voided: false,
    });
    expect(pass.barcodes[0]).toMatchObject({ format: 'PKBarcodeFormatQR', message: 'QR-7731-ABCD' });
    expect(pass.generic.backFields[0]).toMatchObject({ label: 'Concierge', value: '+1 555 0100' });

    // The detached PKCS#7 signature over manifest.json verifies against the chain's authority.
    const wwdr = (await admin.get('/settings/apple-wallet')).json().data.wwdr_certificate as string;
    writeFileSync(path.join(work, 'manifest.json'), await zip.file('manifest.json')!.async('nodebuffer'));
    writeFileSync(path.join(work, 'signature'), await zip.file('signature')!.async('nodebuffer'));
    writeFileSync(path.join(work, 'wwdr.pem'), wwdr);
    const verify = (content: string) =>
      execFileSync(
        'openssl',
        [
          'smime',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          path.join(work, 'signature'),
          '-content',
          content,
          '-CAfile',
          path.join(work, 'wwdr.pem'),
          '-purpose',
          'any',
          '-out',
          '/dev/null',
        ],
        { stdio: 'pipe' },
      );
    expect(() => verify(path.join(work, 'manifest.json'))).not.toThrow();
    // A changed manifest does not verify.
    writeFileSync(path.join(work, 'tampered.json'), '{"pass.json":"0000"}');
    expect(() => verify(path.join(work, 'tampered.json'))).toThrow();

    // A revoked key's pass is void.
    await admin.post(`/identifiers/${qr.id}/revoke`);
    const voided = await JSZip.loadAsync((await admin.get(`/identifiers/${qr.id}/pkpass`)).rawPayload);
    expect(JSON.parse(await voided.file('pass.json')!.async('string')).voided).toBe(true);
  });

  it('refuses a card, an identifier the caller cannot see, a project without a certificate, and a key that cannot sign', async () => {
    const card = (await admin.put('/identifiers', { name: 'Card for wallet', value: '0A0B0C0D' })).json().data;
    const res = await admin.get(`/identifiers/${card.id}/pkpass`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('apple wallet passes are made for qr identifiers only');

    const qr = (await admin.put('/identifiers', { name: 'Hidden QR', type: 'qr', value: 'QR-HIDDEN-1' })).json().data;
    const roleId = await makeRole(t.database.db, t.project.projectId, []);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId });
    const stranger = client(t.app, await login(t.app, u.login, u.password));
    expect((await stranger.get(`/identifiers/${qr.id}/pkpass`)).statusCode).toBe(404);

    // A key that is not the certificate's, a wrong passphrase, a certificate another authority issued: refused on save, nothing written.
    const other = chain();
    const wrongKey = await admin.patch('/settings/apple-wallet', { private_key: other.key, private_key_passphrase: '' });
    expect(wrongKey.statusCode).toBe(400);
    expect(wrongKey.json()).toMatchObject({
      message: 'the apple wallet certificate and key cannot sign a pass',
      details: [{ field: 'private_key' }],
    });
    const wrongPass = await admin.patch('/settings/apple-wallet', { private_key_passphrase: 'not-it' });
    expect(wrongPass.json().details[0].field).toBe('private_key_passphrase');
    const wrongCa = await admin.patch('/settings/apple-wallet', { wwdr_certificate: other.wwdr });
    expect(wrongCa.json().details[0].field).toBe('wwdr_certificate');
    expect((await admin.get(`/identifiers/${qr.id}/pkpass`)).statusCode).toBe(200);

    await admin.patch('/settings/apple-wallet', { certificate: '' });
    const none = await admin.get(`/identifiers/${qr.id}/pkpass`);
    expect(none.statusCode).toBe(409);
    expect(none.json().message).toBe('apple wallet is not configured');
  });

  it('draws a valid PNG icon', () => {
    const png = solidPng(4, '#ff0000');
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(4);
  });
});
