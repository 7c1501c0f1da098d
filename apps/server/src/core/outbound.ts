import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where the server may connect on someone else's say-so (a webhook's URL, a sign-on provider's
 * issuer): ordinary public unicast addresses only. The classification is ipaddr.js's, which follows
 * IANA's special-purpose registries (private, loopback, link-local, CGNAT, benchmarking
 * 198.18.0.0/15, documentation, multicast, reserved, IPv4-mapped, 6to4, Teredo…) — a hand list
 * here missed ranges.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === 'unicast';
}

/** Not an ordinary public address: inside the site, special-purpose, or not an address at all. */
export const isPrivateAddress = (address: string): boolean => !isPublicAddress(address);

export type Resolve = (host: string) => Promise<string[]>;

export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why a host may not be reached (as a field message), or its addresses. */
export async function outboundAddresses(
  host: string,
  opts: { allowPrivate: boolean; resolve?: Resolve },
): Promise<{ ok: true; addresses: string[] } | { ok: false; message: string }> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : await (opts.resolve ?? systemResolve)(bare);
  } catch {
    return { ok: false, message: 'the address cannot be resolved' };
  }
  if (!addresses.length || addresses.some((a) => !isIP(a))) return { ok: false, message: 'the address cannot be resolved' };
  if (!opts.allowPrivate && addresses.some(isPrivateAddress)) return { ok: false, message: 'private addresses are not allowed' };
  return { ok: true, addresses };
}

/**
 * The one address a request to `url` connects to: its host resolved once, every address it has
 * allowed, the first taken. Connecting to that very address (postBody's `pinned`) instead of
 * resolving again closes DNS rebinding: a name that answered a public address to the check cannot
 * answer a private one to the connection.
 */
export async function outboundTarget(
  url: string,
  opts: { allowPrivate: boolean; resolve?: Resolve },
): Promise<{ ok: true; pinned: { address: string; family: 4 | 6 } } | { ok: false; message: string }> {
  const found = await outboundAddresses(new URL(url).hostname, opts);
  if (!found.ok) return found;
  const address = found.addresses[0] as string;
  return { ok: true, pinned: { address, family: isIP(address) as 4 | 6 } };
}
