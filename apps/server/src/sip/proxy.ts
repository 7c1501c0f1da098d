import { createHash } from 'node:crypto';
import { formatNameAddr, formatUri, parseNameAddr, parseUri, tagOf, userOf } from './address.js';
import type { DigestAuthenticator } from './auth.js';
import { type Branch, bestResponse, type Call, type CalleeDialog, type DialogLeg, outcomeOf, type SipActiveCall } from './call.js';
import { authorize, parseAuthHeader } from './digest.js';
import { type LocalAddress, resolveUri } from './local-address.js';
import { mediaKindOf, type SdpRelay } from './media-relay.js';
import { cseqOf, type SipRequest, type SipResponse } from './message.js';
import type { Registrar } from './registrar.js';
import type { SipLogger, SipTimers, TimerSet } from './server-types.js';
import type { ServerTransaction, TransactionLayer } from './transaction.js';
import type { Destination } from './transport.js';
import { SIP_HEADERS, type SipCallEvent, type SipCallObserver, type SipContact, type SipDirectory, type SipStage } from './types.js';

/**
 * The stateful forking proxy (RFC 3261 §16) for out-of-dialog INVITEs: authenticates the caller,
 * asks the directory for the route, rings the stages and relays the answer. In-dialog requests
 * are relayed by DialogRelay (dialog.ts), which shares the calls map.
 */

export interface ProxyDeps {
  layer: TransactionLayer;
  local: LocalAddress;
  registrar: Registrar;
  auth: DigestAuthenticator;
  directory: SipDirectory;
  observer: SipCallObserver;
  log: SipLogger;
  timerSet: TimerSet;
  timers: SipTimers;
  hasFlow(dest: Destination): boolean;
  /** rtpengine, when configured: every SDP offer and answer goes through it. */
  media: SdpRelay | null;
}

export function loopHash(req: SipRequest): string {
  const parts = [req.uri, tagOf(req.headers.get('to')), tagOf(req.headers.get('from')), req.headers.get('call-id'), cseqOf(req).seq];
  return createHash('md5').update(parts.join('|')).digest('hex').slice(0, 10);
}

/** A response on its way back: our Via comes off and a trunk branch's CSeq shift is undone. */
export function relayResponse(res: SipResponse, cseqOffset: number): SipResponse {
  const headers = res.headers.clone();
  headers.shift('via');
  if (cseqOffset !== 0) {
    const { seq, method } = cseqOf(res);
    headers.set('CSeq', `${seq - cseqOffset} ${method}`);
  }
  return { ...res, headers };
}

function reasonPhrase(status: number): string {
  const phrases: Record<number, string> = {
    408: 'Request Timeout',
    480: 'Temporarily Unavailable',
    486: 'Busy Here',
    487: 'Request Terminated',
    500: 'Server Internal Error',
    503: 'Service Unavailable',
  };
  return phrases[status] ?? 'Failed';
}

export class SipProxy {
  readonly calls = new Map<string, Call>();
  /** Set by the server to the dialog relay's hang-up (the relay is built after the proxy). */
  onLateAnswer: ((call: Call, dialog: CalleeDialog) => void) | null = null;

  constructor(private readonly d: ProxyDeps) {}

  emit(event: SipCallEvent): void {
    try {
      this.d.observer.onCallEvent(event);
    } catch (err) {
      this.d.log.error({ err, event: event.type }, 'sip call observer failed');
    }
  }

