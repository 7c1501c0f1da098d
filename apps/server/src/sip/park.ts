import { randomBytes } from 'node:crypto';
import { baseNumber, parseNameAddr, tagOf, userOf, withTag } from './address.js';
import { type Call, dtmfDigit, sdpHolds } from './call.js';
import type { DialogRelay } from './dialog.js';
import { mediaKindOf } from './media-relay.js';
import { createResponse, cseqOf, SipHeaders, type SipRequest, type SipResponse } from './message.js';
import type { ProxyDeps, SipProxy } from './proxy.js';
import type { ClientTransaction, ServerTransaction } from './transaction.js';
import { type Destination, flowKey, isReliable, responseDestination } from './transport.js';
import { SIP_HEADERS } from './types.js';

/**
 * Parked calls (docs/decisions.md "Awaiting calls"): when the party holding an answered call loses
 * its flow (a concierge's browser reloads), the server takes over that party's side of the dialog
 * as a user agent, so the other leg (the panel's) stays up: its in-dialog requests are answered here,
 * hold kept. A new INVITE carrying X-Resume-Call from the number that held the call resumes it: the
 * server re-INVITEs the panel with the new offer and from then bridges the two dialogs
 * (back-to-back). Not resumed within the park timeout, the call is ended with a BYE.
 */

/** A parked call not resumed within this time is ended. */
export const PARK_TIMEOUT_MS = 10 * 60 * 1000;

/** One dialog this server is a user agent in: the panel's (taken over) or the resuming browser's. */
interface UaLeg {
  callId: string;
  number: string;
  flow: Destination;
  /** Remote target. */
  contact: string;
  routeSet: string[];
  /** Our From/To value (with our tag) and the other side's. */
  local: string;
  remote: string;
  /** Our last CSeq, and the highest the other side sent. */
  cseq: number;
  remoteCseq: number;
}

interface Parked {
  call: Call;
  /** The number that held the call and alone may resume it. */
  holder: string;
  panel: UaLeg;
  /** The resuming browser's dialog; null while parked. */
  browser: UaLeg | null;
  /** The browser side holds (true while parked). */
  holding: boolean;
  stopTimer: (() => void) | null;
  sdpVersion: number;
}

const OK_METHODS = new Set(['INVITE', 'UPDATE', 'INFO', 'OPTIONS']);

/**
 * An SDP answer that keeps the call on hold: every offered stream accepted with its first format,
 * inactive, on the discard port (RFC 3264 §6: as many m= lines as the offer, in its order).
 */
export function holdSdp(offer: string, host: string, version: number): Buffer {
  const out = ['v=0', `o=atrium 1 ${version} IN IP4 ${host}`, 's=-', `c=IN IP4 ${host}`, 't=0 0'];
  const lines = offer.split(/\r?\n/);
  for (const line of lines) {
    const m = /^m=(\S+) (\d+)(?:\/\d+)? (\S+) (\S+)/.exec(line);
    if (!m) continue;
    const [, kind, port, proto, format] = m;
    if (port === '0') {
      out.push(`m=${kind} 0 ${proto} ${format}`);
      continue;
    }
    out.push(`m=${kind} 9 ${proto} ${format}`);
    const rtpmap = lines.find((l) => l.startsWith(`a=rtpmap:${format} `));
    if (rtpmap) out.push(rtpmap);
    out.push('a=inactive');
  }
  if (out.length === 5) out.push('m=audio 9 RTP/AVP 0', 'a=rtpmap:0 PCMU/8000', 'a=inactive');
  return Buffer.from(`${out.join('\r\n')}\r\n`);
}

export class CallParking {
  /** By the Call-ID of either dialog. */
  private readonly byCallId = new Map<string, Parked>();
  /** INVITEs we are carrying into the other dialog, for their CANCEL (null: not sent yet). */
  private readonly invites = new Map<ServerTransaction, ClientTransaction | null>();
  /** Our 2xx answers to INVITEs over UDP still waiting for their ACK, by `Call-ID CSeq`: each stops its resending. */
  private readonly unacked = new Map<string, () => void>();

  constructor(
    private readonly d: ProxyDeps,
    private readonly proxy: SipProxy,
    private readonly relay: DialogRelay,
    private readonly timeoutMs = PARK_TIMEOUT_MS,
  ) {}

