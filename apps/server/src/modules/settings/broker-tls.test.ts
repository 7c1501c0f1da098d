// The broker tab's own certificates applied (issue 14): the embedded broker opens MQTT over TLS with
// the uploaded certificate and key, checked as a pair on save; a new pair is presented at once, the
// restart keeps it, switching it off closes the TLS port; devices on the plain port stay connected.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { newInternalCredential } from '../../gateways/mqtt/broker.js';
import { startDevicePlane } from '../../gateways/mqtt/worker/host.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
const work = mkdtempSync(path.join(tmpdir(), 'atrium-broker-tls-'));
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());

/** A self-signed certificate for 127.0.0.1 and its key (PEM). */
function certPair(name: string) {
  const key = path.join(work, `${name}.key`);
  const cert = path.join(work, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '30',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

function multipart(fields: Record<string, string>, files: { field: string; name: string; data: Buffer }[] = []) {
  const boundary = '----atrium-broker-tls-test';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      f.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
const upload = (fields: Record<string, string>, files: { field: string; name: string; data: Buffer }[] = []) => {
  const m = multipart(fields, files);
  return admin.raw('POST', '/settings/broker', m.payload, m.headers);
};
const pairFiles = (p: { cert: Buffer; key: Buffer }, key = p.key) => [
  { field: 'certfile', name: 'broker.crt', data: p.cert },
  { field: 'keyfile', name: 'broker.key', data: key },
];

/** The certificate a TLS client is shown on `port`, as its SHA-256 fingerprint. */
function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.destroy();
    });
    s.once('error', reject);
  });
}

const fingerprint = (pem: Buffer) => new X509Certificate(pem).fingerprint256;

describe('MQTT over TLS with the broker tab’s own certificate', () => {
  it('opens on save with a matching pair, presents the new pair at once, survives a restart and closes when switched off', async () => {
    const internal = newInternalCredential();
    const tlsOf = async () => {
      const pair = await t.app.services.projectSettings.brokerTls();
      return pair ? { port: 0, ...pair } : null;
    };
    // The device plane's thread, as `npm start` runs it.
    const plane = await startDevicePlane({
      broker: { kind: 'embedded', port: 0, host: '127.0.0.1', internal, tls: await tlsOf() },
      databaseUrl: null,
      services: t.app.services.devices,
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    const control = { ...plane.brokerControl(tlsOf, 0), port: () => plane.port as number, close: () => plane.close() };
    t.app.services.projectSettings.attachBroker(control);
    const a = certPair('broker-a');
    const b = certPair('broker-b');
    const status = async () => (await admin.get('/settings/broker/status')).json().data as { tls_port: number | null; is_running: boolean };
    try {
      expect(await status()).toMatchObject({ is_running: true, tls_port: null });

      // A key that is not the certificate's is refused, and nothing opens.
      const mismatch = await upload({ use_user_certs: 'true' }, pairFiles(a, b.key));
      expect(mismatch.statusCode).toBe(400);
      expect(mismatch.json()).toMatchObject({ message: 'the certificate and key do not form a pair', details: [{ field: 'keyfile' }] });
      expect((await status()).tls_port).toBeNull();

      const ok = await upload({ use_user_certs: 'true' }, pairFiles(a));
      expect(ok.statusCode, ok.body).toBe(200);
      const port = (await status()).tls_port as number;
      expect(port).toBeGreaterThan(0);
      expect(await presented(port)).toBe(fingerprint(a.cert));

      // A real MQTT client over TLS, trusting only the uploaded certificate, signs in.
      const plain = await mqtt.connectAsync(`mqtt://127.0.0.1:${control.port()}`, {
        username: internal.username,
        password: internal.password,
        reconnectPeriod: 0,
      });
      const secure = await mqtt.connectAsync(`mqtts://127.0.0.1:${port}`, {
        username: internal.username,
        password: internal.password,
        ca: a.cert,
        rejectUnauthorized: true,
        reconnectPeriod: 0,
      });
      expect(secure.connected).toBe(true);
      // Anonymous clients are refused over TLS too.
      await expect(
        mqtt.connectAsync(`mqtts://127.0.0.1:${port}`, { ca: a.cert, reconnectPeriod: 0, connectTimeout: 3000 }),
      ).rejects.toBeTruthy();
      // A client trusting another certificate does not accept this broker.
      await expect(
        mqtt.connectAsync(`mqtts://127.0.0.1:${port}`, {
          username: internal.username,
          password: internal.password,
          ca: b.cert,
          rejectUnauthorized: true,
          reconnectPeriod: 0,
          connectTimeout: 3000,
        }),
      ).rejects.toBeTruthy();

      // Another pair: presented at once on the same port; the TLS client reconnects, the plain one stays.
      const dropped = new Promise<void>((r) => secure.stream.once('close', () => r()));
      expect((await upload({ use_user_certs: 'true' }, pairFiles(b))).statusCode).toBe(200);
      await dropped;
      expect((await status()).tls_port).toBe(port);
      expect(await presented(port)).toBe(fingerprint(b.cert));
      expect(plain.connected).toBe(true);
      secure.end(true);

      // A restart opens TLS again from what is stored.
      expect((await admin.post('/settings/broker/restart', { type: 'broker' })).statusCode).toBe(200);
      plain.end(true);
      const afterRestart = (await status()).tls_port as number;
      expect(afterRestart).toBeGreaterThan(0);
      expect(await presented(afterRestart)).toBe(fingerprint(b.cert));

      // Switched off: the TLS port closes.
      expect((await upload({ use_user_certs: 'false' })).json().data).toMatchObject({ use_user_certs: false, has_key: true });
      expect((await status()).tls_port).toBeNull();
      await expect(
        new Promise((resolve, reject) => {
          const s = net.connect(afterRestart, '127.0.0.1', () => {
            s.destroy();
            resolve(true);
          });
          s.once('error', reject);
        }),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      t.app.services.projectSettings.attachBroker(null);
      await control.close();
    }
  }, 120_000);
});