  async onInvite(req: SipRequest, tx: ServerTransaction, flow: Destination): Promise<void> {
    const callId = req.headers.get('call-id') ?? '';
    const existing = this.calls.get(callId);
    if ((existing && existing.state !== 'ended') || this.d.local.sentByUs(req, loopHash(req))) {
      tx.reply(482, 'Loop Detected');
      return;
    }
    tx.reply(100, 'Trying');
    // A SIP trunk's peer is trusted by its transport, address and port (no digest): the caller is
    // the outside number of its From. Browsers (WebSocket) are never a trunk.
    const trunkId = flow.transport === 'ws' || flow.transport === 'wss' ? null : ((await this.d.directory.trunkPeer?.(flow)) ?? null);
    const caller =
      trunkId !== null
        ? userOf(req.headers.get('from')) || 'anonymous'
        : await this.d.auth.authenticate(req, tx, 'proxy', userOf(req.headers.get('from')));
    if (!caller || tx.state !== 'proceeding') return;
    // A phone's own identity claims are not believed: Atrium asserts the number it authenticated.
    const asserted = trunkId === null ? { number: caller, name: (await this.callerName(caller)) ?? caller } : null;
    if (tx.state !== 'proceeding') return;
    const callee = parseUri(req.uri)?.user ?? '';
    const contact = parseNameAddr(req.headers.get('contact') ?? '');
    const call: Call = {
      callId,
      caller,
      callee,
      target: callee,
      speechId: req.headers.get(SIP_HEADERS.speechId) ?? callId,
      sos: false,
      startedAt: Date.now(),
      answeredAt: null,
      answeredBy: null,
      state: 'routing',
      routed: false,
      invite: req,
      serverTx: tx,
      callerTag: tagOf(req.headers.get('from')) ?? '',
      asserted,
      callerLeg: {
        number: caller,
        flow,
        contact: contact?.uri ?? '',
        self: req.headers.get('from') ?? '',
        peer: req.headers.get('to') ?? '',
        routeSet: req.headers.getAll('record-route'),
        cseq: cseqOf(req).seq,
      },
      stages: [],
      stageIndex: -1,
      stopStageTimer: null,
      branches: [],
      ringing: new Set(),
      dialogs: new Map(),
      answer: null,
    };
    this.calls.set(callId, call);
    let route: Awaited<ReturnType<SipDirectory['route']>>;
    try {
      route = await this.d.directory.route({
        caller,
        callee,
        headers: req.headers.toRecord(),
        callId,
        ...(trunkId !== null ? { trunkId } : {}),
      });
    } catch (err) {
      this.d.log.error({ err, callId }, 'sip route lookup failed');
      route = { kind: 'reject', status: 500, reason: 'Server Internal Error' };
    }
    call.routed = true;
    if (route.kind === 'fork') {
      call.sos = route.sos;
      call.target = route.callee;
    }
    this.emit({ type: 'created', callId, caller, callee, sos: call.sos, speechId: call.speechId, at: Date.now() });
    if (tx.cancelled || tx.state !== 'proceeding') {
      this.end(call, 487, 'cancel');
      return;
    }
    if (route.kind === 'reject') {
      tx.reply(route.status, route.reason);
      this.end(call, route.status, outcomeOf(route.status));
      return;
    }
    call.stages = route.stages;
    if (route.stages.length === 0) {
      this.finish(call);
      return;
    }
    this.startStage(call, 0);
  }

  /** The caller's CANCEL (the transaction layer has answered it 200). */
  onCancel(tx: ServerTransaction): void {
    const call = [...this.calls.values()].find((c) => c.serverTx === tx);
    // Still authenticating or routing without a call: onInvite sees tx.cancelled afterwards.
    if (!call) {
      tx.reply(487, 'Request Terminated');
      return;
    }
    this.cancelRinging(call);
  }

  private startStage(call: Call, index: number): void {
    const stage = call.stages[index];
    if (!stage) return;
    call.stageIndex = index;
    // 'ringing' events and activeCalls() name the phones of the stage ringing now.
    call.ringing.clear();
    call.stopStageTimer?.();
    call.stopStageTimer = null;
    for (const target of stage.targets) {
      if (target.kind === 'number') {
        const contacts = this.d.registrar.contacts(target.number).filter((c) => this.d.hasFlow(contactFlow(c)));
        if (contacts.length === 0) call.branches.push(this.newBranch(target.number, index, null, 480));
        for (const c of contacts) this.forward(call, this.newBranch(target.number, index, null, null), c.uri, contactFlow(c));
      } else {
        const branch = this.newBranch(target.number, index, target.trunk, null);
        call.branches.push(branch);
        const termination = parseUri(target.trunk.terminationUri);
        if (!termination) {
          branch.localFailure = 500;
          continue;
        }
        const requestUri = formatUri({ ...termination, user: target.number, params: new Map(), headers: '' });
        void resolveUri(target.trunk.terminationUri).then((dest) => {
          if (call.state === 'ended' || call.answer || branch.cancelled) {
            branch.localFailure = 487;
            return;
          }
          if (!dest) {
            branch.localFailure = 503;
            this.checkStage(call);
            return;
          }
          this.forward(call, branch, requestUri, dest);
        });
      }
    }
    if (stage.timeoutSeconds !== null) {
      call.stopStageTimer = this.d.timerSet.after(stage.timeoutSeconds * 1000, () => this.stageTimedOut(call, index));
    }
    this.checkStage(call);
  }

