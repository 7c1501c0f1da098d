import dgram from 'node:dgram';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { type WebSocket, WebSocketServer } from 'ws';
import { formatVia, parseVia } from './address.js';
import { type MessageFault, readMessage, type SipMessage, StreamFramer, serializeMessage } from './message.js';
import type { SipLogger } from './server-types.js';

/**
 * UDP, TCP, TLS (RFC 3261 §26, framed as TCP) and WebSocket (RFC 7118, subprotocol `sip`)
 * transports. A stream connection is a flow: requests to a contact registered over TCP, TLS or WS go
 * back over that very connection, since a browser or a NATed panel cannot be reached any other way.
 */

export type TransportName = 'udp' | 'tcp' | 'tls' | 'ws' | 'wss';

export interface Destination {
  transport: TransportName;
  address: string;
  port: number;
}

export interface TransportOptions {
  host: string;
  udpPort: number;
  tcpPort: number;
  wsPort: number;
  /** Certificate and key: the WebSocket port serves wss, and SIP over TLS listens on `tlsPort` when given. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** SIP over TLS for devices (0: any free port); only with `tls`. */
  tlsPort?: number;
}

export interface TransportHandlers {
  onMessage(msg: SipMessage, flow: Destination): void;
  /** A message that broke the grammar; a request in it has its top Via stamped like a good one. */
  onMalformed(fault: MessageFault, flow: Destination): void;
  onFlowClosed(flow: Destination): void;
}

/** What the transports threw away, for the service's metrics. */
export interface TransportCounters {
  /** Messages that broke the grammar (answered 4xx or, with no usable Via, dropped). */
  malformed: number;
  /** Sends refused or failed: no address, a port out of range, a flow gone. */
  sendFailures: number;
  /** Stream connections closed for an oversize or unframeable message. */
  streamsClosed: number;
}

interface StreamConnection {
  /** False when the connection is gone; a write error arrives as the socket's 'error' event. */
  write(data: Buffer): boolean;
  close(): void;
}

function streamOf(socket: net.Socket): StreamConnection {
  return {
    write: (data) => {
      if (socket.destroyed || !socket.writable) return false;
      socket.write(data);
      return true;
    },
    close: () => socket.destroy(),
  };
}

export const flowKey = (d: Destination): string => `${d.transport}:${d.address}:${d.port}`;

export const isReliable = (transport: TransportName): boolean => transport !== 'udp';

const plainAddress = (address: string | undefined): string => (address ?? '').replace(/^::ffff:/, '');

/**
 * The UDP socket's receive buffer. The kernel's default (about 208 KB, some 200 small datagrams
 * with their overhead) fills in a fifth of a second at 1,000 messages/s, so any pause of the event
 * loop (a collection, a burst of database reads, a busy machine) lost datagrams: phones saw
 * retransmissions, callers a 486 without the 180 before it. The kernel caps it at
 * net.core.rmem_max, which a SIP host should raise to at least this.
 */
export const UDP_RECEIVE_BUFFER = 4 * 1024 * 1024;

export class SipTransports {
  /** The bound ports; `tls` only while SIP over TLS listens. */
  readonly ports: { udp: number; tcp: number; ws: number; tls?: number } = { udp: 0, tcp: 0, ws: 0 };
  readonly wsTransport: 'ws' | 'wss';
  private udp: dgram.Socket | null = null;
  private tcp: net.Server | null = null;
  private tlsServer: tls.Server | null = null;
  private http: HttpServer | null = null;
  private wss: WebSocketServer | null = null;
  private readonly streams = new Map<string, StreamConnection>();
  private readonly sockets = new Set<net.Socket>();
  private closed = false;
  readonly counters: TransportCounters = { malformed: 0, sendFailures: 0, streamsClosed: 0 };

  constructor(
    private readonly opts: TransportOptions,
    private readonly log: SipLogger,
    private readonly handlers: TransportHandlers,
  ) {
    this.wsTransport = opts.tls ? 'wss' : 'ws';
  }

