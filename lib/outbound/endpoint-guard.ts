/**
 * Where an outbound call (the language model, a webhook or Slack target, the SMTP relay) may go. The service
 * calls from inside its network, so a target is a way to reach internal hosts: link-local and cloud metadata
 * addresses are always refused, private ranges only when the policy allows them, loopback unless the policy
 * refuses it (targets a data user chooses). The host name is resolved and every address it gives is checked,
 * at save time and again before each call; `pinnedFetch` and `resolveChecked` connect only to a checked address.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from './address-class';

export interface EndpointPolicy {
  /** Private network ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) are allowed. */
  allowPrivateNetwork?: boolean;
  /** Loopback (127/8, ::1) is allowed: true by default (a model or relay on the same machine). */
  allowLoopback?: boolean;
  /** What the reader of a refused private address can do about it (default: the setting to change). */
  privateHint?: string;
}

export type Resolve = (host: string) => Promise<string[]>;
export const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const METADATA_NAMES =
  /^(metadata|metadata\.google\.internal|metadata\.azure\.internal|instance-data(\.ec2\.internal)?)\.?$/i;

/** A host as written in a URL's authority: an IPv6 literal in brackets. */
export const urlHost = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);

/** Why one address may not be connected to under `policy`, or undefined when it may. */
export function addressRefusal(a: string, policy: EndpointPolicy): string | undefined {
  const c = classifyAddress(a);
  if (c === 'metadata') return `points at a cloud metadata address (${a}), which is never allowed`;
  if (c === 'link-local') return `points at a link-local address (${a}), which is never allowed`;
  if (c === 'unspecified' || c === 'multicast')
    return `points at an address that cannot be an endpoint (${a})`;
  const hint = policy.privateHint ?? '; set allowPrivateNetwork: true to allow private ranges';
  if (c === 'private' && !policy.allowPrivateNetwork)
    return `points at a private network address (${a})${hint}`;
  if (c === 'loopback' && policy.allowLoopback === false && !policy.allowPrivateNetwork)
    return `points at a loopback address (${a})${hint}`;
  return undefined;
}

/** The addresses of `host`, every one allowed by `policy`; throws an Error naming the refusal otherwise. */
export async function resolveChecked(
  host: string,
  policy: EndpointPolicy,
  resolve: Resolve = systemResolve,
): Promise<string[]> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (METADATA_NAMES.test(bare))
    throw new Error(`points at a cloud metadata service (${bare}), which is never allowed`);
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = await resolve(bare);
    } catch (e) {
      throw new Error(
        `names a host that does not resolve (${bare}: ${(e as { code?: string }).code ?? 'lookup failed'})`,
      );
    }
    if (addresses.length === 0) throw new Error(`names a host that does not resolve (${bare})`);
  }
  for (const a of addresses) {
    const why = addressRefusal(a, policy);
    if (why) throw new Error(why);
  }
  return addresses;
}

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
  try {
    await resolveChecked(u.hostname, policy, resolve);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
