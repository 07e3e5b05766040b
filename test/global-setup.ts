/**
 * Once per `npm test`, what every file would otherwise make again:
 * - on PGlite, a migrated service database dumped to a file, from which every test file's database starts
 *   (test/support/db.ts) instead of setting up a PGlite cluster and migrating it again. Each file still
 *   gets its own database; only the time to make it is saved;
 * - the password hashes of the test service's two accounts (test/support/service.ts): scrypt at the
 *   service's cost, a few tenths of a second of a core each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated PGlite data folder (dumpDataDir), or '' on PostgreSQL. */
    pgliteSnapshot: string;
    /** Stored hashes (lib/identity/passwords.ts) of the test service's admin and data-user passwords. */
    testAccountHashes: { admin: string; user: string };
  }
}

export default async function setup(project: TestProject) {
  const { hashPassword } = await import('../lib/identity/passwords');
  const { ADMIN, USER } = await import('./support/accounts');
  const [admin, user] = await Promise.all([hashPassword(ADMIN.password), hashPassword(USER.password)]);
  project.provide('testAccountHashes', { admin, user });
  if (process.env.DATABASE_URL) {
    project.provide('pgliteSnapshot', '');
    return;
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { connectDatabase } = await import('../lib/db/connect');
  const dir = mkdtempSync(path.join(tmpdir(), 'am-test-snapshot-'));
  const db = await connectDatabase({ pgliteDir: path.join(dir, 'db'), migrate: true });
  await db.close();
  const pg = await PGlite.create(path.join(dir, 'db'));
  const dump = await pg.dumpDataDir('none');
  await pg.close();
  const file = path.join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteSnapshot', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
