import { parseVia, tagOf } from './address.js';
import { createResponse, cseqOf, SipHeaders, type SipMessage, type SipRequest, type SipResponse } from './message.js';
import type { SipLogger, SipTimers, TimerSet } from './server-types.js';
import { type Destination, isReliable, responseDestination } from './transport.js';

/**
 * RFC 3261 §17 transactions, with RFC 6026's Accepted state on both sides so retransmitted INVITEs
 * and 2xx responses are absorbed or passed through instead of creating new work. Retransmissions
 * run over UDP only; over TCP/WS the completed states end at once.
 */

export interface Sender {
  send(dest: Destination, msg: SipMessage): boolean;
}

export interface TransactionUser {
  /** A new request (ACK for a 2xx arrives here too, with tx null: it has no transaction). */
  onRequest(req: SipRequest, tx: ServerTransaction | null, flow: Destination): void;
  /** A CANCEL matched a pending INVITE server transaction; it has been answered 200 already. */
  onCancel(inviteTx: ServerTransaction): void;
}

export interface ClientHandlers {
  onResponse(res: SipResponse): void;
  /** Timer B or F fired (RFC 3261: the TU treats it as a 408), or the transport failed (503). */
  onFailure(status: 408 | 503): void;
}

type ServerState = 'proceeding' | 'accepted' | 'completed' | 'confirmed' | 'terminated';
type ClientState = 'calling' | 'proceeding' | 'accepted' | 'completed' | 'terminated';

export const BRANCH_COOKIE = 'z9hG4bK';

function serverKey(req: SipRequest): string {
  const method = req.method === 'ACK' ? 'INVITE' : req.method;
  const via = parseVia(req.headers.get('via') ?? '');
  const branch = via?.params.get('branch');
  const sentBy = via ? `${via.host}:${via.port ?? ''}` : '';
  if (branch?.startsWith(BRANCH_COOKIE)) return `${branch}|${sentBy}|${method}`;
  // Pre-RFC 3261 peers: match on the dialog and CSeq identifiers instead (§17.2.3, simplified).
  return `${req.headers.get('call-id')}|${tagOf(req.headers.get('from'))}|${cseqOf(req).seq}|${sentBy}|${method}`;
}

function clientKey(msg: SipMessage, method: string): string {
  const branch = parseVia(msg.headers.get('via') ?? '')?.params.get('branch') ?? '';
  return `${branch}|${method}`;
}

export class ServerTransaction {
  state: ServerState = 'proceeding';
  lastResponse: SipResponse | null = null;
  /** Set by the TU on an INVITE it forwarded, so a CANCEL can reach the branches. */
  cancelled = false;
  private stopTimers: Array<() => void> = [];

  constructor(
    readonly request: SipRequest,
    readonly flow: Destination,
    private readonly layer: TransactionLayer,
    readonly key: string,
  ) {}

  get isInvite(): boolean {
    return this.request.method === 'INVITE';
  }

  /** Answers with a fresh response built from the request. */
  reply(status: number, reason: string, extra?: (res: SipResponse) => void): SipResponse {
    const res = createResponse(this.request, status, reason, status > 100 ? this.layer.localTag : undefined);
    extra?.(res);
    this.respond(res);
    return res;
  }

  respond(res: SipResponse): void {
    if (this.state === 'terminated' || this.state === 'completed' || this.state === 'confirmed') return;
    const t = this.layer.timers;
    if (this.state === 'accepted') {
      if (res.status >= 200 && res.status < 300) this.transmit(res);
      return;
    }
    this.lastResponse = res;
    this.transmit(res);
    if (res.status < 200) return;
    const reliable = isReliable(this.flow.transport);
    if (!this.isInvite) {
      this.state = 'completed';
      // Timer J is zero over a reliable transport (§17.2.2): the transaction ends with its answer, not
      // a timer later — a new request reusing the branch from another connection must not find it.
      if (reliable) this.terminate();
      else this.layer.answered(this, res);
    } else if (res.status < 300) {
      this.state = 'accepted';
      this.later(64 * t.t1, () => this.terminate());
    } else {
      this.state = 'completed';
      if (!reliable) this.retransmitG(t.t1);
      this.later(64 * t.t1, () => this.terminate());
    }
  }

