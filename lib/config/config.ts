/** The one config loader: reads the environment once, typed, failing fast with the variable's name. */
import path from 'node:path';
import { availableParallelism } from 'node:os';

export type Stage = 'local' | 'test' | 'aws';

export interface Config {
  stage: Stage;
  port: number;
  dataDir: string;
  /** postgres:// URL of the service database; absent means in-process PGlite in dataDir (tests, tools). */
  databaseUrl?: string;
  /**
   * How the service database is reached. On AWS the credentials come at run time from a Secrets Manager
   * secret (`secretId`, the RDS form {username, password, host, port, dbname}) and `host` names the RDS
   * Proxy endpoint; `maxConnections` is the postgres.js pool per container; `prepare: false` avoids named
   * prepared statements, which would pin every client connection to one database connection in the proxy.
   */
  database: {
    secretId?: string;
    host?: string;
    sslmode: 'disable' | 'prefer' | 'require' | 'verify-full';
    maxConnections: number;
    prepare: boolean;
    /**
     * PostgreSQL statement_timeout of every connection in ms (0: none). The HTTP functions on AWS set it
     * below their 28 s function timeout, so a heavy query ends as a clear 503 instead of a timeout.
     */
    statementTimeoutMs: number;
  };
  /** Runtime secrets (DATABASE_SECRET_ID, JWT_SECRET_ID) are cached this long before being read again. */
  secretsCacheSeconds: number;
  timeZone: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  auth: {
    jwtSecret?: string;
    /** Secrets Manager id of the token signing secret, read at run time (AWS); JWT_SECRET wins when both are set. */
    jwtSecretId?: string;
    tokenTtlSeconds: number;
    oidcIssuer?: string;
    oidcJwksUrl?: string;
    oidcAudience?: string;
  };
  secrets: { backend: 'local' | 'aws'; masterKey?: string; awsPrefix: string };
  queue: {
    backend: 'local' | 'sqs';
    sqsEndpoint?: string;
    queueUrls: Record<string, string>;
    lambdaEndpoint?: string;
  };
  /** Job execution: attempts before a job fails (= the SQS maxReceiveCount), local redelivery delay, worker time bound, load batch size. */
  jobs: {
    maxAttempts: number;
    retryDelaySeconds: number;
    timeoutSeconds: number;
    loadBatchSize: number;
    /** A full load of more source rows than this is split into parts by day range (0: never). */
    loadSplitRows: number;
    /** Chunks of 112 days per part of a split load. */
    loadPartChunks: number;
    /** The most parts of a split load (parts then hold more chunks each). */
    loadMaxParts: number;
  };
  /** Detection: series per shard (memory per shard ≈ series × days × 9 bytes). */
  /** fanOut: a view of several shards runs as one shard message per shard on the process queue. */
  detection: { shardSize: number; maxShards: number; fanOut: boolean };
  license: { plan: string; maxDataViews: number };
  connectorTimeoutMs: number;
  /**
   * Bound of a source query an API request runs (preview, a new view from a query): per round trip, and the
   * request's own deadline cancels it too. Loads keep their long bound (max(CONNECTOR_TIMEOUT_MS, 5 min)).
   */
  apiQueryTimeoutMs: number;
  /**
   * The CloudFront distribution in front of the API (deploy/web.yml): the secret it sends in x-origin-verify
   * (ORIGIN_VERIFY_SECRET, or read at run time from ORIGIN_VERIFY_SECRET_ID). Set, requests without it are
   * refused and the viewer address it sends is the client's (lib/http/edge-guard.ts).
   */
  edge: { originSecret?: string; originSecretId?: string };
  /** Summary refreshes one user may ask for per hour (SUMMARY_REFRESHES_PER_HOUR). */
  summaryRefreshesPerHour: number;
  /** The most anomalies a merged, aggregated or incident filter run reads (FILTER_MAX_RECORDS). */
  filterMaxRecords: number;
  /**
   * Bounds of the reads of one request (docs/security.md, "Bounded reads"), in values (series × days ×
   * measures, 8 bytes each): the leaves the contributions of a series read at a time
   * (CONTRIBUTIONS_BATCH_CELLS) and in all (CONTRIBUTIONS_MAX_CELLS, past it 413), and the peer or child
   * group a chart's preview of a peer or cardinality detector reads (PREVIEW_GROUP_CELLS).
   */
  reads: { contributionBatchCells: number; contributionMaxCells: number; previewGroupCells: number };
  connectorTestIntervalHours: number;
  seed: { adminPassword?: string; userPassword?: string };
  awsRegion: string;
  /** Folder of the built web UI. */
  webRoot: string;
  /** Where the function's code lies (LAMBDA_TASK_ROOT on Lambda, else the working folder): the API docs' assets. */
  taskRoot: string;
  /**
   * CloudWatch metrics (lib/shared/metrics.ts): written only inside a Lambda function on AWS
   * (SERVICE_STAGE=aws with AWS_LAMBDA_FUNCTION_NAME, not under serverless-offline's IS_OFFLINE), in the
   * namespace POWERTOOLS_METRICS_NAMESPACE (default AnomalyMonitor).
   */
  metrics: { enabled: boolean; namespace: string };
  /** `npm start` builds the UI when stale (`auto`) or never (`skip`). */
  webBuild: 'auto' | 'skip';
  /** `npm start` seeds the demo source, connector and data view (DEMO=off skips it). */
  demo: boolean;
  /** `npm start` only: how many invocations of one worker function run at once (as an event source's maximumConcurrency). */
  localWorkerConcurrency: number;
}

