import dgram from 'node:dgram';
import net from 'node:net';
import WebSocket from 'ws';
import { parseMessage, SipHeaders, type SipMessage, type SipResponse, StreamFramer } from './message.js';
import type { SipServer } from './server.js';
import { callerArgs, type MemoryDirectory, registerContact, runSipp, SipInbox } from './testing.js';

/**
 * Test support for what the network can throw at the server: a raw peer that sends bytes exactly
 * as given over UDP, TCP or WebSocket and reads what comes back, and a check that the server still
 * registers and connects calls afterwards. Not used in production.
 */

export type RawTransport = 'udp' | 'tcp' | 'ws';

/**
 * What the server sent, read leniently: a 400 to a request that lacked a header, or had a CSeq
 * out of range, copies what it got (RFC 3261 §8.2.6.2), so the strict parser would refuse it.
 */
function readAnswer(data: Buffer): SipMessage | null {
  const strict = parseMessage(data);
  if (strict) return strict;
  const text = data.toString('utf8');
  const status = /^SIP\/2\.0 (\d{3}) (.*)\r\n/.exec(text);
  if (!status) return null;
  const headers = new SipHeaders();
  for (const line of text.slice(status[0].length).split('\r\n\r\n')[0]?.split('\r\n') ?? []) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.add(line.slice(0, colon), line.slice(colon + 1));
  }
  return { kind: 'response', status: Number(status[1]), reason: status[2] ?? '', headers, body: Buffer.alloc(0) };
}

export class RawPeer {
  private readonly inbox = new SipInbox();
  private closed = false;

  private constructor(
    readonly transport: RawTransport,
    private readonly sendBytes: (data: Buffer) => void,
    private readonly end: () => void,
    /** The local port (UDP: where answers to a Via naming it with rport come). */
    readonly port: number,
  ) {}

  static async open(transport: RawTransport, server: SipServer): Promise<RawPeer> {
    if (transport === 'udp') {
      const socket = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
      const peer = new RawPeer(
        'udp',
        (data) => socket.send(data, server.ports.udp, '127.0.0.1'),
        () => socket.close(),
        socket.address().port,
      );
      socket.on('message', (data) => peer.inbox.push(readAnswer(data)));
      return peer;
    }
    if (transport === 'tcp') {
      const socket = net.connect({ host: '127.0.0.1', port: server.ports.tcp });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      const framer = new StreamFramer();
      const peer = new RawPeer(
        'tcp',
        (data) => {
          if (!socket.destroyed) socket.write(data);
        },
        () => socket.destroy(),
        socket.localPort ?? 0,
      );
      socket.on('data', (chunk) => {
        const got = framer.push(chunk);
        if (got !== 'overflow') for (const m of got) peer.inbox.push(readAnswer(m));
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        peer.closed = true;
      });
      return peer;
    }
    const ws = new WebSocket(`ws://127.0.0.1:${server.ports.ws}`, 'sip');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const peer = new RawPeer(
      'ws',
      (data) => {
        if (ws.readyState === ws.OPEN) ws.send(data);
      },
      () => ws.terminate(),
      0,
    );
    ws.on('message', (data) => peer.inbox.push(readAnswer(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer))));
    ws.on('error', () => undefined);
    ws.on('close', () => {
      peer.closed = true;
    });
    return peer;
  }

  send(data: Buffer | string): void {
    this.sendBytes(Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1'));
  }

  /** The next response (100 Trying skipped unless asked for). */
  response(timeoutMs = 3000, skipTrying = true): Promise<SipResponse> {
    return this.inbox.next(timeoutMs, skipTrying).then((msg) => {
      if (msg.kind !== 'response') throw new Error(`expected a response, got ${msg.method}`);
      return msg;
    });
  }

  /** Whether nothing at all (not even 100 Trying) arrives for `ms`. */
  async silent(ms: number): Promise<boolean> {
    try {
      await this.inbox.next(ms, false);
      return false;
    } catch {
      return true;
    }
  }

  /** Whether the server closed this connection (streams only). */
  get closedByServer(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.end();
  }
}

/**
 * Proves the server still works: a fresh number registers (digest, 200), and a SIPp panel calls a
 * SIPp phone registered for it, answered and hung up cleanly.
 */
export async function stillServes(server: SipServer, directory: MemoryDirectory, tag: string): Promise<void> {
  const callee = `9${tag}`;
  const caller = `8${tag}`;
  directory.passwords.set(callee, `Pw${callee}x`);
  directory.passwords.set(caller, `Pw${caller}y`);
  const phone = await runSipp('uas-answer.xml', server.ports.udp);
  try {
    const registered = await registerContact(server.ports.udp, callee, `Pw${callee}x`, phone.port);
    if (registered !== 200) throw new Error(`REGISTER answered ${registered}`);
    const panel = await runSipp('uac-call.xml', server.ports.udp, callerArgs(callee, caller, `Pw${caller}y`));
    try {
      const [called, answered] = await Promise.all([panel.done, phone.done]);
      if (called.code !== 0) throw new Error(`the calling SIPp failed: ${called.errors}`);
      if (answered.code !== 0) throw new Error(`the answering SIPp failed: ${answered.errors}`);
    } finally {
      panel.kill();
    }
  } finally {
    phone.kill();
  }
}
