import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawPeer, type RawTransport } from './edge.testing.js';
import type { SipServer } from './server.js';
import type { SipLogger } from './server-types.js';

/**
 * A mutation fuzzer for the SIP server, shared by its test (a bounded run) and `npm run bench --
 * sip-fuzz` (a long one). Seeds are real messages: what SIPp sent the server in a registration, a
 * call and a cancelled call (test/sip-fuzz, captured with SIPp's -trace_msg), and the RFC 4475
 * corpus. Each case mutates a seed (headers, values, lengths, Via ports and addresses, truncation,
 * random bytes) and goes out over UDP, TCP or WebSocket. Seeded: the same seed gives the same cases.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SEED_DIRS = [path.resolve(HERE, '../../test/sip-fuzz'), path.resolve(HERE, '../../test/sip-torture')];

/** The captured messages, then the RFC 4475 ones. */
export function fuzzSeeds(): { captured: Buffer[]; torture: Buffer[] } {
  const [captured = [], torture = []] = SEED_DIRS.map((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.sip') || f.endsWith('.dat'))
      .sort()
      .map((f) => readFileSync(path.join(dir, f))),
  );
  return { captured, torture };
}

/** mulberry32: small, fast and good enough to pick mutations reproducibly. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, max: number): number => Math.floor(rng() * max);

/** Values that have broken SIP parsers: numbers at the edges, escapes, separators, sizes. */
const NASTY = [
  '',
  ' ',
  '0',
  '-1',
  '65535',
  '65536',
  '99999',
  '2147483647',
  '2147483648',
  '4294967296',
  '36893488147419103232',
  '1e9',
  'NaN',
  '%00',
  '\0',
  '\u00ff\u00fe',
  'ю',
  '<',
  '>',
  '"',
  '\\',
  ';;;',
  ',,,',
  ':',
  '@',
  'sip:',
  '<sip:>',
  'sip:a@127.0.0.1:0',
  'sip:a@127.0.0.1:99999',
  'sip:a@example.invalid',
  'sip:a@[::1]:5060',
  'sip:a@255.255.255.255',
  'tel:+1',
  'SIP/2.0/UDP',
  'SIP/2.0/UDP 127.0.0.1:0',
  'SIP/2.0/UDP 127.0.0.1:99999;rport=0',
  'SIP/2.0/UDP example.invalid;branch=z9hG4bK1',
  'SIP/2.0/UDP [::1]:70000;branch=z9hG4bK1',
  'SIP/2.0/UDP 127.0.0.1;received=999.1.1.1;rport=-5',
  'Digest username="101",realm="atrium.test",nonce="x",uri="sip:a",response="0"',
  'Digest ,,,,',
];

const huge = (rng: Rng): string => pick(rng, ['A', '%', ';', ',', '<', '"', ' ', '0']).repeat(1 + int(rng, 70_000));

interface Parts {
  start: string;
  headers: string[];
  body: Buffer;
}

function split(seed: Buffer): Parts {
  const end = seed.indexOf('\r\n\r\n');
  const head = (end < 0 ? seed : seed.subarray(0, end)).toString('latin1').split('\r\n');
  return { start: head[0] ?? '', headers: head.slice(1), body: end < 0 ? Buffer.alloc(0) : seed.subarray(end + 4) };
}

function join(p: Parts): Buffer {
  return Buffer.concat([Buffer.from([p.start, ...p.headers, '', ''].join('\r\n'), 'latin1'), p.body]);
}

const headerIndex = (p: Parts, rng: Rng, name?: RegExp): number => {
  const matching = p.headers.map((h, i) => [h, i] as const).filter(([h]) => !name || name.test(h));
  return matching.length === 0 ? -1 : (pick(rng, matching)[1] as number);
};

/** Mutations of the message's structure: each names what it does. */
const STRUCTURAL: Array<(p: Parts, rng: Rng) => void> = [
  function dropHeader(p, rng) {
    const i = headerIndex(p, rng);
    if (i >= 0) p.headers.splice(i, 1);
  },
  function duplicateHeader(p, rng) {
    const i = headerIndex(p, rng);
    if (i >= 0) p.headers.splice(i, 0, `${p.headers[i]?.split(':')[0]}: ${pick(rng, NASTY)}`);
  },
  function nastyValue(p, rng) {
    const i = headerIndex(p, rng);
    if (i >= 0) p.headers[i] = `${p.headers[i]?.split(':')[0]}: ${pick(rng, NASTY)}`;
  },
  function hugeValue(p, rng) {
    const i = headerIndex(p, rng);
    if (i >= 0) p.headers[i] = `${p.headers[i]?.split(':')[0]}: ${huge(rng)}`;
  },
  function viaPort(p, rng) {
    const i = headerIndex(p, rng, /^(via|v)\s*:/i);
    const port = pick(rng, ['0', '65536', '99999', '-1', '', 'x', '4294967297', '1', '00000', '65535']);
    const rport = rng() < 0.5 ? '' : pick(rng, [';rport', ';rport=0', ';rport=99999', ';rport=x']);
    const via = (p.headers[i] ?? '').replace(/;\s*rport(=[^;]*)?/g, '');
    if (i >= 0) p.headers[i] = via.replace(/(SIP\s*\/\s*2\.0\s*\/\s*\S+\s+)(\[[^\]]*\]|[^\s;:]+)(:\d*)?/i, `$1$2:${port}`) + rport;
  },
  function viaHost(p, rng) {
    const i = headerIndex(p, rng, /^(via|v)\s*:/i);
    const host = pick(rng, [
      'example.invalid',
      'localhost',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '255.255.255.255',
      '0.0.0.0',
      '999.1.1.1',
      '',
      '[zz]',
    ]);
    if (i >= 0) p.headers[i] = (p.headers[i] ?? '').replace(/(SIP\s*\/\s*2\.0\s*\/\s*\S+\s+)(\[[^\]]*\]|[^\s;:]+)/i, `$1${host}`);
  },
  function contactAddress(p, rng) {
    const i = headerIndex(p, rng, /^(contact|m)\s*:/i);
    const target = pick(rng, ['127.0.0.1:0', '127.0.0.1:65536', 'example.invalid', '[::1]:5060', '255.255.255.255:5060', '127.0.0.1:1']);
    if (i >= 0) p.headers[i] = (p.headers[i] ?? '').replace(/@[^;>]+/, `@${target}`);
  },
  function contentLength(p, rng) {
    const i = headerIndex(p, rng, /^(content-length|l)\s*:/i);
    const value = pick(rng, ['-1', '99999', '0', String(p.body.length + 1 + int(rng, 50)), 'x', '4294967296', `${p.body.length}, 3`]);
    if (i >= 0) p.headers[i] = `Content-Length: ${value}`;
    else p.headers.push(`Content-Length: ${value}`);
  },
  function secondContentLength(p, rng) {
    p.headers.push(`l: ${int(rng, 500)}`);
  },
  function requestLine(p, rng) {
    p.start = pick(rng, [
      p.start.replace(/ SIP\/2\.0$/, ' SIP/3.0'),
      p.start.replace(' ', '  '),
      `${p.start} `,
      p.start.replace(/^\S+/, pick(rng, ['FOO', 'INVITE\0', 'REGISTER', 'ACK', 'CANCEL', 'BYE', '', 'SIP/2.0'])),
      p.start.replace(/ \S+ /, ` ${pick(rng, ['<sip:a@b>', 'tel:1', 'sip:', 'sip:%00@h', 'http://x', 'sip:a@h?Route=x'])} `),
      'SIP/2.0 200 OK',
      `SIP/2.0 ${pick(rng, ['999', '099', '4294967301', '1', 'abc'])} X`,
    ]);
  },
  function cseq(p, rng) {
    const i = headerIndex(p, rng, /^cseq\s*:/i);
    const value = pick(rng, ['0 INVITE', '2147483648 INVITE', '-1 BYE', '1', 'INVITE 1', '99999999999 ACK', '1 FOO', '1 CANCEL']);
    if (i >= 0) p.headers[i] = `CSeq: ${value}`;
  },
  function foldHeaders(p, rng) {
    const i = headerIndex(p, rng);
    if (i >= 0) p.headers.splice(i + 1, 0, `${pick(rng, [' ', '\t', '  '])}${pick(rng, NASTY)}`);
  },
  function manyHeaders(p, rng) {
    const n = 1 + int(rng, 3000);
    for (let k = 0; k < n; k++) p.headers.push(`Via: SIP/2.0/UDP 127.0.0.${k % 255}:${k};branch=z9hG4bK${k}`);
  },
  function body(p, rng) {
    p.body = Buffer.from(pick(rng, ['v=0\r\n', 'v=0\r\nc=IN IP4 999.0.0.1\r\nm=audio 0 RTP/AVP 0\r\n', huge(rng), '']), 'latin1');
  },
];

