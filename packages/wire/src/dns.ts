import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** One resolved address: `family` 4 or 6. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Turns a host name into every address it has. Injectable so tests can move a broker or
 * answer IPv6 first; the default asks the system resolver (`dns.lookup`, all addresses).
 */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver: `dns.lookup(host, { all: true })`, in the order the system gives. */
export const systemResolver: Resolver = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A broker address split into host and port. */
export interface BrokerAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `host:port`, `[v6]:port` or a bare IPv6 literal with a trailing port
 * (`::1:9092` is ambiguous and rejected: write `[::1]:9092`).
 *
 * @throws TypeError when the text has no valid port or an unbracketed IPv6 literal
 */
export function parseBrokerAddress(text: string): BrokerAddress {
  const trimmed = text.trim();
  let host: string;
  let portText: string;
  if (trimmed.startsWith('[')) {
    const close = trimmed.indexOf(']');
    if (close < 0 || trimmed[close + 1] !== ':') {
      throw new TypeError(`broker address "${trimmed}": expected [ipv6]:port`);
    }
    host = trimmed.slice(1, close);
    portText = trimmed.slice(close + 2);
    if (isIP(host) !== 6) throw new TypeError(`broker address "${trimmed}": not an IPv6 literal`);
  } else {
    const colon = trimmed.lastIndexOf(':');
    if (colon <= 0) throw new TypeError(`broker address "${trimmed}": expected host:port`);
    host = trimmed.slice(0, colon);
    portText = trimmed.slice(colon + 1);
    if (host.includes(':')) {
      throw new TypeError(
        `broker address "${trimmed}": put IPv6 literals in brackets ([::1]:9092)`,
      );
    }
  }
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new TypeError(`broker address "${trimmed}": port must be 1-65535`);
  }
  return { host, port };
}

/** `host:port`, bracketing IPv6 literals, as used in log lines and error messages. */
export function formatBrokerAddress(address: BrokerAddress): string {
  return isIP(address.host) === 6
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}

/**
 * Every address to try for `host`, IPv4 first then IPv6, each family in resolver order,
 * duplicates removed (`client.dns.lookup=use_all_dns_ips`). A literal IP skips the resolver.
 * Called on every connect: a broker that moved is found at its new address.
 *
 * @throws whatever the resolver throws (the caller wraps it as a connection failure)
 */
export async function resolveBrokerHost(
  host: string,
  resolver: Resolver,
): Promise<ResolvedAddress[]> {
  const literal = isIP(host);
  if (literal !== 0) return [{ address: host, family: literal === 6 ? 6 : 4 }];
  const found = await resolver(host);
  const v4: ResolvedAddress[] = [];
  const v6: ResolvedAddress[] = [];
  const seen = new Set<string>();
  for (const a of found) {
    if (seen.has(a.address)) continue;
    seen.add(a.address);
    (a.family === 6 ? v6 : v4).push(a);
  }
  return v4.concat(v6);
}
