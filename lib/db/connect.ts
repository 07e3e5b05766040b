/** Opens the service database: postgres.js when a URL is given, otherwise PGlite in a folder (or in memory). */
import { type Database, type Orm, wrapOrm } from './database';
import { migrate } from './migrate';

export interface ConnectOptions {
  databaseUrl?: string;
  /** PGlite data folder; `memory://` or undefined keeps it in memory. */
  pgliteDir?: string;
  /**
   * A PGlite data folder dumped with `dumpDataDir` to start from instead of a new cluster (a new database
   * is created, not a copy of a running one): about a second and a half less than PGlite's own setup.
   */
  pgliteSnapshot?: Blob;
  /**
   * Pool size for postgres.js (default 5). On AWS every container is one request or job at a time, so
   * the stage sets 1 (HTTP) or 2 (workers): the database sees at most reserved concurrency × this.
   */
  maxConnections?: number;
  /**
   * Named prepared statements (default on). Off behind RDS Proxy: a prepared statement pins the client
   * to one database connection, which defeats the proxy's multiplexing.
   */
  prepare?: boolean;
  /** statement_timeout of every connection in ms (postgres.js only; 0 or absent: none). */
  statementTimeoutMs?: number;
  /** Read for every new connection (a rotated password is picked up); otherwise the URL's password. */
  password?: () => Promise<string>;
  migrate?: boolean;
}

/** postgres.js settings of the service pool (exported for the deploy test of the sizing). */
export function poolOptions(opts: ConnectOptions) {
  return {
    max: opts.maxConnections ?? 5,
    prepare: opts.prepare ?? true,
    onnotice: () => {},
    // Idle connections close after 20 s: a frozen Lambda container gives its connection back soon,
    // and a connection pinned in the proxy is released.
    idle_timeout: 20,
    // Recycle long-lived connections (e.g. after a password rotation or a proxy failover).
    max_lifetime: 30 * 60,
    connect_timeout: 10,
    ...(opts.statementTimeoutMs ? { connection: { statement_timeout: opts.statementTimeoutMs } } : {}),
    ...(opts.password ? { pass: opts.password } : {}),
  };
}

/**
 * True when a local URL is the embedded PGlite served by `npm start` (scripts/local/pglite-server.ts):
 * a 32-bit WebAssembly PostgreSQL that runs one statement at a time, so callers size `work_mem` and
 * the like for it (kind 'pglite'). Only loopback URLs are asked, so a server elsewhere costs no query.
 */
async function servesPglite(url: string, client: (q: TemplateStringsArray) => Promise<unknown>) {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') return false;
  try {
    const rows = (await client`SELECT version() AS v`) as Array<{ v: string }>;
    return /PGlite/i.test(rows[0]?.v ?? '');
  } catch {
    return false;
  }
}

export async function connectDatabase(opts: ConnectOptions): Promise<Database> {
  let db: Database;
  if (opts.databaseUrl) {
    const { default: postgres } = await import('postgres');
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const client = postgres(opts.databaseUrl, poolOptions(opts) as Parameters<typeof postgres>[1]);
    const kind = (await servesPglite(opts.databaseUrl, client)) ? 'pglite' : 'postgres';
    db = wrapOrm(kind, drizzle(client) as unknown as Orm, () => client.end({ timeout: 5 }));
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const { drizzle } = await import('drizzle-orm/pglite');
    const client = await PGlite.create(
      opts.pgliteDir ?? 'memory://',
      opts.pgliteSnapshot ? { loadDataDir: opts.pgliteSnapshot } : {},
    );
    db = wrapOrm('pglite', drizzle(client) as unknown as Orm, () => client.close());
  }
  if (opts.migrate) await migrate(db);
  return db;
}
