/** Tokens of an OpenID Connect issuer, checked against its JWKS served on 127.0.0.1. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '../../../lib/identity/tokens';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

describe(`OIDC tokens on ${backendName}`, () => {
  let s: TestService;
  let jwks: http.Server;
  let sign: (claims: Record<string, unknown>, issuer?: string) => Promise<string>;
  const issuer = 'https://login.example.com/tenant';
  let signingKey: CryptoKey;

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    signingKey = privateKey;
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/keys`;
    sign = (claims, iss = issuer) =>
      new SignJWT({ email_verified: true, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(iss)
        .setAudience('anomaly-monitor')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
    s = await startTestService({ OIDC_ISSUER: issuer, OIDC_JWKS_URL: url, OIDC_AUDIENCE: 'anomaly-monitor' });
  });
  afterAll(async () => {
    await s.stop();
    await new Promise((r) => jwks.close(r));
  });

  it("accepts an issuer's token for a known user, with that user's role", async () => {
    const admin = await sign({ email: 'admin@example.com', sub: 'abc' });
    expect((await s.call('GET', '/api/v1/users', { auth: admin })).status).toBe(200);
    const user = await sign({ email: 'USER@example.com', sub: 'def' });
    expect((await s.call('GET', '/api/v1/users', { auth: user })).status).toBe(403);
  });

  it('refuses a token of another issuer, of an unknown e-mail, or without one', async () => {
    expect(
      (
        await s.call('GET', '/api/v1/auth/me', {
          auth: await sign({ email: 'admin@example.com' }, 'https://evil.example.com'),
        })
      ).status,
    ).toBe(401);
    expect(
      (await s.call('GET', '/api/v1/auth/me', { auth: await sign({ email: 'nobody@example.com' }) })).status,
    ).toBe(401);
    expect((await s.call('GET', '/api/v1/auth/me', { auth: await sign({ sub: 'x' }) })).status).toBe(401);
  });

  it('refuses a token whose e-mail the issuer has not verified', async () => {
    for (const email_verified of [false, undefined, 'false', 1]) {
      const r = await s.call('GET', '/api/v1/auth/me', {
        auth: await sign({ email: 'admin@example.com', email_verified }),
      });
      expect(r.status, `email_verified ${String(email_verified)}`).toBe(401);
      expect(r.body.detail).toBe('The identity provider has not verified this e-mail address.');
    }
    const ok = await sign({ email: 'admin@example.com', email_verified: 'true' });
    expect((await s.call('GET', '/api/v1/auth/me', { auth: ok })).status).toBe(200);
  });

  it('refuses a token for another audience or none', async () => {
    const other = await new SignJWT({ email: 'admin@example.com', email_verified: true })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(issuer)
      .setAudience('another-app')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(signingKey);
    expect((await s.call('GET', '/api/v1/auth/me', { auth: other })).status).toBe(401);
  });

  it('will not run OIDC without an issuer and an audience', () => {
    const base = { ttlSeconds: 60, jwksUrl: 'https://login.example.com/keys' };
    expect(() => new TokenService({ ...base, audience: 'a' })).toThrow(/OIDC_ISSUER must be set/);
    expect(() => new TokenService({ ...base, issuer: 'https://i' })).toThrow(/OIDC_AUDIENCE must be set/);
    expect(() => new TokenService(base)).toThrow(/OIDC_ISSUER and OIDC_AUDIENCE must be set/);
    expect(() => new TokenService({ ...base, issuer: 'https://i', audience: 'a' })).not.toThrow();
  });

  it('still accepts the local tokens', async () => {
    expect((await s.call('GET', '/api/v1/auth/me', { auth: s.adminToken })).status).toBe(200);
  });
});
