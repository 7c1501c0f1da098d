import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
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
import { type SipServer, startSipServer } from './server.js';
import {
  callerArgs,
  type MemoryDirectory,
  makeRequest,
  type RecordingObserver,
  registerContact,
  runSipp,
  type SippRun,
  silentLog,
  startTestServer,
  UdpPeer,
} from './testing.js';

/** A browser-like phone over WebSocket (RFC 7118) and a TCP phone, each a real socket client. */

let server: SipServer;
let directory: MemoryDirectory;
let observer: RecordingObserver;
const cleanups: Array<() => void> = [];

beforeEach(async () => {
  ({ server, directory, observer } = await startTestServer({ '101': 'Panel101', '301': 'Browser301' }));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await server.close();
});

/** Collects parsed messages from a socket and hands them out in order. */
class Inbox {
  private readonly queue: SipMessage[] = [];
  private waiter: (() => void) | null = null;

  push(msg: SipMessage | null): void {
    if (!msg) return;
    this.queue.push(msg);
    this.waiter?.();
  }

  async next(timeoutMs = 5000): Promise<SipMessage> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no SIP message arrived');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const msg = this.queue.shift();
    if (!msg) throw new Error('empty inbox');
    return msg;
  }

  async nextResponse(): Promise<SipResponse> {
    for (;;) {
      const msg = await this.next();
      if (msg.kind === 'response' && msg.status !== 100) return msg;
    }
  }

  async nextRequest(method: string): Promise<SipRequest> {
    const msg = await this.next();
    if (msg.kind !== 'request' || msg.method !== method)
      throw new Error(`expected ${method}, got ${msg.kind === 'request' ? msg.method : msg.status}`);
    return msg;
  }
}

function register(via: string, contact: string, number: string, cseq: number, authorization?: string): SipRequest {
  const headers = new SipHeaders();
  headers.add('Via', `${via};branch=z9hG4bK-${cseq}-${Math.random().toString(36).slice(2)}`);
  headers.add('From', `<sip:${number}@atrium.test>;tag=t${number}`);
  headers.add('To', `<sip:${number}@atrium.test>`);
  headers.add('Call-ID', `reg-${number}-${via.length}`);
  headers.add('CSeq', `${cseq} REGISTER`);
  headers.add('Contact', `<${contact}>`);
  headers.add('Expires', '600');
  headers.add('Max-Forwards', '70');
  if (authorization) headers.add('Authorization', authorization);
  return { kind: 'request', method: 'REGISTER', uri: 'sip:atrium.test', headers, body: Buffer.alloc(0) };
}

async function registerOver(send: (m: SipMessage) => void, inbox: Inbox, via: string, contact: string, number: string, password: string) {
  send(register(via, contact, number, 1));
  const challenge = await inbox.nextResponse();
  expect(challenge.status).toBe(401);
  const params = parseAuthHeader(challenge.headers.get('www-authenticate') ?? '');
  if (!params) throw new Error('no challenge');
  send(register(via, contact, number, 2, authorize(params, { username: number, password }, 'REGISTER', 'sip:atrium.test')));
  return inbox.nextResponse();
}

function answer(req: SipRequest, status: number, reason: string, contact: string): SipResponse {
  const res = createResponse(req, status, reason, 'browser-tag');
  for (const rr of req.headers.getAll('record-route')) res.headers.add('Record-Route', rr);
  res.headers.add('Contact', `<${contact}>`);
  return res;
}

