import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestResponse, NonceIssuer, parseAuthHeader, verifyDigest } from './digest.js';
import { createResponse, cseqOf, type SipMessage, type SipRequest, type SipResponse } from './message.js';
import { TimerSet } from './server-types.js';
import { makeRequest, silentLog } from './testing.js';
import { type ServerTransaction, TransactionLayer } from './transaction.js';
import type { Destination } from './transport.js';

/** Transactions against a recording sender, with T1 = 10 ms so the timers run quickly. */

const T1 = 10;
const udp: Destination = { transport: 'udp', address: '127.0.0.1', port: 5999 };
const tcp: Destination = { transport: 'tcp', address: '127.0.0.1', port: 5999 };

let sent: Array<{ dest: Destination; msg: SipMessage }>;
let requests: Array<{ req: SipRequest; tx: ServerTransaction | null }>;
let cancelled: ServerTransaction[];
let timers: TimerSet;
let layer: TransactionLayer;

beforeEach(() => {
  sent = [];
  requests = [];
  cancelled = [];
  timers = new TimerSet();
  layer = new TransactionLayer(
    {
      send: (dest, msg) => {
        sent.push({ dest, msg });
        return true;
      },
    },
    timers,
    { t1: T1, t2: 40, t4: 50 },
    'localtag',
    { onRequest: (req, tx) => requests.push({ req, tx }), onCancel: (tx) => cancelled.push(tx) },
    silentLog,
  );
});