  private newBranch(number: string, stage: number, trunk: Branch['trunk'], localFailure: number | null): Branch {
    return {
      number,
      stage,
      trunk,
      dest: null,
      request: null,
      tx: null,
      final: null,
      localFailure,
      cancelled: false,
      authTried: false,
      cseqOffset: 0,
    };
  }

  /** §16.6: copy, retarget, Max-Forwards, Record-Route, Via, then send in a client transaction. */
  private forward(call: Call, branch: Branch, requestUri: string, dest: Destination): void {
    if (!call.branches.includes(branch)) call.branches.push(branch);
    const headers = call.invite.headers.clone();
    headers.remove('proxy-authorization');
    headers.remove('route');
    headers.set('Max-Forwards', String(Math.max(0, Number(headers.get('max-forwards') ?? 70) - 1)));
    // Spec comms §7: the phones learn the call record, the SOS flag and whom the call was for
    // (it may ring a forward target). A caller's own values pass through unchanged.
    if (!headers.has(SIP_HEADERS.speechId)) headers.add(SIP_HEADERS.speechId, call.speechId);
    if (call.sos && !headers.has(SIP_HEADERS.sos)) headers.add(SIP_HEADERS.sos, 'true');
    if (!headers.has(SIP_HEADERS.targetCallee)) headers.add(SIP_HEADERS.targetCallee, call.target);
    // RFC 5658 double Record-Route when the two sides use different transports.
    // Each side is told the address it reaches us at (internal IP inside the local networks,
    // external IP outside): two entries when the sides differ in transport or in that address.
    const local = this.d.local;
    const callerFlow = call.callerLeg.flow;
    headers.prepend('Record-Route', local.recordRoute(callerFlow.transport, callerFlow.address));
    if (dest.transport !== callerFlow.transport || local.hostFor(dest.address) !== local.hostFor(callerFlow.address))
      headers.prepend('Record-Route', local.recordRoute(dest.transport, dest.address));
    headers.prepend('Via', local.via(dest.transport, loopHash(call.invite), dest.address));
    if (call.asserted) {
      // RFC 3325 §5: identity headers from outside the trust domain are removed; ours replace them.
      for (const name of ['p-asserted-identity', 'p-preferred-identity', 'remote-party-id']) headers.remove(name);
      const from = parseNameAddr(headers.get('from') ?? '');
      if (from) {
        from.displayName = call.asserted.name;
        headers.set('From', formatNameAddr(from));
      }
      const uri = `sip:${call.asserted.number}@${local.hostFor(dest.address)}`;
      headers.add('P-Asserted-Identity', formatNameAddr({ displayName: call.asserted.name, uri, params: new Map() }));
    }
    if (branch.trunk) {
      const host = parseUri(requestUri)?.host ?? '';
      const from = parseNameAddr(headers.get('from') ?? '');
      if (from) {
        from.uri = `sip:${branch.trunk.outgoingNumber}@${local.hostFor(dest.address)}`;
        from.displayName = null;
        headers.set('From', formatNameAddr(from));
      }
      // Outside, the caller is the trunk's outgoing number, whoever called in Atrium.
      if (call.asserted) headers.set('P-Asserted-Identity', `<${from?.uri ?? `sip:${branch.trunk.outgoingNumber}@${host}`}>`);
      headers.set('To', `<sip:${branch.number}@${host}>`);
    }
    const request: SipRequest = { kind: 'request', method: 'INVITE', uri: requestUri, headers, body: call.invite.body };
    const media = this.d.media;
    if (media?.carries(request)) {
      branch.dest = dest;
      const sdp = this.mediaLegs(call, branch, 'offer');
      void media.rewrite('offer', request, sdp, this.advertised(dest.address)).then((relayed) => {
        if (call.state === 'ended' || call.answer || branch.cancelled) {
          branch.localFailure = 487;
          this.checkStage(call);
          return;
        }
        this.send(call, branch, relayed, dest);
      });
      return;
    }
    this.send(call, branch, request, dest);
  }

