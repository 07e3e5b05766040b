/**
 * The composition root: builds each adapter from the config; tests install their own. The
 * process-wide container is kept by functions/container.ts, which hands it to lib/ (never fetched here).
 */
import { type Config, ConfigError } from '../config/config';
import { resolveRuntimeSecrets } from '../config/runtime-secrets';
import { connectDatabase } from '../db/connect';
import type { Database } from '../db/database';
import type { OpenNamedSource } from '../connectors/source-port';
import { TokenService } from '../identity/tokens';
import { createQueue } from '../queue/index';
import type { WorkerHandlers } from '../queue/local';
import type { JobQueue } from '../queue/port';
import { createSecretStore, type SecretStore } from '../secrets/index';
import { setLogLevel } from '../shared/logger';
import { configureMetrics } from '../shared/metrics';
import { type Clock, systemClock } from '../shared/clock';

export interface Container {
  config: Config;
  db: Database;
  tokens: TokenService;
  clock: Clock;
  secrets: SecretStore;
  /** The job queue (local dispatcher or SQS); the jobs table stays the source of truth. */
  queue: JobQueue;
  /** Where loads read their sources; the service's own connectors unless a test or tool installs others. */
  sources?: OpenNamedSource;
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

export interface ContainerWiring {
  /**
   * The worker handlers the local queue delivers to in this process (in-process delivery only); without
   * them a message sent in process waits undelivered. Handed in by the worker entrypoints and by tests.
   */
  workers?: (c: Container) => WorkerHandlers;
}

export async function buildContainer(
  given: Config,
  overrides: Partial<Container> = {},
  wiring: ContainerWiring = {},
): Promise<Container> {
  setLogLevel(given.logLevel);
  configureMetrics(given.metrics);
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
      statementTimeoutMs: cfg.database?.statementTimeoutMs,
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
  const c: Container = {
    config: cfg,
    db,
    tokens,
    clock: overrides.clock ?? systemClock,
    secrets,
    sources: overrides.sources,
  } as Container;
  // The workers are built on first delivery: they need the finished container.
  let workers: WorkerHandlers | undefined;
  const handlers = wiring.workers && (() => (workers ??= wiring.workers!(c)));
  c.queue = overrides.queue ?? (await createQueue(cfg, handlers));
  return c;
}