  /** A flow closed: calls held by a party on it are parked; a bridged browser leg on it goes. */
  flowClosed(flow: Destination): void {
    const key = flowKey(flow);
    for (const p of new Set(this.byCallId.values())) {
      if (!p.browser || flowKey(p.browser.flow) !== key) continue;
      if (p.holding) this.detachBrowser(p);
      else this.hangUp(p);
    }
    for (const call of this.proxy.calls.values()) {
      const answer = call.answer;
      if (call.state !== 'answered' || !answer || this.byCallId.has(call.callId)) continue;
      if (flowKey(answer.leg.flow) === key && this.relay.holds(call, answer.leg.number)) this.park(call, 'callee');
      else if (flowKey(call.callerLeg.flow) === key && this.relay.holds(call, call.callerLeg.number)) this.park(call, 'caller');
    }
  }

  /** Takes over the holder's side (`side`) of the call's dialog. */
  private park(call: Call, side: 'caller' | 'callee'): void {
    const answer = call.answer;
    if (!answer) return;
    const { leg, branch } = answer;
    const panel: UaLeg =
      side === 'callee'
        ? {
            callId: call.callId,
            number: call.callerLeg.number,
            flow: call.callerLeg.flow,
            contact: call.callerLeg.contact,
            routeSet: call.callerLeg.routeSet,
            local: leg.self,
            remote: call.callerLeg.self,
            cseq: leg.cseq,
            remoteCseq: call.callerLeg.cseq,
          }
        : {
            callId: call.callId,
            number: leg.number,
            flow: leg.flow,
            contact: leg.contact,
            routeSet: leg.routeSet,
            local: leg.peer,
            remote: leg.self,
            cseq: call.callerLeg.cseq + branch.cseqOffset,
            remoteCseq: leg.cseq,
          };
    const holder = side === 'callee' ? leg.number : call.callerLeg.number;
    const p: Parked = { call, holder, panel, browser: null, holding: true, stopTimer: null, sdpVersion: 1 };
    this.byCallId.set(call.callId, p);
    // The relay's session had the browser's ICE and DTLS: a resume starts a fresh one.
    this.d.media?.delete(call.callId);
    this.startTimer(p);
    this.d.log.info({ callId: call.callId, holder }, 'sip call parked');
  }

  private startTimer(p: Parked): void {
    p.stopTimer?.();
    p.stopTimer = this.d.timerSet.after(this.timeoutMs, () => {
      if (p.browser || this.byCallId.get(p.call.callId) !== p) return;
      this.d.log.info({ callId: p.call.callId }, 'sip parked call not resumed: ended');
      this.hangUp(p);
    });
  }

  private detachBrowser(p: Parked): void {
    if (p.browser) this.byCallId.delete(p.browser.callId);
    p.browser = null;
    this.d.media?.delete(p.call.callId);
    this.startTimer(p);
  }

  /** BYE to every leg still there; the call ends. */
  private hangUp(p: Parked): void {
    for (const leg of [p.panel, p.browser]) if (leg) this.send(leg, this.request(leg, 'BYE'));
    this.finish(p);
  }

  private finish(p: Parked): void {
    p.stopTimer?.();
    p.stopTimer = null;
    this.byCallId.delete(p.panel.callId);
    if (p.browser) this.byCallId.delete(p.browser.callId);
    this.proxy.end(p.call, 200, 'answered');
  }

  /** The console's "stop call" for a parked or bridged call; null when the call is not one. */
  endCall(callId: string): Promise<boolean> | null {
    const p = this.byCallId.get(callId);
    if (!p || p.panel.callId !== callId) return null;
    this.hangUp(p);
    return Promise.resolve(true);
  }

