/**
 * The swap of a series build: the build's tables put in place of the view's (lib/dataset/build-sql.ts, swapRenames),
 * inside the caller's transaction so that readers see the old tables or the new ones, never a mix; and
 * the build's tables, the old ones among them, dropped after the commit (keeping that transaction short).
 */
import { sql } from 'drizzle-orm';
import { dropBuildTables } from '../dataset/ddl';
import type { Database } from '../db/database';
import { swapRenames } from '../dataset/build-sql';

/**
 * Puts build `tag`'s cat_map, data, days and all_series in place of the view's (and, when `int` is given,
 * that table in place of `int`). Call inside a transaction. The old tables are renamed to build tables of
 * `tag` (build_<tag>_old_…), which dropBuild drops after the commit.
 */
export async function swapSeries(
  db: Database,
  schema: string,
  tag: string,
  int?: { table: string; dayIndex: string },
): Promise<void> {
  for (const statement of swapRenames(schema, tag, int)) await db.rows(sql.raw(statement));
}

/** Drops build `tag`'s tables (after the swap: the old tables among them). */
export async function dropBuild(db: Database, schema: string, tag: string): Promise<void> {
  await dropBuildTables(db, schema, tag);
}