  /**
   * The work behind this transaction failed: 500 if nothing final went out yet, and the
   * transaction ends; other transactions and the process go on.
   */
  fail(): void {
    if (this.state === 'proceeding') this.reply(500, 'Server Internal Error');
    if (this.state === 'proceeding') this.terminate();
  }

  private retransmitG(interval: number): void {
    this.later(interval, () => {
      if (this.state !== 'completed' || !this.lastResponse) return;
      this.transmit(this.lastResponse);
      this.retransmitG(Math.min(interval * 2, this.layer.timers.t2));
    });
  }

  /** A retransmitted request: send the last response again (§17.2.1, §17.2.2). */
  retransmitted(req: SipRequest): void {
    if (req.method === 'ACK') {
      if (this.state === 'completed') {
        this.state = 'confirmed';
        this.clearTimers();
        const reliable = isReliable(this.flow.transport);
        this.later(reliable ? 0 : this.layer.timers.t4, () => this.terminate());
      }
      return;
    }
    if (this.lastResponse && this.state !== 'accepted') this.transmit(this.lastResponse);
  }

  private transmit(res: SipResponse): void {
    this.layer.sender.send(responseDestination(res.headers.get('via'), this.flow), res);
  }

  private later(ms: number, fn: () => void): void {
    this.stopTimers.push(this.layer.timerSet.after(ms, fn));
  }

  private clearTimers(): void {
    for (const stop of this.stopTimers) stop();
    this.stopTimers = [];
  }

  terminate(): void {
    this.state = 'terminated';
    this.clearTimers();
    this.layer.forgetServer(this);
  }
}

export class ClientTransaction {
  state: ClientState = 'calling';
  private cancelPending = false;
  private cancelSent = false;
  private cancelReason: string | null = null;
  private stopTimers: Array<() => void> = [];

  constructor(
    readonly request: SipRequest,
    readonly dest: Destination,
    private readonly layer: TransactionLayer,
    private readonly handlers: ClientHandlers,
    readonly key: string,
  ) {}

  get isInvite(): boolean {
    return this.request.method === 'INVITE';
  }

  start(): void {
    if (!this.layer.sender.send(this.dest, this.request)) {
      this.state = 'terminated';
      this.layer.forgetClient(this);
      queueMicrotask(() => this.handlers.onFailure(503));
      return;
    }
    const t = this.layer.timers;
    const reliable = isReliable(this.dest.transport);
    if (!reliable) this.retransmit(t.t1);
    this.later(64 * t.t1, () => {
      if (this.state === 'calling' || (!this.isInvite && this.state === 'proceeding')) {
        this.terminate();
        this.handlers.onFailure(408);
      }
    });
  }

  private retransmit(interval: number): void {
    this.later(interval, () => {
      if (this.state !== 'calling' && (this.isInvite || this.state !== 'proceeding')) return;
      this.layer.sender.send(this.dest, this.request);
      const t = this.layer.timers;
      // Timer A doubles without bound; Timer E is capped at T2, and is T2 once proceeding.
      const next = this.isInvite ? interval * 2 : this.state === 'proceeding' ? t.t2 : Math.min(interval * 2, t.t2);
      this.retransmit(next);
    });
  }

