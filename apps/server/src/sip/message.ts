/**
 * SIP message parsing and serialisation (RFC 3261 §7, §20, §25).
 *
 * Written here rather than taken from npm: no maintained Node SIP server library fits (the `sip`
 * package is abandoned, the others are user-agent stacks for browsers), and Atrium needs only a
 * compact registrar and stateful proxy. The parser never throws on input from the network: a
 * message it cannot read is dropped (parseMessage returns null).
 */

import { tagOf, withTag } from './address.js';

/** Messages above this size are dropped; nothing legitimate in Atrium comes near it. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

const COMPACT: Record<string, string> = {
  i: 'call-id',
  f: 'from',
  t: 'to',
  v: 'via',
  m: 'contact',
  l: 'content-length',
  c: 'content-type',
  k: 'supported',
  e: 'content-encoding',
  s: 'subject',
  o: 'event',
  r: 'refer-to',
  u: 'allow-events',
};

// Headers whose grammar is a comma-separated list (RFC 3261 §7.3.1); others keep commas.
const LIST_HEADERS = new Set([
  'via',
  'contact',
  'route',
  'record-route',
  'allow',
  'supported',
  'require',
  'proxy-require',
  'unsupported',
  'accept',
  'accept-encoding',
  'accept-language',
  'allow-events',
  'content-encoding',
]);

const CANONICAL: Record<string, string> = {
  'call-id': 'Call-ID',
  cseq: 'CSeq',
  'www-authenticate': 'WWW-Authenticate',
  'max-forwards': 'Max-Forwards',
  'mime-version': 'MIME-Version',
};

function canonicalName(lower: string): string {
  const known = CANONICAL[lower];
  if (known) return known;
  return lower.replace(/(^|-)([a-z])/g, (_m, dash: string, ch: string) => dash + ch.toUpperCase());
}

/** Ordered header list; names compared case-insensitively, compact forms expanded. */
export class SipHeaders {
  private entries: Array<{ key: string; name: string; value: string }> = [];

  static normalise(name: string): string {
    const lower = name.trim().toLowerCase();
    return COMPACT[lower] ?? lower;
  }

  get(name: string): string | undefined {
    const key = SipHeaders.normalise(name);
    return this.entries.find((e) => e.key === key)?.value;
  }

  getAll(name: string): string[] {
    const key = SipHeaders.normalise(name);
    return this.entries.filter((e) => e.key === key).map((e) => e.value);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Appends one header line; list headers are split into one entry per value. */
  add(name: string, value: string): void {
    const key = SipHeaders.normalise(name);
    const display = name.length === 1 ? canonicalName(key) : name.trim();
    const values = LIST_HEADERS.has(key) ? splitList(value) : [value.trim()];
    for (const v of values) this.entries.push({ key, name: display, value: v });
  }

  /** Puts a value above every existing value of that header (Via, Record-Route). */
  prepend(name: string, value: string): void {
    const key = SipHeaders.normalise(name);
    const first = this.entries.findIndex((e) => e.key === key);
    const entry = { key, name: canonicalName(key), value };
    if (first < 0) this.entries.push(entry);
    else this.entries.splice(first, 0, entry);
  }

  set(name: string, value: string): void {
    const key = SipHeaders.normalise(name);
    const first = this.entries.findIndex((e) => e.key === key);
    this.remove(name);
    const entry = { key, name: canonicalName(key), value };
    if (first < 0 || first > this.entries.length) this.entries.push(entry);
    else this.entries.splice(first, 0, entry);
  }

  remove(name: string): void {
    const key = SipHeaders.normalise(name);
    this.entries = this.entries.filter((e) => e.key !== key);
  }

  /** Removes and returns the topmost value (Via on responses, Route on requests). */
  shift(name: string): string | undefined {
    const key = SipHeaders.normalise(name);
    const index = this.entries.findIndex((e) => e.key === key);
    if (index < 0) return undefined;
    const [removed] = this.entries.splice(index, 1);
    return removed?.value;
  }

  /** Lower-cased name → value (first value of each header), for SipInviteInfo.headers. */
  toRecord(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.entries) if (!(e.key in out)) out[e.key] = e.value;
    return out;
  }

  clone(): SipHeaders {
    const copy = new SipHeaders();
    copy.entries = this.entries.map((e) => ({ ...e }));
    return copy;
  }

  lines(): string[] {
    return this.entries.map((e) => `${e.name}: ${e.value}`);
  }
}

/** Splits on commas outside quotes and angle brackets. */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '"' && value[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && ch === '<') depth++;
    else if (!quoted && ch === '>') depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && ch === ',') {
      out.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(value.slice(start).trim());
  return out.filter((v) => v.length > 0);
}

export interface SipRequest {
  kind: 'request';
  method: string;
  uri: string;
  headers: SipHeaders;
  body: Buffer;
}

export interface SipResponse {
  kind: 'response';
  status: number;
  reason: string;
  headers: SipHeaders;
  body: Buffer;
}

export type SipMessage = SipRequest | SipResponse;

