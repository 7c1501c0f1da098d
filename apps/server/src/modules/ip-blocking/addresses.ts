import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** An address as it is compared and stored: an IPv4-mapped IPv6 address is its IPv4 one; IPv6 compressed. */
function parse(text: string): Address | null {
  try {
    return ipaddr.process(text.trim());
  } catch {
    return null;
  }
}

/** A caller's address in canonical form (`::ffff:10.0.0.1` is `10.0.0.1`); the text itself when it is none. */
export function canonicalAddress(text: string): string {
  return parse(text)?.toString() ?? text;
}

/**
 * A whitelist entry in canonical form: an address, or a range named by its network address
 * (`10.1.2.3/8` is `10.0.0.0/8`). Null when it is neither (the contract has refused it already).
 */
export function canonicalEntry(text: string): string | null {
  if (!text.includes('/')) return parse(text)?.toString() ?? null;
  try {
    const [addr, bits] = ipaddr.parseCIDR(text.trim());
    const network =
      addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text.trim()) : ipaddr.IPv6.networkAddressFromCIDR(text.trim());
    return `${network.toString()}/${bits}`;
  } catch {
    return null;
  }
}

/** Whitelist entries of one service, answering whether an address falls in any of them. */
export class AddressSet {
  private readonly exact = new Set<string>();
  private readonly ranges: Array<[Address, number]> = [];

  constructor(entries: Iterable<string>) {
    for (const entry of entries) {
      if (!entry.includes('/')) this.exact.add(canonicalAddress(entry));
      else {
        try {
          this.ranges.push(ipaddr.parseCIDR(entry));
        } catch {
          // A stored entry always parses (it was canonicalised before it was written).
        }
      }
    }
  }

  has(address: string): boolean {
    const canonical = canonicalAddress(address);
    if (this.exact.has(canonical)) return true;
    if (!this.ranges.length) return false;
    const addr = parse(canonical);
    if (!addr) return false;
    return this.ranges.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
  }

  get size(): number {
    return this.exact.size + this.ranges.length;
  }
}