  receive(res: SipResponse): void {
    const t = this.layer.timers;
    const reliable = isReliable(this.dest.transport);
    if (res.status < 200) {
      if (this.state === 'calling') {
        this.state = 'proceeding';
        if (this.cancelPending) this.sendCancel();
      }
      if (this.state === 'proceeding') this.handlers.onResponse(res);
      return;
    }
    if (this.isInvite && res.status < 300) {
      if (this.state === 'calling' || this.state === 'proceeding') {
        this.state = 'accepted';
        this.clearTimers();
        this.later(64 * t.t1, () => this.terminate());
      }
      // Accepted state: every 2xx (other forks, retransmissions) goes up to the proxy core.
      if (this.state === 'accepted') this.handlers.onResponse(res);
      return;
    }
    if (this.isInvite) {
      if (this.state === 'completed') {
        this.layer.sender.send(this.dest, this.ackFor(res));
        return;
      }
      if (this.state !== 'calling' && this.state !== 'proceeding') return;
      this.state = 'completed';
      this.clearTimers();
      this.layer.sender.send(this.dest, this.ackFor(res));
      this.later(reliable ? 0 : 64 * t.t1, () => this.terminate());
      this.handlers.onResponse(res);
      return;
    }
    if (this.state !== 'calling' && this.state !== 'proceeding') return;
    this.state = 'completed';
    this.clearTimers();
    this.later(reliable ? 0 : t.t4, () => this.terminate());
    this.handlers.onResponse(res);
  }

  /** §17.1.1.3: the ACK for a non-2xx final response belongs to the INVITE transaction. */
  private ackFor(res: SipResponse): SipRequest {
    const headers = new SipHeaders();
    headers.add('Via', this.request.headers.get('via') ?? '');
    for (const route of this.request.headers.getAll('route')) headers.add('Route', route);
    headers.add('Max-Forwards', '70');
    headers.add('From', this.request.headers.get('from') ?? '');
    headers.add('To', res.headers.get('to') ?? '');
    headers.add('Call-ID', this.request.headers.get('call-id') ?? '');
    headers.add('CSeq', `${cseqOf(this.request).seq} ACK`);
    return { kind: 'request', method: 'ACK', uri: this.request.uri, headers, body: Buffer.alloc(0) };
  }

  /**
   * CANCELs a pending INVITE (§9.1): not before a provisional response arrived, nothing once a
   * final one did.
   */
  cancel(reason?: string): void {
    if (!this.isInvite) return;
    if (this.state === 'calling') this.cancelPending = true;
    if (reason) this.cancelReason = reason;
    if (this.state === 'proceeding') this.sendCancel();
  }

  private sendCancel(): void {
    if (this.cancelSent) return;
    this.cancelSent = true;
    const headers = new SipHeaders();
    headers.add('Via', this.request.headers.get('via') ?? '');
    for (const route of this.request.headers.getAll('route')) headers.add('Route', route);
    headers.add('Max-Forwards', '70');
    for (const name of ['From', 'To', 'Call-ID']) headers.add(name, this.request.headers.get(name) ?? '');
    headers.add('CSeq', `${cseqOf(this.request).seq} CANCEL`);
    if (this.cancelReason) headers.add('Reason', this.cancelReason);
    const cancel: SipRequest = { kind: 'request', method: 'CANCEL', uri: this.request.uri, headers, body: Buffer.alloc(0) };
    this.layer.sendRequest(cancel, this.dest, { onResponse: () => undefined, onFailure: () => undefined });
    // §9.1: a callee that never answers the CANCEL with a final response ends the INVITE anyway.
    this.later(64 * this.layer.timers.t1, () => {
      if (this.state !== 'proceeding') return;
      this.terminate();
      this.handlers.onFailure(408);
    });
  }

  private later(ms: number, fn: () => void): void {
    this.stopTimers.push(this.layer.timerSet.after(ms, fn));
  }

  private clearTimers(): void {
    for (const stop of this.stopTimers) stop();
    this.stopTimers = [];
  }

  terminate(): void {
    this.state = 'terminated';
    this.clearTimers();
    this.layer.forgetClient(this);
  }
}

export class TransactionLayer {
  private readonly servers = new Map<string, ServerTransaction>();
  private readonly clients = new Map<string, ClientTransaction>();
  /**
   * Completed non-INVITE server transactions over UDP, for Timer J (64*T1, §17.2.2): a retransmitted
   * request gets the final response again. Only that response and where it went are kept, in the
   * order they completed (the order they expire), not the transaction with its request and a timer:
   * at 600 REGISTER/s some 38,000 are held at once, and whole they were most of the heap the
   * collector kept marking (its pauses held the loop for tens of milliseconds).
   */
  private readonly completedNonInvite = new Map<string, { res: SipResponse; flow: Destination; until: number }>();

