import { tagOf } from './address.js';
import { type Call, type CalleeDialog, type DialogLeg, dtmfDigit, sdpHolds } from './call.js';
import { mediaKindOf } from './media-relay.js';
import { cseqOf, SipHeaders, type SipRequest, type SipResponse } from './message.js';
import { type ProxyDeps, relayResponse, type SipProxy } from './proxy.js';
import type { ClientTransaction, ServerTransaction } from './transaction.js';

/**
 * Relays in-dialog requests (ACK for 2xx, BYE, INFO, re-INVITE, UPDATE…) between the two legs of
 * an answered call. Requests reach us because we Record-Route; the leg they go to is found from
 * the dialog (Call-ID and tags), not from the Request-URI, because a WebSocket phone's Contact
 * (a `.invalid` host) can only be reached over the connection it registered on.
 */
export class DialogRelay {
  private readonly forwardedInvites = new Map<ServerTransaction, ClientTransaction>();
  /** The numbers holding each call (their re-INVITE's offer was sendonly or inactive). */
  private readonly holding = new WeakMap<Call, Set<string>>();

  constructor(
    private readonly d: ProxyDeps,
    private readonly proxy: SipProxy,
  ) {}

  onRequest(req: SipRequest, tx: ServerTransaction | null): void {
    const call = this.proxy.calls.get(req.headers.get('call-id') ?? '');
    const fromTag = tagOf(req.headers.get('from'));
    const toTag = tagOf(req.headers.get('to')) ?? '';
    const toCallee = !!call && fromTag === call.callerTag;
    const dialog = call ? call.dialogs.get(toCallee ? toTag : (fromTag ?? '')) : undefined;
    if (!call || !dialog) {
      tx?.reply(481, 'Call/Transaction Does Not Exist');
      return;
    }
    const maxForwards = Number(req.headers.get('max-forwards') ?? 70);
    if (maxForwards <= 0) {
      tx?.reply(483, 'Too Many Hops');
      return;
    }
    const sender: DialogLeg = toCallee ? call.callerLeg : dialog.leg;
    const dest = toCallee ? dialog.leg.flow : call.callerLeg.flow;
    const offset = toCallee ? dialog.branch.cseqOffset : 0;
    const { seq, method } = cseqOf(req);
    if (method !== 'ACK') sender.cseq = Math.max(sender.cseq, seq);

    const headers = req.headers.clone();
    headers.set('Max-Forwards', String(maxForwards - 1));
    headers.prepend('Via', this.d.local.via(dest.transport, 'x', dest.address));
    if (offset !== 0) headers.set('CSeq', `${seq + offset} ${method}`);
    const forwarded: SipRequest = { ...req, headers };

    if (req.method === 'INFO') {
      const digit = dtmfDigit(req.headers.get('content-type'), req.body);
      if (digit) this.proxy.emit({ type: 'dtmf', callId: call.callId, from: sender.number, digit, at: Date.now() });
    }
    if (req.method === 'BYE' && call.answer === dialog) this.proxy.end(call, 200, 'answered');
    if (req.method === 'ACK' && toCallee && !dialog.confirmed) {
      dialog.confirmed = true;
      for (const resolve of dialog.onConfirmed.splice(0)) resolve();
    }
    if (req.method === 'ACK' && this.d.media?.carries(req)) {
      // The answer to a late offer (an INVITE without SDP, its offer in the 2xx): from the ACK's
      // sender, to the offer of the ACK's recipient (its To tag).
      const answer = {
        callId: call.callId,
        fromTag: toTag,
        toTag: fromTag ?? '',
        from: mediaKindOf(sender.flow.transport, req.body),
        to: mediaKindOf(dest.transport),
      };
      void this.d.media
        .rewrite('answer', forwarded, answer, this.proxy.advertised(dest.address))
        .then((answered) => this.d.layer.sender.send(dest, answered));
      return;
    }
    if (req.method === 'ACK' || !tx) {
      this.d.layer.sender.send(dest, forwarded);
      return;
    }
    // A re-INVITE's offer says whether its sender holds the call (JsSIP's hold()/unhold()); it
    // counts once the other side accepts it.
    const holds = req.method === 'INVITE' ? sdpHolds(req.headers.get('content-type'), req.body) : null;
    // A re-INVITE's or UPDATE's offer and its answer go through the media relay, when there is one.
    const media = this.d.media;
    const offers = !!media?.carries(req) && (req.method === 'INVITE' || req.method === 'UPDATE');
    const sdp = {
      callId: call.callId,
      fromTag: fromTag ?? '',
      toTag,
      from: mediaKindOf(sender.flow.transport, req.body),
      to: mediaKindOf(dest.transport),
    };
    const lateOffer = req.method === 'INVITE' && !!media && !media.carries(req);
    const respond = (res: SipResponse) => {
      if (lateOffer && media?.carries(res) && res.status >= 200 && res.status < 300) {
        // An offerless re-INVITE: the 2xx carries the offer (by the recipient's tag), the ACK the answer.
        const offer = {
          callId: call.callId,
          fromTag: toTag,
          toTag: fromTag ?? '',
          from: mediaKindOf(dest.transport, res.body),
          to: sdp.from,
        };
        void media.rewrite('offer', res, offer, this.proxy.advertised(sender.flow.address)).then((offered) => tx.respond(offered));
        return;
      }
      if (!offers || !media?.carries(res) || res.status >= 300) {
        tx.respond(res);
        return;
      }
      void media
        .rewrite('answer', res, { ...sdp, from: sdp.to, to: sdp.from }, this.proxy.advertised(sender.flow.address))
        .then((answered) => tx.respond(answered));
    };
    const send = (request: SipRequest) => {
      const clientTx = this.d.layer.sendRequest(request, dest, {
        onResponse: (res) => {
          if (holds !== null && res.status >= 200 && res.status < 300) this.noteHold(call, sender.number, holds);
          respond(relayResponse(res, offset));
          if (res.status >= 200) this.forwardedInvites.delete(tx);
        },
        onFailure: (status) => {
          tx.reply(status, status === 408 ? 'Request Timeout' : 'Service Unavailable');
          this.forwardedInvites.delete(tx);
        },
      });
      if (req.method === 'INVITE') this.forwardedInvites.set(tx, clientTx);
    };
    if (offers && media) void media.rewrite('offer', forwarded, sdp, this.proxy.advertised(dest.address)).then(send);
    else send(forwarded);
  }