  async start(): Promise<void> {
    const starts = [this.startUdp(), this.startTcp(), this.startWs()];
    if (this.opts.tls && this.opts.tlsPort !== undefined) starts.push(this.startTls(this.opts.tls, this.opts.tlsPort));
    const results = await Promise.allSettled(starts);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      // One port taken must not leave the others bound.
      await this.close();
      throw failure.reason;
    }
  }

  private startUdp(): Promise<void> {
    const socket = dgram.createSocket(net.isIPv6(this.opts.host) ? 'udp6' : 'udp4');
    this.udp = socket;
    socket.on('message', (data, rinfo) => {
      this.receive(data, { transport: 'udp', address: plainAddress(rinfo.address), port: rinfo.port });
    });
    socket.on('error', (err) => this.log.warn({ err }, 'sip udp socket error'));
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.opts.udpPort, this.opts.host, () => {
        socket.off('error', reject);
        this.ports.udp = socket.address().port;
        try {
          socket.setRecvBufferSize(UDP_RECEIVE_BUFFER);
        } catch (err) {
          this.log.warn({ err }, 'sip udp receive buffer kept at the system default');
        }
        resolve();
      });
    });
  }

  private startTcp(): Promise<void> {
    const server = net.createServer((socket) => this.adoptStream(socket, 'tcp'));
    this.tcp = server;
    return listen(server, this.opts.tcpPort, this.opts.host).then((port) => {
      this.ports.tcp = port;
    });
  }

  private startTls(pair: { cert: string | Buffer; key: string | Buffer }, port: number): Promise<void> {
    // RFC 3261 §26.3.1: the server presents its certificate; devices are not asked for one (they sign in by digest).
    const server = tls.createServer({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }, (socket) => this.adoptStream(socket, 'tls'));
    this.tlsServer = server;
    // Sockets still in their handshake are closed with the rest.
    server.on('connection', (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('tlsClientError', (err, socket) => {
      this.log.debug({ err: err.message, from: plainAddress(socket.remoteAddress) }, 'sip tls handshake failed');
      socket.destroy();
    });
    return listen(server, port, this.opts.host).then((bound) => {
      this.ports.tls = bound;
    });
  }

  /** A TCP or TLS connection as a flow: messages framed by Content-Length (RFC 3261 §18.3). */
  private adoptStream(socket: net.Socket, transport: 'tcp' | 'tls'): Destination {
    const flow: Destination = { transport, address: plainAddress(socket.remoteAddress), port: socket.remotePort ?? 0 };
    const key = flowKey(flow);
    const framer = new StreamFramer();
    this.sockets.add(socket);
    this.streams.set(key, streamOf(socket));
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      // RFC 5626 §4.4.1 keep-alive: a CRLFCRLF ping is answered with a CRLF pong.
      if (chunk.length === 4 && chunk.toString('latin1') === '\r\n\r\n') {
        if (socket.writable) socket.write('\r\n');
        return;
      }
      const messages = framer.push(chunk);
      if (messages === 'overflow') {
        this.log.warn({ flow: key }, `sip ${transport} message over the size limit; closing`);
        this.counters.streamsClosed++;
        socket.destroy();
        return;
      }
      for (const m of messages) this.receive(m, flow, true);
      if (framer.desynced && !socket.writableEnded) {
        // Answered above; what follows on this stream cannot be framed, so it ends once that answer is out.
        this.counters.streamsClosed++;
        socket.end();
        socket.setTimeout(1000, () => socket.destroy());
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.streams.delete(key);
      if (!this.closed) this.handlers.onFlowClosed(flow);
    });
    return flow;
  }

  private startWs(): Promise<void> {
    const server = this.opts.tls ? createHttpsServer({ cert: this.opts.tls.cert, key: this.opts.tls.key }) : createHttpServer();
    this.http = server;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    const wss = new WebSocketServer({
      server,
      maxPayload: 64 * 1024,
      handleProtocols: (protocols) => (protocols.has('sip') ? 'sip' : false),
    });
    this.wss = wss;
    wss.on('connection', (ws, req) => this.adoptWs(ws, plainAddress(req.socket.remoteAddress), req.socket.remotePort ?? 0));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.wsPort, this.opts.host, () => {
        server.off('error', reject);
        const address = server.address();
        this.ports.ws = typeof address === 'object' && address ? address.port : 0;
        resolve();
      });
    });
  }

  private adoptWs(ws: WebSocket, address: string, port: number): void {
    const flow: Destination = { transport: this.wsTransport, address, port };
    const key = flowKey(flow);
    if (ws.protocol !== 'sip') {
      ws.close(1002, 'subprotocol sip required');
      return;
    }
    this.streams.set(key, {
      write: (data) => {
        if (ws.readyState !== ws.OPEN) return false;
        // A failed send reports through its callback; without one ws would emit nothing and lose it quietly.
        ws.send(data.toString('utf8'), (err) => {
          if (err) ws.terminate();
        });
        return true;
      },
      close: () => ws.terminate(),
    });
    // RFC 7118 §5: one SIP message per WebSocket message, text or binary.
    ws.on('message', (data) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      this.receive(buf, flow);
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      this.streams.delete(key);
      if (!this.closed) this.handlers.onFlowClosed(flow);
    });
  }

  /** One message in; nothing a peer sends may throw out of here (a throw would end the process). */
  private receive(data: Buffer, flow: Destination, framed = false): void {
    if (this.closed) return;
    try {
      const read = readMessage(data, framed);
      if (!read.ok) {
        if (data.toString('latin1').trim().length === 0) return;
        this.counters.malformed++;
        this.log.debug({ flow: flowKey(flow), bytes: data.length, fault: read.reason }, 'sip message malformed');
        if (read.request) stampReceived(read.request, flow);
        this.handlers.onMalformed(read, flow);
        return;
      }
      const msg = read.msg;
      if (msg.kind === 'request') stampReceived(msg, flow);
      this.handlers.onMessage(msg, flow);
    } catch (err) {
      this.log.error({ err, flow: flowKey(flow) }, 'sip message handler failed');
    }
  }

  /** Whether a stream flow to this destination is open (a WS flow cannot be re-created by us). */
  hasFlow(dest: Destination): boolean {
    return dest.transport === 'udp' || this.streams.has(flowKey(dest));
  }

  /**
   * Sends; returns false when the destination cannot be reached (no flow, closed, an address or
   * port no socket accepts). Never throws: destinations come from Via and Contact values a peer
   * wrote, and node's sockets throw synchronously on a bad port or a socket closed under them.
   */
  send(dest: Destination, msg: SipMessage): boolean {
    if (this.closed) return false;
    const address = dest.address.replace(/^\[|\]$/g, '');
    // A name would be looked up in DNS for every datagram a stranger asks us to answer; every
    // destination we choose ourselves (trunks, contacts, received=) is an address already.
    if (!net.isIP(address) || !Number.isInteger(dest.port) || dest.port < 1 || dest.port > 65535) {
      this.log.debug({ to: flowKey(dest) }, 'sip send refused: not an address and port');
      this.counters.sendFailures++;
      return false;
    }
    try {
      return this.transmit({ ...dest, address }, serializeMessage(msg));
    } catch (err) {
      this.log.debug({ err, to: flowKey(dest) }, 'sip send failed');
      this.counters.sendFailures++;
      return false;
    }
  }

  private transmit(dest: Destination, data: Buffer): boolean {
    if (dest.transport === 'udp') {
      const udp = this.udp;
      if (!udp) return false;
      udp.send(data, dest.port, dest.address, (err) => {
        if (err) this.log.debug({ err, to: flowKey(dest) }, 'sip udp send failed');
      });
      return true;
    }
    const stream = this.streams.get(flowKey(dest));
    if (stream) return stream.write(data);
    if (dest.transport !== 'tcp') return false;
    // Outbound TCP (trunks): connect, then adopt the socket as a flow like an inbound one.
    const socket = net.connect({ host: dest.address, port: dest.port });
    this.sockets.add(socket);
    socket.once('connect', () => {
      const flow = this.adoptStream(socket, 'tcp');
      if (flowKey(flow) !== flowKey(dest)) this.streams.set(flowKey(dest), streamOf(socket));
      socket.write(data);
    });
    socket.once('error', (err) => {
      this.log.debug({ err, to: flowKey(dest) }, 'sip tcp connect failed');
      this.sockets.delete(socket);
      socket.destroy();
    });
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const stream of this.streams.values()) stream.close();
    this.streams.clear();
    for (const socket of this.sockets) socket.destroy();
    const waits: Promise<void>[] = [];
    if (this.udp) {
      const udp = this.udp;
      waits.push(new Promise((resolve) => udp.close(() => resolve())));
    }
    for (const server of [this.tcp, this.tlsServer]) if (server) waits.push(new Promise((resolve) => server.close(() => resolve())));
    if (this.wss) {
      const wss = this.wss;
      for (const client of wss.clients) client.terminate();
      waits.push(new Promise((resolve) => wss.close(() => resolve())));
    }
    if (this.http) {
      const http = this.http;
      http.closeAllConnections();
      waits.push(new Promise((resolve) => http.close(() => resolve())));
    }
    await Promise.all(waits);
  }
}

/** Listens on host:port (0: any free one); resolves the bound port. */
function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

/** RFC 3261 §18.2.1 and RFC 3581: note where a request really came from in its top Via. */
function stampReceived(msg: SipMessage, flow: Destination): void {
  const top = msg.headers.get('via');
  const via = top ? parseVia(top) : null;
  if (!via) return;
  if (via.host !== flow.address) via.params.set('received', flow.address);
  if (via.params.has('rport')) {
    via.params.set('rport', String(flow.port));
    via.params.set('received', flow.address);
  }
  msg.headers.shift('via');
  msg.headers.prepend('Via', formatVia(via));
}

/** Where a response to a request that arrived over `flow` goes (RFC 3261 §18.2.2, RFC 3581). */
export function responseDestination(viaValue: string | undefined, flow: Destination): Destination {
  if (flow.transport !== 'udp') return flow;
  const via = viaValue ? parseVia(viaValue) : null;
  if (!via) return flow;
  const rport = via.params.get('rport');
  const address = via.params.get('received') ?? via.host;
  const port = rport ? Number(rport) : (via.port ?? 5060);
  return { transport: 'udp', address, port };
}
