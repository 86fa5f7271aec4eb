import { Resolver } from 'node:dns/promises';

/**
 * DNS lookups of the file system's names through a resolver of our own (node:dns `Resolver`,
 * c-ares, no cache): every attempt asks the server again, as a client mounting for the first time
 * would. The servers default to the system's (/etc/resolv.conf: the VPC's resolver in a Lambda or an
 * instance); tests point them at a stub server on 127.0.0.1.
 */

export type RecordType = 'A' | 'AAAA';

export interface DnsLookup {
  readonly name: string;
  readonly type: RecordType;
  /** The addresses the name resolved to; empty when it did not. */
  readonly addresses: string[];
  /** Why it did not, in words: 'no such name (NXDOMAIN)', 'no answer within 2 s', ... */
  readonly problem?: string;
}

export interface ResolverOptions {
  /** `ip` or `ip:port` (`[ip]:port` for IPv6) of the servers to ask; default: the system's. */
  readonly servers?: string[];
  /** How long one query waits for an answer before it is sent again, in ms. */
  readonly timeoutMs?: number;
  /** Times a query is sent before the lookup gives up. */
  readonly tries?: number;
}

export function newResolver(options: ResolverOptions = {}): Resolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 2000, tries: options.tries ?? 2 });
  if (options.servers?.length) resolver.setServers(options.servers);
  return resolver;
}

export async function lookup(resolver: Resolver, name: string, type: RecordType): Promise<DnsLookup> {
  try {
    const addresses = type === 'A' ? await resolver.resolve4(name) : await resolver.resolve6(name);
    return { name, type, addresses };
  } catch (err) {
    return { name, type, addresses: [], problem: lookupProblem((err as NodeJS.ErrnoException).code, type) };
  }
}

/** c-ares' error codes in words. */
function lookupProblem(code: string | undefined, type: RecordType): string {
  switch (code) {
    case 'ENOTFOUND': return 'no such name (NXDOMAIN)';
    case 'ENODATA': return `the name exists but has no ${type} record`;
    case 'ETIMEOUT': return 'the DNS server did not answer';
    case 'ECONNREFUSED': return 'the DNS server refused the connection';
    case 'ESERVFAIL': return 'the DNS server failed (SERVFAIL)';
    case 'EREFUSED': return 'the DNS server refused the query (REFUSED)';
    default: return `lookup failed (${code ?? 'unknown error'})`;
  }
}