  /** Whether `number` holds the call (its last accepted re-INVITE offer was sendonly or inactive). */
  holds(call: Call, number: string): boolean {
    return this.holding.get(call)?.has(number) ?? false;
  }

  private noteHold(call: Call, by: string, holds: boolean): void {
    const holding = this.holding.get(call) ?? new Set<string>();
    this.holding.set(call, holding);
    if (holds === holding.has(by) || call.state !== 'answered') return;
    if (holds) holding.add(by);
    else holding.delete(by);
    this.proxy.emit({ type: holds ? 'held' : 'resumed', callId: call.callId, by, at: Date.now() });
  }

  /** A CANCEL for a re-INVITE we relayed; false when the INVITE is not one of ours. */
  onCancel(tx: ServerTransaction): boolean {
    const clientTx = this.forwardedInvites.get(tx);
    if (!clientTx) return false;
    clientTx.cancel();
    return true;
  }

  /** The console's "stop call": BYE to both sides of an answered call, CANCEL while ringing. */
  async endCall(callId: string): Promise<boolean> {
    const call = this.proxy.calls.get(callId);
    if (!call || call.state === 'ended') return false;
    const answer = call.answer;
    if (!answer) {
      this.proxy.cancelRinging(call);
      return true;
    }
    this.proxy.end(call, 200, 'answered');
    if (!answer.confirmed) {
      await new Promise<void>((resolve) => {
        answer.onConfirmed.push(resolve);
        this.d.timerSet.after(64 * this.d.timers.t1, resolve);
      });
    }
    await Promise.all([this.bye(call, answer, 'callee'), this.bye(call, answer, 'caller')]);
    return true;
  }

  /** A 2xx that arrived after the caller had gone: ACK it and hang it up at once. */
  hangUpLate(call: Call, dialog: CalleeDialog): void {
    const ack = this.inDialogRequest(call, dialog, 'callee', 'ACK');
    this.d.layer.sender.send(dialog.leg.flow, ack);
    void this.bye(call, dialog, 'callee');
  }

  private bye(call: Call, dialog: CalleeDialog, side: 'caller' | 'callee'): Promise<void> {
    const request = this.inDialogRequest(call, dialog, side, 'BYE');
    const dest = side === 'caller' ? call.callerLeg.flow : dialog.leg.flow;
    return new Promise((resolve) => {
      this.d.layer.sendRequest(request, dest, {
        onResponse: (res) => {
          if (res.status >= 200) resolve();
        },
        onFailure: () => resolve(),
      });
    });
  }

  /** A request we originate inside the dialog, as the other side would have sent it. */
  private inDialogRequest(call: Call, dialog: CalleeDialog, side: 'caller' | 'callee', method: 'BYE' | 'ACK'): SipRequest {
    const target: DialogLeg = side === 'caller' ? call.callerLeg : dialog.leg;
    const from = side === 'caller' ? dialog.leg.self : dialog.leg.peer;
    const to = side === 'caller' ? call.callerLeg.self : dialog.leg.self;
    let seq: number;
    if (method === 'ACK') seq = cseqOf(call.invite).seq + dialog.branch.cseqOffset;
    else if (side === 'caller') seq = ++dialog.leg.cseq;
    else seq = ++call.callerLeg.cseq + dialog.branch.cseqOffset;
    const headers = new SipHeaders();
    headers.add('Via', this.d.local.via(target.flow.transport, 'x', target.flow.address));
    for (const route of target.routeSet) headers.add('Route', route);
    headers.add('Max-Forwards', '70');
    headers.add('From', from);
    headers.add('To', to);
    headers.add('Call-ID', call.callId);
    headers.add('CSeq', `${seq} ${method}`);
    if (method === 'BYE') headers.add('Reason', 'SIP;cause=200;text="Call ended by the server"');
    return { kind: 'request', method, uri: target.contact, headers, body: Buffer.alloc(0) };
  }
}
