import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * HTTP Digest for SIP (RFC 2617, RFC 3261 §22, MD5 with qop=auth as RFC 7616 keeps it). Nonces are
 * stateless: a timestamp signed with a per-server key, so any nonce we issued can be checked
 * without storing it, and an old one is recognised as stale rather than forged.
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

export class NonceIssuer {
  private readonly key = randomBytes(32);

  constructor(private readonly ttlMs: number) {}

  issue(now = Date.now()): string {
    const stamp = now.toString(36);
    return `${stamp}.${this.sign(stamp)}`;
  }

  check(nonce: string, now = Date.now()): NonceState {
    const [stamp, signature] = nonce.split('.');
    if (!stamp || !signature) return 'invalid';
    const expected = Buffer.from(this.sign(stamp));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    const issuedAt = Number.parseInt(stamp, 36);
    return now - issuedAt > this.ttlMs ? 'stale' : 'valid';
  }

  private sign(stamp: string): string {
    return createHmac('sha256', this.key).update(stamp).digest('base64url').slice(0, 22);
  }
}

export function challengeHeader(realm: string, nonce: string, stale: boolean): string {
  return `Digest realm="${realm}", nonce="${nonce}", algorithm=MD5, qop="auth"${stale ? ', stale=true' : ''}`;
}

export type VerifyResult = 'ok' | 'stale' | 'wrong' | 'malformed';

/** Checks credentials (from Authorization or Proxy-Authorization) against the secret. */
export function verifyDigest(
  credentials: DigestParams,
  opts: { realm: string; method: string; password: string; nonces: NonceIssuer },
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
  if (qop && (qop !== 'auth' || !p.get('nc') || !p.get('cnonce'))) return 'malformed';
  const expected = digestResponse({
    username,
    realm: opts.realm,
    password: opts.password,
    method: opts.method,
    uri,
    nonce,
    qop,
    nc: p.get('nc'),
    cnonce: p.get('cnonce'),
  });
  const a = Buffer.from(expected);
  const b = Buffer.from(response.toLowerCase());
  if (a.length !== b.length || !timingSafeEqual(a, b)) return 'wrong';
  const state = opts.nonces.check(nonce);
  if (state === 'invalid') return 'wrong';
  return state === 'stale' ? 'stale' : 'ok';
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
