import { challengeHeader, type NonceIssuer, parseAuthHeader, verifyDigest } from './digest.js';
import type { SipRequest } from './message.js';
import type { ServerTransaction } from './transaction.js';
import type { SipDirectory } from './types.js';

/**
 * Digest authentication of REGISTER (401, WWW-Authenticate) and INVITE (407, Proxy-Authenticate)
 * against the directory. Status choices, documented because clients show them:
 * - 404 when the claimed number has no credentials (unknown, inactive or reserved);
 * - 403 when the digest user differs from the number in To (REGISTER) or From (INVITE), or the
 *   digest response is wrong: a fresh 401 would only make the client retry the same password;
 * - 401/407 with stale=true when the response is right but the nonce expired;
 * - 403 to every REGISTER from an address the directory refuses (IP blocking), and each refused
 *   REGISTER reported to it.
 */
export class DigestAuthenticator {
  constructor(
    private readonly realm: string,
    private readonly directory: SipDirectory,
    private readonly nonces: NonceIssuer,
  ) {}

  /** Resolves to the authenticated number, or null once it has answered the request itself. */
  async authenticate(req: SipRequest, tx: ServerTransaction, kind: 'www' | 'proxy', number: string | null): Promise<string | null> {
    const status = kind === 'www' ? 401 : 407;
    const challengeName = kind === 'www' ? 'WWW-Authenticate' : 'Proxy-Authenticate';
    const challenge = (stale: boolean) =>
      tx.reply(status, kind === 'www' ? 'Unauthorized' : 'Proxy Authentication Required', (res) =>
        res.headers.add(challengeName, challengeHeader(this.realm, this.nonces.issue(), stale)),
      );
    const registering = kind === 'www';
    if (registering && this.directory.refusesRegistration?.(tx.flow.address)) {
      tx.reply(403, 'Forbidden');
      return null;
    }
    // A REGISTER refused for its credentials is reported (IP blocking counts them) before it is answered.
    const refuse = async (code: 403 | 404) => {
      if (registering) await this.directory.registrationFailed?.(tx.flow.address, number);
      tx.reply(code, code === 403 ? 'Forbidden' : 'Not Found');
      return null;
    };
    if (!number) return refuse(403);
    const secret = await this.directory.credentials(number);
    if (!secret) return refuse(404);
    const headerName = kind === 'www' ? 'authorization' : 'proxy-authorization';
    const credentials = req.headers
      .getAll(headerName)
      .map(parseAuthHeader)
      .find((c) => c?.params.get('realm') === this.realm);
    if (!credentials) {
      challenge(false);
      return null;
    }
    if (credentials.params.get('username') !== number) return refuse(403);
    const result = verifyDigest(credentials, { realm: this.realm, method: req.method, password: secret.password, nonces: this.nonces });
    if (result === 'ok') return number;
    if (result === 'stale') {
      challenge(true);
      return null;
    }
    return refuse(403);
  }
}
