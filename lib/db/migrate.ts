/**
 * Applies the ordered SQL migrations of lib/db/migrations once each, recording them in service_migrations. Two
 * functions starting together on an empty database would both create the same tables: the whole run holds a
 * transaction-level advisory lock, so the second waits, then finds every migration applied.
 */
import { sql } from 'drizzle-orm';
import type { Database } from './database';
import { migrations } from './migrations/index';

/** The advisory lock key of a migration run (an arbitrary constant of this service). */
export const MIGRATION_LOCK_KEY = 0x616d6d67; // 'ammg'

export async function migrate(db: Database): Promise<string[]> {
  return db.tx(async (tx) => {
    await tx.rows(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.rows(sql`CREATE TABLE IF NOT EXISTS service_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await tx.rows<{ name: string }>(sql`SELECT name FROM service_migrations`)).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      for (const statement of m.sql
        .split(/;\s*\n/)
        .map((s) => s.trim())
        .filter(Boolean)) {
        await tx.rows(sql.raw(statement));
      }
      await tx.rows(sql`INSERT INTO service_migrations (name) VALUES (${m.name})`);
      applied.push(m.name);
    }
    return applied;
  });
}
