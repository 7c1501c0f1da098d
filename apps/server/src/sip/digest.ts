import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseUri } from './address.js';

/**
 * HTTP Digest for SIP (RFC 2617, RFC 3261 §22, MD5 with qop=auth as RFC 7616 keeps it). A nonce is
 * a timestamp signed with a per-server key together with what it was issued for, so any nonce we
 * issued can be checked without storing it; only the nonce counts of nonces in use are kept, for
 * as long as a nonce lives, so that a captured header cannot be sent again.
 */

export interface DigestParams {
  scheme: string;
  params: Map<string, string>;
}

export function parseAuthHeader(value: string): DigestParams | null {
  const m = /^\s*(\S+)\s+(.*)$/s.exec(value);
  if (!m?.[1] || m[2] === undefined) return null;
  const params = new Map<string, string>();
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/g;
  for (const part of m[2].matchAll(re)) {
    const name = part[1];
    if (name) params.set(name.toLowerCase(), (part[2] ?? part[3] ?? '').replace(/\\(.)/g, '$1'));
  }
  return { scheme: m[1], params };
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

export interface DigestInput {
  username: string;
  realm: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  qop?: string;
  nc?: string;
  cnonce?: string;
}

export function digestResponse(input: DigestInput): string {
  const ha1 = md5(`${input.username}:${input.realm}:${input.password}`);
  const ha2 = md5(`${input.method}:${input.uri}`);
  if (input.qop) return md5(`${ha1}:${input.nonce}:${input.nc}:${input.cnonce}:${input.qop}:${ha2}`);
  return md5(`${ha1}:${input.nonce}:${ha2}`);
}

export type NonceState = 'valid' | 'stale' | 'invalid';

/**
 * Issues nonces and remembers how far each was used. A nonce is `stamp.signature`, the signature
 * an HMAC over its issue time and what it was issued for (`binding`: the method, the claimed number
 * and the flow the challenge went to), so it is worth nothing for another request kind, number or
 * sender, and after `ttlMs` it is stale. The highest nonce count (nc) accepted for each nonce is
 * kept until the nonce expires: a repeated or lower nc is a replay. A client may use one nonce for
 * several requests (a registration refresh) by counting nc up, as RFC 7616 §3.4 intends.
 */
export class NonceIssuer {
  private readonly key = randomBytes(32);
  /** nonce → highest nc accepted, in order of first use. */
  private readonly counts = new Map<string, { nc: number; issuedAt: number }>();
  /** Nonces issued at or before this time were forgotten to bound memory: they count as stale. */
  private forgottenUntil = -1;

  constructor(
    private readonly ttlMs: number,
    private readonly maxTracked = 100_000,
  ) {}

  /**
   * A nonce of its own for every challenge: two issued in the same millisecond for the same sender
   * (a phone registering and at once unregistering) must not share a count, or the second's
   * first use would look like a replay of the first's.
   */
  issue(binding = '', now = Date.now()): string {
    const stamp = now.toString(36);
    const salt = randomBytes(6).toString('base64url');
    return `${stamp}.${salt}.${this.sign(`${stamp}.${salt}`, binding)}`;
  }

  check(nonce: string, binding = '', now = Date.now()): NonceState {
    const [stamp, salt, signature, extra] = nonce.split('.');
    if (!stamp || !salt || !signature || extra !== undefined) return 'invalid';
    const expected = Buffer.from(this.sign(`${stamp}.${salt}`, binding));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    const issuedAt = Number.parseInt(stamp, 36);
    return now - issuedAt > this.ttlMs || issuedAt <= this.forgottenUntil ? 'stale' : 'valid';
  }

  /**
   * Records one use of a valid nonce with nonce count `nc`; false when that count (or a higher
   * one) was used already. A nonce answered without qop has no count: it is good for one request.
   */
  use(nonce: string, nc: number, now = Date.now()): boolean {
    const seen = this.counts.get(nonce);
    if (seen) {
      if (nc <= seen.nc) return false;
      seen.nc = nc;
      return true;
    }
    if (this.counts.size >= this.maxTracked) this.forget(now);
    this.counts.set(nonce, { nc, issuedAt: Number.parseInt(nonce.split('.')[0] ?? '0', 36) });
    return true;
  }

  /** Drops expired entries; when still full, the oldest go and every nonce as old turns stale. */
  private forget(now: number): void {
    for (const [nonce, entry] of this.counts) if (now - entry.issuedAt > this.ttlMs) this.counts.delete(nonce);
    for (const [nonce, entry] of this.counts) {
      if (this.counts.size < this.maxTracked) break;
      this.forgottenUntil = Math.max(this.forgottenUntil, entry.issuedAt);
      this.counts.delete(nonce);
    }
  }

  private sign(stamp: string, binding: string): string {
    return createHmac('sha256', this.key).update(`${stamp}\n${binding}`).digest('base64url').slice(0, 22);
  }
}

export function challengeHeader(realm: string, nonce: string, stale: boolean): string {
  return `Digest realm="${realm}", nonce="${nonce}", algorithm=MD5, qop="auth"${stale ? ', stale=true' : ''}`;
}

/**
 * - ok: the response is right and the nonce fresh, issued for this binding, its nc not used before;
 * - stale: the response is right but the nonce is expired, forged, issued for another request or
 *   sender, or its nc was used already: a client that knows the password answers a new challenge;
 * - wrong: the response does not match the password (or a decoy password: no secret at all);
 * - uri: the response is right for another Request-URI than this request's;
 * - malformed: parameters missing or not what we offered.
 */
export type VerifyResult = 'ok' | 'stale' | 'wrong' | 'uri' | 'malformed';

/** Checks credentials (from Authorization or Proxy-Authorization) against the secret. */
export function verifyDigest(
  credentials: DigestParams,
  opts: {
    realm: string;
    method: string;
    password: string;
    nonces: NonceIssuer;
    /** What the nonce must have been issued for (NonceIssuer.issue's binding). */
    binding?: string;
    /** The request's own Request-URI: the digest `uri` must name it (RFC 3261 §22.4, RFC 7616 §3.4.6). */
    requestUri?: string;
  },
): VerifyResult {
  const p = credentials.params;
  const username = p.get('username');
  const nonce = p.get('nonce');
  const uri = p.get('uri');
  const response = p.get('response');
  if (credentials.scheme.toLowerCase() !== 'digest' || !username || !nonce || !uri || !response) return 'malformed';
  if (p.get('realm') !== opts.realm) return 'malformed';
  const algorithm = p.get('algorithm');
  if (algorithm && algorithm.toUpperCase() !== 'MD5') return 'malformed';
  const qop = p.get('qop');
  const ncText = p.get('nc');
  if (qop && (qop !== 'auth' || !ncText || !/^[0-9a-fA-F]{8}$/.test(ncText) || !p.get('cnonce'))) return 'malformed';
  const expected = digestResponse({
    username,
    realm: opts.realm,
    password: opts.password,
    method: opts.method,
    uri,
    nonce,
    qop,
    nc: ncText,
    cnonce: p.get('cnonce'),
  });
  const a = Buffer.from(expected);
  const b = Buffer.from(response.toLowerCase());
  if (a.length !== b.length || !timingSafeEqual(a, b)) return 'wrong';
  if (opts.requestUri !== undefined && !sameRequestUri(uri, opts.requestUri)) return 'uri';
  if (opts.nonces.check(nonce, opts.binding) !== 'valid') return 'stale';
  const nc = qop && ncText ? Number.parseInt(ncText, 16) : 1;
  return nc > 0 && opts.nonces.use(nonce, nc) ? 'ok' : 'stale';
}

/**
 * Whether the digest `uri` names the Request-URI: the same text, or the same scheme, user, host
 * and port (clients differ in how they write parameters, never in whom they call). A `uri` with
 * no user at the Request-URI's host and port is taken too: SIPp's [authentication] writes
 * `sip:remote_ip:remote_port` unless told otherwise. Such a header names no callee, but it is as
 * bound as any other to its nonce, flow and nonce count, so it cannot be sent again.
 */
export function sameRequestUri(digestUri: string, requestUri: string): boolean {
  if (digestUri === requestUri) return true;
  const a = parseUri(digestUri);
  const b = parseUri(requestUri);
  if (!a || !b) return false;
  const port = (u: NonNullable<typeof a>) => u.port ?? (u.scheme === 'sips' ? 5061 : 5060);
  return a.scheme === b.scheme && (a.user === b.user || a.user === null) && a.host === b.host && port(a) === port(b);
}

/** Answers a challenge from a trunk (we are the client there). */
export function authorize(challenge: DigestParams, creds: { username: string; password: string }, method: string, uri: string): string {
  const realm = challenge.params.get('realm') ?? '';
  const nonce = challenge.params.get('nonce') ?? '';
  const qopOffered = (challenge.params.get('qop') ?? '').split(',').map((q) => q.trim());
  const qop = qopOffered.includes('auth') ? 'auth' : undefined;
  const cnonce = randomBytes(8).toString('hex');
  const nc = '00000001';
  const response = digestResponse({ username: creds.username, realm, password: creds.password, method, uri, nonce, qop, nc, cnonce });
  const opaque = challenge.params.get('opaque');
  const parts = [
    `username="${creds.username}"`,
    `realm="${realm}"`,
    `nonce="${nonce}"`,
    `uri="${uri}"`,
    `response="${response}"`,
    'algorithm=MD5',
  ];
  if (qop) parts.push(`qop=${qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
  if (opaque !== undefined) parts.push(`opaque="${opaque}"`);
  return `Digest ${parts.join(', ')}`;
}
