// Test-only: an OpenID Connect provider on 127.0.0.1 that the tests start in-process.
// Hand-rolled with jose rather than the `oidc-provider` package: that one needs its own interaction
// (login and consent) pages and adapter before a code is issued, while the tests here only need to say
// who signs in next, and to make the provider misbehave (a wrong nonce, audience or signature) to see
// Atrium refuse. It still does what a real one does: discovery, JWKS, the authorization endpoint with
// PKCE (S256 only), a token endpoint checking the client secret, the redirect URI and the verifier,
// single-use codes, and RS256-signed ID tokens.

import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claims of whoever signs in at the next authorization (sub is added when missing). */
  nextUser: Record<string, unknown>;
  /** Makes the next ID tokens wrong in one way. */
  tamper: 'nonce' | 'audience' | 'signature' | null;
  /** Codes issued and redeemed so far. */
  readonly issued: number;
  /** Requests the provider has received, of any kind. */
  readonly requests: number;
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | null;
  claims: Record<string, unknown>;
}

export async function startOidcProvider(clientId = 'atrium-test', clientSecret = 'test-client-secret'): Promise<TestOidcProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  let issued = 0;
  let issuer = '';
  const state: TestOidcProvider = {
    get issuer() {
      return issuer;
    },
    clientId,
    clientSecret,
    nextUser: { sub: 'someone', email: 'someone@example.com', email_verified: true },
    tamper: null,
    get issued() {
      return issued;
    },
    get requests() {
      return requests;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  let requests = 0;
  const server: Server = createServer(async (req, res) => {
    requests++;
    const url = new URL(req.url ?? '/', issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        authorization_response_iss_parameter_supported: true,
        scopes_supported: ['openid', 'email', 'profile'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256') {
        return json(400, { error: 'invalid_request' });
      }
      if (!q.get('scope')?.split(' ').includes('openid') || !q.get('code_challenge') || !q.get('redirect_uri')) {
        return json(400, { error: 'invalid_request' });
      }
      const code = randomBytes(16).toString('hex');
      codes.set(code, {
        clientId,
        redirectUri: q.get('redirect_uri') as string,
        challenge: q.get('code_challenge') as string,
        nonce: q.get('nonce'),
        claims: { ...state.nextUser },
      });
      const back = new URL(q.get('redirect_uri') as string);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state') as string);
      back.searchParams.set('iss', issuer);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString().split(':').map(decodeURIComponent)
        : null;
      const [id, secret] = basic ?? [form.get('client_id'), form.get('client_secret')];
      if (id !== clientId || secret !== clientSecret) return json(401, { error: 'invalid_client' });
      const code = form.get('code') ?? '';
      const pending = codes.get(code);
      codes.delete(code);
      if (!pending || form.get('grant_type') !== 'authorization_code' || form.get('redirect_uri') !== pending.redirectUri) {
        return json(400, { error: 'invalid_grant' });
      }
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) return json(400, { error: 'invalid_grant' });
      issued++;
      const idToken = await new SignJWT({
        ...pending.claims,
        ...(pending.nonce ? { nonce: state.tamper === 'nonce' ? 'not-the-nonce' : pending.nonce } : {}),
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setSubject(String(pending.claims.sub ?? 'someone'))
        .setAudience(state.tamper === 'audience' ? 'another-client' : clientId)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(state.tamper === 'signature' ? other.privateKey : privateKey);
      return json(200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    return json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
