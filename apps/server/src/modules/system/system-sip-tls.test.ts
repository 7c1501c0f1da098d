// System info names every port the SIP server listens on, SIP over TLS included, as it runs (the
// configured ports may be 0: the system picks them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../../test/certificates.js';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { type SipRuntime, startSip } from '../telephony/sip-runtime.js';

let t: TestApp;
let sip: SipRuntime | null = null;
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'atrium-sysinfo-tls-'));
  const [certFile, keyFile] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  const { cert, key } = selfSignedCertificate();
  writeFileSync(certFile, cert);
  writeFileSync(keyFile, key);
  t = await buildTestApp();
  sip = await startSip(t.app, {
    ...t.app.config,
    sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: { certFile, keyFile }, tlsPort: 0 },
  });
});
afterAll(async () => {
  await sip?.close();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('System info of a SIP server with a certificate', () => {
  it('shows the UDP and TCP, WebSocket and TLS ports it listens on', async () => {
    const admin = await adminClient(t);
    const res = await admin.get('/system/info');
    expect(res.statusCode, res.body).toBe(200);
    const ports = (sip as SipRuntime).server.ports;
    expect(ports.tls).toBeGreaterThan(0);
    expect(res.json().data.sip).toMatchObject({ is_running: true, udp_port: ports.udp, ws_port: ports.ws, tls_port: ports.tls });
  });
});