/** Mutations of the bytes on the wire. */
const BYTES: Array<(b: Buffer, rng: Rng) => Buffer> = [
  function truncate(b, rng) {
    return b.subarray(0, int(rng, b.length));
  },
  function flipBytes(b, rng) {
    const copy = Buffer.from(b);
    const n = 1 + int(rng, 8);
    for (let k = 0; k < n && copy.length > 0; k++) copy[int(rng, copy.length)] = int(rng, 256);
    return copy;
  },
  function insertBytes(b, rng) {
    const at = int(rng, b.length + 1);
    const junk = Buffer.from(Array.from({ length: 1 + int(rng, 64) }, () => int(rng, 256)));
    return Buffer.concat([b.subarray(0, at), junk, b.subarray(at)]);
  },
  function bareLineFeeds(b) {
    return Buffer.from(b.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  },
  function noEmptyLine(b) {
    return Buffer.from(b.toString('latin1').replace('\r\n\r\n', '\r\n'), 'latin1');
  },
  function twoMessages(b, rng) {
    return Buffer.concat([b, b.subarray(0, int(rng, b.length + 1))]);
  },
];

/**
 * One fuzz case: a seed (mostly a captured one), mutated once most often, so that many cases get
 * past the parser to the transaction layer, registrar and proxy; now and then, random bytes only.
 */
export function fuzzCase(seeds: { captured: Buffer[]; torture: Buffer[] }, rng: Rng): Buffer {
  if (rng() < 0.04) return Buffer.from(Array.from({ length: int(rng, 1500) }, () => int(rng, 256)));
  const parts = split(pick(rng, rng() < 0.7 ? seeds.captured : seeds.torture));
  const roll = rng();
  const structural = roll < 0.6 ? 1 : roll < 0.9 ? 2 : 3;
  for (let k = 0; k < structural; k++) pick(rng, STRUCTURAL)(parts, rng);
  let bytes = join(parts);
  if (rng() < 0.25) bytes = pick(rng, BYTES)(bytes, rng);
  return bytes;
}

export interface FuzzRun {
  cases: number;
  sent: Record<RawTransport, number>;
  /** Stream connections the server closed (an oversize or unframeable message) and we opened again. */
  reconnects: number;
}

/**
 * Sends `cases` fuzz cases to the server, spread over UDP, TCP and WebSocket, pausing every few
 * cases so the run stays a modest load beside other test files running at the same time.
 */
export async function fuzzServer(
  server: SipServer,
  opts: {
    cases: number;
    seed: number /** A pause of `ms` after every `every` cases (default 5 ms per 10). */;
    pace?: { every: number; ms: number };
  },
): Promise<FuzzRun> {
  const pace = opts.pace ?? { every: 10, ms: 5 };
  const rng = random(opts.seed);
  const seeds = fuzzSeeds();
  const run: FuzzRun = { cases: 0, sent: { udp: 0, tcp: 0, ws: 0 }, reconnects: 0 };
  const peers: Partial<Record<RawTransport, RawPeer>> = {};
  const peerFor = async (transport: RawTransport): Promise<RawPeer> => {
    const open = peers[transport];
    if (open && !open.closedByServer) return open;
    if (open) run.reconnects++;
    const fresh = await RawPeer.open(transport, server);
    peers[transport] = fresh;
    return fresh;
  };
  try {
    for (let n = 0; n < opts.cases; n++) {
      const bytes = fuzzCase(seeds, rng);
      const roll = rng();
      const transport: RawTransport = roll < 0.5 ? 'udp' : roll < 0.75 ? 'tcp' : 'ws';
      // A stream left mid-message by a truncated case would swallow the next ones: start over now and then.
      if (transport !== 'udp' && n % 40 === 0) {
        peers[transport]?.close();
        delete peers[transport];
      }
      const peer = await peerFor(transport);
      // UDP datagrams beyond 64 KiB cannot be sent at all; they are cut like a link would.
      peer.send(transport === 'udp' ? bytes.subarray(0, 65_000) : bytes);
      run.sent[transport]++;
      run.cases++;
      if (n % pace.every === pace.every - 1) await new Promise((resolve) => setTimeout(resolve, pace.ms));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    for (const peer of Object.values(peers)) peer?.close();
  }
  return run;
}

/** A logger counting the errors the server caught: each is a fault a peer could trigger. */
export function countingLog(): SipLogger & { errors: unknown[] } {
  const errors: unknown[] = [];
  return {
    errors,
    info: () => undefined,
    warn: () => undefined,
    debug: () => undefined,
    error: (obj) => {
      errors.push(obj);
    },
  };
}
