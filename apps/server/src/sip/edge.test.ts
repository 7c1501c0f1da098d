import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authorize, parseAuthHeader } from './digest.js';
import { RawPeer, type RawTransport, stillServes } from './edge.testing.js';
import type { SipServer } from './server.js';
import { type MemoryDirectory, registerContact, startTestServer } from './testing.js';

/**
 * What one peer on the network can send must never stop the server: each packet here is answered
 * or dropped as RFC 3261 says, and afterwards the server still registers and connects a call.
 */

let server: SipServer;
let directory: MemoryDirectory;
const peers: RawPeer[] = [];

beforeEach(async () => {
  ({ server, directory } = await startTestServer({ '101': 'Panel101' }));
});

afterEach(async () => {
  for (const peer of peers.splice(0)) peer.close();
  await server.close();
});

async function peer(transport: RawTransport): Promise<RawPeer> {
  const p = await RawPeer.open(transport, server);
  peers.push(p);
  return p;
}

/** A request as raw text, CRLF line ends, with the Via given (the line after the request line). */
function request(method: string, via: string, lines: string[] = [], id = Math.random().toString(36).slice(2)): string {
  return [
    `${method} sip:1002@127.0.0.1 SIP/2.0`,
    `Via: ${via}`,
    'Max-Forwards: 70',
    `From: <sip:101@127.0.0.1>;tag=${id}`,
    method === 'REGISTER' ? 'To: <sip:101@127.0.0.1>' : 'To: <sip:1002@127.0.0.1>',
    `Call-ID: ${id}`,
    `CSeq: 1 ${method}`,
    ...lines,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

describe('a top Via with a port no socket can use', () => {
  it('is dropped over UDP without rport, and the server goes on registering and calling', async () => {
    const udp = await peer('udp');
    for (const port of [99999, 0, 65536]) {
      for (const method of ['INVITE', 'REGISTER', 'OPTIONS'])
        udp.send(request(method, `SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bKr${port}${method}`));
    }
    // No sent-by to answer to and no rport: RFC 3261 §18.2.2 leaves nowhere to send a response.
    expect(await udp.silent(300)).toBe(true);
    await stillServes(server, directory, '01');
    expect(server.counters().malformed).toBe(9);
  });

  it('is answered 400 at the source port when the Via asks for rport (RFC 3581)', async () => {
    const udp = await peer('udp');
    udp.send(request('INVITE', 'SIP/2.0/UDP 127.0.0.1:99999;rport;branch=z9hG4bKrp'));
    const res = await udp.response();
    expect([res.status, res.reason]).toEqual([400, 'Bad Via']);
  });

  it.each(['tcp', 'ws'] as const)('is answered 400 over %s, on the connection it came by', async (transport) => {
    const stream = await peer(transport);
    stream.send(request('INVITE', `SIP/2.0/${transport.toUpperCase()} 127.0.0.1:99999;branch=z9hG4bKs1`));
    const res = await stream.response();
    expect([res.status, res.reason]).toEqual([400, 'Bad Via']);
    stream.send(request('REGISTER', `SIP/2.0/${transport.toUpperCase()} 127.0.0.1:0;branch=z9hG4bKs2`));
    expect((await stream.response()).status).toBe(400);
    await stillServes(server, directory, '02');
  });
});

describe('a request that breaks the grammar', () => {
  /** An OPTIONS from the UDP peer (rport: answers come to its port), with `edit` applied to its text. */
  const options = (udp: RawPeer, edit: (text: string) => string = (t) => t) =>
    edit(request('OPTIONS', `SIP/2.0/UDP 127.0.0.1:${udp.port};rport;branch=z9hG4bK${Math.random().toString(36).slice(2)}`));

  it.each([
    ['no Call-ID', 400, 'Missing Call-ID', (t: string) => t.replace(/Call-ID: .*\r\n/, '')],
    ['no CSeq', 400, 'Missing CSeq', (t: string) => t.replace(/CSeq: .*\r\n/, '')],
    ['no From', 400, 'Missing From', (t: string) => t.replace(/From: .*\r\n/, '')],
    ['a CSeq without a method', 400, 'Bad CSeq', (t: string) => t.replace('CSeq: 1 OPTIONS', 'CSeq: 1')],
    ['a CSeq of 2^31', 400, 'Bad CSeq', (t: string) => t.replace('CSeq: 1 OPTIONS', 'CSeq: 2147483648 OPTIONS')],
    [
      'a CSeq naming another method',
      400,
      'CSeq Method Does Not Match Request',
      (t: string) => t.replace('CSeq: 1 OPTIONS', 'CSeq: 1 INVITE'),
    ],
    ['two CSeq headers', 400, 'Duplicate CSeq', (t: string) => t.replace('CSeq: 1 OPTIONS', 'CSeq: 1 OPTIONS\r\nCSeq: 2 OPTIONS')],
    ['two Call-ID headers', 400, 'Duplicate Call-ID', (t: string) => t.replace(/(Call-ID: .*\r\n)/, '$1$1')],
    ['a request line with two spaces', 400, 'Bad Request-Line', (t: string) => t.replace('OPTIONS sip:', 'OPTIONS  sip:')],
    ['a request line with no version', 400, 'Bad Request-Line', (t: string) => t.replace(' SIP/2.0\r\n', '\r\n')],
    ['SIP/3.0', 505, 'Version Not Supported', (t: string) => t.replace(' SIP/2.0\r\n', ' SIP/3.0\r\n')],
    ['a negative Content-Length', 400, 'Bad Content-Length', (t: string) => t.replace('Content-Length: 0', 'Content-Length: -1')],
    [
      'a Content-Length past the datagram',
      400,
      'Content-Length Larger Than Message',
      (t: string) => t.replace('Content-Length: 0', 'Content-Length: 20'),
    ],
    [
      'two Content-Lengths that differ',
      400,
      'Conflicting Content-Length',
      (t: string) => t.replace('Content-Length: 0', 'Content-Length: 0\r\nl: 4'),
    ],
    ['a Max-Forwards that is no number', 400, 'Bad Max-Forwards', (t: string) => t.replace('Max-Forwards: 70', 'Max-Forwards: many')],
    ['a header line with no colon', 400, 'Malformed Header Line', (t: string) => t.replace('Max-Forwards: 70', 'Max-Forwards 70')],
    ['a NUL in a header value', 400, 'Control Character in Header', (t: string) => t.replace('<sip:101@', '<sip:1\u000001@')],
    ['a Call-ID with a space', 400, 'Bad Call-ID', (t: string) => t.replace(/Call-ID: (.*)/, 'Call-ID: a $1')],
    ['an unterminated quote in From', 400, 'Bad From', (t: string) => t.replace('From: <', 'From: "Panel <')],
    ['a second Via that is junk', 400, 'Bad Via', (t: string) => t.replace('Max-Forwards', 'Via: SIP/2.0/UDP ;;\r\nMax-Forwards')],
  ] as Array<[string, number, string, (t: string) => string]>)('with %s is answered %i %s', async (_what, status, reason, edit) => {
    const udp = await peer('udp');
    udp.send(options(udp, edit));
    const res = await udp.response();
    expect([res.status, res.reason]).toEqual([status, reason]);
  });

  it('is answered 400, never 100 Trying, when its top Via is junk, over TCP', async () => {
    const tcp = await peer('tcp');
    tcp.send(request('INVITE', 'SIP/2.0/TCP ;;;branch=z9hG4bKj1'));
    const res = await tcp.response(3000, false);
    expect([res.status, res.reason]).toEqual([400, 'Bad Via']);
  });

  it('is dropped when its top Via is junk over UDP: there is nowhere to route an answer', async () => {
    const udp = await peer('udp');
    udp.send(request('INVITE', 'SIP/2.0/UDP ;;;branch=z9hG4bKj2'));
    udp.send(options(udp, (t) => t.replace(/Via: .*\r\n/, '')));
    expect(await udp.silent(300)).toBe(true);
  });

  it('is dropped when it has no Via at all, even over TCP: no answer could match it', async () => {
    const tcp = await peer('tcp');
    tcp.send(
      request('OPTIONS', 'x')
        .replace(/Via: .*\r\n/, '')
        .replace('CSeq: 1 OPTIONS', 'CSeq: 1'),
    );
    expect(await tcp.silent(300)).toBe(true);
  });

  it('never gets an answer when it is an ACK (RFC 3261 §17.2.1)', async () => {
    const udp = await peer('udp');
    udp.send(request('ACK', `SIP/2.0/UDP 127.0.0.1:${udp.port};rport;branch=z9hG4bKa1`).replace('CSeq: 1 ACK', 'CSeq: x ACK'));
    expect(await udp.silent(300)).toBe(true);
  });

  it('over TCP with a Content-Length that cannot be read gets its 400, then the connection closes', async () => {
    const tcp = await peer('tcp');
    tcp.send(
      `${request('OPTIONS', 'SIP/2.0/TCP 127.0.0.1:5060;branch=z9hG4bKn1').replace('Content-Length: 0', 'Content-Length: -999')}garbage`,
    );
    const res = await tcp.response();
    expect([res.status, res.reason]).toEqual([400, 'Bad Content-Length']);
    // What still arrives before the close is not read, and the close is counted once.
    for (let i = 0; i < 12; i++) tcp.send(request('OPTIONS', `SIP/2.0/TCP 127.0.0.1:5060;branch=z9hG4bKn${i + 2}`));
    expect(await tcp.silent(300)).toBe(true);
    expect(tcp.closedByServer).toBe(true);
    expect(server.counters().streamsClosed).toBe(1);
  });

  it('discards what follows the Content-Length in a datagram (RFC 3261 §18.3)', async () => {
    const udp = await peer('udp');
    const first = options(udp);
    udp.send(`${first}${options(udp).replace('OPTIONS sip:', 'NOTIFY sip:')}`);
    expect((await udp.response()).status).toBe(200);
    expect(await udp.silent(300)).toBe(true);
  });
});

describe('a well-formed request the server does not serve', () => {
  const via = (udp: RawPeer, b: string) => `SIP/2.0/UDP 127.0.0.1:${udp.port};rport;branch=z9hG4bK${b}`;

  it('with an unknown method is answered 501 with Allow', async () => {
    const udp = await peer('udp');
    udp.send(request('FROBNICATE', via(udp, 'm1')));
    const res = await udp.response();
    expect([res.status, res.headers.getAll('allow').join(', ')]).toEqual([
      501,
      'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, PRACK, REGISTER',
    ]);
    udp.send(request('MESSAGE', via(udp, 'm2')));
    expect((await udp.response()).status).toBe(405);
  });

  it('with a Request-URI that is not sip: or sips: is answered 416', async () => {
    const udp = await peer('udp');
    udp.send(request('OPTIONS', via(udp, 'u1')).replace('OPTIONS sip:1002@127.0.0.1', 'OPTIONS tel:+15551234'));
    expect((await udp.response()).status).toBe(416);
  });

  it('requiring an extension is answered 420 with Unsupported naming it', async () => {
    const udp = await peer('udp');
    udp.send(request('REGISTER', via(udp, 'r1'), ['Require: 100rel, timer']));
    const res = await udp.response();
    expect([res.status, res.headers.getAll('unsupported')]).toEqual([420, ['100rel', 'timer']]);
    // A proxy honours Proxy-Require only: Require on an INVITE it forwards is for the callee.
    udp.send(request('INVITE', via(udp, 'r2'), ['Require: 100rel']));
    expect((await udp.response()).status).toBe(407);
    udp.send(request('INVITE', via(udp, 'r3'), ['Proxy-Require: sec-agree']));
    expect((await udp.response()).status).toBe(420);
  });
});

describe('a registered contact no socket can reach', () => {
  it('at port 0 makes the call fail, not the server', async () => {
    directory.passwords.set('301', 'Phone301');
    expect(await registerContact(server.ports.udp, '301', 'Phone301', 0)).toBe(200);
    const udp = await peer('udp');
    const invite = (cseq: number, auth: string[]) =>
      request('INVITE', `SIP/2.0/UDP 127.0.0.1:${udp.port};rport;branch=z9hG4bKinv${cseq}`, auth, 'call-301')
        .replace('sip:1002@', 'sip:301@')
        .replace('CSeq: 1 INVITE', `CSeq: ${cseq} INVITE`);
    udp.send(invite(1, []));
    const challenge = parseAuthHeader((await udp.response()).headers.get('proxy-authenticate') ?? '');
    if (!challenge) throw new Error('no challenge');
    udp.send(
      invite(2, [`Proxy-Authorization: ${authorize(challenge, { username: '101', password: 'Panel101' }, 'INVITE', 'sip:301@127.0.0.1')}`]),
    );
    expect((await udp.response(5000)).status).toBe(503);
    expect(server.counters().sendFailures).toBe(1);
    await stillServes(server, directory, '06');
  });
});
