import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawPeer, type RawTransport, stillServes } from './edge.testing.js';
import type { SipServer } from './server.js';
import { MemoryDirectory, startTestServer } from './testing.js';

/**
 * RFC 4475 ("SIP Torture Test Messages"): its 49 messages, byte for byte as the RFC's tarball holds
 * them (test/sip-torture/*.dat, CRLF line ends), each sent to a running server and answered or
 * dropped as the RFC says of it. A WebSocket carries each message, since it is message-oriented like
 * UDP (a datagram's Content-Length rules apply, RFC 7118 §5) yet answers come back over the very
 * connection: the messages' own Via hosts (example.com) could not be reached.
 */

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/sip-torture');

/**
 * An answer with this status (and, for some, a header it must carry), or no answer at all. `also`:
 * the statuses of further answers, for a stream carrying more than one message (in any order).
 */
type Outcome = { status: number; reason?: RegExp; header?: [string, RegExp]; also?: number[] } | 'dropped';

// The numbers the corpus REGISTERs for exist, so a registration meets the digest challenge (401).
const NUMBERS = ['j.user', 'user', 'watson', 'caller'];

/**
 * Per message, the RFC 4475 section and what it asks of a registrar and proxy like this one.
 * INVITEs the RFC calls valid meet the proxy's digest step: 407 when the caller is a number here,
 * and the same 407 when it is not (unknown numbers are not told apart from known ones): either way the server read it as valid.
 */
const EXPECTED: Record<string, Outcome> = {
  // §3.1.1 valid messages.
  wsinv: { status: 481 }, // §3.1.1.1 a short tortuous INVITE: its To tag names a dialog unknown here
  intmeth: { status: 501, header: ['allow', /INVITE/] }, // §3.1.1.2 wide range of valid characters: an unknown method
  esc01: { status: 407 }, // §3.1.1.3 valid use of the % escaping mechanism: read, and its caller challenged like any (unknown numbers are not told apart)
  escnull: { status: 404 }, // §3.1.1.4 escaped nulls in URIs: a valid REGISTER for a user no number can be
  esc02: { status: 501 }, // §3.1.1.5 % that is not an escape: RE%47IST%45R is not REGISTER
  lwsdisp: { status: 200 }, // §3.1.1.6 no LWS between display name and <
  longreq: { status: 407 }, // §3.1.1.7 long values in header fields: read, and its long caller challenged like any
  dblreq: { status: 401 }, // §3.1.1.8 extra trailing octets in a datagram: the REGISTER only
  semiuri: { status: 200 }, // §3.1.1.9 semicolon-separated parameters in the URI user part
  transports: { status: 200 }, // §3.1.1.10 varied and unknown transport types
  mpart01: { status: 405, header: ['allow', /REGISTER/] }, // §3.1.1.11 multipart MIME: MESSAGE is not served here
  unreason: 'dropped', // §3.1.1.12 unusual reason phrase: a response matching no transaction
  noreason: 'dropped', // §3.1.1.13 empty reason phrase: likewise
  // §3.1.2 invalid messages.
  badinv01: { status: 400, reason: /Via/ }, // §3.1.2.1 extraneous header field separators
  clerr: { status: 400, reason: /Content-Length/ }, // §3.1.2.2 Content-Length larger than the message
  ncl: { status: 400, reason: /Content-Length/ }, // §3.1.2.3 negative Content-Length
  scalar02: { status: 400, reason: /CSeq/ }, // §3.1.2.4 request scalar fields with overlarge values
  scalarlg: 'dropped', // §3.1.2.5 response scalar fields with overlarge values
  quotbal: { status: 400, reason: /To/ }, // §3.1.2.6 unterminated quoted string in display name
  ltgtruri: { status: 400, reason: /Request-URI/ }, // §3.1.2.7 <> enclosing the Request-URI
  lwsruri: { status: 400, reason: /Request-Line/ }, // §3.1.2.8 malformed SIP Request-URI (embedded LWS)
  lwsstart: { status: 400, reason: /Request-Line/ }, // §3.1.2.9 multiple SP separating Request-Line elements
  trws: { status: 400, reason: /Request-Line/ }, // §3.1.2.10 SP characters at the end of the Request-Line
  escruri: { status: 400, reason: /Request-URI/ }, // §3.1.2.11 escaped headers in the SIP Request-URI
  baddate: { status: 407 }, // §3.1.2.12 invalid time zone in Date: acceptable to ignore, as Date is unused here
  regbadct: { status: 400, reason: /Contact/ }, // §3.1.2.13 failure to enclose name-addr URI in <>
  badaspec: { status: 400, reason: /To/ }, // §3.1.2.14 spaces within addr-spec
  baddn: { status: 400, reason: /From/ }, // §3.1.2.15 non-token characters in display name (the RFC's file ends without the empty line)
  badvers: { status: 505 }, // §3.1.2.16 unknown protocol version
  mismatch01: { status: 400, reason: /CSeq/ }, // §3.1.2.17 start line and CSeq method mismatch
  mismatch02: { status: 400, reason: /CSeq/ }, // §3.1.2.18 unknown method with CSeq method mismatch (400 allowed)
  bigcode: 'dropped', // §3.1.2.19 overlarge response code
  // §3.2 transaction layer semantics.
  badbranch: { status: 200 }, // §3.2.1 missing transaction identifier (bare magic cookie)
  // §3.3 application layer semantics.
  insuf: { status: 400, reason: /Missing/ }, // §3.3.1 missing required header fields
  unkscm: { status: 416 }, // §3.3.2 Request-URI with unknown scheme
  novelsc: { status: 416 }, // §3.3.3 Request-URI with known but atypical scheme
  unksm2: { status: 403 }, // §3.3.4 unknown URI schemes in header fields: no number in To, so no registration
  bext01: { status: 420, header: ['unsupported', /nothingSupportsThis.*noProxiesSupportThis|noProxiesSupportThis.*nothingSupportsThis/] }, // §3.3.5
  invut: { status: 407 }, // §3.3.6 unknown Content-Type: a proxy passes the body on, after the challenge
  regaut01: { status: 401 }, // §3.3.7 unknown authorization scheme: challenged
  multi01: { status: 400, reason: /Duplicate/ }, // §3.3.8 multiple values in single value required fields
  mcl01: { status: 400, reason: /Content-Length/ }, // §3.3.9 multiple Content-Length values
  bcast: 'dropped', // §3.3.10 200 OK with a broadcast Via: a response matching no transaction
  zeromf: { status: 200 }, // §3.3.11 Max-Forwards of zero: OPTIONS addressed to us is answered
  cparam01: { status: 401 }, // §3.3.12 Contact header with parameters outside <>
  cparam02: { status: 401 }, // §3.3.13 Contact header with a parameter without a value
  regescrt: { status: 401 }, // §3.3.14 REGISTER with a URL-escaped header in Contact
  sdp01: { status: 407 }, // §3.3.15 unacceptable Accept: the proxy challenges before any UAS could refuse
  // §3.4 backward compatibility.
  inv2543: { status: 407 }, // §3.4.1 INVITE with RFC 2543 syntax: read, and its caller +13035551111 challenged like any
};