describe('WebSocket transport', () => {
  it('registers a browser over WS and routes an INVITE to it over the same connection', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.ports.ws}`, 'sip');
    cleanups.push(() => ws.terminate());
    const inbox = new Inbox();
    ws.on('message', (data: Buffer) => inbox.push(parseMessage(Buffer.from(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    expect(ws.protocol).toBe('sip');
    const send = (m: SipMessage) => ws.send(serializeMessage(m).toString('utf8'));
    const contact = 'sip:x7k2@df7jal23ls0d.invalid;transport=ws';
    const ok = await registerOver(send, inbox, 'SIP/2.0/WSS df7jal23ls0d.invalid', contact, '301', 'Browser301');
    expect(ok.status).toBe(200);
    expect(server.contacts('301')).toMatchObject([{ number: '301', transport: 'ws', uri: contact }]);

    const panel: SippRun = await runSipp('uac-call.xml', server.ports.udp, [...callerArgs('301', '101', 'Panel101')]);
    cleanups.push(() => panel.kill());
    const invite = await inbox.nextRequest('INVITE');
    expect(invite.uri).toBe(contact);
    // UDP in, WS out: RFC 5658 double Record-Route, the WS side on top.
    expect(invite.headers.getAll('record-route')).toEqual([
      `<sip:127.0.0.1:${server.ports.ws};transport=ws;lr>`,
      `<sip:127.0.0.1:${server.ports.udp};lr>`,
    ]);
    expect(invite.headers.get('x-speech-id')).toBe(invite.headers.get('call-id'));
    send(answer(invite, 180, 'Ringing', contact));
    send(answer(invite, 200, 'OK', contact));
    await inbox.nextRequest('ACK');
    const bye = await inbox.nextRequest('BYE');
    send(createResponse(bye, 200, 'OK'));
    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    expect(observer.types()).toEqual(['created', 'ringing', 'answered', 'ended']);
  });

  it('lets a browser on WS call a UDP phone, with the dialog relayed across transports', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.ports.ws}`, 'sip');
    cleanups.push(() => ws.terminate());
    const inbox = new Inbox();
    ws.on('message', (data: Buffer) => inbox.push(parseMessage(Buffer.from(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const send = (m: SipMessage) => ws.send(serializeMessage(m).toString('utf8'));
    const phone = await UdpPeer.open();
    cleanups.push(() => phone.close());
    directory.passwords.set('201', 'Phone201');
    expect(await registerContact(server.ports.udp, '201', 'Phone201', phone.port)).toBe(200);

    const base = {
      port: 0,
      from: '<sip:301@atrium.test>;tag=browser',
      to: '<sip:201@atrium.test>',
      callId: 'browser-call-1',
      extra: [['Contact', '<sip:b@x.invalid;transport=ws>']] as Array<[string, string]>,
    };
    const viaWs = (m: SipRequest, branch: string) => {
      m.headers.set('Via', `SIP/2.0/WS x.invalid;branch=z9hG4bK${branch}`);
      return m;
    };
    const first = viaWs(makeRequest('INVITE', 'sip:201@atrium.test', { ...base, cseq: 1 }), 'inv1');
    send(first);
    const challenge = await inbox.nextResponse();
    expect(challenge.status).toBe(407);
    send(viaWs(makeRequest('ACK', 'sip:201@atrium.test', { ...base, to: challenge.headers.get('to') ?? '', cseq: 1 }), 'inv1'));
    const params = parseAuthHeader(challenge.headers.get('proxy-authenticate') ?? '');
    if (!params) throw new Error('no challenge');
    const auth = authorize(params, { username: '301', password: 'Browser301' }, 'INVITE', 'sip:201@atrium.test');
    send(
      viaWs(
        makeRequest('INVITE', 'sip:201@atrium.test', { ...base, cseq: 2, extra: [...base.extra, ['Proxy-Authorization', auth]] }),
        'inv2',
      ),
    );

    const invite = await phone.request();
    expect(invite.method).toBe('INVITE');
    const recordRoute = invite.headers.getAll('record-route');
    expect(recordRoute).toEqual([`<sip:127.0.0.1:${server.ports.udp};lr>`, `<sip:127.0.0.1:${server.ports.ws};transport=ws;lr>`]);
    const ok = createResponse(invite, 200, 'OK', 'phone');
    for (const rr of recordRoute) ok.headers.add('Record-Route', rr);
    ok.headers.add('Contact', `<sip:201@127.0.0.1:${phone.port}>`);
    phone.send(ok, server.ports.udp);
    const answered = await inbox.nextResponse();
    expect(answered.status).toBe(200);

    const routeSet = answered.headers.getAll('record-route').reverse();
    const ack = viaWs(
      makeRequest('ACK', `sip:201@127.0.0.1:${phone.port}`, { ...base, to: answered.headers.get('to') ?? '', cseq: 2 }),
      'ack2',
    );
    for (const r of routeSet) ack.headers.add('Route', r);
    send(ack);
    expect((await phone.request()).method).toBe('ACK');

    const bye = makeRequest('BYE', 'sip:b@x.invalid;transport=ws', {
      port: phone.port,
      from: answered.headers.get('to') ?? '',
      to: base.from,
      callId: base.callId,
      cseq: 1,
      extra: recordRoute.map((r): [string, string] => ['Route', r]),
    });
    phone.send(bye, server.ports.udp);
    const relayed = await inbox.nextRequest('BYE');
    send(createResponse(relayed, 200, 'OK'));
    expect((await phone.response()).status).toBe(200);
    expect(observer.types()).toEqual(['created', 'answered', 'ended']);
    expect(observer.events[0]).toMatchObject({ caller: '301', callee: '201' });
    expect(observer.events[2]).toMatchObject({ outcome: 'answered' });
  });

  it('refuses a WebSocket without the sip subprotocol and forgets contacts of a closed connection', async () => {
    const bare = new WebSocket(`ws://127.0.0.1:${server.ports.ws}`);
    const code = await new Promise<number>((resolve) => bare.once('close', resolve));
    expect(code).toBe(1002);

    const ws = new WebSocket(`ws://127.0.0.1:${server.ports.ws}`, 'sip');
    const inbox = new Inbox();
    ws.on('message', (data: Buffer) => inbox.push(parseMessage(Buffer.from(data))));
    await new Promise((resolve) => ws.once('open', resolve));
    const send = (m: SipMessage) => ws.send(serializeMessage(m).toString('utf8'));
    await registerOver(send, inbox, 'SIP/2.0/WS abc.invalid', 'sip:abc@abc.invalid;transport=ws', '301', 'Browser301');
    expect(server.contacts('301')).toHaveLength(1);
    ws.close();
    await new Promise((resolve) => ws.once('close', resolve));
    for (let i = 0; i < 50 && server.contacts('301').length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(server.contacts('301')).toEqual([]);
    expect(observer.registrations.map((r) => r.change)).toEqual(['added', 'removed']);
  });
});

describe('TCP transport', () => {
  it('frames messages by Content-Length across split chunks and answers over the connection', async () => {
    const socket = net.connect(server.ports.tcp, '127.0.0.1');
    cleanups.push(() => socket.destroy());
    const inbox = new Inbox();
    const framer = new StreamFramer();
    socket.on('data', (chunk) => {
      const messages = framer.push(chunk);
      if (messages !== 'overflow') for (const m of messages) inbox.push(parseMessage(m));
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    const local = `127.0.0.1:${socket.localPort}`;
    const send = (m: SipMessage) => {
      const data = serializeMessage(m);
      // Split mid-header to prove the framer waits for the rest.
      socket.write(data.subarray(0, 30));
      setTimeout(() => socket.write(data.subarray(30)), 10);
    };
    const ok = await registerOver(send, inbox, `SIP/2.0/TCP ${local}`, `sip:401@${local};transport=tcp`, '301', 'Browser301');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('contact')).toMatch(/;expires=600$/);
    expect(server.contacts('301')).toMatchObject([{ transport: 'tcp', source: { address: '127.0.0.1', port: socket.localPort } }]);
    const pong = new Promise<Buffer>((resolve) => socket.once('data', resolve));
    socket.write('\r\n\r\n');
    expect((await pong).toString()).toBe('\r\n');
  });
});

describe('secure WebSocket', () => {
  const hasOpenssl = existsSync('/usr/bin/openssl');

  it.skipIf(!hasOpenssl)('serves wss when given a certificate and key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-wss-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
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
        '/CN=localhost',
        '-days',
        '1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const secure = await startSipServer({
      host: '127.0.0.1',
      udpPort: 0,
      tcpPort: 0,
      wsPort: 0,
      tls: { cert: readFileSync(path.join(dir, 'cert.pem')), key: readFileSync(path.join(dir, 'key.pem')) },
      realm: 'atrium.test',
      directory,
      observer,
      log: silentLog,
    });
    cleanups.push(() => void secure.close());
    const ws = new WebSocket(`wss://127.0.0.1:${secure.ports.ws}`, 'sip', { rejectUnauthorized: false });
    cleanups.push(() => ws.terminate());
    const inbox = new Inbox();
    ws.on('message', (data: Buffer) => inbox.push(parseMessage(Buffer.from(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const send = (m: SipMessage) => ws.send(serializeMessage(m).toString('utf8'));
    const ok = await registerOver(send, inbox, 'SIP/2.0/WSS s.invalid', 'sip:s@s.invalid;transport=ws', '301', 'Browser301');
    expect(ok.status).toBe(200);
    expect(secure.contacts('301')).toMatchObject([{ transport: 'wss' }]);
  });
});
