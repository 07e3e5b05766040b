/** Opens the service database: postgres.js when a URL is given, otherwise PGlite in a folder (or in memory). */
import { wrapOrm, type Database, type Orm } from './database';
import { migrate } from './migrate';

export interface ConnectOptions {
  databaseUrl?: string;
  /** PGlite data folder; `memory://` or undefined keeps it in memory. */
  pgliteDir?: string;
  /** Pool size for postgres.js. */
  maxConnections?: number;
  migrate?: boolean;
}

export async function connectDatabase(opts: ConnectOptions): Promise<Database> {
  let db: Database;
  if (opts.databaseUrl) {
    const { default: postgres } = await import('postgres');
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const client = postgres(opts.databaseUrl, {
      max: opts.maxConnections ?? 5,
      onnotice: () => {},
      idle_timeout: 20,
      connect_timeout: 10,
    });
    db = wrapOrm('postgres', drizzle(client) as unknown as Orm, () => client.end({ timeout: 5 }));
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const { drizzle } = await import('drizzle-orm/pglite');
    const client = await PGlite.create(opts.pgliteDir ?? 'memory://');
    db = wrapOrm('pglite', drizzle(client) as unknown as Orm, () => client.close());
  }
  if (opts.migrate) await migrate(db);
  return db;
}
