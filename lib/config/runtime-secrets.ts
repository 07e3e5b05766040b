/**
 * Secrets read at run time (AWS stages): the database credentials and the token signing secret come from
 * Secrets Manager when a container starts, are cached for SECRETS_CACHE_SECONDS, and never sit in the
 * Lambda environment. The local stage keeps DATABASE_URL and JWT_SECRET from the environment; when those
 * are set they win, so every existing setup works unchanged.
 */
import type { SecretsManagerLike } from '../secrets/aws-store';
import { checkedJwtSecret, type Config, ConfigError } from './config';

/** Reads one secret's text by id (name or ARN). */
export interface SecretReader {
  read(secretId: string): Promise<string>;
}

/** A SecretReader on the Secrets Manager client (a test hands in a stand-in with the same send()). */
export function secretsManagerReader(
  opts: { client?: SecretsManagerLike; region?: string } = {},
): SecretReader {
  let client = opts.client;
  return {
    async read(secretId) {
      const sdk = await import('@aws-sdk/client-secrets-manager');
      client ??= new sdk.SecretsManagerClient(opts.region ? { region: opts.region } : {});
      let out: { SecretString?: string };
      try {
        out = (await client.send(new sdk.GetSecretValueCommand({ SecretId: secretId }))) as {
          SecretString?: string;
        };
      } catch (e) {
        const name = (e as { name?: string } | null)?.name ?? 'error';
        throw new ConfigError(`cannot read the secret ${secretId} from Secrets Manager: ${name}`, {
          cause: e,
        });
      }
      if (typeof out.SecretString !== 'string') throw new ConfigError(`secret ${secretId} has no text value`);
      return out.SecretString;
    },
  };
}

/** Caches each secret for `ttlMs` (0: read every time); concurrent readers share one request. */
export class CachedSecrets {
  private readonly entries = new Map<string, { at: number; value: Promise<string> }>();

  constructor(
    private readonly reader: SecretReader,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(secretId: string): Promise<string> {
    const hit = this.entries.get(secretId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.reader.read(secretId);
    this.entries.set(secretId, { at: this.now(), value });
    // A failed read is not cached: the next caller tries again.
    value.catch(() => {
      if (this.entries.get(secretId)?.value === value) this.entries.delete(secretId);
    });
    return value;
  }

  /** Forgets a secret, e.g. after the database refused its password (rotated meanwhile). */
  forget(secretId: string): void {
    this.entries.delete(secretId);
  }
}

/** The RDS form of a database secret (what RDS, RDS Proxy and the rotation functions use). */
export interface DatabaseSecret {
  username: string;
  password: string;
  host?: string;
  port?: number | string;
  dbname?: string;
}

export function parseDatabaseSecret(secretId: string, text: string): DatabaseSecret {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`secret ${secretId} (DATABASE_SECRET_ID) must be JSON with username and password`);
  }
  const v = value as Partial<DatabaseSecret>;
  if (typeof v?.username !== 'string' || typeof v.password !== 'string' || !v.username) {
    throw new ConfigError(`secret ${secretId} (DATABASE_SECRET_ID) must be JSON with username and password`);
  }
  return v as DatabaseSecret;
}

/** What the container needs to connect: a URL without the password, and the password read when connecting. */
export interface RuntimeDatabase {
  url: string;
  /** Read for every new connection (from the cache): a rotated password is picked up within the TTL. */
  password?: () => Promise<string>;
}

export interface RuntimeSecrets {
  /** The config with jwtSecret and databaseUrl filled in (the URL carries no password). */
  config: Config;
  databasePassword?: () => Promise<string>;
}

let shared: CachedSecrets | undefined;

/** The process-wide cache on the Secrets Manager client (built on first use). */
export function runtimeSecretCache(cfg: Config): CachedSecrets {
  shared ??= new CachedSecrets(
    secretsManagerReader({ region: cfg.awsRegion }),
    cfg.secretsCacheSeconds * 1000,
  );
  return shared;
}

/**
 * Fills in what the environment names by id only: JWT_SECRET_ID → auth.jwtSecret, DATABASE_SECRET_ID →
 * databaseUrl (+ a password function). Values given directly (JWT_SECRET, DATABASE_URL) are kept as they are.
 */
export async function resolveRuntimeSecrets(cfg: Config, given?: CachedSecrets): Promise<RuntimeSecrets> {
  const secretId = cfg.database?.secretId;
  const wantsJwt = !cfg.auth.jwtSecret && cfg.auth.jwtSecretId;
  const wantsDatabase = !cfg.databaseUrl && secretId;
  const wantsOrigin = !cfg.edge.originSecret && cfg.edge.originSecretId;
  if (!wantsJwt && !wantsDatabase && !wantsOrigin) return { config: cfg };
  const cache = given ?? runtimeSecretCache(cfg);
  let next = cfg;
  let databasePassword: RuntimeSecrets['databasePassword'];
  if (wantsJwt && cfg.auth.jwtSecretId) {
    const jwtSecret = checkedJwtSecret(
      await cache.get(cfg.auth.jwtSecretId),
      `The secret ${cfg.auth.jwtSecretId} (JWT_SECRET_ID)`,
    );
    next = { ...next, auth: { ...next.auth, jwtSecret } };
  }
  if (wantsOrigin && cfg.edge.originSecretId) {
    const originSecret = await cache.get(cfg.edge.originSecretId);
    next = { ...next, edge: { ...next.edge, originSecret } };
  }
  if (wantsDatabase && secretId) {
    const secret = parseDatabaseSecret(secretId, await cache.get(secretId));
    const host = cfg.database.host ?? secret.host;
    if (!host) {
      throw new ConfigError(`DATABASE_HOST is not set and the secret ${secretId} names no host`);
    }
    const url = new URL('postgres://localhost');
    url.username = encodeURIComponent(secret.username);
    url.hostname = host;
    url.port = String(secret.port ?? 5432);
    url.pathname = `/${encodeURIComponent(secret.dbname ?? 'postgres')}`;
    url.searchParams.set('sslmode', cfg.database.sslmode);
    next = { ...next, databaseUrl: url.toString() };
    databasePassword = async () => parseDatabaseSecret(secretId, await cache.get(secretId)).password;
  }
  return { config: next, databasePassword };
}
