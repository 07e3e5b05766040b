/** The service database port: drizzle over PGlite (embedded) or postgres.js (a PostgreSQL server), one shape for both. */
import type { SQL } from 'drizzle-orm';
import type { PgDatabase } from 'drizzle-orm/pg-core';

// The two drivers differ only in their result HKT.
export type Orm = PgDatabase<any, any>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly orm: Orm;
  /** Runs a statement built with drizzle's `sql` tag and returns its rows. */
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** Runs `fn` in one transaction; everything written inside is undone when it throws. */
  tx<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Wraps any drizzle pg database (or transaction) into the port. */
export function wrapOrm(kind: Database['kind'], orm: Orm, close: () => Promise<void>): Database {
  const self: Database = {
    kind,
    orm,
    async rows<T>(query: SQL) {
      const r = (await orm.execute(query)) as unknown;
      return (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[];
    },
    tx(fn) {
      return orm.transaction((t) => fn(wrapOrm(kind, t as unknown as Orm, async () => {})));
    },
    close,
  };
  return self;
}