  /** An in-dialog request; false when its dialog is not one of ours. */
  onRequest(req: SipRequest, tx: ServerTransaction | null): boolean {
    const callId = req.headers.get('call-id') ?? '';
    const p = this.byCallId.get(callId);
    if (!p) return false;
    const fromTag = tagOf(req.headers.get('from'));
    const leg = [p.panel, p.browser].find((l) => l?.callId === callId && tagOf(l.remote) === fromTag);
    const { seq, method } = cseqOf(req);
    if (method === 'ACK') this.unacked.get(`${callId} ${seq}`)?.();
    if (!leg || method === 'ACK' || !tx) {
      // ACKs end our own 2xx transactions; the SDP of a late-offer ACK has nowhere to go.
      if (method !== 'ACK') tx?.reply(481, 'Call/Transaction Does Not Exist');
      return true;
    }
    leg.remoteCseq = Math.max(leg.remoteCseq, seq);
    const other = leg === p.panel ? p.browser : p.panel;
    if (method === 'BYE') {
      tx.reply(200, 'OK');
      if (other) this.send(other, this.request(other, 'BYE'));
      this.finish(p);
      return true;
    }
    if (method === 'INFO' && leg === p.browser) {
      const digit = dtmfDigit(req.headers.get('content-type'), req.body);
      if (digit) this.proxy.emit({ type: 'dtmf', callId: p.call.callId, from: p.holder, digit, at: Date.now() });
    }
    if (other && method !== 'OPTIONS') this.bridge(p, leg, other, req, tx);
    else this.answerLocally(p, leg, req, tx);
    return true;
  }

  /** While parked (or an OPTIONS): 200, an SDP offer answered on hold. */
  private answerLocally(p: Parked, leg: UaLeg, req: SipRequest, tx: ServerTransaction): void {
    if (!OK_METHODS.has(req.method)) {
      tx.reply(405, 'Method Not Allowed', (res) => res.headers.add('Allow', 'INVITE, ACK, BYE, OPTIONS, INFO, UPDATE'));
      return;
    }
    // In-dialog: the request's To already carries our tag.
    const res = createResponse(req, 200, 'OK', tagOf(leg.local) ?? undefined);
    if (req.method === 'OPTIONS') res.headers.add('Allow', 'INVITE, ACK, BYE, OPTIONS, INFO, UPDATE');
    if (req.method === 'INVITE') res.headers.add('Contact', this.contact(leg.flow));
    const offered = req.body.length > 0 && /application\/sdp/i.test(req.headers.get('content-type') ?? '');
    if (req.method === 'INVITE' || (req.method === 'UPDATE' && offered)) {
      res.headers.add('Content-Type', 'application/sdp');
      res.body = holdSdp(offered ? req.body.toString('utf8') : '', this.d.local.hostFor(leg.flow.address), ++p.sdpVersion);
    }
    this.answer(tx, res);
  }

  /**
   * Answers as the user agent of a dialog. A 2xx to an INVITE over UDP is sent again (T1, doubling up
   * to T2) until its ACK arrives or 64·T1 passed (RFC 3261 §13.3.1.4): that is the UAS core's job,
   * not the transaction's, and a panel whose 200 was lost would otherwise give the call up.
   */
  private answer(tx: ServerTransaction, res: SipResponse): void {
    tx.respond(res);
    const { seq, method } = cseqOf(res);
    if (method !== 'INVITE' || res.status < 200 || res.status >= 300 || isReliable(tx.flow.transport)) return;
    const key = `${res.headers.get('call-id') ?? ''} ${seq}`;
    this.unacked.get(key)?.();
    const { t1, t2 } = this.d.layer.timers;
    const until = Date.now() + 64 * t1;
    let cancel = () => {};
    const stop = () => {
      cancel();
      if (this.unacked.get(key) === stop) this.unacked.delete(key);
    };
    const again = (interval: number) => {
      cancel = this.d.timerSet.after(interval, () => {
        if (Date.now() >= until) return stop();
        this.d.layer.sender.send(responseDestination(res.headers.get('via'), tx.flow), res);
        again(Math.min(interval * 2, t2));
      });
    };
    again(t1);
    this.unacked.set(key, stop);
  }

