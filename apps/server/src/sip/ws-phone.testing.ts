import WebSocket from 'ws';
import { authorize, parseAuthHeader } from './digest.js';
import {
  createResponse,
  parseMessage,
  SipHeaders,
  type SipMessage,
  type SipRequest,
  type SipResponse,
  serializeMessage,
} from './message.js';
import { SipInbox } from './testing.js';

/** Test support: a browser-like SIP phone over WebSocket (RFC 7118), speaking plain SDP. Not used in production. */

export const sdp = (direction: string): string =>
  `v=0\r\no=browser 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=${direction}\r\n`;

/** A browser-like SIP client over WebSocket: an inbox and request builders for its one dialog. */
export class WsPhone {
  /** Every phone opened, for closeAll() after a test. */
  private static readonly opened = new Set<WebSocket>();

  private readonly inbox = new SipInbox();
  private branch = 0;

  private constructor(
    readonly ws: WebSocket,
    readonly number: string,
  ) {
    ws.on('message', (data: Buffer) => this.inbox.push(parseMessage(Buffer.from(data))));
  }

  static async open(port: number, number: string): Promise<WsPhone> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, 'sip');
    WsPhone.opened.add(ws);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return new WsPhone(ws, number);
  }

  send(m: SipMessage): void {
    this.ws.send(serializeMessage(m).toString('utf8'));
  }

  next(timeoutMs = 8000): Promise<SipMessage> {
    return this.inbox.next(timeoutMs);
  }

  response(): Promise<SipResponse> {
    return this.inbox.response(8000);
  }

  private async expectStatus(status: number): Promise<void> {
    const res = await this.response();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}`);
  }

  request(method: string): Promise<SipRequest> {
    return this.inbox.request(method, 8000);
  }

  build(
    method: string,
    uri: string,
    h: { from: string; to: string; callId: string; cseq: number; routes?: string[]; body?: string; extra?: Array<[string, string]> },
  ): SipRequest {
    const headers = new SipHeaders();
    headers.add('Via', `SIP/2.0/WS b${this.number}.invalid;branch=z9hG4bK-${this.number}-${++this.branch}-${Date.now()}`);
    for (const r of h.routes ?? []) headers.add('Route', r);
    headers.add('Max-Forwards', '70');
    headers.add('From', h.from);
    headers.add('To', h.to);
    headers.add('Call-ID', h.callId);
    headers.add('CSeq', `${h.cseq} ${method}`);
    headers.add('Contact', `<sip:${this.number}@b${this.number}.invalid;transport=ws>`);
    for (const [n, v] of h.extra ?? []) headers.add(n, v);
    if (h.body) headers.add('Content-Type', 'application/sdp');
    return { kind: 'request', method, uri, headers, body: Buffer.from(h.body ?? '') };
  }

  /** Registers with the digest challenge answered. */
  async register(password: string): Promise<void> {
    const h = {
      from: `<sip:${this.number}@atrium.test>;tag=r${this.number}`,
      to: `<sip:${this.number}@atrium.test>`,
      callId: `reg-${this.number}-${Date.now()}`,
    };
    const reg = (cseq: number, auth?: string) => {
      const r = this.build('REGISTER', 'sip:atrium.test', {
        ...h,
        cseq,
        extra: [['Expires', '600'], ...(auth ? [['Authorization', auth] as [string, string]] : [])],
      });
      return r;
    };
    this.send(reg(1));
    const challenge = parseAuthHeader((await this.response()).headers.get('www-authenticate') ?? '');
    if (!challenge) throw new Error('no challenge');
    this.send(reg(2, authorize(challenge, { username: this.number, password }, 'REGISTER', 'sip:atrium.test')));
    await this.expectStatus(200);
  }

  /** Answers the INVITE that rings here and holds the call (re-INVITE sendonly, accepted). */
  async answerAndHold(): Promise<void> {
    const invite = await this.request('INVITE');
    const rr = invite.headers.getAll('record-route');
    const ok = createResponse(invite, 200, 'OK', 'browser-tag');
    for (const r of rr) ok.headers.add('Record-Route', r);
    ok.headers.add('Contact', `<sip:${this.number}@b${this.number}.invalid;transport=ws>`);
    ok.headers.add('Content-Type', 'application/sdp');
    ok.body = Buffer.from(sdp('sendrecv'));
    this.send(ok);
    await this.request('ACK');
    const dialog = {
      from: ok.headers.get('to') ?? '',
      to: invite.headers.get('from') ?? '',
      callId: invite.headers.get('call-id') ?? '',
      routes: rr,
    };
    const contact = /<([^>]+)>/.exec(invite.headers.get('contact') ?? '')?.[1] ?? '';
    this.send(this.build('INVITE', contact, { ...dialog, cseq: 1, body: sdp('sendonly') }));
    await this.expectStatus(200);
    this.send(this.build('ACK', contact, { ...dialog, cseq: 1 }));
  }

  /** A new INVITE resuming `speechId`, the proxy's digest challenge answered; the final response. */
  async resume(
    speechId: string,
    password: string,
    callee = '101',
    cancelAfterMs?: number,
  ): Promise<{ res: SipResponse; dialog: { from: string; to: string; callId: string; target: string; routes: string[] } }> {
    const uri = `sip:${callee}@atrium.test`;
    const base = {
      from: `<sip:${this.number}@atrium.test>;tag=resume${this.number}`,
      to: `<${uri}>`,
      callId: `resume-${this.number}-${Date.now()}`,
    };
    const extra: Array<[string, string]> = [['X-Resume-Call', speechId]];
    this.send(this.build('INVITE', uri, { ...base, cseq: 1, body: sdp('sendrecv'), extra }));
    const challenge = await this.response();
    if (challenge.status !== 407) throw new Error(`expected 407, got ${challenge.status}`);
    this.send(this.build('ACK', uri, { ...base, to: challenge.headers.get('to') ?? '', cseq: 1 }));
    const params = parseAuthHeader(challenge.headers.get('proxy-authenticate') ?? '');
    if (!params) throw new Error('no challenge');
    const auth = authorize(params, { username: this.number, password }, 'INVITE', uri);
    const invite = this.build('INVITE', uri, { ...base, cseq: 2, body: sdp('sendrecv'), extra: [...extra, ['Proxy-Authorization', auth]] });
    this.send(invite);
    if (cancelAfterMs !== undefined) {
      await new Promise((r) => setTimeout(r, cancelAfterMs));
      const cancel = this.build('CANCEL', uri, { ...base, cseq: 2 });
      cancel.headers.set('Via', invite.headers.get('via') ?? '');
      cancel.headers.remove('contact');
      this.send(cancel);
    }
    let res = await this.response();
    while (res.headers.get('cseq')?.endsWith('CANCEL')) res = await this.response();
    // Through a record-routing proxy (Kamailio) the dialog's requests follow its route set to the
    // answering contact; from the embedded server, which answers as the user agent itself, to the URI.
    const routes = res.headers.getAll('record-route').reverse();
    const target = (routes.length > 0 && /<([^>]+)>/.exec(res.headers.get('contact') ?? '')?.[1]) || uri;
    const dialog = { from: base.from, to: res.headers.get('to') ?? '', callId: base.callId, target, routes };
    if (res.status < 300) this.send(this.build('ACK', target, { ...dialog, cseq: 2 }));
    return { res, dialog };
  }

  close(): void {
    this.ws.close();
  }

  static closeAll(): void {
    for (const ws of WsPhone.opened) ws.terminate();
    WsPhone.opened.clear();
  }
}