  /** Who speaks which media on a branch: the caller's side and the callee's (see media-relay.ts). */
  private mediaLegs(call: Call, branch: Branch, op: 'offer' | 'answer', answerSdp?: Buffer) {
    const caller = mediaKindOf(call.callerLeg.flow.transport, call.invite.body);
    const callee = mediaKindOf(branch.dest?.transport ?? 'udp', answerSdp);
    // Forks of one offer are told apart by rtpengine's via-branch; the branch's index is stable.
    const viaBranch = `b${call.branches.indexOf(branch)}`;
    return op === 'offer'
      ? { callId: call.callId, fromTag: call.callerTag, viaBranch, from: caller, to: callee }
      : { callId: call.callId, fromTag: call.callerTag, viaBranch, from: callee, to: caller };
  }

  /** The caller's side of a branch's 18x or 2xx, its SDP through the media relay when there is one. */
  private respondToCaller(call: Call, branch: Branch, res: SipResponse, relayed: SipResponse): void {
    const media = this.d.media;
    if (!media?.carries(relayed)) {
      call.serverTx.respond(relayed);
      return;
    }
    const calleeTag = tagOf(res.headers.get('to')) ?? '';
    if (!media.carries(call.invite)) {
      // Late offer (RFC 3261 §13.2.1): the INVITE had no SDP, so the callee's response carries the
      // offer, sent by the callee's tag; the caller's answer comes in the ACK (DialogRelay).
      const legs = this.mediaLegs(call, branch, 'answer', res.body);
      const offer = { callId: call.callId, fromTag: calleeTag, toTag: call.callerTag, from: legs.from, to: legs.to };
      void media
        .rewrite('offer', relayed, offer, this.advertised(call.callerLeg.flow.address))
        .then((offered) => call.serverTx.respond(offered));
      return;
    }
    const sdp = { ...this.mediaLegs(call, branch, 'answer', res.body), toTag: calleeTag };
    void media
      .rewrite('answer', relayed, sdp, this.advertised(call.callerLeg.flow.address))
      .then((answered) => call.serverTx.respond(answered));
  }

  /** The media address to write into SDP the relay returns for a peer at `address`: the external IP outside. */
  advertised(address: string): string | null {
    const { externalIp } = this.d.local.network;
    return externalIp && !this.d.local.isInside(address) ? externalIp : null;
  }

  /**
   * Early media off (project SIP settings): a 183 Session Progress or any 18x carrying SDP reaches
   * the caller as a plain 180 Ringing, so no media flows before the answer; on, it is relayed as it came.
   */
  private provisional(res: SipResponse): SipResponse {
    if (this.d.local.network.earlyMedia || (res.status !== 183 && res.body.length === 0)) return res;
    const headers = res.headers.clone();
    headers.remove('content-type');
    headers.remove('content-disposition');
    return { ...res, status: 180, reason: 'Ringing', headers, body: Buffer.alloc(0) };
  }

  private send(call: Call, branch: Branch, request: SipRequest, dest: Destination): void {
    branch.request = request;
    branch.dest = dest;
    branch.tx = this.d.layer.sendRequest(request, dest, {
      onResponse: (res) => this.onBranchResponse(call, branch, res),
      onFailure: (status) => {
        branch.localFailure = status;
        this.checkStage(call);
      },
    });
  }

  private onBranchResponse(call: Call, branch: Branch, res: SipResponse): void {
    if (res.status === 100) return;
    if (res.status < 200) {
      if (call.state === 'ended' || call.answer || branch.cancelled) return;
      call.state = 'ringing';
      if ((res.status === 180 || res.status === 183) && !call.ringing.has(branch.number)) {
        call.ringing.add(branch.number);
        this.emit({ type: 'ringing', callId: call.callId, numbers: [...call.ringing], at: Date.now() });
      }
      this.respondToCaller(call, branch, res, this.provisional(relayResponse(res, branch.cseqOffset)));
      return;
    }
    if (res.status < 300) {
      this.onAnswer(call, branch, res);
      return;
    }
    if ((res.status === 401 || res.status === 407) && this.retryTrunkAuth(call, branch, res)) return;
    branch.final = res;
    this.checkStage(call);
  }

