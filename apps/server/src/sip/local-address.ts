import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { parseNameAddr, parseUri, parseVia } from './address.js';
import type { SipMessage } from './message.js';
import { BRANCH_COOKIE } from './transaction.js';
import type { Destination, SipTransports, TransportName } from './transport.js';

/** How the server names itself in Via and Record-Route, and recognises its own URIs. */
export class LocalAddress {
  constructor(
    readonly host: string,
    private readonly transports: SipTransports,
  ) {}

  private portOf(transport: TransportName): number {
    const p = this.transports.ports;
    return transport === 'udp' ? p.udp : transport === 'tcp' ? p.tcp : p.ws;
  }

  /** A new top Via for a request we send; `loopHash` lets §16.3 loop detection find it again. */
  via(transport: TransportName, loopHash = 'x'): string {
    const branch = `${BRANCH_COOKIE}-atr-${loopHash}-${randomBytes(6).toString('hex')}`;
    return `SIP/2.0/${transport.toUpperCase()} ${this.host}:${this.portOf(transport)};branch=${branch};rport`;
  }

  recordRoute(transport: TransportName): string {
    const param = transport === 'udp' ? '' : `;transport=${transport === 'wss' ? 'ws' : transport}`;
    return `<sip:${this.host}:${this.portOf(transport)}${param};lr>`;
  }

  /** Whether a URI (possibly in <>) points at this server. */
  isLocalUri(value: string): boolean {
    const addr = parseNameAddr(value);
    const uri = addr ? parseUri(addr.uri) : null;
    if (!uri) return false;
    const port = uri.port ?? 5060;
    const p = this.transports.ports;
    return this.isLocalHost(uri.host) && (port === p.udp || port === p.tcp || port === p.ws);
  }

  isLocalHost(host: string): boolean {
    return host === this.host || (this.host === '0.0.0.0' && (host === '127.0.0.1' || host === 'localhost'));
  }

  /** §16.3 step 4: a request carrying our Via with this hash has been here in this very form. */
  sentByUs(msg: SipMessage, loopHash: string): boolean {
    return msg.headers.getAll('via').some((value) => {
      const via = parseVia(value);
      return !!via && this.isLocalHost(via.host) && (via.params.get('branch') ?? '').includes(`-atr-${loopHash}-`);
    });
  }
}

/** Resolves a SIP URI to where we send (RFC 3263 reduced to A records: no NAPTR or SRV). */
export async function resolveUri(text: string): Promise<Destination | null> {
  const uri = parseUri(text);
  if (!uri) return null;
  const transportParam = (uri.params.get('transport') ?? '').toLowerCase();
  const transport: TransportName = transportParam === 'tcp' ? 'tcp' : 'udp';
  const host = uri.host.replace(/^\[|\]$/g, '');
  let address = host;
  if (!net.isIP(host)) {
    try {
      address = (await lookup(host, { family: 4 })).address;
    } catch {
      return null;
    }
  }
  return { transport, address, port: uri.port ?? 5060 };
}
