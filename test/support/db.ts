/** A fresh, migrated service database per test file: PGlite in memory, or a new database on the server of DATABASE_URL. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';

export const serverUrl = process.env.DATABASE_URL;
export const backendName = serverUrl ? 'postgres' : 'pglite';

export interface TestDatabase {
  db: Database;
  url?: string;
  drop(): Promise<void>;
}

let loaded: Blob | undefined;
/** The migrated database test/global-setup.ts dumped (read once per file), if the run made one. */
function snapshot(): Blob | undefined {
  // Outside vitest (scripts/eval) there is none.
  const file = process.env.VITEST ? inject('pgliteSnapshot') : undefined;
  if (!file) return undefined;
  loaded ??= new Blob([readFileSync(file)]);
  return loaded;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!serverUrl) {
    const db = await connectDatabase({ pgliteSnapshot: snapshot(), migrate: true });
    return { db, drop: () => db.close() };
  }
  const { default: postgres } = await import('postgres');
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await connectDatabase({ databaseUrl: url.toString(), migrate: true });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
