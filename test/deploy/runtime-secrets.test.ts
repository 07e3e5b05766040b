/**
 * Runtime secrets of an AWS stage: the database credentials and the token secret are read from Secrets
 * Manager (here the in-memory stand-in of the secret store tests, same client contract) when the container
 * starts, cached, and used to connect; nothing secret is in the environment. The local stage keeps
 * DATABASE_URL and JWT_SECRET.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config/config';
import {
  CachedSecrets,
  resolveRuntimeSecrets,
  type SecretReader,
  secretsManagerReader,
} from '../../lib/config/runtime-secrets';
import { connectDatabase, poolOptions } from '../../lib/db/connect';
import { type ServedPglite, servePglite } from '../../scripts/local/pglite-server';
import { FakeSecretsManager } from '../unit/secrets/fake-secrets-manager';

const awsEnv = (extra: Record<string, string> = {}) =>
  loadConfig({
    SERVICE_STAGE: 'aws',
    DATABASE_SECRET_ID: 'anomaly-monitor/dev/database',
    JWT_SECRET_ID: 'arn:aws:secretsmanager:eu-central-1:123:secret:JwtSecret-abc',
    DATABASE_PREPARE: 'off',
    DATABASE_MAX_CONNECTIONS: '1',
    ...extra,
  });

function fakeWith(values: Record<string, string>) {
  const client = new FakeSecretsManager();
  for (const [name, value] of Object.entries(values)) client.secrets.set(name, { value, versions: 1 });
  return client;
}

const dbSecret = (password: string, extra: object = {}) =>
  JSON.stringify({
    username: 'monitor',
    password,
    host: 'db.internal',
    port: 5432,
    dbname: 'monitor',
    ...extra,
  });

describe('runtime secrets from Secrets Manager', () => {
  it('fills the token secret and a password-free database URL from the secrets, reading each once', async () => {
    const client = fakeWith({
      'anomaly-monitor/dev/database': dbSecret('p@ss/word:1'),
      'arn:aws:secretsmanager:eu-central-1:123:secret:JwtSecret-abc':
        'jwt-secret-from-secrets-manager-of-64-characters',
    });
    const cache = new CachedSecrets(secretsManagerReader({ client }), 300_000);
    const { config, databasePassword } = await resolveRuntimeSecrets(awsEnv(), cache);
    expect(config.auth.jwtSecret).toBe('jwt-secret-from-secrets-manager-of-64-characters');
    expect(config.databaseUrl).toBe('postgres://monitor@db.internal:5432/monitor?sslmode=require');
    expect(config.databaseUrl).not.toContain('p@ss');
    expect(await databasePassword?.()).toBe('p@ss/word:1');
    expect(await databasePassword?.()).toBe('p@ss/word:1');
    // One GetSecretValue per secret: the cache answers the rest.
    expect(client.sent).toEqual(['GetSecretValueCommand', 'GetSecretValueCommand']);
  });

  it('connects to the RDS Proxy endpoint when DATABASE_HOST names it', async () => {
    const client = fakeWith({ 'anomaly-monitor/dev/database': dbSecret('x') });
    const cache = new CachedSecrets(secretsManagerReader({ client }), 300_000);
    const { config } = await resolveRuntimeSecrets(
      awsEnv({
        JWT_SECRET_ID: '',
        DATABASE_HOST: 'anomaly-monitor-dev.proxy-abc.eu-central-1.rds.amazonaws.com',
      }),
      cache,
    );
    expect(new URL(config.databaseUrl as string).hostname).toBe(
      'anomaly-monitor-dev.proxy-abc.eu-central-1.rds.amazonaws.com',
    );
  });

  it('picks up a rotated password once the cache has expired, and does not cache a failed read', async () => {
    let now = 0;
    const client = fakeWith({ 'anomaly-monitor/dev/database': dbSecret('first') });
    const cache = new CachedSecrets(secretsManagerReader({ client }), 300_000, () => now);
    const { databasePassword } = await resolveRuntimeSecrets(awsEnv({ JWT_SECRET_ID: '' }), cache);
    expect(await databasePassword?.()).toBe('first');
    (client.secrets.get('anomaly-monitor/dev/database') as { value: string }).value = dbSecret('second');
    now = 299_000;
    expect(await databasePassword?.()).toBe('first');
    now = 300_000;
    expect(await databasePassword?.()).toBe('second');

    let calls = 0;
    const flaky: SecretReader = {
      read: async () => {
        calls++;
        if (calls === 1) throw new Error('throttled');
        return 'ok';
      },
    };
    const c2 = new CachedSecrets(flaky, 300_000, () => now);
    await expect(c2.get('s')).rejects.toThrow('throttled');
    expect(await c2.get('s')).toBe('ok');
  });

  it('names the secret, never its value, when it cannot be read or is malformed', async () => {
    const missing = new CachedSecrets(secretsManagerReader({ client: new FakeSecretsManager() }), 0);
    const err = await resolveRuntimeSecrets(awsEnv({ JWT_SECRET_ID: '' }), missing).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('anomaly-monitor/dev/database');
    expect(err.message).toContain('ResourceNotFoundException');

    const bad = fakeWith({ 'anomaly-monitor/dev/database': '{"user":"monitor","pass":"hunter2"}' });
    const err2 = await resolveRuntimeSecrets(
      awsEnv({ JWT_SECRET_ID: '' }),
      new CachedSecrets(secretsManagerReader({ client: bad }), 0),
    ).catch((e) => e);
    expect(err2).toBeInstanceOf(ConfigError);
    expect(err2.message).toContain('username and password');
    expect(err2.message).not.toContain('hunter2');
  });

  it('keeps DATABASE_URL and JWT_SECRET as given (the local stage) and asks Secrets Manager nothing', async () => {
    const client = new FakeSecretsManager();
    const local = loadConfig({
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
      JWT_SECRET: 'local-secret-long-enough-to-sign-tokens',
    });
    const { config, databasePassword } = await resolveRuntimeSecrets(
      local,
      new CachedSecrets(secretsManagerReader({ client }), 0),
    );
    expect(config).toBe(local);
    expect(databasePassword).toBeUndefined();
    expect(client.sent).toEqual([]);
    expect(local.database).toMatchObject({ maxConnections: 5, prepare: true });
  });

  it('refuses a token secret shorter than 32 characters, from the environment or Secrets Manager, without echoing it', async () => {
    const short = 'short-but-not-empty-secret-31ch';
    expect(short).toHaveLength(31);
    const fromEnv = (() => {
      try {
        loadConfig({ JWT_SECRET: short });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(fromEnv).toBeInstanceOf(ConfigError);
    expect(fromEnv?.message).toMatch(/JWT_SECRET must be at least 32 characters/);
    expect(fromEnv?.message).not.toContain(short);
    expect(loadConfig({ JWT_SECRET: `${short}x` }).auth.jwtSecret).toBe(`${short}x`);
    const client = fakeWith({
      'anomaly-monitor/dev/database': dbSecret('x'),
      'arn:aws:secretsmanager:eu-central-1:123:secret:JwtSecret-abc': short,
    });
    const err = await resolveRuntimeSecrets(
      awsEnv(),
      new CachedSecrets(secretsManagerReader({ client }), 0),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/JwtSecret-abc \(JWT_SECRET_ID\) must be at least 32/);
    expect(err.message).not.toContain(short);
  });

  it('sends the SDK GetSecretValue command for the id', async () => {
    const seen: unknown[] = [];
    const reader = secretsManagerReader({
      client: {
        send: async (c) => {
          seen.push(c);
          return { SecretString: 'v' };
        },
      },
    });
    expect(await reader.read('anomaly-monitor/dev/database')).toBe('v');
    expect(seen[0]).toBeInstanceOf(GetSecretValueCommand);
    expect((seen[0] as GetSecretValueCommand).input).toEqual({ SecretId: 'anomaly-monitor/dev/database' });
  });
});

describe('the service pool through a proxy-like server', () => {
  let served: ServedPglite;
  let port: number;
  beforeAll(async () => {
    served = await servePglite('memory://');
    port = served.port;
  });
  afterAll(async () => {
    await served?.close();
  });

  it('uses the pool size and prepare setting of the config, and the password read at connect time', () => {
    const cfg = awsEnv();
    const password = async () => 'x';
    const opts = poolOptions({
      maxConnections: cfg.database.maxConnections,
      prepare: cfg.database.prepare,
      password,
    });
    expect(opts).toMatchObject({ max: 1, prepare: false, pass: password });
    expect(poolOptions({})).toMatchObject({ max: 5, prepare: true });
  });

  it('connects with the secret read at run time and runs queries without prepared statements', async () => {
    const client = fakeWith({
      'anomaly-monitor/dev/database': dbSecret('from-secrets-manager', {
        host: '127.0.0.1',
        port,
        dbname: 'postgres',
      }),
    });
    const cache = new CachedSecrets(secretsManagerReader({ client }), 300_000);
    const { config, databasePassword } = await resolveRuntimeSecrets(
      awsEnv({ JWT_SECRET_ID: '', DATABASE_SSLMODE: 'disable' }),
      cache,
    );
    const prepared = async (prepare: boolean) => {
      const db = await connectDatabase({
        databaseUrl: config.databaseUrl,
        maxConnections: config.database.maxConnections,
        prepare,
        password: databasePassword,
      });
      try {
        expect(await db.rows<{ n: number }>(sql`SELECT ${41}::int + 1 AS n`)).toEqual([{ n: 42 }]);
        const [{ count }] = await db.rows<{ count: number }>(
          sql`SELECT count(*)::int AS count FROM pg_prepared_statements WHERE name <> ''`,
        );
        return count;
      } finally {
        await db.close();
      }
    };
    // The URL (host, port, database, user) came from the secret; the server answered through it.
    expect(config.database.prepare).toBe(false);
    expect(await prepared(config.database.prepare)).toBe(0);
    // The same query with postgres.js defaults leaves named statements behind (what RDS Proxy would pin on).
    expect(await prepared(true)).toBeGreaterThan(0);
  });
});