  constructor(
    readonly sender: Sender,
    readonly timerSet: TimerSet,
    readonly timers: SipTimers,
    readonly localTag: string,
    private readonly tu: TransactionUser,
    private readonly log: SipLogger,
  ) {}

  receive(msg: SipMessage, flow: Destination): void {
    if (msg.kind === 'response') {
      const tx = this.clients.get(clientKey(msg, cseqOf(msg).method));
      if (tx)
        this.guard(
          () => tx.receive(msg),
          () => tx.terminate(),
        );
      else this.log.debug({ status: msg.status, callId: msg.headers.get('call-id') }, 'sip stray response dropped');
      return;
    }
    const key = serverKey(msg);
    const existing = this.servers.get(key);
    if (existing) {
      if (msg.method === 'ACK' && existing.state === 'accepted') this.guard(() => this.tu.onRequest(msg, null, flow));
      else existing.retransmitted(msg);
      return;
    }
    const answered = this.completedNonInvite.get(key);
    if (answered) {
      if (answered.until > Date.now()) {
        this.sender.send(responseDestination(answered.res.headers.get('via'), answered.flow), answered.res);
        return;
      }
      this.completedNonInvite.delete(key);
    }
    if (msg.method === 'ACK') {
      this.guard(() => this.tu.onRequest(msg, null, flow));
      return;
    }
    const tx = new ServerTransaction(msg, flow, this, key);
    this.servers.set(key, tx);
    if (msg.method === 'CANCEL') {
      const invite = this.servers.get(key.replace(/\|CANCEL$/, '|INVITE'));
      if (invite?.state !== 'proceeding') {
        tx.reply(481, 'Call/Transaction Does Not Exist');
        return;
      }
      tx.reply(200, 'OK');
      invite.cancelled = true;
      this.guard(
        () => this.tu.onCancel(invite),
        () => invite.fail(),
      );
      return;
    }
    this.guard(
      () => this.tu.onRequest(msg, tx, flow),
      () => tx.fail(),
    );
  }

  /** Runs the TU's work for one transaction; a throw ends that transaction (`onError`), never the process. */
  private guard(work: () => void, onError?: () => void): void {
    try {
      work();
    } catch (err) {
      this.log.error({ err }, 'sip transaction failed');
      try {
        onError?.();
      } catch (again) {
        this.log.error({ err: again }, 'sip transaction could not be ended cleanly');
      }
    }
  }

  sendRequest(req: SipRequest, dest: Destination, handlers: ClientHandlers): ClientTransaction {
    const tx = new ClientTransaction(req, dest, this, handlers, clientKey(req, req.method));
    this.clients.set(tx.key, tx);
    tx.start();
    return tx;
  }

  /** A non-INVITE server transaction over UDP answered finally: it is forgotten, its response kept for Timer J. */
  answered(tx: ServerTransaction, res: SipResponse): void {
    const now = Date.now();
    for (const [key, entry] of this.completedNonInvite) {
      if (entry.until > now) break;
      this.completedNonInvite.delete(key);
    }
    this.forgetServer(tx);
    this.completedNonInvite.delete(tx.key);
    this.completedNonInvite.set(tx.key, { res, flow: tx.flow, until: now + 64 * this.timers.t1 });
  }

  forgetServer(tx: ServerTransaction): void {
    if (this.servers.get(tx.key) === tx) this.servers.delete(tx.key);
  }

  forgetClient(tx: ClientTransaction): void {
    if (this.clients.get(tx.key) === tx) this.clients.delete(tx.key);
  }

  get size(): { servers: number; clients: number } {
    return { servers: this.servers.size, clients: this.clients.size };
  }

  close(): void {
    this.servers.clear();
    this.clients.clear();
    this.completedNonInvite.clear();
  }
}
