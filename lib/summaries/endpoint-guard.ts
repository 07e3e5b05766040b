/**
 * Where the language-model endpoint may point. The service posts prompts (and the secret headers) to it from
 * inside its network, so an endpoint is a way to reach internal hosts: link-local and cloud metadata addresses
 * are always refused, private ranges only when the settings allow them, loopback is allowed (a model on the
 * same machine). The host name is resolved and every address it gives is checked, at save time and again
 * before each call, and the call itself connects only to an address checked while connecting
 * (`pinnedFetch`: no DNS rebinding between the check and the connection); redirects are not followed.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
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
    const why = addressRefusal(a, policy);
    if (why) return why;
  }
  return undefined;
}

/** Why one address may not be connected to under `policy`. */
export function addressRefusal(a: string, policy: EndpointPolicy): string | undefined {
  const c = classifyAddress(a);
  if (c === 'metadata') return `points at a cloud metadata address (${a}), which is never allowed`;
  if (c === 'link-local') return `points at a link-local address (${a}), which is never allowed`;
  if (c === 'unspecified' || c === 'multicast')
    return `points at an address that cannot be an endpoint (${a})`;
  if (c === 'private' && !policy.allowPrivateNetwork)
    return `points at a private network address (${a}); set allowPrivateNetwork: true to allow private ranges`;
  return undefined;
}

type LookupCallback = (
  err: Error | null,
  address?: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/**
 * A `fetch` over node:http(s) whose connection resolves the host itself and refuses any address the policy
 * refuses, so the address checked is the address connected to. The whole body is read within the signal.
 */
export function pinnedFetch(policy: EndpointPolicy, resolve: Resolve = systemResolve): typeof fetch {
  const lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        for (const a of addresses) {
          const why = addressRefusal(a, policy);
          if (why) return callback(new Error(`the endpoint ${why}`));
        }
        if (addresses.length === 0) return callback(new Error(`${hostname} does not resolve`));
        if (options.all)
          callback(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        else callback(null, addresses[0], isIP(addresses[0]));
      },
      (e: Error) => callback(e),
    );
  };
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((done, fail) => {
      const req = client.request(
        url,
        {
          method: init.method ?? 'GET',
          headers: init.headers as Record<string, string> | undefined,
          lookup: lookup as never,
          signal: init.signal ?? undefined,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', fail);
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
            const status = res.statusCode ?? 502;
            const empty = [204, 205, 304].includes(status);
            done(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      req.on('error', fail);
      if (typeof init.body === 'string') req.write(init.body);
      req.end();
    });
  }) as typeof fetch;
}
