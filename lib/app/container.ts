/** The composition root: builds each adapter once per process from the config; tests install their own. */
import { type Config, ConfigError, config as loadConfig } from '../config/config';
import { resolveRuntimeSecrets } from '../config/runtime-secrets';
import { connectDatabase } from '../db/connect';
import type { Database } from '../db/database';
import { TokenService } from '../identity/tokens';
import { createQueue } from '../queue/index';
import type { JobQueue } from '../queue/port';
import { createSecretStore, type SecretStore } from '../secrets/index';
import { setLogLevel } from '../shared/logger';
import { type Clock, systemClock } from '../shared/clock';

export interface Container {
  config: Config;
  db: Database;
  tokens: TokenService;
  clock: Clock;
  secrets: SecretStore;
  /** The job queue (local dispatcher or SQS); the jobs table stays the source of truth. */
  queue: JobQueue;
}

function secretStoreFor(cfg: Config): SecretStore {
  if (cfg.secrets.backend === 'aws') {
    return createSecretStore({ backend: 'aws', prefix: cfg.secrets.awsPrefix, region: cfg.awsRegion });
  }
  if (!cfg.secrets.masterKey) {
    throw new ConfigError(
      'MASTER_KEY is required with SECRETS_BACKEND=local (npm start generates one into DATA_DIR)',
    );
  }
  return createSecretStore({ backend: 'local', masterKey: cfg.secrets.masterKey });
}

let current: Promise<Container> | undefined;

export async function buildContainer(given: Config, overrides: Partial<Container> = {}): Promise<Container> {
  setLogLevel(given.logLevel);
  // AWS: the database credentials and the token secret are read from Secrets Manager here (cached).
  const runtime = await resolveRuntimeSecrets(given);
  const cfg = runtime.config;
  const db =
    overrides.db ??
    (await connectDatabase({
      databaseUrl: cfg.databaseUrl,
      pgliteDir: cfg.databaseUrl ? undefined : `${cfg.dataDir}/service-db`,
      migrate: !cfg.databaseUrl,
      maxConnections: cfg.database?.maxConnections,
      prepare: cfg.database?.prepare,
      password: runtime.databasePassword,
    }));
  const tokens =
    overrides.tokens ??
    new TokenService({
      secret: cfg.auth.jwtSecret,
      ttlSeconds: cfg.auth.tokenTtlSeconds,
      issuer: cfg.auth.oidcIssuer,
      jwksUrl: cfg.auth.oidcJwksUrl,
      audience: cfg.auth.oidcAudience,
    });
  const secrets = overrides.secrets ?? secretStoreFor(cfg);
  const queue = overrides.queue ?? (await createQueue(cfg));
  return { config: cfg, db, tokens, clock: overrides.clock ?? systemClock, secrets, queue };
}

/** The process-wide container, built on first use (a Lambda keeps it warm between invocations). */
export function getContainer(): Promise<Container> {
  current ??= buildContainer(loadConfig()).catch((e) => {
    current = undefined;
    throw e;
  });
  return current;
}

export function setContainer(c: Container | undefined): void {
  current = c ? Promise.resolve(c) : undefined;
}

/** What the connector use cases need from the container. */
export function connectorDeps(c: Container) {
  return { db: c.db, secrets: c.secrets, clock: c.clock, timeoutMs: c.config.connectorTimeoutMs };
}
