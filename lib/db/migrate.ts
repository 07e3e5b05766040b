/** Applies the ordered SQL migrations of lib/db/migrations once each, recording them in service_migrations. */
import { sql } from 'drizzle-orm';
import type { Database } from './database';
import { migrations } from './migrations/index';

export async function migrate(db: Database): Promise<string[]> {
  await db.rows(sql`CREATE TABLE IF NOT EXISTS service_migrations (
    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const done = new Set(
    (await db.rows<{ name: string }>(sql`SELECT name FROM service_migrations`)).map((r) => r.name),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    await db.tx(async (tx) => {
      for (const statement of m.sql
        .split(/;\s*\n/)
        .map((s) => s.trim())
        .filter(Boolean)) {
        await tx.rows(sql.raw(statement));
      }
      await tx.rows(sql`INSERT INTO service_migrations (name) VALUES (${m.name})`);
    });
    applied.push(m.name);
  }
  return applied;
}
