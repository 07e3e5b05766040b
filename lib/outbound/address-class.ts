/**
 * The class of an IP address for outbound calls. An IPv6 address that carries an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d` in any spelling, IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`, Teredo `2001::/32`) is judged as the IPv4 address it reaches: the URL parser writes
 * `[::ffff:169.254.169.254]` as `[::ffff:a9fe:a9fe]`, and a translator or relay would deliver to the IPv4 host.
 */
import { BlockList, isIP } from 'node:net';

export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'public';

const block = (family: 'ipv4' | 'ipv6', ranges: Array<[string, number]>) => {
  const b = new BlockList();
  for (const [a, p] of ranges) b.addSubnet(a, p, family);
  return b;
};

/** Cloud instance metadata services (AWS, GCP, Azure, Oracle: 169.254.169.254; AWS ECS and IPv6; Alibaba). */
const METADATA4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);
/** fd00:ec2::254 (AWS over IPv6), as its eight groups. */
const METADATA6 = new Set(['fd00:ec2:0:0:0:0:0:254']);
const LOOPBACK4 = block('ipv4', [['127.0.0.0', 8]]);
const LINK_LOCAL4 = block('ipv4', [['169.254.0.0', 16]]);
const PRIVATE4 = block('ipv4', [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['198.18.0.0', 15],
  ['192.0.0.0', 24],
]);
const UNSPECIFIED4 = block('ipv4', [['0.0.0.0', 8]]);
const MULTICAST4 = block('ipv4', [
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]);
const LINK_LOCAL6 = block('ipv6', [['fe80::', 10]]);
// fc00::/7 unique local, fec0::/10 the old site-local, 64:ff9b:1::/48 a network's own NAT64 translator.
const PRIVATE6 = block('ipv6', [
  ['fc00::', 7],
  ['fec0::', 10],
  ['64:ff9b:1::', 48],
]);
const MULTICAST6 = block('ipv6', [['ff00::', 8]]);

/** The eight 16-bit groups of an IPv6 address (a zone id dropped), or undefined when it is not one. */
export function ipv6Groups(address: string): number[] | undefined {
  const addr = address.replace(/%.*$/, '');
  if (isIP(addr) !== 6) return undefined;
  let text = addr.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address delivers to, when it embeds one in a form that routes to it. */
export function embeddedIpv4(groups: number[]): string | undefined {
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const [g0, g1, g2, , g4, g5, g6, g7] = groups;
  if (zero(0, 5) && g5 === 0xffff) return ipv4Of(g6, g7); // ::ffff:a.b.c.d, IPv4-mapped
  if (zero(0, 4) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7); // ::ffff:0:a.b.c.d, SIIT
  if (zero(0, 6) && (g6 !== 0 || g7 > 1)) return ipv4Of(g6, g7); // ::a.b.c.d, IPv4-compatible
  if (g0 === 0x64 && g1 === 0xff9b && zero(2, 6)) return ipv4Of(g6, g7); // 64:ff9b::/96, NAT64
  if (g0 === 0x2002) return ipv4Of(g1, g2); // 2002:AABB:CCDD::/48, 6to4
  if (g0 === 0x2001 && g1 === 0) return ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff); // Teredo: the client, inverted
  return undefined;
}

/** The class of one IP address; an IPv6 address that embeds an IPv4 address is judged as that address. */
export function classifyAddress(ip: string): AddressClass {
  const addr = ip.toLowerCase().replace(/%.*$/, '');
  if (isIP(addr) === 4) {
    if (METADATA4.has(addr)) return 'metadata';
    if (LOOPBACK4.check(addr, 'ipv4')) return 'loopback';
    if (LINK_LOCAL4.check(addr, 'ipv4')) return 'link-local';
    if (UNSPECIFIED4.check(addr, 'ipv4')) return 'unspecified';
    if (MULTICAST4.check(addr, 'ipv4')) return 'multicast';
    if (PRIVATE4.check(addr, 'ipv4')) return 'private';
    return 'public';
  }
  const groups = ipv6Groups(addr);
  if (!groups) return 'unspecified';
  const v4 = embeddedIpv4(groups);
  if (v4) return classifyAddress(v4);
  if (groups.slice(0, 7).every((g) => g === 0)) return groups[7] === 1 ? 'loopback' : 'unspecified';
  if (METADATA6.has(groups.map((g) => g.toString(16)).join(':'))) return 'metadata';
  if (LINK_LOCAL6.check(addr, 'ipv6')) return 'link-local';
  if (MULTICAST6.check(addr, 'ipv6')) return 'multicast';
  if (PRIVATE6.check(addr, 'ipv6')) return 'private';
  return 'public';
}