export class ConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got '${raw}'`);
  }
  return n;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got '${raw}'`);
  }
  return raw as T;
}

function timeZone(env: Env): string {
  const tz = str(env, 'SERVICE_TIME_ZONE') ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new ConfigError(`SERVICE_TIME_ZONE must be an IANA time zone such as Europe/Prague, got '${tz}'`);
  }
  return tz;
}

function databaseUrl(env: Env): string | undefined {
  const url = str(env, 'DATABASE_URL');
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  return url;
}

/** HS256 wants a key of at least its 256-bit output; a shorter shared secret can be guessed offline from one token. */
export const JWT_SECRET_MIN_LENGTH = 32;

/** The token-signing secret as given, refused (without echoing it) when it is too short to sign with. */
export function checkedJwtSecret(value: string | undefined, source: string): string | undefined {
  if (value !== undefined && value.length < JWT_SECRET_MIN_LENGTH) {
    throw new ConfigError(
      `${source} must be at least ${JWT_SECRET_MIN_LENGTH} characters long (it has ${value.length}); ` +
        'generate one with `openssl rand -base64 48`',
    );
  }
  return value;
}

/** How detection is cut into shards. */
function detectionConfig(env: Env): Config['detection'] {
  return {
    shardSize: int(env, 'DETECTION_SHARD_SIZE', 1000, 1, 1_000_000),
    // Unlimited by default: the queue's event source caps how many shards run at once (on AWS its
    // maximumConcurrency, under `npm start` the local event source's LOCAL_WORKER_CONCURRENCY).
    maxShards: int(env, 'DETECTION_MAX_SHARDS', 1_000_000, 1, 1_000_000),
    fanOut: oneOf(env, 'DETECTION_FAN_OUT', ['on', 'off'] as const, 'on') === 'on',
  };
}

/** The bounds of one request's reads (docs/security.md, "Bounded reads"). */
function readBounds(env: Env): Config['reads'] {
  return {
    contributionBatchCells: int(env, 'CONTRIBUTIONS_BATCH_CELLS', 2_000_000, 1, 100_000_000),
    contributionMaxCells: int(env, 'CONTRIBUTIONS_MAX_CELLS', 50_000_000, 1, 1_000_000_000),
    previewGroupCells: int(env, 'PREVIEW_GROUP_CELLS', 2_000_000, 1, 100_000_000),
  };
}

/** Job execution and loads. */
function jobsConfig(env: Env): Config['jobs'] {
  return {
    maxAttempts: int(env, 'JOB_MAX_ATTEMPTS', 3, 1, 20),
    retryDelaySeconds: int(env, 'JOB_RETRY_DELAY_SECONDS', 30, 0, 900),
    timeoutSeconds: int(env, 'JOB_TIMEOUT_SECONDS', 900, 10, 43_200),
    loadBatchSize: int(env, 'LOAD_BATCH_SIZE', 10_000, 100, 1_000_000),
    loadSplitRows: int(env, 'LOAD_SPLIT_ROWS', 0, 0, Number.MAX_SAFE_INTEGER),
    loadPartChunks: int(env, 'LOAD_PART_CHUNKS', 2, 1, 1_000),
    loadMaxParts: int(env, 'LOAD_MAX_PARTS', 100, 2, 10_000),
  };
}

