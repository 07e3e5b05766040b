/** Bearer tokens: HS256 JWTs signed with the local secret, or tokens of an OIDC issuer checked against its JWKS. */
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { UnauthenticatedError } from '../shared/errors';

export interface TokenSettings {
  secret?: string;
  ttlSeconds: number;
  issuer?: string;
  jwksUrl?: string;
  audience?: string;
}

export interface TokenClaims {
  userId?: number;
  email: string;
  /** The user's token version when a local token was issued (0 for tokens older than versions). */
  version?: number;
}

const LOCAL_ISSUER = 'anomaly-monitor';
/** A token without an end would be good forever once leaked: `exp` is required of every token, ours or OIDC. */
const REQUIRED_CLAIMS = ['exp'];

export class TokenService {
  private readonly key?: Uint8Array;
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly settings: TokenSettings) {
    if (settings.secret) this.key = new TextEncoder().encode(settings.secret);
    if (settings.jwksUrl) {
      // An OIDC token is only as good as the checks of who issued it and for whom: both are required.
      const missing = [!settings.issuer && 'OIDC_ISSUER', !settings.audience && 'OIDC_AUDIENCE'].filter(
        Boolean,
      );
      if (missing.length)
        throw new Error(
          `OIDC_JWKS_URL is set, so ${missing.join(' and ')} must be set too (OIDC is refused without them).`,
        );
      this.jwks = createRemoteJWKSet(new URL(settings.jwksUrl));
    }
  }

  async issue(
    user: { id: number; email: string; role: string; tokenVersion?: number },
    now = new Date(),
  ): Promise<string> {
    if (!this.key) throw new Error('JWT_SECRET is not configured: local tokens cannot be issued');
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({ email: user.email, role: user.role, ver: user.tokenVersion ?? 0 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(user.id))
      .setIssuer(LOCAL_ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.settings.ttlSeconds)
      .sign(this.key);
  }

  /** Verifies a token and returns who it names; any defect is a 401. */
  async verify(token: string): Promise<TokenClaims> {
    let payload: JWTPayload | undefined;
    let viaOidc = false;
    try {
      if (this.key) {
        try {
          payload = (
            await jwtVerify(token, this.key, {
              issuer: LOCAL_ISSUER,
              algorithms: ['HS256'],
              requiredClaims: REQUIRED_CLAIMS,
            })
          ).payload;
        } catch (e) {
          if (!this.jwks) throw e;
        }
      }
      if (!payload && this.jwks) {
        payload = (
          await jwtVerify(token, this.jwks, {
            issuer: this.settings.issuer,
            audience: this.settings.audience,
            requiredClaims: REQUIRED_CLAIMS,
            algorithms: [
              'RS256',
              'RS384',
              'RS512',
              'PS256',
              'PS384',
              'PS512',
              'ES256',
              'ES384',
              'ES512',
              'EdDSA',
            ],
          })
        ).payload;
        viaOidc = true;
      }
    } catch (e) {
      const expired = (e as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw new UnauthenticatedError(
        expired ? 'The access token has expired.' : 'The access token is not valid.',
      );
    }
    if (!payload) throw new UnauthenticatedError('The access token is not valid.');
    if (viaOidc) {
      // Only addresses the identity provider has verified name a user of this service.
      const verified = payload.email_verified === true || payload.email_verified === 'true';
      if (!verified)
        throw new UnauthenticatedError('The identity provider has not verified this e-mail address.');
    }
    const email = typeof payload.email === 'string' ? payload.email : undefined;
    if (!email) throw new UnauthenticatedError('The access token names no e-mail address.');
    if (!viaOidc) {
      const sub = Number(payload.sub);
      const version = typeof payload.ver === 'number' ? payload.ver : 0;
      return { userId: Number.isSafeInteger(sub) ? sub : undefined, email, version };
    }
    return { email };
  }
}
