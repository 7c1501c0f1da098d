import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatUri, parseNameAddr, parseUri, parseVia, tagOf, userOf } from './address.js';
import { createResponse, MAX_MESSAGE_BYTES, parseMessage, type SipRequest, StreamFramer, serializeMessage } from './message.js';

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'));

const INVITE = crlf([
  'INVITE sip:201@atrium.test SIP/2.0',
  'v: SIP/2.0/UDP 10.0.0.5:5060;branch=z9hG4bK776asdhds, SIP/2.0/TCP proxy.example:5070;branch=z9hG4bKold',
  'Max-Forwards: 70',
  'f: "Panel, Entrance" <sip:101@atrium.test>;tag=1928301774',
  't: <sip:201@atrium.test>',
  'i: a84b4c76e66710@pc33.atlanta.com',
  'CSeq: 314159 INVITE',
  'm: <sip:101@10.0.0.5:5060>',
  'Subject: a folded',
  '  subject line',
  'X-Speech-Id: abc',
  'c: application/sdp',
  'l: 3',
  '',
  'v=0',
]);

describe('parseMessage', () => {
  it('reads a request with compact forms, folding and multi-valued headers', () => {
    const msg = parseMessage(INVITE);
    if (msg?.kind !== 'request') throw new Error('not a request');
    expect(msg.method).toBe('INVITE');
    expect(msg.uri).toBe('sip:201@atrium.test');
    expect(msg.headers.getAll('Via')).toHaveLength(2);
    expect(parseVia(msg.headers.get('via') ?? '')?.params.get('branch')).toBe('z9hG4bK776asdhds');
    expect(msg.headers.get('CALL-ID')).toBe('a84b4c76e66710@pc33.atlanta.com');
    expect(msg.headers.get('subject')).toBe('a folded subject line');
    expect(msg.headers.get('content-type')).toBe('application/sdp');
    expect(msg.body.toString()).toBe('v=0');
    expect(tagOf(msg.headers.get('from'))).toBe('1928301774');
    expect(userOf(msg.headers.get('from'))).toBe('101');
    // The quoted comma in the display name does not split From.
    expect(parseNameAddr(msg.headers.get('from') ?? '')?.displayName).toBe('Panel, Entrance');
    expect(msg.headers.toRecord()['x-speech-id']).toBe('abc');
  });

  it('round-trips through serializeMessage with a recomputed Content-Length', () => {
    const msg = parseMessage(INVITE);
    if (!msg) throw new Error('unparsed');
    msg.body = Buffer.from('v=0\r\no=x\r\n');
    const again = parseMessage(serializeMessage(msg));
    expect(again?.body.toString()).toBe('v=0\r\no=x\r\n');
    expect(again?.headers.get('content-length')).toBe('10');
    expect(again?.headers.getAll('via')).toEqual(msg.headers.getAll('via'));
  });

  it('reads a response and builds one with a To tag', () => {
    const req = parseMessage(INVITE) as SipRequest;
    const res = createResponse(req, 486, 'Busy Here', 'xyz');
    const parsed = parseMessage(serializeMessage(res));
    if (parsed?.kind !== 'response') throw new Error('not a response');
    expect(parsed.status).toBe(486);
    expect(parsed.reason).toBe('Busy Here');
    expect(tagOf(parsed.headers.get('to'))).toBe('xyz');
    expect(parsed.headers.getAll('via')).toHaveLength(2);
  });

  it('drops messages missing mandatory headers, with a short body or over 64 KiB', () => {
    expect(parseMessage(crlf(['OPTIONS sip:a@b SIP/2.0', 'Via: SIP/2.0/UDP h;branch=z9hG4bK1', '', '']))).toBeNull();
    const short = Buffer.from(INVITE.toString().replace('l: 3', 'l: 40'));
    expect(parseMessage(short)).toBeNull();
    const huge = Buffer.concat([INVITE, Buffer.alloc(MAX_MESSAGE_BYTES)]);
    expect(parseMessage(huge)).toBeNull();
  });

  it('never throws on random bytes or mangled messages', () => {
    for (let i = 0; i < 3000; i++) {
      const noise = randomBytes(Math.floor(Math.random() * 600));
      expect(() => parseMessage(noise)).not.toThrow();
      const cut = INVITE.subarray(0, Math.floor(Math.random() * INVITE.length));
      const mangled = Buffer.from(cut);
      if (mangled.length > 0) mangled[Math.floor(Math.random() * mangled.length)] = Math.floor(Math.random() * 256);
      expect(() => parseMessage(Buffer.concat([mangled, noise]))).not.toThrow();
      const framer = new StreamFramer();
      expect(() => framer.push(Buffer.concat([mangled, noise]))).not.toThrow();
    }
  });
});

describe('StreamFramer', () => {
  it('cuts back-to-back messages by Content-Length and skips keep-alive CRLFs', () => {
    const framer = new StreamFramer();
    const two = Buffer.concat([Buffer.from('\r\n\r\n'), INVITE, INVITE]);
    const first = framer.push(two.subarray(0, 100));
    expect(first).toEqual([]);
    const rest = framer.push(two.subarray(100));
    if (rest === 'overflow') throw new Error('overflow');
    expect(rest).toHaveLength(2);
    expect(rest.map((m) => parseMessage(m)?.body.toString())).toEqual(['v=0', 'v=0']);
  });

  it('reports overflow for a message over the limit', () => {
    const framer = new StreamFramer();
    const big = Buffer.from(INVITE.toString().replace('l: 3', `l: ${MAX_MESSAGE_BYTES}`));
    expect(framer.push(big)).toBe('overflow');
  });
});

describe('URIs and addresses', () => {
  it('parses sip URIs with user, port, params and headers', () => {
    const uri = parseUri('sip:201@10.0.0.7:5062;transport=tcp;lr?subject=x');
    expect(uri).toMatchObject({ scheme: 'sip', user: '201', host: '10.0.0.7', port: 5062, headers: 'subject=x' });
    expect(uri?.params.get('transport')).toBe('tcp');
    expect(uri?.params.has('lr')).toBe(true);
    expect(parseUri('sips:[2001:db8::1]:5061')).toMatchObject({ scheme: 'sips', user: null, host: '[2001:db8::1]', port: 5061 });
    expect(parseUri('sip:alice:secret@host')?.user).toBe('alice');
    expect(parseUri('tel:+15551234')).toBeNull();
    expect(parseUri('sip:h:99999')).toBeNull();
    const round = parseUri('sip:+7901@trunk.example:5080;transport=udp');
    expect(round && formatUri(round)).toBe('sip:+7901@trunk.example:5080;transport=udp');
  });

  it('tells URI parameters from header parameters in name-addr and addr-spec', () => {
    const angle = parseNameAddr('<sip:201@h;transport=ws>;tag=abc;expires=60');
    expect(angle?.uri).toBe('sip:201@h;transport=ws');
    expect(angle?.params.get('tag')).toBe('abc');
    const bare = parseNameAddr('sip:201@h;tag=abc');
    expect(bare?.uri).toBe('sip:201@h');
    expect(bare?.params.get('tag')).toBe('abc');
    expect(parseNameAddr('Bob <sip:bob@h>')?.displayName).toBe('Bob');
    expect(parseNameAddr('"unclosed <sip:x@h>')).toBeNull();
  });
});