  /**
   * A request of one leg sent on in the other dialog as our own (new CSeq, our tags); its final
   * response answers the original. Offers and answers go through the media relay; a 2xx to an
   * INVITE is ACKed here. `toTag` is set for the resuming INVITE (it opens the browser's dialog).
   */
  private bridge(
    p: Parked,
    from: UaLeg,
    to: UaLeg,
    req: SipRequest,
    tx: ServerTransaction,
    toTag?: string,
    done?: (ok: boolean) => void,
  ): void {
    const { method } = req;
    const media = this.d.media;
    const offers = !!media?.carries(req) && (method === 'INVITE' || method === 'UPDATE');
    const holds = from === p.browser && method === 'INVITE' ? sdpHolds(req.headers.get('content-type'), req.body) : null;
    const fromPanel = from === p.panel;
    const sdp = {
      callId: p.call.callId,
      fromTag: tagOf(fromPanel ? p.panel.remote : p.panel.local) ?? '',
      toTag: tagOf(fromPanel ? p.panel.local : p.panel.remote) ?? '',
      from: mediaKindOf(from.flow.transport, req.body),
      to: mediaKindOf(to.flow.transport),
    };
    const out = this.request(to, method, req.body, req.headers.get('content-type'));
    // The other side answers when it will: a 100 stops the sender's retransmissions meanwhile (a resume sent its own).
    if (method === 'INVITE' && toTag === undefined) tx.reply(100, 'Trying');
    if (method === 'INVITE') this.invites.set(tx, null);
    let reheld = false;
    const go = (request: SipRequest) => {
      // Cancelled while the media relay rewrote the offer: nothing goes out.
      if (method === 'INVITE' && !this.invites.has(tx)) {
        done?.(false);
        return;
      }
      const clientTx = this.d.layer.sendRequest(request, to.flow, {
        onResponse: (res) => {
          if (res.status < 200) return;
          this.invites.delete(tx);
          // Every 2xx to our INVITE is ACKed; one that crossed a CANCEL counts as failed for its sender.
          if (method === 'INVITE' && res.status < 300)
            this.send(to, this.request(to, 'ACK', Buffer.alloc(0), undefined, cseqOf(request).seq));
          const ok = res.status < 300 && tx.state === 'proceeding';
          // A resume cancelled after all, though the panel took its offer (its 2xx crossed the
          // CANCEL): the panel talks to nobody, so it is put on hold again.
          if (method === 'INVITE' && res.status < 300 && !ok && toTag !== undefined && !reheld) {
            reheld = true;
            this.rehold(p, res);
          }
          if (ok && holds !== null) this.noteHold(p, holds);
          const answer = createResponse(req, res.status, res.reason, toTag);
          if (method === 'INVITE' && ok) answer.headers.add('Contact', this.contact(from.flow));
          const type = res.headers.get('content-type');
          if (type && res.body.length > 0) {
            answer.headers.add('Content-Type', type);
            answer.body = res.body;
          }
          done?.(ok);
          if (offers && ok && media?.carries(answer)) {
            void media
              .rewrite('answer', answer, { ...sdp, from: sdp.to, to: sdp.from }, this.proxy.advertised(from.flow.address))
              .then((a) => this.answer(tx, a));
          } else this.answer(tx, answer);
        },
        onFailure: (status) => {
          this.invites.delete(tx);
          done?.(false);
          tx.reply(status, status === 408 ? 'Request Timeout' : 'Service Unavailable');
        },
      });
      if (this.invites.has(tx)) this.invites.set(tx, clientTx);
    };
    if (offers && media) void media.rewrite('offer', out, sdp, this.proxy.advertised(to.flow.address)).then(go);
    else go(out);
  }

  /** A re-INVITE of ours to the panel offering every stream of its last answer inactive; its 2xx ACKed. */
  private rehold(p: Parked, last: SipResponse): void {
    const leg = p.panel;
    const offer = holdSdp(last.body.toString('utf8'), this.d.local.hostFor(leg.flow.address), ++p.sdpVersion);
    const invite = this.request(leg, 'INVITE', offer, 'application/sdp');
    this.d.layer.sendRequest(invite, leg.flow, {
      onResponse: (res) => {
        if (res.status >= 200 && res.status < 300) this.send(leg, this.request(leg, 'ACK', Buffer.alloc(0), undefined, cseqOf(invite).seq));
      },
      onFailure: () => undefined,
    });
  }

  /** A CANCEL for an INVITE we carry (a resume, a bridged re-INVITE); false when it is not one of ours. */
  onCancel(tx: ServerTransaction): boolean {
    if (!this.invites.has(tx)) return false;
    const clientTx = this.invites.get(tx);
    this.invites.delete(tx);
    tx.reply(487, 'Request Terminated');
    clientTx?.cancel();
    return true;
  }

