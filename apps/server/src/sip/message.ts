/**
 * SIP message parsing and serialisation (RFC 3261 §7, §20, §25).
 *
 * Written here rather than taken from npm: no maintained Node SIP server library fits (the `sip`
 * package is abandoned, the others are user-agent stacks for browsers), and Atrium needs only a
 * compact registrar and stateful proxy. The parser never throws on input from the network: a
 * message it cannot read comes back as a fault (readMessage) the server answers or drops.
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
/** Headers RFC 3261 §20 allows once; a second copy (even with the same value) makes the message ambiguous. */
const SINGLE = ['call-id', 'cseq', 'from', 'to', 'max-forwards', 'content-type'];
/** CSeq numbers are 32-bit and below 2**31 (RFC 3261 §8.1.1.5). */
const MAX_CSEQ = 2 ** 31 - 1;

/**
 * Why a message cannot be processed, and how to answer it. `request` is the request as far as it
 * could be read (start line and headers), kept so a response can be routed and built from its Via,
 * From, To, Call-ID and CSeq; null for responses and for what is not a SIP request at all, which
 * RFC 3261 never answers.
 */
export interface MessageFault {
  status: number;
  /** The reason phrase of the answer: it names the fault, so a peer's log says what was wrong. */
  reason: string;
  request: SipRequest | null;
}

export type ReadResult = { ok: true; msg: SipMessage } | ({ ok: false } & MessageFault);

function headerEnd(buf: Buffer): { end: number; sep: number } | null {
  const crlf = buf.indexOf('\r\n\r\n');
  if (crlf >= 0) return { end: crlf, sep: 4 };
  const lf = buf.indexOf('\n\n');
  return lf >= 0 ? { end: lf, sep: 2 } : null;
}

/** Parses the head (start line and headers); the first malformed header line is reported, the rest still read. */
function parseHead(text: string): { start: string; headers: SipHeaders; badLine: boolean } {
  const rawLines = text.split(/\r?\n/);
  const lines: string[] = [];
  for (const line of rawLines) {
    // Header folding: a line starting with whitespace continues the previous one.
    if (/^[ \t]/.test(line) && lines.length > 1) lines[lines.length - 1] += ` ${line.trim()}`;
    else lines.push(line);
  }
  const start = lines.shift() ?? '';
  const headers = new SipHeaders();
  let badLine = false;
  for (const line of lines) {
    if (line.length === 0) continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) {
      badLine = true;
      continue;
    }
    headers.add(name, line.slice(colon + 1));
  }
  return { start, headers, badLine };
}

const fault = (status: number, reason: string, request: SipRequest | null): ReadResult => ({ ok: false, status, reason, request });

/**
 * Reads one whole message and checks it against RFC 3261's grammar where a fault would change what
 * the message means (§25, §20, §8.2.2). `framed` is true for stream transports, whose framer already
 * cut the body at Content-Length; for datagrams (UDP, a WebSocket message) the body is what follows
 * the head, cut at Content-Length, and one shorter than its Content-Length is an error (§18.3).
 */