/** Parses an environment into a Config; throws ConfigError naming the variable at fault. */
export function loadConfig(env: Env = process.env): Config {
  const queueUrls: Record<string, string> = {};
  for (const kind of ['load', 'process', 'replay', 'summarize'] as const) {
    const url = str(env, `QUEUE_URL_${kind.toUpperCase()}`);
    if (url) queueUrls[kind] = url;
  }
  return {
    stage: oneOf(env, 'SERVICE_STAGE', ['local', 'test', 'aws'] as const, 'local'),
    port: int(env, 'PORT', 3000, 1, 65535),
    dataDir: path.resolve(str(env, 'DATA_DIR') ?? 'data'),
    databaseUrl: databaseUrl(env),
    database: {
      secretId: str(env, 'DATABASE_SECRET_ID'),
      host: str(env, 'DATABASE_HOST'),
      sslmode: oneOf(
        env,
        'DATABASE_SSLMODE',
        ['disable', 'prefer', 'require', 'verify-full'] as const,
        'require',
      ),
      maxConnections: int(env, 'DATABASE_MAX_CONNECTIONS', 5, 1, 100),
      prepare: oneOf(env, 'DATABASE_PREPARE', ['on', 'off'] as const, 'on') === 'on',
      statementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 0, 0, 900_000),
    },
    secretsCacheSeconds: int(env, 'SECRETS_CACHE_SECONDS', 300, 0, 86_400),
    timeZone: timeZone(env),
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info'),
    auth: {
      jwtSecret: checkedJwtSecret(str(env, 'JWT_SECRET'), 'JWT_SECRET'),
      jwtSecretId: str(env, 'JWT_SECRET_ID'),
      tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 8 * 3600, 60, 30 * 24 * 3600),
      oidcIssuer: str(env, 'OIDC_ISSUER'),
      oidcJwksUrl: str(env, 'OIDC_JWKS_URL'),
      oidcAudience: str(env, 'OIDC_AUDIENCE'),
    },
    secrets: {
      backend: oneOf(env, 'SECRETS_BACKEND', ['local', 'aws'] as const, 'local'),
      masterKey: str(env, 'MASTER_KEY'),
      awsPrefix: str(env, 'SECRETS_PREFIX') ?? 'anomaly-monitor/local/',
    },
    queue: {
      backend: oneOf(env, 'QUEUE_BACKEND', ['local', 'sqs'] as const, 'local'),
      sqsEndpoint: str(env, 'SQS_ENDPOINT'),
      queueUrls,
      lambdaEndpoint: str(env, 'LOCAL_LAMBDA_ENDPOINT'),
    },
    jobs: jobsConfig(env),
    detection: detectionConfig(env),
    license: {
      plan: str(env, 'LICENSE_PLAN') ?? 'standard',
      maxDataViews: int(env, 'LICENSE_MAX_DATA_VIEWS', 50, 0),
    },
    connectorTimeoutMs: int(env, 'CONNECTOR_TIMEOUT_MS', 15_000, 100),
    apiQueryTimeoutMs: int(env, 'API_QUERY_TIMEOUT_MS', 20_000, 100, 900_000),
    edge: {
      originSecret: str(env, 'ORIGIN_VERIFY_SECRET'),
      originSecretId: str(env, 'ORIGIN_VERIFY_SECRET_ID'),
    },
    summaryRefreshesPerHour: int(env, 'SUMMARY_REFRESHES_PER_HOUR', 30, 1, 10_000),
    filterMaxRecords: int(env, 'FILTER_MAX_RECORDS', 50_000, 100, 1_000_000),
    reads: readBounds(env),
    connectorTestIntervalHours: int(env, 'CONNECTOR_TEST_INTERVAL_HOURS', 4, 1, 168),
    seed: { adminPassword: str(env, 'SEED_ADMIN_PASSWORD'), userPassword: str(env, 'SEED_USER_PASSWORD') },
    awsRegion: str(env, 'AWS_REGION') ?? 'us-east-1',
    webBuild: oneOf(env, 'WEB_BUILD', ['auto', 'skip'] as const, 'auto'),
    demo: oneOf(env, 'DEMO', ['on', 'off'] as const, 'on') === 'on',
    // `npm start`: invocations of one worker function running at once (scripts/local/event-source.ts).
    localWorkerConcurrency: int(
      env,
      'LOCAL_WORKER_CONCURRENCY',
      Math.max(2, availableParallelism()),
      1,
      1_000,
    ),
    webRoot: path.resolve(str(env, 'WEB_ROOT') ?? path.join(str(env, 'LAMBDA_TASK_ROOT') ?? '.', 'web/dist')),
    taskRoot: path.resolve(str(env, 'LAMBDA_TASK_ROOT') ?? '.'),
    metrics: {
      enabled:
        str(env, 'SERVICE_STAGE') === 'aws' &&
        !!str(env, 'AWS_LAMBDA_FUNCTION_NAME') &&
        !str(env, 'IS_OFFLINE'),
      namespace: str(env, 'POWERTOOLS_METRICS_NAMESPACE') ?? 'AnomalyMonitor',
    },
  };
}

let cached: Config | undefined;

/** The process-wide config, read once. */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}

/** Tests and the start script replace the config explicitly. */
export function setConfig(next: Config): void {
  cached = next;
}
