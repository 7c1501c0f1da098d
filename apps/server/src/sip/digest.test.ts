import { describe, expect, it } from 'vitest';
import { digestResponse, NonceIssuer, parseAuthHeader, sameRequestUri, verifyDigest } from './digest.js';

/** Digest checks of the server side (RFC 3261 §22, RFC 7616): nonce binding, nonce counts, the digest uri. */

const credentials = (nonce: string, nc: string, uri = 'sip:201@atrium.test', password = 'pw') => {
  const response = digestResponse({ username: '101', realm: 'r', password, method: 'INVITE', uri, nonce, qop: 'auth', nc, cnonce: 'c' });
  const parsed = parseAuthHeader(
    `Digest username="101", realm="r", nonce="${nonce}", uri="${uri}", qop=auth, nc=${nc}, cnonce="c", response="${response}"`,
  );
  if (!parsed) throw new Error('unparsed');
  return parsed;
};

describe('NonceIssuer', () => {
  it('checks a nonce only for what it was issued for', () => {
    const nonces = new NonceIssuer(60_000);
    const nonce = nonces.issue('INVITE\n101\nudp 127.0.0.1 5062');
    expect(nonces.check(nonce, 'INVITE\n101\nudp 127.0.0.1 5062')).toBe('valid');
    expect(nonces.check(nonce, 'INVITE\n101\nudp 127.0.0.1 5063')).toBe('invalid');
    expect(nonces.check(nonce, 'REGISTER\n101\nudp 127.0.0.1 5062')).toBe('invalid');
    expect(nonces.check(`${nonce}.x`, 'INVITE\n101\nudp 127.0.0.1 5062')).toBe('invalid');
  });

  it('issues a nonce of its own for each challenge, even in the same millisecond to the same sender', () => {
    const nonces = new NonceIssuer(60_000);
    const now = Date.now();
    const [first, second] = [
      nonces.issue('REGISTER\n201\nudp 127.0.0.1 5062', now),
      nonces.issue('REGISTER\n201\nudp 127.0.0.1 5062', now),
    ];
    expect(first).not.toBe(second);
    expect(nonces.use(first, 1, now)).toBe(true);
    // The second challenge's first answer is no replay of the first's.
    expect(nonces.use(second, 1, now)).toBe(true);
    expect(nonces.check(second, 'REGISTER\n201\nudp 127.0.0.1 5062', now)).toBe('valid');
  });

  it('takes each nonce count once and only upwards', () => {
    const nonces = new NonceIssuer(60_000);
    const nonce = nonces.issue();
    expect(nonces.use(nonce, 1)).toBe(true);
    expect(nonces.use(nonce, 1)).toBe(false);
    expect(nonces.use(nonce, 3)).toBe(true);
    expect(nonces.use(nonce, 2)).toBe(false);
  });

  it('when full, forgets the oldest nonces and holds every nonce as old stale, so none can be replayed', () => {
    const nonces = new NonceIssuer(60_000, 2);
    const now = Date.now();
    const [a, b, c] = [nonces.issue('', now - 3000), nonces.issue('', now - 2000), nonces.issue('', now - 1000)];
    expect(nonces.use(a, 1, now)).toBe(true);
    expect(nonces.use(b, 1, now)).toBe(true);
    expect(nonces.use(c, 1, now)).toBe(true);
    expect(nonces.check(a, '', now)).toBe('stale');
    expect(nonces.check(c, '', now)).toBe('valid');
  });
});

describe('verifyDigest', () => {
  const nonces = new NonceIssuer(60_000);
  const opts = (requestUri: string, binding = 'b') => ({ realm: 'r', method: 'INVITE', password: 'pw', nonces, binding, requestUri });

  it('refuses a response for another Request-URI, a replayed count and a nonce of another binding', () => {
    const nonce = nonces.issue('b');
    expect(verifyDigest(credentials(nonce, '00000001'), opts('sip:202@atrium.test'))).toBe('uri');
    expect(verifyDigest(credentials(nonce, '00000001'), opts('sip:201@atrium.test'))).toBe('ok');
    expect(verifyDigest(credentials(nonce, '00000001'), opts('sip:201@atrium.test'))).toBe('stale');
    expect(verifyDigest(credentials(nonce, '00000002'), opts('sip:201@atrium.test', 'other'))).toBe('stale');
    expect(verifyDigest(credentials(nonce, '00000002'), opts('sip:201@atrium.test'))).toBe('ok');
    expect(verifyDigest(credentials(nonce, '00000003', 'sip:201@atrium.test', 'nope'), opts('sip:201@atrium.test'))).toBe('wrong');
    expect(verifyDigest(credentials(nonce, 'zz'), opts('sip:201@atrium.test'))).toBe('malformed');
  });
});

describe('sameRequestUri', () => {
  it('matches scheme, user, host and port, and the user-less form SIPp writes', () => {
    expect(sameRequestUri('sip:201@h:5060', 'sip:201@H')).toBe(true);
    expect(sameRequestUri('sip:201@h;transport=udp', 'sip:201@h')).toBe(true);
    expect(sameRequestUri('sip:h:5070', 'sip:201@h:5070')).toBe(true);
    expect(sameRequestUri('sip:202@h', 'sip:201@h')).toBe(false);
    expect(sameRequestUri('sip:201@h:5070', 'sip:201@h')).toBe(false);
    expect(sameRequestUri('sips:201@h', 'sip:201@h')).toBe(false);
    expect(sameRequestUri('sip:h', 'sip:201@other')).toBe(false);
    expect(sameRequestUri('nonsense', 'sip:201@h')).toBe(false);
  });
});