  /** A trunk asked for credentials: send the INVITE again with them, once (RFC 3261 §22.2). */
  private retryTrunkAuth(call: Call, branch: Branch, res: SipResponse): boolean {
    const trunk = branch.trunk;
    if (!trunk?.login || trunk.password === null || branch.authTried || !branch.request || !branch.dest) return false;
    if (call.state === 'ended' || call.answer || branch.cancelled) return false;
    const header = res.status === 401 ? 'www-authenticate' : 'proxy-authenticate';
    const challenge = parseAuthHeader(res.headers.get(header) ?? '');
    if (!challenge) return false;
    branch.authTried = true;
    branch.cseqOffset += 1;
    const headers = branch.request.headers.clone();
    headers.shift('via');
    headers.prepend('Via', this.d.local.via(branch.dest.transport, loopHash(call.invite), branch.dest.address));
    headers.set('CSeq', `${cseqOf(call.invite).seq + branch.cseqOffset} INVITE`);
    const value = authorize(challenge, { username: trunk.login, password: trunk.password }, 'INVITE', branch.request.uri);
    headers.add(res.status === 401 ? 'Authorization' : 'Proxy-Authorization', value);
    const request: SipRequest = { ...branch.request, headers };
    branch.request = request;
    const dest = branch.dest;
    branch.tx = this.d.layer.sendRequest(request, dest, {
      onResponse: (r) => this.onBranchResponse(call, branch, r),
      onFailure: (status) => {
        branch.localFailure = status;
        this.checkStage(call);
      },
    });
    return true;
  }

  private onAnswer(call: Call, branch: Branch, res: SipResponse): void {
    const tag = tagOf(res.headers.get('to')) ?? '';
    const relayed = relayResponse(res, branch.cseqOffset);
    if (!call.dialogs.has(tag) && branch.request && branch.dest) {
      const contact = parseNameAddr(res.headers.get('contact') ?? '')?.uri ?? branch.request.uri;
      const recordRoutes = res.headers.getAll('record-route');
      const ours = recordRoutes.findIndex((rr) => this.d.local.isLocalUri(rr));
      const leg: DialogLeg = {
        number: branch.number,
        flow: branch.dest,
        contact,
        self: res.headers.get('to') ?? '',
        peer: branch.request.headers.get('from') ?? '',
        routeSet: (ours < 0 ? [] : recordRoutes.slice(0, ours)).reverse(),
        cseq: 0,
      };
      const dialog: CalleeDialog = { tag, branch, leg, confirmed: false, onConfirmed: [] };
      call.dialogs.set(tag, dialog);
      if (!call.answer && call.state !== 'ended') {
        call.answer = dialog;
        call.state = 'answered';
        call.answeredAt = Date.now();
        call.answeredBy = branch.number;
        call.stopStageTimer?.();
        call.stopStageTimer = null;
        for (const other of call.branches) if (other !== branch) this.cancelBranch(other, 'SIP;cause=200;text="Call completed elsewhere"');
        this.emit({ type: 'answered', callId: call.callId, by: branch.number, at: Date.now() });
      } else if (call.state === 'ended' && !call.answer) {
        // The caller is gone (its CANCEL crossed this 200): nobody there would ACK it, so the
        // callee is ACKed and hung up here instead of relaying (RFC 3261 §16.7 would relay).
        this.onLateAnswer?.(call, dialog);
      }
    }
    branch.final = branch.final ?? res;
    this.respondToCaller(call, branch, res, relayed);
  }

  private cancelBranch(branch: Branch, reason?: string): void {
    if (branch.final || branch.localFailure !== null) return;
    branch.cancelled = true;
    branch.tx?.cancel(reason);
  }

  private stageTimedOut(call: Call, index: number): void {
    if (call.stageIndex !== index || call.answer || call.state === 'ended') return;
    for (const b of call.branches) if (b.stage === index) this.cancelBranch(b);
    const next = this.nextStage(call, 'no_answer');
    if (next >= 0) {
      this.moveOn(call, next, 'no_answer');
      return;
    }
    call.serverTx.reply(480, 'Temporarily Unavailable');
    this.end(call, 480, 'noanswer');
  }

