/**
 * SIP URIs, name-addr values (From, To, Contact, Route) and Via headers (RFC 3261 §19.1, §20).
 * Like the message parser, these return null on anything they cannot read.
 */

export interface SipUri {
  scheme: 'sip' | 'sips';
  user: string | null;
  host: string;
  port: number | null;
  /** URI parameters, names lower-cased; a flag parameter has the value null. */
  params: Map<string, string | null>;
  /** The `?headers` part, kept verbatim. */
  headers: string;
}

function parseParams(text: string): Map<string, string | null> {
  const params = new Map<string, string | null>();
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq < 0) params.set(trimmed.toLowerCase(), null);
    else params.set(trimmed.slice(0, eq).trim().toLowerCase(), trimmed.slice(eq + 1).trim());
  }
  return params;
}

function formatParams(params: Map<string, string | null>): string {
  let out = '';
  for (const [k, v] of params) out += v === null ? `;${k}` : `;${k}=${v}`;
  return out;
}

export function parseUri(text: string): SipUri | null {
  const m = /^(sips?):(?:([^@]*)@)?(\[[0-9a-fA-F:.]+\]|[^:;?]+)(?::(\d{1,5}))?((?:;[^?]*)?)(?:\?(.*))?$/i.exec(text.trim());
  if (!m?.[1] || !m[3]) return null;
  const port = m[4] ? Number(m[4]) : null;
  if (port !== null && port > 65535) return null;
  const userPart = m[2] ?? null;
  return {
    scheme: m[1].toLowerCase() === 'sips' ? 'sips' : 'sip',
    // A password in the user part (user:password) is deprecated; it is dropped.
    user: userPart === null ? null : decodeURIComponentSafe(userPart.split(':')[0] ?? ''),
    host: m[3].toLowerCase(),
    port,
    params: parseParams(m[5] ?? ''),
    headers: m[6] ?? '',
  };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function formatUri(uri: SipUri): string {
  // '+' is legal in a SIP user part (international numbers); '#' and the like stay escaped.
  const user = uri.user === null ? '' : `${encodeURIComponent(uri.user).replace(/%2B/g, '+')}@`;
  const port = uri.port === null ? '' : `:${uri.port}`;
  const headers = uri.headers ? `?${uri.headers}` : '';
  return `${uri.scheme}:${user}${uri.host}${port}${formatParams(uri.params)}${headers}`;
}

/** A name-addr or addr-spec with header parameters (From, To, Contact, Route). */
export interface NameAddr {
  displayName: string | null;
  uri: string;
  params: Map<string, string | null>;
}

export function parseNameAddr(text: string): NameAddr | null {
  const trimmed = text.trim();
  const angle = /^(?:("(?:[^"\\]|\\.)*")|([^<"]*?))\s*<([^>]*)>(.*)$/.exec(trimmed);
  if (angle) {
    const display = angle[1] ? angle[1].slice(1, -1) : angle[2]?.trim() || null;
    return { displayName: display, uri: angle[3] ?? '', params: parseParams(angle[4] ?? '') };
  }
  if (trimmed.includes('<') || trimmed.includes('"')) return null;
  // addr-spec form: parameters after the URI belong to the header, not the URI (RFC 3261 §20.10).
  const semi = trimmed.indexOf(';');
  const uri = semi < 0 ? trimmed : trimmed.slice(0, semi);
  if (!uri) return null;
  return { displayName: null, uri, params: parseParams(semi < 0 ? '' : trimmed.slice(semi)) };
}

export function formatNameAddr(addr: NameAddr): string {
  // Quotes, backslashes and control characters go: a name (from a phone or from the directory)
  // must neither end the quoted string early nor start a header of its own.
  const name = [...(addr.displayName ?? '')]
    .filter((c) => c !== '"' && c !== '\\' && c.charCodeAt(0) > 31 && c.charCodeAt(0) !== 127)
    .join('')
    .trim();
  const display = name ? `"${name}" ` : '';
  return `${display}<${addr.uri}>${formatParams(addr.params)}`;
}

export function tagOf(headerValue: string | undefined): string | null {
  if (!headerValue) return null;
  return parseNameAddr(headerValue)?.params.get('tag') ?? null;
}

export function withTag(headerValue: string, tag: string): string {
  const addr = parseNameAddr(headerValue);
  if (!addr) return headerValue;
  addr.params.set('tag', tag);
  return formatNameAddr(addr);
}

/** The user part of a From/To header's URI. */
export function userOf(headerValue: string | undefined): string | null {
  const addr = headerValue ? parseNameAddr(headerValue) : null;
  return addr ? (parseUri(addr.uri)?.user ?? null) : null;
}

export interface Via {
  transport: string;
  host: string;
  port: number | null;
  params: Map<string, string | null>;
}

export function parseVia(value: string): Via | null {
  const m = /^SIP\s*\/\s*2\.0\s*\/\s*([A-Za-z]+)\s+(\[[0-9a-fA-F:.]+\]|[^\s:;]+)(?:\s*:\s*(\d+))?\s*((?:;.*)?)$/i.exec(value.trim());
  if (!m?.[1] || !m[2]) return null;
  return { transport: m[1].toUpperCase(), host: m[2].toLowerCase(), port: m[3] ? Number(m[3]) : null, params: parseParams(m[4] ?? '') };
}

export function formatVia(via: Via): string {
  const port = via.port === null ? '' : `:${via.port}`;
  return `SIP/2.0/${via.transport} ${via.host}${port}${formatParams(via.params)}`;
}

/** The number before a dash: a forked contact's user part is `number-suffix` (a browser's `301-web1`). */
export const baseNumber = (n: string): string => n.split('-')[0] ?? n;
