/**
 * Where the language-model endpoint may point. The service posts prompts (and the secret headers) to it from
 * inside its network, so an endpoint is a way to reach internal hosts: link-local and cloud metadata addresses
 * are always refused, private ranges only when the settings allow them, loopback is allowed (a model on the
 * same machine). The host name is resolved and every address it gives is checked, at save time and again
 * before each call (a name may resolve elsewhere later); redirects are not followed by the client.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'public';

const v4 = (ranges: Array<[string, number]>) => {
  const b = new BlockList();
  for (const [a, p] of ranges) b.addSubnet(a, p, 'ipv4');
  return b;
};
const v6 = (ranges: Array<[string, number]>) => {
  const b = new BlockList();
  for (const [a, p] of ranges) b.addSubnet(a, p, 'ipv6');
  return b;
};

/** Cloud instance metadata services (AWS, GCP, Azure, Oracle: 169.254.169.254; AWS IPv6; Alibaba). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);
const METADATA_NAMES =
  /^(metadata|metadata\.google\.internal|metadata\.azure\.internal|instance-data(\.ec2\.internal)?)\.?$/i;
const LOOPBACK4 = v4([['127.0.0.0', 8]]);
const LINK_LOCAL4 = v4([['169.254.0.0', 16]]);
const PRIVATE4 = v4([
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['198.18.0.0', 15],
]);
const UNSPECIFIED4 = v4([['0.0.0.0', 8]]);
const MULTICAST4 = v4([
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]);
const LINK_LOCAL6 = v6([['fe80::', 10]]);
const PRIVATE6 = v6([['fc00::', 7]]);
const MULTICAST6 = v6([['ff00::', 8]]);

/** The class of one IP address (IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry). */
export function classifyAddress(ip: string): AddressClass {
  let addr = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (mapped) addr = mapped[1];
  if (METADATA.has(addr)) return 'metadata';
  if (isIP(addr) === 4) {
    if (LOOPBACK4.check(addr, 'ipv4')) return 'loopback';
    if (LINK_LOCAL4.check(addr, 'ipv4')) return 'link-local';
    if (UNSPECIFIED4.check(addr, 'ipv4')) return 'unspecified';
    if (MULTICAST4.check(addr, 'ipv4')) return 'multicast';
    if (PRIVATE4.check(addr, 'ipv4')) return 'private';
    return 'public';
  }
  if (addr === '::1') return 'loopback';
  if (addr === '::') return 'unspecified';
  if (LINK_LOCAL6.check(addr, 'ipv6')) return 'link-local';
  if (MULTICAST6.check(addr, 'ipv6')) return 'multicast';
  if (PRIVATE6.check(addr, 'ipv6')) return 'private';
  return 'public';
}

export interface EndpointPolicy {
  /** Private network ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) are allowed. */
  allowPrivateNetwork?: boolean;
}

export type Resolve = (host: string) => Promise<string[]>;
const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why `url` may not be called under `policy`, or undefined when it may. */
export async function endpointRefusal(
  url: string,
  policy: EndpointPolicy,
  resolve: Resolve = systemResolve,
): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (u.username || u.password) return 'must not carry a user name or password; send them as headers';
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (METADATA_NAMES.test(host))
    return `points at a cloud metadata service (${host}), which is never allowed`;
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (e) {
      return `names a host that does not resolve (${host}: ${(e as { code?: string }).code ?? 'lookup failed'})`;
    }
    if (addresses.length === 0) return `names a host that does not resolve (${host})`;
  }
  for (const a of addresses) {
    const c = classifyAddress(a);
    if (c === 'metadata') return `points at a cloud metadata address (${a}), which is never allowed`;
    if (c === 'link-local') return `points at a link-local address (${a}), which is never allowed`;
    if (c === 'unspecified' || c === 'multicast')
      return `points at an address that cannot be an endpoint (${a})`;
    if (c === 'private' && !policy.allowPrivateNetwork)
      return `points at a private network address (${a}); set allowPrivateNetwork: true to allow private ranges`;
  }
  return undefined;
}