/** Over TCP a message ends where its Content-Length says (RFC 3261 §18.3), which changes these. */
const OVER_STREAMS: Record<string, Outcome> = {
  clerr: 'dropped', // §3.1.2.2: the rest of the body is awaited, as the RFC says of stream transports
  baddn: 'dropped', // §3.1.2.15: the file ends before the empty line, so the head is awaited
  // §3.1.1.8: on a stream the octets after the REGISTER are the next message: an INVITE from a number
  // (407), then a stray "C" with no Via, dropped.
  dblreq: { status: 401, also: [407] },
};

async function expectOutcome(name: string, transport: RawTransport, expected: Outcome | undefined): Promise<void> {
  const peer = await RawPeer.open(transport, server);
  try {
    peer.send(readFileSync(path.join(CORPUS, `${name}.dat`)));
    if (expected === 'dropped' || expected === undefined) {
      expect(await peer.silent(400)).toBe(true);
      return;
    }
    if (expected.also) {
      const all = [];
      for (let i = 0; i <= expected.also.length; i++) all.push((await peer.response(3000)).status);
      expect(all.sort()).toEqual([expected.status, ...expected.also].sort());
      expect(await peer.silent(300)).toBe(true);
      return;
    }
    const res = await peer.response(3000);
    expect(res.status, `${res.status} ${res.reason}`).toBe(expected.status);
    if (expected.reason) expect(res.reason).toMatch(expected.reason);
    if (expected.header) expect(res.headers.getAll(expected.header[0]).join(', ')).toMatch(expected.header[1]);
  } finally {
    peer.close();
  }
}

/** PostgreSQL refuses a NUL in a text value; a directory over it throws the same way. */
class StrictDirectory extends MemoryDirectory {
  lookups: string[] = [];
  override async credentials(number: string): Promise<{ password: string } | null> {
    this.lookups.push(number);
    if (number.includes('\0')) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    return super.credentials(number);
  }
}

let server: SipServer;
let directory: StrictDirectory;

const names = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.dat'))
  .map((f) => f.slice(0, -4))
  .sort();

it('has all 49 messages of RFC 4475, each with an expected outcome', () => {
  expect(names).toHaveLength(49);
  expect(names).toEqual(Object.keys(EXPECTED).sort());
});

// One server per transport: the same message sent again within 32 s would be a retransmission.
describe.each([
  ['WebSocket', 'ws'],
  ['TCP', 'tcp'],
] as const)('RFC 4475 torture messages over %s', (_name, transport) => {
  beforeAll(async () => {
    directory = new StrictDirectory();
    ({ server } = await startTestServer({}, { directory }));
    for (const n of NUMBERS) directory.passwords.set(n, `Pw-${n}`);
  });

  afterAll(async () => {
    await server.close();
  });

  it.each(names)('%s', async (name) => {
    const expected = transport === 'tcp' && name in OVER_STREAMS ? OVER_STREAMS[name] : EXPECTED[name];
    await expectOutcome(name, transport, expected);
  });

  it('never asks the directory about a user holding an escaped NUL', () => {
    expect(directory.lookups.some((n) => n.includes('\0'))).toBe(false);
  });

  it('still registers and connects calls after the whole corpus', async () => {
    await stillServes(server, directory, transport === 'ws' ? '04' : '14');
  });
});
