import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import type { SipMessage } from './message.js';
import type { SipLogger } from './server-types.js';

/**
 * The media relay: a client of rtpengine's NG control protocol (bencoded dictionaries over UDP,
 * each prefixed by a cookie that the reply repeats). A WebRTC browser speaks ICE and DTLS-SRTP, a
 * door panel plain RTP; rtpengine sits between them and translates. The proxy asks it to rewrite
 * every SDP offer and answer it forwards, and to drop the call when the call ends.
 *
 * The bencode codec is written here (about sixty lines) rather than taken from npm: the NG protocol
 * needs only byte strings, integers, lists and dictionaries, and the maintained packages are
 * torrent-oriented with their own Buffer/Uint8Array conventions.
 */

export type Bencoded = string | number | Bencoded[] | { [key: string]: Bencoded };

export function bencode(value: Bencoded): Buffer {
  const parts: Buffer[] = [];
  const write = (v: Bencoded): void => {
    if (typeof v === 'string') {
      const bytes = Buffer.from(v, 'utf8');
      parts.push(Buffer.from(`${bytes.length}:`), bytes);
    } else if (typeof v === 'number') {
      if (!Number.isInteger(v)) throw new TypeError(`bencode integers only, got ${v}`);
      parts.push(Buffer.from(`i${v}e`));
    } else if (Array.isArray(v)) {
      parts.push(Buffer.from('l'));
      for (const item of v) write(item);
      parts.push(Buffer.from('e'));
    } else {
      parts.push(Buffer.from('d'));
      // Keys sorted by their bytes, as bencode requires.
      for (const key of Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
        const item = v[key];
        if (item === undefined) continue;
        write(key);
        write(item);
      }
      parts.push(Buffer.from('e'));
    }
  };
  write(value);
  return Buffer.concat(parts);
}

/** Decodes one bencoded value; byte strings come back as UTF-8 text (SDP and NG keys are text). */
export function bdecode(data: Buffer): Bencoded {
  let pos = 0;
  const fail = (why: string): never => {
    throw new SyntaxError(`bencode: ${why} at byte ${pos}`);
  };
  const read = (): Bencoded => {
    const c = data[pos];
    if (c === undefined) return fail('unexpected end');
    if (c === 0x69) {
      const end = data.indexOf(0x65, pos);
      if (end < 0) fail('unterminated integer');
      const text = data.toString('ascii', pos + 1, end);
      if (!/^(0|-?[1-9][0-9]*)$/.test(text)) fail(`bad integer "${text}"`);
      pos = end + 1;
      return Number(text);
    }
    if (c === 0x6c) {
      pos++;
      const list: Bencoded[] = [];
      while (data[pos] !== 0x65) list.push(read());
      pos++;
      return list;
    }
    if (c === 0x64) {
      pos++;
      const dict: { [key: string]: Bencoded } = {};
      while (data[pos] !== 0x65) {
        const key = read();
        if (typeof key !== 'string') fail('dictionary key is not a string');
        dict[key as string] = read();
      }
      pos++;
      return dict;
    }
    if (c >= 0x30 && c <= 0x39) {
      const colon = data.indexOf(0x3a, pos);
      if (colon < 0) fail('string without length');
      const length = Number(data.toString('ascii', pos, colon));
      const start = colon + 1;
      if (!Number.isInteger(length) || start + length > data.length) fail('string longer than the data');
      pos = start + length;
      return data.toString('utf8', start, pos);
    }
    return fail(`unexpected byte 0x${c.toString(16)}`);
  };
  const value = read();
  if (pos !== data.length) fail('trailing data');
  return value;
}

/** What one side of a call speaks: WebRTC (ICE, DTLS-SRTP, rtcp-mux) or plain RTP/AVP. */
export type MediaKind = 'webrtc' | 'plain';

