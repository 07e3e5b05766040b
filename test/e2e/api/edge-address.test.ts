/**
 * Behind the CloudFront distribution: the sign-in throttle counts the viewer's address (the header the
 * distribution's function sets), not the edge's `sourceIp`, and a request without the distribution's
 * secret (a direct call to the API Gateway URL) is refused. Driven with the events API Gateway (HTTP API,
 * payload 2.0) hands the functions, headers lower-cased as it sends them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as auth from '../../../functions/http/auth';
import * as system from '../../../functions/http/system';
import { THROTTLE } from '../../../lib/identity/sign-in-throttle';
import { viewerIp } from '../../../lib/http/edge-guard';
import { backendName } from '../../support/db';
import { ADMIN, startTestService, type TestService } from '../../support/service';
import { config } from '../../../lib/config/config';

type Res = { statusCode: number; headers?: Record<string, string>; body?: string };
type Handler = (event: unknown, context: unknown) => Promise<unknown>;
const SECRET = 'origin-secret-of-the-distribution-0123456789';
const EDGE = '130.176.1.20';

function apiGatewayEvent(method: string, rawPath: string, headers: Record<string, string>, body?: unknown) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      host: 'abc123.execute-api.eu-central-1.amazonaws.com',
      via: '2.0 1a2b.cloudfront.net (CloudFront)',
      'x-amz-cf-id': 'edge-request-id',
      'x-forwarded-for': `${headers['x-viewer-address'] ?? '203.0.113.1'}, ${EDGE}`,
      'x-forwarded-proto': 'https',
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-central-1.amazonaws.com',
      requestId: randomUUID(),
      stage: '$default',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: EDGE, userAgent: 'Amazon CloudFront' },
    },
  };
}

describe('viewer addresses as CloudFront writes them', () => {
  it('reads IPv4, IPv6, bracketed and with a port; refuses anything else', () => {
    expect(viewerIp('198.51.100.7')).toBe('198.51.100.7');
    expect(viewerIp('198.51.100.7:46532')).toBe('198.51.100.7');
    expect(viewerIp('2001:db8::1')).toBe('2001:db8::1');
    expect(viewerIp('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(viewerIp('2001:db8::1:443')).toBe('2001:db8::1:443');
    expect(viewerIp('evil, 1.2.3.4')).toBeUndefined();
    expect(viewerIp('')).toBeUndefined();
  });
});

describe(`the sign-in throttle behind the distribution on ${backendName}`, () => {
  let s: TestService;
  beforeAll(async () => {
    // Started without the secret (its own sign-ins go straight in), then given it as the AWS stage's
    // container is: read from ORIGIN_VERIFY_SECRET_ID at start (lib/config/runtime-secrets.ts).
    s = await startTestService();
    s.container.config.edge.originSecret = SECRET;
    // The stage names the secret's id; only then does a request read it from the container.
    config().edge.originSecretId = 'origin-verify';
  }, 180_000);
  afterAll(async () => {
    delete config().edge.originSecretId;
    await s?.stop();
  });

  const signIn = async (viewer: string, email: string, password: string, secret = SECRET) =>
    (await (auth.handler as unknown as Handler)(
      apiGatewayEvent(
        'POST',
        '/api/v1/auth/token',
        { 'x-origin-verify': secret, 'x-viewer-address': viewer },
        { email, password },
      ),
      {},
    )) as Res;

  it('refuses a direct call without the distribution secret, or with a wrong one, before anything else', async () => {
    const health = (await (system.handler as unknown as Handler)(
      apiGatewayEvent('GET', '/api/v1/health', {}),
      {},
    )) as Res;
    expect(health.statusCode).toBe(403);
    expect(JSON.parse(health.body ?? '{}').detail).toMatch(/through its web address/);
    const wrong = await signIn('198.51.100.7', ADMIN.email, ADMIN.password, 'not-the-secret');
    expect(wrong.statusCode).toBe(403);
    const right = await signIn('198.51.100.7', ADMIN.email, ADMIN.password);
    expect(right.statusCode).toBe(200);
  });

  it("counts failures per viewer: one viewer's lock does not lock another behind the same edge", async () => {
    // Different accounts each time, so only the per-address count can lock.
    let locked: Res | undefined;
    for (let i = 0; i <= THROTTLE.addressFreeFailures + 1 && !locked; i++) {
      const r = await signIn('198.51.100.66', `nobody${i}@example.com`, 'wrong-password');
      if (r.statusCode === 429) locked = r;
      else expect(r.statusCode).toBe(401);
    }
    expect(locked?.statusCode).toBe(429);
    expect(Number(locked?.headers?.['retry-after'])).toBeGreaterThan(0);
    // Another viewer through the same edge (same sourceIp) still signs in.
    const other = await signIn('203.0.113.9', ADMIN.email, ADMIN.password);
    expect(other.statusCode).toBe(200);
    // A client that sets the viewer header itself gets it overwritten by the distribution's function; a
    // call that bypasses the distribution cannot send the secret: both are covered by the refusal above.
  }, 300_000); // 21 scrypt checks (N = 2^17) take minutes on a loaded machine
});