export function readMessage(buf: Buffer, framed = false): ReadResult {
  if (buf.length > MAX_MESSAGE_BYTES) return fault(513, 'Message Too Large', null);
  let offset = 0;
  while (offset < buf.length && (buf[offset] === 0x0d || buf[offset] === 0x0a)) offset++;
  const data = offset > 0 ? buf.subarray(offset) : buf;
  const he = headerEnd(data);
  const head = parseHead(data.subarray(0, he ? he.end : data.length).toString('utf8'));
  let body = he ? data.subarray(he.end + he.sep) : Buffer.alloc(0);
  const { start, headers } = head;

  if (/^SIP\//i.test(start)) {
    // Responses are never answered (RFC 3261 §18.1.2): a malformed one is only dropped.
    const status = /^SIP\/2\.0 ([1-6]\d\d) (.*)$/i.exec(start);
    if (!status || !he || head.badLine) return fault(400, 'Bad Response', null);
    for (const name of MANDATORY) if (headers.getAll(name).length === 0) return fault(400, 'Bad Response', null);
    if (!cseqValue(headers)) return fault(400, 'Bad Response', null);
    const length = contentLength(headers);
    if (length === 'bad' || length === 'conflict') return fault(400, 'Bad Response', null);
    if (length !== null) {
      if (length > body.length) return fault(400, 'Bad Response', null);
      body = body.subarray(0, length);
    }
    const msg: SipResponse = { kind: 'response', status: Number(status[1]), reason: status[2] ?? '', headers, body: Buffer.from(body) };
    return { ok: true, msg };
  }

  // Request-Line = Method SP Request-URI SP SIP-Version CRLF, single spaces (RFC 3261 §25.1).
  const line = /^(\S+) (\S+) (\S+)$/.exec(start);
  const method = line?.[1] && TOKEN.test(line[1]) ? line[1].toUpperCase() : '';
  const request: SipRequest = { kind: 'request', method, uri: line?.[2] ?? '', headers, body: Buffer.alloc(0) };
  const check = (): [number, string] | null => {
    if (!line || !method) return [400, 'Bad Request-Line'];
    if (!/^SIP\/\d+\.\d+$/i.test(line[3] ?? '')) return [400, 'Bad Request-Line'];
    if (line[3]?.toUpperCase() !== 'SIP/2.0') return [505, 'Version Not Supported'];
    if (/[<>"]/.test(request.uri)) return [400, 'Bad Request-URI'];
    // §19.1.5: headers (`?name=value`, after the host) have no meaning in a Request-URI.
    if (/^sips?:/i.test(request.uri) && request.uri.slice(request.uri.lastIndexOf('@') + 1).includes('?'))
      return [400, 'Request-URI With Headers'];
    if (head.badLine) return [400, 'Malformed Header Line'];
    if (bareControl(data.subarray(0, he ? he.end : data.length))) return [400, 'Control Character in Header'];
    for (const name of MANDATORY) if (headers.getAll(name).length === 0) return [400, `Missing ${canonicalName(name)}`];
    for (const name of SINGLE) if (headers.getAll(name).length > 1) return [400, `Duplicate ${canonicalName(name)}`];
    // callid = word ["@" word] (§25.1): visible ASCII only. It is stored with each call record.
    if (!/^[!-~]+$/.test(headers.get('call-id') ?? '')) return [400, 'Bad Call-ID'];
    const cseq = cseqValue(headers);
    if (!cseq) return [400, 'Bad CSeq'];
    if (cseq.method !== method) return [400, 'CSeq Method Does Not Match Request'];
    for (const via of headers.getAll('via')) if (!validVia(via)) return [400, 'Bad Via'];
    if (!validAddress(headers.get('from') ?? '')) return [400, 'Bad From'];
    if (!validAddress(headers.get('to') ?? '')) return [400, 'Bad To'];
    for (const contact of headers.getAll('contact')) if (contact !== '*' && !validAddress(contact)) return [400, 'Bad Contact'];
    if (!he) return [400, 'Missing Empty Line After Headers'];
    const maxForwards = headers.get('max-forwards');
    if (maxForwards !== undefined && !(/^\d+$/.test(maxForwards) && Number(maxForwards) <= 255)) return [400, 'Bad Max-Forwards'];
    const length = contentLength(headers);
    if (length === 'bad') return [400, 'Bad Content-Length'];
    if (length === 'conflict') return [400, 'Conflicting Content-Length'];
    if (length !== null && !framed) {
      if (length > body.length) return [400, 'Content-Length Larger Than Message'];
      // §18.3: octets after the body in a datagram are discarded.
      body = body.subarray(0, length);
    }
    return null;
  };
  const problem = check();
  request.body = Buffer.from(body);
  if (problem) return fault(problem[0], problem[1], request);
  return { ok: true, msg: request };
}

/** Parses one whole message; null when it is malformed (readMessage says why). */
export function parseMessage(buf: Buffer): SipMessage | null {
  const read = readMessage(buf);
  return read.ok ? read.msg : null;
}

/**
 * Whether the head holds a control octet (NUL, BEL, DEL…) outside a quoted-pair: TEXT-UTF8 and every
 * token exclude them (§25.1); only `\` may escape one inside a quoted string (RFC 4475 §3.1.1.2).
 */
function bareControl(head: Buffer): boolean {
  for (let i = 0; i < head.length; i++) {
    const octet = head[i] ?? 0;
    const control = (octet < 0x20 && octet !== 0x09 && octet !== 0x0a && octet !== 0x0d) || octet === 0x7f;
    if (control && head[i - 1] !== 0x5c) return true;
  }
  return false;
}

function cseqValue(headers: SipHeaders): { seq: number; method: string } | null {
  const values = headers.getAll('cseq');
  const m = values.length === 1 ? /^(\d{1,10})\s+(\S+)$/.exec(values[0] ?? '') : null;
  if (!m?.[1] || !m[2] || !TOKEN.test(m[2])) return null;
  const seq = Number(m[1]);
  return seq <= MAX_CSEQ ? { seq, method: m[2].toUpperCase() } : null;
}

/** The Content-Length, null when absent; copies that disagree make the body's end unknowable. */
function contentLength(headers: SipHeaders): number | null | 'bad' | 'conflict' {
  const values = headers.getAll('content-length');
  if (values.length === 0) return null;
  if (!values.every((v) => /^\d{1,10}$/.test(v))) return 'bad';
  const lengths = new Set(values.map(Number));
  return lengths.size === 1 ? Number(values[0]) : 'conflict';
}

// via-parm = sent-protocol LWS sent-by *( SEMI via-params ) (RFC 3261 §20.42); the port is 1*DIGIT,
// and one no socket can use cannot route a response either.
const VIA =
  /^SIP\s*\/\s*2\.0\s*\/\s*[A-Za-z0-9\-.!%*_+`'~]+\s+(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9\-.]+)(?:\s*:\s*(\d{1,5}))?((?:\s*;\s*[^;=\s]+(?:\s*=\s*(?:"[^"]*"|[^;"\s]+))?)*)\s*$/;

function validVia(value: string): boolean {
  const m = VIA.exec(value.trim());
  if (!m) return false;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return false;
  return paramsValid(m[3] ?? '');
}

/** `;name[=value]` parameters, a quoted value may hold ';': every name must be a token. */
function paramsValid(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '') return true;
  if (!trimmed.startsWith(';')) return false;
  const names = trimmed
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .split(';')
    .slice(1);
  return names.every((param) => TOKEN.test(param.split('=')[0]?.trim() ?? ''));
}

// An unquoted display name is tokens separated by whitespace (RFC 3261 §25.1 display-name).
const DISPLAY_TOKENS = /^[A-Za-z0-9\-.!%*_+`'~]+(?:[ \t]+[A-Za-z0-9\-.!%*_+`'~]+)*$/;

/** From, To and Contact values: name-addr or addr-spec, each URI without whitespace (§20.10). */
function validAddress(value: string): boolean {
  const trimmed = value.trim();
  const angle = /^(?:("(?:[^"\\]|\\.)*")|([^<"]*?))\s*<([^<>]*)>(.*)$/.exec(trimmed);
  let uri: string;
  let params: string;
  if (angle) {
    const display = angle[2]?.trim();
    if (display && !DISPLAY_TOKENS.test(display)) return false;
    uri = angle[3] ?? '';
    params = angle[4] ?? '';
  } else {
    if (/[<>"]/.test(trimmed)) return false;
    const semi = trimmed.indexOf(';');
    uri = (semi < 0 ? trimmed : trimmed.slice(0, semi)).trim();
    params = semi < 0 ? '' : trimmed.slice(semi);
    // An addr-spec holding ',', '?' or ';' would be ambiguous: such a URI must be in angle brackets.
    if (/[?,]/.test(uri)) return false;
  }
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(uri) && paramsValid(params);
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
  /**
   * Set once a head had no readable Content-Length (negative, not a number, two that disagree): the
   * head was handed out to be answered, but where its body ends is unknowable (RFC 4475 §3.1.2.3), so
   * the stream cannot be read further and the caller closes it.
   */
  desynced = false;

  push(chunk: Buffer): Buffer[] | 'overflow' {
    if (this.desynced) return [];
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      // Keep-alive CRLFs (RFC 5626 §3.5.1) between messages are skipped.
      let skip = 0;
      while (skip < this.buffer.length && (this.buffer[skip] === 0x0d || this.buffer[skip] === 0x0a)) skip++;
      if (skip > 0) this.buffer = this.buffer.subarray(skip);
      const he = headerEnd(this.buffer);
      if (!he) return this.buffer.length > MAX_MESSAGE_BYTES ? 'overflow' : out;
      const head = this.buffer.subarray(0, he.end).toString('latin1');
      const values = [...head.matchAll(/^(?:content-length|l)[ \t]*:[ \t]*(.*?)[ \t]*\r?$/gim)].map((m) => m[1] ?? '');
      const lengths = new Set(values.map((v) => (/^\d{1,10}$/.test(v) ? Number(v) : -1)));
      if (lengths.has(-1) || lengths.size > 1) {
        out.push(Buffer.from(this.buffer.subarray(0, he.end + he.sep)));
        this.buffer = Buffer.alloc(0);
        this.desynced = true;
        return out;
      }
      const length = values.length > 0 ? Number(values[0]) : 0;
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
  for (const name of ['From', 'To', 'Call-ID', 'CSeq']) {
    // A 400 to a request missing one of them copies only those it has.
    const value = req.headers.get(name);
    if (value !== undefined) headers.add(name, value);
  }
  const to = headers.get('to');
  if (status > 100) {
    if (to !== undefined && toTag && !tagOf(to)) headers.set('To', withTag(to, toTag));
  } else {
    const timestamp = req.headers.get('timestamp');
    if (timestamp) headers.add('Timestamp', timestamp);
  }
  return { kind: 'response', status, reason, headers, body: Buffer.alloc(0) };
}