/** A leg is WebRTC when it reaches us over WebSocket or its SDP offers a secure WebRTC profile. */
export function mediaKindOf(transport: string, sdp?: Buffer | string): MediaKind {
  if (transport === 'ws' || transport === 'wss') return 'webrtc';
  const text = typeof sdp === 'string' ? sdp : (sdp?.toString('utf8') ?? '');
  return /^m=audio \d+ (UDP\/TLS\/RTP\/SAVPF|RTP\/SAVPF)\b/m.test(text) ? 'webrtc' : 'plain';
}

/** Whether a SIP body is an SDP rtpengine should rewrite. */
export function hasSdp(contentType: string | undefined, body: Buffer): boolean {
  return body.length > 0 && (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/sdp';
}

/**
 * The NG options for an SDP going towards a leg of kind `to`. Towards a browser: ICE candidates of
 * rtpengine's own, DTLS-SRTP with rtpengine passive (the browser, offerer or answerer, takes the
 * active role), rtcp-mux and a=mid as Chromium requires. Towards a panel: plain RTP/AVP, no ICE,
 * RTCP on its own port (demultiplexed when the browser offered rtcp-mux).
 */
export function relayOptions(from: MediaKind, to: MediaKind, op: 'offer' | 'answer'): Record<string, Bencoded> {
  const common: Record<string, Bencoded> = {
    replace: ['origin', 'session-connection'],
    // The SIP source is the proxy's neighbour, not the phone: trust the addresses in the SDP.
    flags: ['trust-address'],
  };
  if (to === 'webrtc') {
    const options: Record<string, Bencoded> = {
      ...common,
      ICE: 'force',
      DTLS: 'passive',
      SDES: ['off'],
      'transport-protocol': 'UDP/TLS/RTP/SAVPF',
      flags: ['trust-address', 'generate-mid'],
    };
    if (op === 'offer') options['rtcp-mux'] = ['offer', 'require'];
    return options;
  }
  const options: Record<string, Bencoded> = { ...common, ICE: 'remove', DTLS: 'off', 'transport-protocol': 'RTP/AVP' };
  if (op === 'offer' && from === 'webrtc') options['rtcp-mux'] = ['demux'];
  return options;
}

export interface RelayedSdp {
  callId: string;
  /** The tag of the side that sent the offer (for an answer too: the From tag of the response). */
  fromTag: string;
  /** The answerer's tag: required for an answer, set for an offer inside a dialog. */
  toTag?: string;
  /** The Via branch of the forwarded INVITE: tells forks of one offer apart. */
  viaBranch?: string;
  sdp: Buffer;
  from: MediaKind;
  to: MediaKind;
}

/** The proxy's view of the relay; null in its deps when no relay is configured. */
export interface MediaRelay {
  /** True when the relay answers within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<boolean>;
  offer(o: RelayedSdp): Promise<Buffer>;
  answer(a: RelayedSdp & { toTag: string }): Promise<Buffer>;
  delete(callId: string): Promise<void>;
  close(): Promise<void>;
}

export class MediaRelayError extends Error {}

/** `udp:host:port` (the form Kamailio's rtpengine module takes) or `host:port`. */
export function parseRtpengineUrl(url: string): { host: string; port: number } {
  const m = /^(?:udp:)?(\[[^\]]+\]|[^:]+):(\d+)$/.exec(url.trim());
  const port = Number(m?.[2]);
  if (!m?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new MediaRelayError(`RTPENGINE_URL must look like udp:127.0.0.1:22222, got "${url}"`);
  }
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

interface Pending {
  resolve(reply: { [key: string]: Bencoded }): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** rtpengine over its NG protocol (UDP). Requests are retransmitted; rtpengine caches replies by cookie. */
export class RtpengineClient implements MediaRelay {
  private readonly pending = new Map<string, Pending>();

  private constructor(
    private readonly socket: dgram.Socket,
    private readonly target: { host: string; port: number },
    private readonly log: SipLogger,
    private readonly timeoutMs: number,
  ) {
    socket.on('message', (data) => this.onReply(data));
    socket.on('error', (err) => this.log.warn({ err }, 'rtpengine control socket error'));
  }

  static async connect(url: string, log: SipLogger, timeoutMs = 2000): Promise<RtpengineClient> {
    const target = parseRtpengineUrl(url);
    const socket = dgram.createSocket(target.host.includes(':') ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    return new RtpengineClient(socket, target, log, timeoutMs);
  }

  /** Sends one NG command and resolves with rtpengine's reply dictionary (result "ok" or "pong"). */
  async command(command: string, args: Record<string, Bencoded> = {}, timeoutMs = this.timeoutMs): Promise<{ [key: string]: Bencoded }> {
    const cookie = randomBytes(8).toString('hex');
    const packet = Buffer.concat([Buffer.from(`${cookie} `), bencode({ ...args, command })]);
    const reply = await new Promise<{ [key: string]: Bencoded }>((resolve, reject) => {
      const send = () => this.socket.send(packet, this.target.port, this.target.host);
      const retransmit = setInterval(send, Math.max(100, timeoutMs / 4));
      const timer = setTimeout(() => {
        clearInterval(retransmit);
        this.pending.delete(cookie);
        reject(new MediaRelayError(`rtpengine did not answer "${command}" within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(cookie, {
        resolve: (r) => {
          clearInterval(retransmit);
          resolve(r);
        },
        reject: (err) => {
          clearInterval(retransmit);
          reject(err);
        },
        timer,
      });
      send();
    });
    const result = reply.result;
    if (result === 'error') throw new MediaRelayError(`rtpengine refused "${command}": ${String(reply['error-reason'] ?? 'no reason')}`);
    return reply;
  }

  private onReply(data: Buffer): void {
    const space = data.indexOf(0x20);
    if (space < 0) return;
    const cookie = data.toString('ascii', 0, space);
    const pending = this.pending.get(cookie);
    if (!pending) return;
    this.pending.delete(cookie);
    clearTimeout(pending.timer);
    try {
      const reply = bdecode(data.subarray(space + 1));
      if (typeof reply !== 'object' || Array.isArray(reply)) throw new MediaRelayError('rtpengine reply is not a dictionary');
      pending.resolve(reply);
    } catch (err) {
      pending.reject(err instanceof Error ? err : new MediaRelayError(String(err)));
    }
  }

  async ping(timeoutMs = this.timeoutMs): Promise<boolean> {
    try {
      return (await this.command('ping', {}, timeoutMs)).result === 'pong';
    } catch {
      return false;
    }
  }

  offer(o: RelayedSdp): Promise<Buffer> {
    return this.rewrite('offer', o);
  }

  answer(a: RelayedSdp & { toTag: string }): Promise<Buffer> {
    return this.rewrite('answer', a);
  }

  private async rewrite(op: 'offer' | 'answer', s: RelayedSdp): Promise<Buffer> {
    const args: Record<string, Bencoded> = {
      ...relayOptions(s.from, s.to, op),
      'call-id': s.callId,
      'from-tag': s.fromTag,
      sdp: s.sdp.toString('utf8'),
    };
    if (s.toTag) args['to-tag'] = s.toTag;
    if (s.viaBranch) args['via-branch'] = s.viaBranch;
    const reply = await this.command(op, args);
    if (typeof reply.sdp !== 'string') throw new MediaRelayError(`rtpengine's "${op}" reply has no SDP`);
    return Buffer.from(reply.sdp, 'utf8');
  }

  async delete(callId: string): Promise<void> {
    await this.command('delete', { 'call-id': callId });
  }

  /** rtpengine's view of a call (per-tag media and packet counters), for tests and diagnostics. */
  query(callId: string): Promise<{ [key: string]: Bencoded }> {
    return this.command('query', { 'call-id': callId });
  }

  async close(): Promise<void> {
    for (const [cookie, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new MediaRelayError('rtpengine client closed'));
      this.pending.delete(cookie);
    }
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }
}

/**
 * What the proxy and the dialog relay use: rewrites the SDP of a SIP message through the relay, one
 * command at a time per call (an 18x's answer before the 2xx's, a late offer before the delete). When
 * rtpengine fails, the message goes on unchanged and the media end to end, as without a relay.
 */
export class SdpRelay {
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Set while rtpengine does not answer: messages pass unchanged at once, and a ping each second tells when it is back. */
  private recheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly relay: MediaRelay,
    private readonly log: SipLogger,
  ) {}

  /** A relay on rtpengine at `url`; rtpengine not answering yet is only a warning: it may start after us. */
  static async connect(url: string, log: SipLogger): Promise<SdpRelay> {
    const media = new SdpRelay(await RtpengineClient.connect(url, log), log);
    if (await media.relay.ping()) log.info({ url }, 'media relay (rtpengine) answers');
    else media.wentDown(null);
    return media;
  }

  private wentDown(err: unknown): void {
    if (this.recheck) return;
    this.log.warn(err ? { err } : {}, 'media relay (rtpengine) does not answer; media goes end to end until it does');
    let pinging = false;
    const recheck = setInterval(() => {
      if (pinging) return;
      pinging = true;
      void this.relay.ping(500).then((up) => {
        pinging = false;
        if (!up || this.recheck !== recheck) return;
        clearInterval(recheck);
        this.recheck = null;
        this.log.info({}, 'media relay (rtpengine) answers again');
      });
    }, 1000);
    recheck.unref();
    this.recheck = recheck;
  }

  carries(msg: SipMessage): boolean {
    return hasSdp(msg.headers.get('content-type'), msg.body);
  }

  /**
   * `advertise`: the address the recipient reaches the relay at (the project's external IP for a
   * peer outside the local networks), written into the relayed SDP's c= and o= lines.
   */
  rewrite<T extends SipMessage>(op: 'offer' | 'answer', msg: T, sdp: Omit<RelayedSdp, 'sdp'>, advertise: string | null = null): Promise<T> {
    return this.queue(sdp.callId, async () => {
      if (this.recheck) return msg;
      try {
        const params = { ...sdp, sdp: msg.body };
        const body = op === 'offer' ? await this.relay.offer(params) : await this.relay.answer({ ...params, toTag: sdp.toTag ?? '' });
        const headers = msg.headers.clone();
        return { ...msg, headers, body: advertise ? advertiseAddress(body, advertise) : body };
      } catch (err) {
        if (err instanceof MediaRelayError && /did not answer/.test(err.message)) this.wentDown(err);
        else this.log.warn({ err, callId: sdp.callId, op }, 'media relay refused an SDP; it goes end to end');
        return msg;
      }
    });
  }

  delete(callId: string): void {
    void this.queue(callId, async () => {
      if (this.recheck) return;
      try {
        await this.relay.delete(callId);
      } catch (err) {
        // A call that never had SDP is unknown to rtpengine: nothing to drop.
        this.log.debug({ err, callId }, 'media relay delete failed');
      }
    });
  }

  close(): Promise<void> {
    if (this.recheck) clearInterval(this.recheck);
    this.recheck = null;
    return this.relay.close();
  }

  private queue<T>(callId: string, work: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(callId) ?? Promise.resolve()).then(work);
    this.chains.set(callId, next);
    void next.finally(() => {
      if (this.chains.get(callId) === next) this.chains.delete(callId);
    });
    return next;
  }
}

/** The SDP with its connection (c=) and origin (o=) IPv4 addresses replaced by `address`. */
export function advertiseAddress(sdp: Buffer, address: string): Buffer {
  const text = sdp
    .toString('utf8')
    .replace(/^(c=IN IP4 )[^\s/]+/gm, `$1${address}`)
    .replace(/^(o=\S+ \S+ \S+ IN IP4 )\S+/gm, `$1${address}`);
  return Buffer.from(text, 'utf8');
}
