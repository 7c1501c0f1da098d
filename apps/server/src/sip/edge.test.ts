import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RawPeer, type RawTransport, stillServes } from './edge.testing.js';
import type { SipServer } from './server.js';
import { type MemoryDirectory, startTestServer } from './testing.js';

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
