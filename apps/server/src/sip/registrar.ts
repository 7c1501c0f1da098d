import { formatNameAddr, parseNameAddr, parseUri, userOf } from './address.js';
import type { DigestAuthenticator } from './auth.js';
import type { SipRequest } from './message.js';
import type { SipLogger, TimerSet } from './server-types.js';
import type { ServerTransaction } from './transaction.js';
import { type Destination, flowKey } from './transport.js';
import type { SipCallObserver, SipContact } from './types.js';

/**
 * RFC 3261 §10 registrar. Bindings live in memory only: a restart makes every phone register
 * again within its expiry, and the database never sees a contact. The address of record is the
 * To user (an Atrium number); the domain is not checked since Atrium serves one realm.
 */

export interface RegistrarOptions {
  /** Expiry when the client asks none, seconds. */
  defaultExpires?: number;
  /** Shorter requests get 423 Interval Too Brief (RFC 3261 §10.3 step 7). */
  minExpires?: number;
  /** Longer requests are cut to this. */
  maxExpires?: number;
  /**
   * Contacts registered with an earlier run of this server (a SIP worker started again after it
   * died), bound as they were and without observer events: the phones behind them never knew.
   */
  contacts?: SipContact[];
}

export class Registrar {
  private readonly bindings = new Map<string, SipContact[]>();
  private readonly defaultExpires: number;
  private readonly minExpires: number;
  private readonly maxExpires: number;

  constructor(
    private readonly auth: DigestAuthenticator,
    private readonly observer: SipCallObserver,
    private readonly log: SipLogger,
    timerSet: TimerSet,
    opts: RegistrarOptions = {},
  ) {
    this.defaultExpires = opts.defaultExpires ?? 3600;
    this.minExpires = opts.minExpires ?? 30;
    this.maxExpires = opts.maxExpires ?? 7200;
    for (const c of opts.contacts ?? []) this.bindings.set(c.number, [...(this.bindings.get(c.number) ?? []), c]);
    timerSet.every(1000, () => this.sweep(Date.now()));
  }

  /** Live contacts of a number, newest registration first. */
  /** How many contacts are registered now, over every number (the service status shows it). */
  registrationCount(now = Date.now()): number {
    let n = 0;
    for (const list of this.bindings.values()) n += list.filter((c) => c.expiresAt > now).length;
    return n;
  }

  contacts(number: string, now = Date.now()): SipContact[] {
    return (this.bindings.get(number) ?? []).filter((c) => c.expiresAt > now);
  }

  /** The contact whose Contact URI is this request-URI (an in-dialog target we registered). */
  findByUri(uri: string): SipContact | null {
    for (const list of this.bindings.values()) {
      const found = list.find((c) => c.uri === uri);
      if (found) return found;
    }
    return null;
  }

  async handle(req: SipRequest, tx: ServerTransaction, flow: Destination): Promise<void> {
    const number = userOf(req.headers.get('to'));
    const authenticated = await this.auth.authenticate(req, tx, 'www', number);
    if (!authenticated) return;
    const headerExpires = req.headers.get('expires');
    const globalExpires = headerExpires !== undefined && /^\d+$/.test(headerExpires.trim()) ? Number(headerExpires) : null;
    const contactValues = req.headers.getAll('contact');
    const now = Date.now();
    if (contactValues.length === 1 && contactValues[0] === '*') {
      if (globalExpires !== 0) {
        tx.reply(400, 'Invalid Request');
        return;
      }
      for (const c of this.contacts(authenticated, now)) this.observer.onRegistration?.(c, 'removed');
      this.bindings.delete(authenticated);
      this.replyBindings(tx, authenticated, now);
      return;
    }
    const changes: Array<{ uri: string; expires: number }> = [];
    for (const value of contactValues) {
      const addr = value === '*' ? null : parseNameAddr(value);
      if (!addr || !parseUri(addr.uri)) {
        tx.reply(400, 'Bad Contact');
        return;
      }
      const param = addr.params.get('expires');
      const asked = param && /^\d+$/.test(param) ? Number(param) : (globalExpires ?? this.defaultExpires);
      if (asked > 0 && asked < this.minExpires) {
        tx.reply(423, 'Interval Too Brief', (res) => res.headers.add('Min-Expires', String(this.minExpires)));
        return;
      }
      changes.push({ uri: addr.uri, expires: Math.min(asked, this.maxExpires) });
    }
    const list = this.contacts(authenticated, now);
    const userAgent = req.headers.get('user-agent') ?? null;
    for (const change of changes) {
      const index = list.findIndex((c) => c.uri === change.uri);
      const existing = index >= 0 ? list[index] : undefined;
      if (change.expires === 0) {
        if (existing) {
          list.splice(index, 1);
          this.observer.onRegistration?.(existing, 'removed');
        }
        continue;
      }
      const contact: SipContact = {
        number: authenticated,
        uri: change.uri,
        transport: flow.transport,
        source: { address: flow.address, port: flow.port },
        userAgent,
        expiresAt: now + change.expires * 1000,
      };
      if (existing) list.splice(index, 1);
      list.unshift(contact);
      this.observer.onRegistration?.(contact, existing ? 'refreshed' : 'added');
    }
    if (list.length > 0) this.bindings.set(authenticated, list);
    else this.bindings.delete(authenticated);
    this.replyBindings(tx, authenticated, now);
  }

  private replyBindings(tx: ServerTransaction, number: string, now: number): void {
    tx.reply(200, 'OK', (res) => {
      for (const c of this.contacts(number, now)) {
        const expires = Math.max(1, Math.round((c.expiresAt - now) / 1000));
        res.headers.add('Contact', formatNameAddr({ displayName: null, uri: c.uri, params: new Map([['expires', String(expires)]]) }));
      }
      res.headers.add('Date', new Date(now).toUTCString());
    });
  }

  /** A closed TCP/WS connection cannot carry requests any more: its contacts go with it. */
  flowClosed(flow: Destination): void {
    const key = flowKey(flow);
    for (const [number, list] of this.bindings) {
      const kept = list.filter((c) => flowKey({ transport: c.transport, ...c.source }) !== key);
      for (const c of list) if (!kept.includes(c)) this.observer.onRegistration?.(c, 'removed');
      if (kept.length > 0) this.bindings.set(number, kept);
      else this.bindings.delete(number);
    }
  }

  sweep(now: number): void {
    for (const [number, list] of this.bindings) {
      const kept = list.filter((c) => c.expiresAt > now);
      if (kept.length === list.length) continue;
      for (const c of list) if (c.expiresAt <= now) this.observer.onRegistration?.(c, 'expired');
      if (kept.length > 0) this.bindings.set(number, kept);
      else this.bindings.delete(number);
      this.log.debug({ number, expired: list.length - kept.length }, 'sip contacts expired');
    }
  }
}