afterEach(() => timers.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const invite = (method = 'INVITE') =>
  makeRequest(method, 'sip:201@h', { port: 5999, from: '<sip:101@h>;tag=a', to: '<sip:201@h>', callId: 'c1', cseq: 1 });
const sentOf = (method: string) => sent.filter((s) => s.msg.kind === 'request' && s.msg.method === method);
const responses = () => sent.filter((s): s is { dest: Destination; msg: SipResponse } => s.msg.kind === 'response');

describe('client transactions', () => {
  it('retransmits an INVITE over UDP with doubling intervals (Timer A) and gives up with 408 (Timer B)', async () => {
    const failures: number[] = [];
    layer.sendRequest(invite(), udp, { onResponse: () => undefined, onFailure: (s) => failures.push(s) });
    await sleep(8 * T1);
    // Sent at 0, 10, 30, 70 ms.
    expect(sentOf('INVITE').length).toBeGreaterThanOrEqual(2);
    expect(sentOf('INVITE').length).toBeLessThanOrEqual(5);
    await sleep(64 * T1);
    expect(failures).toEqual([408]);
    expect(layer.size.clients).toBe(0);
  });

  it('does not retransmit over TCP', async () => {
    layer.sendRequest(invite(), tcp, { onResponse: () => undefined, onFailure: () => undefined });
    await sleep(10 * T1);
    expect(sentOf('INVITE')).toHaveLength(1);
  });

  it('ACKs a non-2xx final response itself, once per retransmission, and reports it once', async () => {
    const seen: number[] = [];
    const req = invite();
    layer.sendRequest(req, udp, { onResponse: (r) => seen.push(r.status), onFailure: () => undefined });
    const busy = createResponse(req, 486, 'Busy Here', 'far');
    layer.receive(busy, udp);
    layer.receive(busy, udp);
    expect(seen).toEqual([486]);
    const acks = sentOf('ACK');
    expect(acks).toHaveLength(2);
    const ack = acks[0]?.msg as SipRequest;
    expect(ack.headers.get('via')).toBe(req.headers.get('via'));
    expect(ack.headers.get('to')).toMatch(/tag=far/);
    expect(cseqOf(ack)).toEqual({ seq: 1, method: 'ACK' });
  });

  it('passes every 2xx up (forked answers) and sends no ACK for them', () => {
    const seen: number[] = [];
    const req = invite();
    layer.sendRequest(req, udp, { onResponse: (r) => seen.push(r.status), onFailure: () => undefined });
    layer.receive(createResponse(req, 200, 'OK', 'one'), udp);
    layer.receive(createResponse(req, 200, 'OK', 'two'), udp);
    expect(seen).toEqual([200, 200]);
    expect(sentOf('ACK')).toHaveLength(0);
  });

  it('holds a CANCEL until a provisional response arrives', () => {
    const req = invite();
    const tx = layer.sendRequest(req, udp, { onResponse: () => undefined, onFailure: () => undefined });
    tx.cancel();
    expect(sentOf('CANCEL')).toHaveLength(0);
    layer.receive(createResponse(req, 180, 'Ringing', 'far'), udp);
    const cancel = sentOf('CANCEL')[0]?.msg as SipRequest;
    expect(cancel.headers.get('via')).toBe(req.headers.get('via'));
    expect(cseqOf(cancel)).toEqual({ seq: 1, method: 'CANCEL' });
  });

  it('retransmits a non-INVITE capped at T2 (Timer E) and times out (Timer F)', async () => {
    const failures: number[] = [];
    layer.sendRequest(invite('OPTIONS'), udp, { onResponse: () => undefined, onFailure: (s) => failures.push(s) });
    await sleep(64 * T1 + 100);
    // 0, 10, 30, 70, then every 40 ms up to 640: about 17 sends; uncapped doubling would give 7.
    expect(sentOf('OPTIONS').length).toBeGreaterThan(8);
    expect(failures).toEqual([408]);
  });
});

describe('server transactions', () => {
  it('absorbs a retransmitted request by resending the last response', () => {
    const req = invite('OPTIONS');
    layer.receive(req, udp);
    expect(requests).toHaveLength(1);
    requests[0]?.tx?.reply(200, 'OK');
    layer.receive(req, udp);
    expect(requests).toHaveLength(1);
    expect(responses().map((r) => r.msg.status)).toEqual([200, 200]);
  });

  it('retransmits a failure response to an INVITE (Timer G) until the ACK, which it absorbs', async () => {
    const req = invite();
    layer.receive(req, udp);
    requests[0]?.tx?.reply(486, 'Busy Here');
    await sleep(4 * T1);
    const count = responses().length;
    expect(count).toBeGreaterThanOrEqual(2);
    const ack = makeRequest('ACK', 'sip:201@h', {
      port: 5999,
      from: '<sip:101@h>;tag=a',
      to: '<sip:201@h>;tag=localtag',
      callId: 'c1',
      cseq: 1,
    });
    ack.headers.set('Via', req.headers.get('via') ?? '');
    layer.receive(ack, udp);
    await sleep(6 * T1);
    expect(responses().length).toBe(count);
    expect(requests).toHaveLength(1);
  });

  it('passes the ACK for a 2xx to the core, since it belongs to no transaction', () => {
    const req = invite();
    layer.receive(req, udp);
    requests[0]?.tx?.reply(200, 'OK');
    const ack = makeRequest('ACK', 'sip:201@h', { port: 5999, from: '<sip:101@h>;tag=a', to: '<sip:201@h>;tag=x', callId: 'c1', cseq: 1 });
    ack.headers.set('Via', req.headers.get('via') ?? '');
    layer.receive(ack, udp);
    expect(requests.map((r) => [r.req.method, r.tx])).toEqual([
      ['INVITE', requests[0]?.tx],
      ['ACK', null],
    ]);
  });

  it('answers a CANCEL 200 and hands the INVITE to the core; an unmatched one gets 481', () => {
    const req = invite();
    layer.receive(req, udp);
    const cancel = makeRequest('CANCEL', 'sip:201@h', { port: 5999, from: '<sip:101@h>;tag=a', to: '<sip:201@h>', callId: 'c1', cseq: 1 });
    cancel.headers.set('Via', req.headers.get('via') ?? '');
    layer.receive(cancel, udp);
    expect(cancelled).toEqual([requests[0]?.tx]);
    const stray = makeRequest('CANCEL', 'sip:201@h', { port: 5999, from: '<sip:101@h>;tag=a', to: '<sip:201@h>', callId: 'c9', cseq: 1 });
    layer.receive(stray, udp);
    expect(responses().map((r) => r.msg.status)).toEqual([200, 481]);
  });
});

describe('digest', () => {
  it('computes the RFC 2617 §3.5 example response', () => {
    const response = digestResponse({
      username: 'Mufasa',
      realm: 'testrealm@host.com',
      password: 'Circle Of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      qop: 'auth',
      nc: '00000001',
      cnonce: '0a4f113b',
    });
    expect(response).toBe('6629fae49393a05397450978507c4ef1');
  });

  it('parses quoted and bare parameters and rejects forged nonces', () => {
    const nonces = new NonceIssuer(60_000);
    const nonce = nonces.issue();
    const header = `Digest username="201", realm="r", nonce="${nonce}", uri="sip:r", qop=auth, nc=00000001, cnonce="c", response="${digestResponse(
      { username: '201', realm: 'r', password: 'p', method: 'REGISTER', uri: 'sip:r', nonce, qop: 'auth', nc: '00000001', cnonce: 'c' },
    )}"`;
    const parsed = parseAuthHeader(header);
    expect(parsed?.params.get('qop')).toBe('auth');
    if (!parsed) throw new Error('unparsed');
    expect(verifyDigest(parsed, { realm: 'r', method: 'REGISTER', password: 'p', nonces })).toBe('ok');
    expect(verifyDigest(parsed, { realm: 'r', method: 'REGISTER', password: 'q', nonces })).toBe('wrong');
    expect(nonces.check(`${nonce.split('.')[0]}.forged`)).toBe('invalid');
    expect(new NonceIssuer(60_000).check(nonce)).toBe('invalid');
  });
});