const TOKEN = /^[A-Za-z0-9\-.!%*_+`'~]+$/;
const MANDATORY = ['via', 'from', 'to', 'call-id', 'cseq'];

function headerEnd(buf: Buffer): { end: number; sep: number } | null {
  const crlf = buf.indexOf('\r\n\r\n');
  if (crlf >= 0) return { end: crlf, sep: 4 };
  const lf = buf.indexOf('\n\n');
  return lf >= 0 ? { end: lf, sep: 2 } : null;
}

/** Parses the head (start line and headers) of a message; null when malformed. */
function parseHead(text: string): { start: string; headers: SipHeaders } | null {
  const rawLines = text.split(/\r?\n/);
  const lines: string[] = [];
  for (const line of rawLines) {
    // Header folding: a line starting with whitespace continues the previous one.
    if (/^[ \t]/.test(line) && lines.length > 1) lines[lines.length - 1] += ` ${line.trim()}`;
    else lines.push(line);
  }
  const start = lines.shift();
  if (!start) return null;
  const headers = new SipHeaders();
  for (const line of lines) {
    if (line.length === 0) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon).trim();
    if (!TOKEN.test(name)) return null;
    headers.add(name, line.slice(colon + 1));
  }
  return { start, headers };
}

/**
 * Parses one whole message. `framed` is true for stream transports, where the framer already cut
 * the body at Content-Length; for datagrams the body is what follows the head, cut at
 * Content-Length, and a datagram shorter than its Content-Length is dropped (RFC 3261 §18.3).
 */
export function parseMessage(buf: Buffer): SipMessage | null {
  if (buf.length > MAX_MESSAGE_BYTES) return null;
  let offset = 0;
  while (offset < buf.length && (buf[offset] === 0x0d || buf[offset] === 0x0a)) offset++;
  const data = offset > 0 ? buf.subarray(offset) : buf;
  const he = headerEnd(data);
  if (!he) return null;
  const head = parseHead(data.subarray(0, he.end).toString('utf8'));
  if (!head) return null;
  for (const name of MANDATORY) if (!head.headers.has(name)) return null;
  if (!/^\d+\s+\S+$/.test(head.headers.get('cseq') ?? '')) return null;
  let body = data.subarray(he.end + he.sep);
  const lengthHeader = head.headers.get('content-length');
  if (lengthHeader !== undefined) {
    if (!/^\d+$/.test(lengthHeader)) return null;
    const length = Number(lengthHeader);
    if (length > body.length) return null;
    body = body.subarray(0, length);
  }
  const bodyCopy = Buffer.from(body);
  const status = /^SIP\/2\.0 (\d{3}) ?(.*)$/i.exec(head.start);
  if (status) {
    return { kind: 'response', status: Number(status[1]), reason: status[2] ?? '', headers: head.headers, body: bodyCopy };
  }
  const request = /^([A-Za-z]+) (\S+) SIP\/2\.0$/i.exec(head.start);
  if (!request?.[1] || !request[2]) return null;
  return { kind: 'request', method: request[1].toUpperCase(), uri: request[2], headers: head.headers, body: bodyCopy };
}

export function serializeMessage(msg: SipMessage): Buffer {
  const start = msg.kind === 'request' ? `${msg.method} ${msg.uri} SIP/2.0` : `SIP/2.0 ${msg.status} ${msg.reason}`;
  msg.headers.set('Content-Length', String(msg.body.length));
  const head = [start, ...msg.headers.lines(), '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'utf8'), msg.body]);
}

/**
 * Cuts a TCP byte stream into messages by Content-Length (RFC 3261 §18.3).
 * Returns 'overflow' when a message would exceed the limit: the stream cannot be resynchronised,
 * so the caller closes the connection.
 */
export class StreamFramer {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] | 'overflow' {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      // Keep-alive CRLFs (RFC 5626 §3.5.1) between messages are skipped.
      let skip = 0;
      while (skip < this.buffer.length && (this.buffer[skip] === 0x0d || this.buffer[skip] === 0x0a)) skip++;
      if (skip > 0) this.buffer = this.buffer.subarray(skip);
      const he = headerEnd(this.buffer);
      if (!he) return this.buffer.length > MAX_MESSAGE_BYTES ? 'overflow' : out;
      const head = this.buffer.subarray(0, he.end).toString('utf8');
      const match = /^(?:content-length|l)[ \t]*:[ \t]*(\d+)/im.exec(head);
      const length = match?.[1] ? Number(match[1]) : 0;
      const total = he.end + he.sep + length;
      if (total > MAX_MESSAGE_BYTES) return 'overflow';
      if (this.buffer.length < total) return out;
      out.push(Buffer.from(this.buffer.subarray(0, total)));
      this.buffer = this.buffer.subarray(total);
    }
  }
}

export function cseqOf(msg: SipMessage): { seq: number; method: string } {
  const [seq, method] = (msg.headers.get('cseq') ?? '0 UNKNOWN').trim().split(/\s+/);
  return { seq: Number(seq), method: (method ?? '').toUpperCase() };
}

/** Builds a response to `req` copying the headers RFC 3261 §8.2.6.2 requires. */
export function createResponse(req: SipRequest, status: number, reason: string, toTag?: string): SipResponse {
  const headers = new SipHeaders();
  for (const via of req.headers.getAll('via')) headers.add('Via', via);
  for (const name of ['From', 'To', 'Call-ID', 'CSeq']) headers.add(name, req.headers.get(name) ?? '');
  if (status > 100) {
    const to = headers.get('to') ?? '';
    if (toTag && !tagOf(to)) headers.set('To', withTag(to, toTag));
  } else {
    const timestamp = req.headers.get('timestamp');
    if (timestamp) headers.add('Timestamp', timestamp);
  }
  return { kind: 'response', status, reason, headers, body: Buffer.alloc(0) };
}
