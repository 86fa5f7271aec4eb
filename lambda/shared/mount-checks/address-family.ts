import { CheckResult, fail, pass, warn } from './check-result';
import type { DnsLookup } from './dns-lookup';

/**
 * The IPv6/NAT64 pitfall of aws/efs-utils #356: amazon-efs-utils resolves a mount target's name
 * for any address family (AF_UNSPEC) and connects to the first address, which on a dual-stack or
 * DNS64 host may be IPv6: a DNS64-synthesized address (64:ff9b::/96, RFC 6052) leads to a NAT64
 * gateway that does not carry NFS to the mount target, and an address this host has no IPv6 route
 * to fails, or times out, instead of falling back to IPv4. The maintainers closed the issue
 * recommending dual-stack (or IPv6) mount targets; a client can also prefer IPv4
 * (`precedence ::ffff:0:0/96 100` in /etc/gai.conf, a workaround reported in efs-utils #271) or mount
 * by address (`-o mounttargetip=`).
 *
 * The routes come from /proc/net/ipv6_route (Linux): a route that is not a reject route and whose
 * prefix covers the address.
 */

export const ADDRESS_FAMILY_CHECK = 'address-family';
export const IPV6_ROUTE_TABLE = '/proc/net/ipv6_route';

export interface Ipv6Route {
  readonly prefix: Buffer;
  readonly length: number;
  readonly device: string;
}

/** RTF_REJECT (linux/ipv6_route.h): the kernel's "unreachable" routes, e.g. the default one on lo. */
const RTF_REJECT = 0x0200;

export function parseIpv6Routes(table: string): Ipv6Route[] {
  return table.split('\n').map((line) => line.trim().split(/\s+/)).filter((f) => f.length >= 10 && /^[0-9a-f]{32}$/.test(f[0]))
    .filter((f) => (parseInt(f[8], 16) & RTF_REJECT) === 0)
    .map((f) => ({ prefix: Buffer.from(f[0], 'hex'), length: parseInt(f[1], 16), device: f[9] }));
}

/** The 16 bytes of an IPv6 address (any spelling, an embedded IPv4 part too). */
export function ipv6Bytes(address: string): Buffer {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

export function hasIpv6Route(routes: Ipv6Route[], address: string): boolean {
  const bytes = ipv6Bytes(address);
  return routes.some((r) => covers(r.prefix, r.length, bytes));
}

function covers(prefix: Buffer, length: number, address: Buffer): boolean {
  for (let bit = 0; bit < length; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((prefix[bit >> 3] & mask) !== (address[bit >> 3] & mask)) return false;
  }
  return true;
}

/** In the well-known NAT64 prefix 64:ff9b::/96: synthesized by DNS64, not a mount target's own. */
export function isNat64(address: string): boolean {
  return covers(ipv6Bytes('64:ff9b::'), 96, ipv6Bytes(address));
}

/** One judgement over the lookups of a file system's names (A and AAAA of each) and this host's IPv6 routes. */
export function addressFamilyCheck(lookups: DnsLookup[], routes: Ipv6Route[]): CheckResult {
  const v6 = lookups.filter((l) => l.type === 'AAAA' && l.addresses.length);
  if (v6.length === 0) return pass(ADDRESS_FAMILY_CHECK, 'no name resolves to an IPv6 address (AAAA): clients connect over IPv4, so the IPv6-first pitfall (aws/efs-utils #356) does not apply');
  const v4 = (name: string) => lookups.find((l) => l.name === name && l.type === 'A')?.addresses[0];
  const preferIpv4 = (name: string) => `prefer IPv4 on this host (add "precedence ::ffff:0:0/96 100" to /etc/gai.conf) or mount by address (-o mounttargetip=${v4(name) ?? '<IPv4 address>'})`;
  for (const l of v6) {
    const synthesized = l.addresses.filter(isNat64);
    if (synthesized.length) {
      return warn(ADDRESS_FAMILY_CHECK, `${l.name} resolves (AAAA) to ${synthesized.join(', ')}, an address DNS64 made up (64:ff9b::/96): amazon-efs-utils connects to the first address of any family, and NFS through NAT64 does not reach the mount target, so the mount times out (aws/efs-utils #356)`,
        `${preferIpv4(l.name)}; or make the mount target dual-stack, so the name has an IPv6 address of its own`);
    }
  }
  for (const l of v6) {
    const unroutable = l.addresses.filter((a) => !hasIpv6Route(routes, a));
    if (unroutable.length === 0) continue;
    const detail = `${l.name} resolves (AAAA) to ${unroutable.join(', ')}, but this host has no IPv6 route to ${unroutable.length === 1 ? 'it' : 'them'}`;
    if (!v4(l.name)) return fail(ADDRESS_FAMILY_CHECK, `${detail}, and to no IPv4 address: this host cannot reach the mount target`, 'give this host an IPv6 address and route (a dual-stack subnet), or make the mount target dual-stack');
    return warn(ADDRESS_FAMILY_CHECK, `${detail}: a client that takes the IPv6 address first (amazon-efs-utils does, aws/efs-utils #356) fails or times out instead of using ${v4(l.name)}`,
      `${preferIpv4(l.name)}; or give this host an IPv6 route (a dual-stack subnet)`);
  }
  return pass(ADDRESS_FAMILY_CHECK, `${v6.map((l) => l.name).join(', ')} resolve${v6.length === 1 ? 's' : ''} to IPv6 addresses this host has a route to, none from DNS64`);
}