  private noteHold(p: Parked, holds: boolean): void {
    if (holds === p.holding) return;
    p.holding = holds;
    this.proxy.emit({ type: holds ? 'held' : 'resumed', callId: p.call.callId, by: p.holder, at: Date.now() });
  }

  /** Which parked call an X-Resume-Call value names: its speech id, its Call-ID, or the record id made of both. */
  private find(id: string): Parked | undefined {
    for (const p of this.byCallId.values()) {
      const { speechId, callId } = p.call;
      if (id === speechId || id === callId || id === `${speechId}:${callId}`) return p;
    }
    return undefined;
  }

  /** An out-of-dialog INVITE with X-Resume-Call: the number that held the call takes it back. */
  async resume(req: SipRequest, tx: ServerTransaction, flow: Destination): Promise<void> {
    tx.reply(100, 'Trying');
    const number = await this.d.auth.authenticate(req, tx, 'proxy', userOf(req.headers.get('from')));
    if (!number || tx.state !== 'proceeding') return;
    const p = this.find(req.headers.get(SIP_HEADERS.resume)?.trim() ?? '');
    if (!p || p.browser) {
      tx.reply(404, 'Not Found');
      return;
    }
    if (baseNumber(number) !== baseNumber(p.holder)) {
      tx.reply(403, 'Forbidden');
      return;
    }
    if (!/application\/sdp/i.test(req.headers.get('content-type') ?? '') || req.body.length === 0) {
      tx.reply(488, 'Not Acceptable Here');
      return;
    }
    const tag = randomBytes(6).toString('hex');
    const browser: UaLeg = {
      callId: req.headers.get('call-id') ?? '',
      number,
      flow,
      contact: parseNameAddr(req.headers.get('contact') ?? '')?.uri ?? req.uri,
      routeSet: req.headers.getAll('record-route'),
      local: withTag(req.headers.get('to') ?? '', tag),
      remote: req.headers.get('from') ?? '',
      cseq: 0,
      remoteCseq: cseqOf(req).seq,
    };
    p.browser = browser;
    p.stopTimer?.();
    p.stopTimer = null;
    this.byCallId.set(browser.callId, p);
    this.d.log.info({ callId: p.call.callId, by: number }, 'sip parked call resumed');
    this.bridge(p, browser, p.panel, req, tx, tag, (ok) => {
      if (!ok) {
        if (p.browser === browser) this.detachBrowser(p);
        return;
      }
      this.noteHold(p, sdpHolds(req.headers.get('content-type'), req.body) ?? false);
    });
  }

  /** A request we send in a leg's dialog (RFC 3261 §12.2.1.1). ACK repeats its INVITE's CSeq. */
  private request(leg: UaLeg, method: string, body: Buffer = Buffer.alloc(0), contentType?: string, ackOf?: number): SipRequest {
    const headers = new SipHeaders();
    headers.add('Via', this.d.local.via(leg.flow.transport, 'x', leg.flow.address));
    for (const route of leg.routeSet) headers.add('Route', route);
    headers.add('Max-Forwards', '70');
    headers.add('From', leg.local);
    headers.add('To', leg.remote);
    headers.add('Call-ID', leg.callId);
    headers.add('CSeq', `${ackOf ?? ++leg.cseq} ${method}`);
    if (method === 'INVITE') headers.add('Contact', this.contact(leg.flow));
    if (method === 'BYE') headers.add('Reason', 'SIP;cause=200;text="Call ended by the server"');
    if (body.length > 0) headers.add('Content-Type', contentType ?? 'application/sdp');
    return { kind: 'request', method, uri: leg.contact, headers, body };
  }

  private send(leg: UaLeg, request: SipRequest): void {
    if (request.method === 'ACK') this.d.layer.sender.send(leg.flow, request);
    else this.d.layer.sendRequest(request, leg.flow, { onResponse: () => undefined, onFailure: () => undefined });
  }

  /** Our Contact in a dialog with a peer on `flow`: this server, over that transport. */
  private contact(flow: Destination): string {
    return this.d.local.recordRoute(flow.transport, flow.address).replace(';lr>', '>');
  }
}
