/** The composition root: builds each adapter once per process from the config; tests install their own. */
import { type Config, config as loadConfig } from '../config/config';
import { connectDatabase } from '../db/connect';
import type { Database } from '../db/database';
import { TokenService } from '../identity/tokens';
import { setLogLevel } from '../shared/logger';
import { type Clock, systemClock } from '../shared/clock';

export interface Container {
  config: Config;
  db: Database;
  tokens: TokenService;
  clock: Clock;
}

let current: Promise<Container> | undefined;

export async function buildContainer(cfg: Config, overrides: Partial<Container> = {}): Promise<Container> {
  setLogLevel(cfg.logLevel);
  const db =
    overrides.db ??
    (await connectDatabase({
      databaseUrl: cfg.databaseUrl,
      pgliteDir: cfg.databaseUrl ? undefined : `${cfg.dataDir}/service-db`,
      migrate: !cfg.databaseUrl,
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
  return { config: cfg, db, tokens, clock: overrides.clock ?? systemClock };
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
