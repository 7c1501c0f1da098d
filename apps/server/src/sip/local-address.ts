import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { parseNameAddr, parseUri, parseVia } from './address.js';
import type { SipMessage } from './message.js';
import { BRANCH_COOKIE } from './transaction.js';
import type { Destination, SipTransports, TransportName } from './transport.js';

/**
 * The project's SIP network settings (spec comms §3, SIP tab) as the server applies them: the
 * address peers inside the local networks reach us at (internal IP) and the one peers outside
 * them do (external IP), and whether 183 Session Progress with SDP (early media) is relayed.
 */
export interface SipNetworkSettings {
  internalIp: string | null;
  externalIp: string | null;
  /** IPv4 networks (`10.0.0.0/8`, or one address) counted as inside; empty: the private ranges. */
  localNetworks: string[];
  earlyMedia: boolean;
}

export const DEFAULT_NETWORK: SipNetworkSettings = { internalIp: null, externalIp: null, localNetworks: [], earlyMedia: true };

/** RFC 1918, loopback and link-local: inside when the project names no local networks. */
const PRIVATE_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16'];

function ipv4ToInt(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    const v = Number(p);
    if (!/^\d{1,3}$/.test(p) || v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

/** Whether an IPv4 address lies in a network (`a.b.c.d/len` or one address). */
export function inNetwork(address: string, network: string): boolean {
  const [base = '', lenText] = network.split('/');
  const a = ipv4ToInt(address.replace(/^::ffff:/, ''));
  const b = ipv4ToInt(base);
  if (a === null || b === null) return address === network;
  const len = lenText === undefined ? 32 : Number(lenText);
  if (!(len >= 0 && len <= 32)) return false;
  const size = 2 ** (32 - len);
  return Math.floor(a / size) === Math.floor(b / size);
}

/** How the server names itself in Via and Record-Route, and recognises its own URIs. */
export class LocalAddress {
  network: SipNetworkSettings = DEFAULT_NETWORK;

  constructor(
    readonly host: string,
    private readonly transports: SipTransports,
  ) {}

  /** Whether a peer's address is inside the project's local networks (the private ranges when none are named). */
  isInside(address: string): boolean {
    const nets = this.network.localNetworks.length > 0 ? this.network.localNetworks : PRIVATE_NETWORKS;
    return nets.some((n) => inNetwork(address, n));
  }

  /** The address a peer at `address` reaches us at: the internal IP inside, the external IP outside, else the host. */
  hostFor(address: string | undefined): string {
    if (address === undefined) return this.host;
    const { internalIp, externalIp } = this.network;
    if (!internalIp && !externalIp) return this.host;
    return (this.isInside(address) ? internalIp : externalIp) ?? this.host;
  }

  private portOf(transport: TransportName): number {
    const p = this.transports.ports;
    return transport === 'udp' ? p.udp : transport === 'tcp' ? p.tcp : transport === 'tls' ? (p.tls ?? 0) : p.ws;
  }

  /** A new top Via for a request we send; `loopHash` lets §16.3 loop detection find it again. */
  via(transport: TransportName, loopHash = 'x', peer?: string): string {
    const branch = `${BRANCH_COOKIE}-atr-${loopHash}-${randomBytes(6).toString('hex')}`;
    return `SIP/2.0/${transport.toUpperCase()} ${this.hostFor(peer)}:${this.portOf(transport)};branch=${branch};rport`;
  }

  /** Over TLS with `;transport=tls` (as Kamailio writes it), so the peer's in-dialog requests come back over TLS. */
  recordRoute(transport: TransportName, peer?: string): string {
    const param = transport === 'udp' ? '' : `;transport=${transport === 'wss' ? 'ws' : transport}`;
    return `<sip:${this.hostFor(peer)}:${this.portOf(transport)}${param};lr>`;
  }

  /** Whether a URI (possibly in <>) points at this server. */
  isLocalUri(value: string): boolean {
    const addr = parseNameAddr(value);
    const uri = addr ? parseUri(addr.uri) : null;
    if (!uri) return false;
    const tls = uri.scheme === 'sips' || uri.params.get('transport')?.toLowerCase() === 'tls';
    const port = uri.port ?? (tls ? 5061 : 5060);
    const p = this.transports.ports;
    return this.isLocalHost(uri.host) && (port === p.udp || port === p.tcp || port === p.ws || port === p.tls);
  }

  isLocalHost(host: string): boolean {
    if (host === this.network.internalIp || host === this.network.externalIp) return true;
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

/**
 * An IP address in one spelling: IPv4 shorthand (`127.1`, `0x7f.1`, `2130706433`) as the dotted
 * quad it means, IPv6 compressed and lower-case, an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`)
 * as its IPv4 address; null when `host` is no address (a name).
 */
export function canonicalAddress(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '');
  let text: string;
  try {
    // The WHATWG URL parser reads every IPv4 spelling inet_aton does, and writes IPv6 canonically.
    text = new URL(`http://${net.isIPv6(bare) ? `[${bare}]` : bare}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
  if (net.isIPv4(text)) return text;
  if (!net.isIPv6(text)) return null;
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(text);
  if (!mapped) return text;
  const hi = Number.parseInt(mapped[1] ?? '0', 16);
  const lo = Number.parseInt(mapped[2] ?? '0', 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Every address a URI host stands for (itself when it is one, else what the name resolves to), canonical; [] when none. */
export async function hostAddresses(host: string, timeoutMs = 3000): Promise<string[]> {
  const literal = canonicalAddress(host);
  if (literal) return [literal];
  const found = await Promise.race([
    lookup(host.replace(/^\[|\]$/g, ''), { all: true }).catch(() => []),
    new Promise<[]>((resolve) => setTimeout(() => resolve([]), timeoutMs).unref()),
  ]);
  return found.map((a) => canonicalAddress(a.address)).filter((a): a is string => a !== null);
}

/** A URI host's IPv4 address (or the IPv6 address it is), resolved by A records; null when it resolves to nothing. */
export async function resolveHost(uriHost: string): Promise<string | null> {
  const host = uriHost.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) return host;
  try {
    return (await lookup(host, { family: 4 })).address;
  } catch {
    return null;
  }
}

/** Resolves a SIP URI to where we send (RFC 3263 reduced to A records: no NAPTR or SRV). */
export async function resolveUri(text: string): Promise<Destination | null> {
  const uri = parseUri(text);
  if (!uri) return null;
  const transportParam = (uri.params.get('transport') ?? '').toLowerCase();
  const transport: TransportName = transportParam === 'tcp' ? 'tcp' : 'udp';
  const address = await resolveHost(uri.host);
  return address ? { transport, address, port: uri.port ?? 5060 } : null;
}
