import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseVia } from './address.js';
import { type BaresipUa, baresipInstalled, startBaresip } from './baresip.testing.js';
import { authorize, parseAuthHeader } from './digest.js';
import {
  createResponse,
  parseMessage,
  SipHeaders,
  type SipMessage,
  type SipRequest,
  type SipResponse,
  StreamFramer,
  serializeMessage,
} from './message.js';
import type { SipServer } from './server.js';
import { type MemoryDirectory, type RecordingObserver, runSipp, SipInbox, startTestServer } from './testing.js';

// SIP over TLS for devices (RFC 3261 §26, RFC 5630): a real TLS client (node:tls) speaking raw SIP
// registers, is called by a UDP panel (SIPp) and calls a browser over WebSocket; every request and
// response of its dialogs travels over its one TLS connection. SIPp here is built without TLS.

const hasOpenssl = existsSync('/usr/bin/openssl');
const dir = mkdtempSync(path.join(tmpdir(), 'atrium-sip-tls-'));
let cert: Buffer;
let key: Buffer;
let server: SipServer;
let directory: MemoryDirectory;
let observer: RecordingObserver;
const cleanups: Array<() => void> = [];

beforeAll(() => {
  if (!hasOpenssl) return;
  execFileSync(
    '/usr/bin/openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=atrium.test',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(path.join(dir, 'cert.pem'));
  key = readFileSync(path.join(dir, 'key.pem'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await server?.close();
});

/** A device on SIP over TLS: one TLS connection, the server's certificate checked against ours. */
async function tlsDevice(port: number) {
  const socket = tls.connect({ host: '127.0.0.1', port, ca: cert, servername: 'atrium.test' });
  cleanups.push(() => socket.destroy());
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const inbox = new SipInbox();
  const framer = new StreamFramer();
  socket.on('data', (chunk: Buffer) => {
    const messages = framer.push(chunk);
    if (messages !== 'overflow') for (const m of messages) inbox.push(parseMessage(m));
  });
  const local = `127.0.0.1:${socket.localPort}`;
  return {
    socket,
    inbox,
    local,
    via: `SIP/2.0/TLS ${local}`,
    contact: `sip:dev@${local};transport=tls`,
    send: (m: SipMessage) => socket.write(serializeMessage(m)),
  };
}

/** A browser's dialer: with a certificate the WebSocket port is wss. */
async function wsBrowser(port: number) {
  const ws = new WebSocket(`wss://127.0.0.1:${port}`, 'sip', { ca: cert });
  cleanups.push(() => ws.terminate());
  const inbox = new SipInbox();
  ws.on('message', (data: Buffer) => inbox.push(parseMessage(Buffer.from(data))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { inbox, send: (m: SipMessage) => ws.send(serializeMessage(m).toString('utf8')) };
}

function request(
  method: string,
  uri: string,
  o: { via: string; from: string; to: string; callId: string; cseq: number; contact?: string; extra?: Array<[string, string]> },
): SipRequest {
  const headers = new SipHeaders();
  headers.add('Via', `${o.via};branch=z9hG4bK-${Math.random().toString(36).slice(2)};rport`);
  headers.add('Max-Forwards', '70');
  headers.add('From', o.from);
  headers.add('To', o.to);
  headers.add('Call-ID', o.callId);
  headers.add('CSeq', `${o.cseq} ${method}`);
  if (o.contact) headers.add('Contact', `<${o.contact}>`);
  for (const [name, value] of o.extra ?? []) headers.add(name, value);
  return { kind: 'request', method, uri, headers, body: Buffer.alloc(0) };
}

/** REGISTER with the digest challenge answered; the final response. */
async function register(
  peer: { send: (m: SipMessage) => void; inbox: SipInbox },
  o: { via: string; contact: string; number: string; password: string },
) {
  const base = { via: o.via, from: `<sip:${o.number}@atrium.test>;tag=r${o.number}`, to: `<sip:${o.number}@atrium.test>` };
  const callId = `reg-${o.number}-${Math.random().toString(36).slice(2)}`;
  const extra: Array<[string, string]> = [['Expires', '600']];
  peer.send(request('REGISTER', 'sip:atrium.test', { ...base, callId, cseq: 1, contact: o.contact, extra }));
  const challenge = await peer.inbox.response();
  expect(challenge.status).toBe(401);
  const params = parseAuthHeader(challenge.headers.get('www-authenticate') ?? '');
  if (!params) throw new Error('no challenge');
  const auth = authorize(params, { username: o.number, password: o.password }, 'REGISTER', 'sip:atrium.test');
  peer.send(
    request('REGISTER', 'sip:atrium.test', { ...base, callId, cseq: 2, contact: o.contact, extra: [...extra, ['Authorization', auth]] }),
  );
  return peer.inbox.response();
}

function answer(req: SipRequest, status: number, reason: string, contact: string, tag: string): SipResponse {
  const res = createResponse(req, status, reason, tag);
  for (const rr of req.headers.getAll('record-route')) res.headers.add('Record-Route', rr);
  res.headers.add('Contact', `<${contact}>`);
  return res;
}

async function start() {
  ({ server, directory, observer } = await startTestServer(
    { '101': 'Panel101', '111': 'Device111', '301': 'Browser301' },
    { tls: { cert, key }, tlsPort: 0 },
  ));
  const tlsPort = server.ports.tls;
  if (!tlsPort) throw new Error('SIP over TLS is not listening');
  return tlsPort;
}

describe.skipIf(!hasOpenssl)('SIP over TLS', () => {
  it('listens only with a certificate and a TLS port, on a port of its own', async () => {
    const plain = await startTestServer({}, { tls: undefined, tlsPort: 0 });
    expect(plain.server.ports.tls).toBeUndefined();
    await plain.server.close();
    const tlsPort = await start();
    expect(new Set([server.ports.udp, server.ports.ws, tlsPort]).size).toBe(3);
  });

  it('registers a device over TLS and rings it from a UDP panel over that very connection', async () => {
    const tlsPort = await start();
    const device = await tlsDevice(tlsPort);
    const ok = await register(device, { via: device.via, contact: device.contact, number: '111', password: 'Device111' });
    expect(ok.status).toBe(200);
    // The response came back over the connection, with the Via the device sent.
    expect(parseVia(ok.headers.get('via') ?? '')).toMatchObject({ transport: 'TLS' });
    expect(server.contacts('111')).toMatchObject([
      { number: '111', transport: 'tls', uri: device.contact, source: { address: '127.0.0.1', port: device.socket.localPort } },
    ]);

    const panel = await runSipp('uac-call.xml', server.ports.udp, ['-s', '111', '-key', 'caller', '101', '-au', '101', '-ap', 'Panel101']);
    cleanups.push(() => panel.kill());
    const invite = await device.inbox.request('INVITE');
    expect(invite.uri).toBe(device.contact);
    expect(invite.headers.get('via')).toMatch(new RegExp(`^SIP/2\\.0/TLS 127\\.0\\.0\\.1:${tlsPort};`));
    // UDP in, TLS out: RFC 5658 double Record-Route, the TLS side on top.
    expect(invite.headers.getAll('record-route')).toEqual([
      `<sip:127.0.0.1:${tlsPort};transport=tls;lr>`,
      `<sip:127.0.0.1:${server.ports.udp};lr>`,
    ]);
    device.send(answer(invite, 180, 'Ringing', device.contact, 'dev'));
    device.send(answer(invite, 200, 'OK', device.contact, 'dev'));
    await device.inbox.request('ACK');
    const bye = await device.inbox.request('BYE');
    device.send(createResponse(bye, 200, 'OK'));
    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    expect(observer.types()).toEqual(['created', 'ringing', 'answered', 'ended']);
    expect(observer.events[0]).toMatchObject({ caller: '101', callee: '111' });
  });

  it('lets a TLS device call a browser on WebSocket, answers and hangs up across the two transports', async () => {
    const tlsPort = await start();
    const browser = await wsBrowser(server.ports.ws);
    const browserContact = 'sip:b7@b7.invalid;transport=ws';
    expect(
      (await register(browser, { via: 'SIP/2.0/WSS b7.invalid', contact: browserContact, number: '301', password: 'Browser301' })).status,
    ).toBe(200);
    const device = await tlsDevice(tlsPort);
    expect((await register(device, { via: device.via, contact: device.contact, number: '111', password: 'Device111' })).status).toBe(200);

    const dialog = {
      via: device.via,
      from: '<sip:111@atrium.test>;tag=dev',
      to: '<sip:301@atrium.test>',
      callId: 'tls-call-1',
      contact: device.contact,
    };
    device.send(request('INVITE', 'sip:301@atrium.test', { ...dialog, cseq: 1 }));
    const challenge = await device.inbox.response();
    expect(challenge.status).toBe(407);
    device.send(request('ACK', 'sip:301@atrium.test', { ...dialog, to: challenge.headers.get('to') ?? '', cseq: 1 }));
    const params = parseAuthHeader(challenge.headers.get('proxy-authenticate') ?? '');
    if (!params) throw new Error('no challenge');
    const auth = authorize(params, { username: '111', password: 'Device111' }, 'INVITE', 'sip:301@atrium.test');
    device.send(request('INVITE', 'sip:301@atrium.test', { ...dialog, cseq: 2, extra: [['Proxy-Authorization', auth]] }));

    const invite = await browser.inbox.request('INVITE');
    expect(invite.uri).toBe(browserContact);
    const recordRoute = invite.headers.getAll('record-route');
    expect(recordRoute).toEqual([`<sip:127.0.0.1:${server.ports.ws};transport=ws;lr>`, `<sip:127.0.0.1:${tlsPort};transport=tls;lr>`]);
    browser.send(answer(invite, 180, 'Ringing', browserContact, 'browser'));
    browser.send(answer(invite, 200, 'OK', browserContact, 'browser'));
    expect((await device.inbox.response()).status).toBe(180);
    const ok = await device.inbox.response();
    expect(ok.status).toBe(200);

    // The device's route set: our TLS entry (the last Record-Route), so its ACK and BYE come to the TLS port.
    const routeSet = ok.headers.getAll('record-route').reverse();
    expect(routeSet[0]).toBe(`<sip:127.0.0.1:${tlsPort};transport=tls;lr>`);
    const inDialog = { ...dialog, to: ok.headers.get('to') ?? '', extra: routeSet.map((r): [string, string] => ['Route', r]) };
    device.send(request('ACK', browserContact, { ...inDialog, cseq: 2 }));
    await browser.inbox.request('ACK');

    // The browser hangs up: its BYE reaches the device over the TLS connection, the 200 goes back.
    const bye = request('BYE', device.contact, {
      via: 'SIP/2.0/WSS b7.invalid',
      from: ok.headers.get('to') ?? '',
      to: dialog.from,
      callId: dialog.callId,
      cseq: 1,
      extra: recordRoute.map((r): [string, string] => ['Route', r]),
    });
    browser.send(bye);
    const relayed = await device.inbox.request('BYE');
    expect(relayed.headers.get('via')).toMatch(/^SIP\/2\.0\/TLS /);
    device.send(createResponse(relayed, 200, 'OK'));
    expect((await browser.inbox.response()).status).toBe(200);
    expect(observer.types()).toEqual(['created', 'ringing', 'answered', 'ended']);
    expect(observer.events[0]).toMatchObject({ caller: '111', callee: '301' });
    expect(observer.events[3]).toMatchObject({ outcome: 'answered' });
  });

  it('survives a client that fails the handshake, and forgets a device whose TLS connection closed', async () => {
    const tlsPort = await start();
    // Plain SIP sent to the TLS port: the handshake fails, the server goes on.
    const plain = net.connect(tlsPort, '127.0.0.1');
    cleanups.push(() => plain.destroy());
    await new Promise((resolve) => plain.once('connect', resolve));
    plain.write('OPTIONS sip:atrium.test SIP/2.0\r\nContent-Length: 0\r\n\r\n');
    await new Promise((resolve) => plain.once('close', resolve));
    // A client that does not trust our certificate gives up; nothing is left open for it.
    const distrustful = tls.connect({ host: '127.0.0.1', port: tlsPort });
    cleanups.push(() => distrustful.destroy());
    await expect(new Promise((resolve, reject) => distrustful.once('secureConnect', resolve).once('error', reject))).rejects.toThrow(
      /self.signed/i,
    );

    const device = await tlsDevice(tlsPort);
    expect((await register(device, { via: device.via, contact: device.contact, number: '111', password: 'Device111' })).status).toBe(200);
    // RFC 5626 keep-alive over TLS as over TCP.
    const pong = new Promise<Buffer>((resolve) => device.socket.once('data', resolve));
    device.socket.write('\r\n\r\n');
    expect((await pong).toString()).toBe('\r\n');
    device.socket.end();
    for (let i = 0; i < 50 && server.contacts('111').length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(server.contacts('111')).toEqual([]);
    expect(directory.passwords.get('111')).toBe('Device111');
  });

  it.skipIf(!baresipInstalled())(
    'carries a call with audio between baresip over TLS and baresip over UDP',
    async () => {
      const tlsPort = await start();
      const uas: BaresipUa[] = [];
      cleanups.push(() => {
        for (const ua of uas) void ua.stop();
      });
      const device = await startBaresip({
        number: '111',
        password: 'Device111',
        server: { host: '127.0.0.1', port: tlsPort },
        transport: 'tls',
        caFile: path.join(dir, 'cert.pem'),
      });
      uas.push(device);
      await device.waitFor(/\{0\/TLS\/v4\} 200 OK/);
      expect(server.contacts('111')).toMatchObject([{ transport: 'tls' }]);
      const panel = await startBaresip({ number: '101', password: 'Panel101', server: { host: '127.0.0.1', port: server.ports.udp } });
      uas.push(panel);
      await panel.waitFor(/\{0\/UDP\/v4\} 200 OK/);
      panel.command(`/dial sip:111@127.0.0.1:${server.ports.udp}`);
      await panel.waitFor(/Call established/);
      await device.waitFor(/Call established/);
      await new Promise((r) => setTimeout(r, 1500));
      // The device hangs up: its BYE goes out over TLS and reaches the panel over UDP.
      device.command('/hangup');
      await device.waitFor(/^packets:\s+\d+\s+\d+/m);
      await panel.waitFor(/^packets:\s+\d+\s+\d+/m);
      for (const ua of uas) expect(ua.rtpStats()?.received).toBeGreaterThan(40);
      expect(observer.types()).toEqual(['created', 'ringing', 'answered', 'ended']);
      expect(observer.events[0]).toMatchObject({ caller: '101', callee: '111' });
    },
    30_000,
  );
});
