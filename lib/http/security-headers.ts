/**
 * Security headers on every answer of the service (API, API reference page, local web UI). CloudFront
 * sets the same ones for the web UI on AWS (deploy/web.yml). HSTS only on AWS: a local http:// stack must
 * not teach the browser to insist on https for 127.0.0.1.
 */
import type middy from '@middy/core';

/** The web UI's policy: its own scripts, styles and API only; no framing. */
export const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
/** JSON answers load nothing and may not be framed. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
export const HSTS = 'max-age=63072000; includeSubDomains';

export function securityHeaders(opts: { hsts: boolean; csp?: string }): Record<string, string> {
  return {
    'content-security-policy': opts.csp ?? API_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    ...(opts.hsts ? { 'strict-transport-security': HSTS } : {}),
  };
}

type Answer = { headers?: Record<string, string | number | boolean> } | undefined;

/**
 * Middy middleware, registered first so that it runs last, also after an error became a problem answer.
 * A header the route set itself (e.g. the reference page's own CSP) is kept.
 */
export function securityHeadersMiddleware<E, R>(hsts: () => boolean): middy.MiddlewareObj<E, R> {
  const add = (request: middy.Request<E, R>) => {
    const res = request.response as Answer;
    if (!res || typeof res !== 'object') return;
    res.headers = { ...securityHeaders({ hsts: hsts() }), ...res.headers };
  };
  return { after: add, onError: add };
}