  private nextStage(call: Call, reason: SipStage['reason']): number {
    return call.stages.findIndex((s, i) => i > call.stageIndex && s.reason === reason);
  }

  private moveOn(call: Call, next: number, reason: 'no_answer' | 'error'): void {
    const numbers = (call.stages[next]?.targets ?? []).map((t) => t.number);
    this.d.log.debug({ callId: call.callId, stage: next, reason, numbers }, 'sip call forwarded');
    this.emit({ type: 'forwarded', callId: call.callId, reason, numbers, at: Date.now() });
    this.startStage(call, next);
  }

  /** Every fork of the current stage failed: the error stage, or the best response (§16.7). */
  private checkStage(call: Call): void {
    if (call.answer || call.state === 'ended') return;
    const current = call.branches.filter((b) => b.stage === call.stageIndex);
    if (current.some((b) => !b.final && b.localFailure === null)) return;
    const next = this.nextStage(call, 'error');
    if (next >= 0) {
      call.stopStageTimer?.();
      this.moveOn(call, next, 'error');
      return;
    }
    this.finish(call);
  }

  private finish(call: Call): void {
    const best = bestResponse(call.branches);
    // A trunk's challenge we could not answer is not the caller's to answer either (§16.7 step 8
    // would aggregate it): it becomes a plain failure.
    if (best.status === 401 || best.status === 407) {
      call.serverTx.reply(503, reasonPhrase(503));
      this.end(call, 503, 'failed');
      return;
    }
    if (best.response) call.serverTx.respond(relayResponse(best.response, best.branch?.cseqOffset ?? 0));
    else call.serverTx.reply(best.status, reasonPhrase(best.status));
    this.end(call, best.status, outcomeOf(best.status));
  }

  private async callerName(number: string): Promise<string | null> {
    try {
      return (await this.d.directory.callerName?.(number)) ?? null;
    } catch (err) {
      this.d.log.error({ err, number }, 'sip caller name lookup failed');
      return null;
    }
  }

  /** The caller cancelled, or the console stopped a ringing call. */
  cancelRinging(call: Call): void {
    if (call.state === 'ended' || call.answer) return;
    for (const b of call.branches) this.cancelBranch(b);
    call.serverTx.reply(487, 'Request Terminated');
    // While the directory is still deciding, onInvite ends the call once it has said 'created'.
    if (call.routed) this.end(call, 487, 'cancel');
  }

  end(call: Call, status: number | null, outcome: ReturnType<typeof outcomeOf>): void {
    if (call.state === 'ended') return;
    call.state = 'ended';
    call.stopStageTimer?.();
    call.stopStageTimer = null;
    for (const b of call.branches) this.cancelBranch(b);
    this.emit({ type: 'ended', callId: call.callId, outcome, status, at: Date.now() });
    this.d.media?.delete(call.callId);
    // Kept a while so retransmissions and late responses still find the dialog.
    this.d.timerSet.after(64 * this.d.timers.t1, () => {
      if (this.calls.get(call.callId) === call) this.calls.delete(call.callId);
    });
  }

  activeCalls(): SipActiveCall[] {
    const out: SipActiveCall[] = [];
    for (const c of this.calls.values()) {
      if (c.state === 'ended') continue;
      out.push({
        callId: c.callId,
        caller: c.caller,
        callee: c.callee,
        speechId: c.speechId,
        sos: c.sos,
        state: c.state,
        startedAt: c.startedAt,
        answeredAt: c.answeredAt,
        answeredBy: c.answeredBy,
        numbers: c.answer ? [c.answer.branch.number] : [...c.ringing],
      });
    }
    return out;
  }
}

/**
 * Where requests to a registered contact go. Stream contacts: back over their connection. UDP:
 * the Contact URI when it names the address the REGISTER came from, else the source (the phone is
 * behind NAT and its Contact is a private address).
 */
export function contactFlow(c: SipContact): Destination {
  if (c.transport !== 'udp') return { transport: c.transport, address: c.source.address, port: c.source.port };
  const uri = parseUri(c.uri);
  if (uri && uri.host === c.source.address) return { transport: 'udp', address: uri.host, port: uri.port ?? 5060 };
  return { transport: 'udp', address: c.source.address, port: c.source.port };
}
