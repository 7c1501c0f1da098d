import { randomBytes } from 'node:crypto';
import { challengeHeader, type NonceIssuer, parseAuthHeader, verifyDigest } from './digest.js';
import type { SipRequest } from './message.js';
import type { ServerTransaction } from './transaction.js';
import { flowKey } from './transport.js';
import type { SipDirectory } from './types.js';

/**
 * Digest authentication of REGISTER (401, WWW-Authenticate) and INVITE (407, Proxy-Authenticate)
 * against the directory. Status choices, documented because clients show them:
 * - every number is challenged alike, known or not: a number without credentials (unknown,
 *   inactive or reserved) fails its digest like a wrong password, so answers do not tell which
 *   numbers exist;
 * - 403 when the digest user differs from the number in To (REGISTER) or From (INVITE), the digest
 *   response is wrong, or it was computed for another Request-URI: a fresh 401 would only make the
 *   client retry the same password;
 * - 401/407 with stale=true when the response is right but its nonce cannot serve this request:
 *   expired, issued for another method, number or sender (flow), or its nonce count used already.
 *   A phone that knows the password answers the new nonce; a captured header goes no further;
 * - 403 to every REGISTER from an address the directory refuses (IP blocking), and each refused
 *   REGISTER reported to it; when that check cannot be answered, the REGISTER is challenged as usual.
 */
export class DigestAuthenticator {
  /** What a number without credentials is checked against, so that its answer takes as long as a real one. */
  private readonly decoy = randomBytes(18).toString('base64url');

  constructor(
    private readonly realm: string,
    private readonly directory: SipDirectory,
    private readonly nonces: NonceIssuer,
  ) {}

  /**
   * Whether the directory refuses REGISTERs from this address. The check guards against password
   * guessing, and in the SIP worker it is a call to the main thread with a deadline: when it cannot
   * be answered (the main thread busy past it), the REGISTER goes on to its digest like any other
   * rather than failing a phone that knows its password; a wrong one is still reported, so the
   * address is still counted towards its ban.
   */
  private async refuses(address: string): Promise<boolean> {
    try {
      return (await this.directory.refusesRegistration?.(address)) ?? false;
    } catch {
      return false;
    }
  }

  /** Resolves to the authenticated number, or null once it has answered the request itself. */
  async authenticate(req: SipRequest, tx: ServerTransaction, kind: 'www' | 'proxy', number: string | null): Promise<string | null> {
    const status = kind === 'www' ? 401 : 407;
    const challengeName = kind === 'www' ? 'WWW-Authenticate' : 'Proxy-Authenticate';
    // A nonce serves only the kind of request, the number and the flow it was issued to.
    const binding = `${req.method}\n${number ?? ''}\n${flowKey(tx.flow)}`;
    const challenge = (stale: boolean) =>
      tx.reply(status, kind === 'www' ? 'Unauthorized' : 'Proxy Authentication Required', (res) =>
        res.headers.add(challengeName, challengeHeader(this.realm, this.nonces.issue(binding), stale)),
      );
    const registering = kind === 'www';
    if (registering && (await this.refuses(tx.flow.address))) {
      tx.reply(403, 'Forbidden');
      return null;
    }
    // A REGISTER refused for its credentials is reported (IP blocking counts them) before it is answered.
    const refuse = async () => {
      if (registering) await this.directory.registrationFailed?.(tx.flow.address, number);
      tx.reply(403, 'Forbidden');
      return null;
    };
    if (!number) return refuse();
    const secret = await this.directory.credentials(number);
    const headerName = kind === 'www' ? 'authorization' : 'proxy-authorization';
    const credentials = req.headers
      .getAll(headerName)
      .map(parseAuthHeader)
      .find((c) => c?.params.get('realm') === this.realm);
    if (!credentials) {
      challenge(false);
      return null;
    }
    if (credentials.params.get('username') !== number) return refuse();
    const result = verifyDigest(credentials, {
      realm: this.realm,
      method: req.method,
      password: secret?.password ?? this.decoy,
      nonces: this.nonces,
      binding,
      requestUri: req.uri,
    });
    if (result === 'ok' && secret) return number;
    if (result === 'stale' && secret) {
      challenge(true);
      return null;
    }
    return refuse();
  }
}
