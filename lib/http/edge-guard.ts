/**
 * Behind the CloudFront distribution of deploy/, API Gateway's `sourceIp` is an edge's address, shared by
 * everyone that edge serves. The distribution sends two headers to the API: `x-origin-verify`, a secret only
 * it knows (ORIGIN_VERIFY_SECRET / ORIGIN_VERIFY_SECRET_ID), and `x-viewer-address`, the viewer's address as
 * its viewer-request function saw it (overwriting whatever the client sent). When the secret is configured,
 * a request without it is refused (a direct call to the API Gateway URL that bypasses the distribution), and
 * the viewer address is trusted as the client's; without the secret (the local stage) `sourceIp` is used.
 */
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { HttpStatusError } from './problem';

export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';
export const VIEWER_ADDRESS_HEADER = 'x-viewer-address';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An address as CloudFront writes it (`ip` or `ip:port`, IPv6 possibly in brackets), or undefined. */
export function viewerIp(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (isIP(v)) return v;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  if (bracketed && isIP(bracketed[1]) === 6) return bracketed[1];
  const withPort = /^(.*):(\d+)$/.exec(v);
  if (withPort && isIP(withPort[1])) return withPort[1];
  return undefined;
}

/**
 * The client's address for this request, or a 403 when the origin secret is configured and the request did
 * not come through the distribution. `headers` are lower-cased.
 */
export function clientAddress(
  headers: Record<string, string | undefined>,
  sourceIp: string | undefined,
  originSecret: string | undefined,
): string | undefined {
  if (!originSecret) return sourceIp;
  const given = headers[ORIGIN_VERIFY_HEADER];
  if (!given || !sameSecret(given, originSecret)) {
    throw new HttpStatusError(403, 'Requests reach this service through its web address only.');
  }
  return viewerIp(headers[VIEWER_ADDRESS_HEADER]) ?? sourceIp;
}
