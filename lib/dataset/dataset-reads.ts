/** Read-only looks into a deployed dataset: row counts and the category values of cat_map. */
import { sql } from 'drizzle-orm';
import { categoryColumn, DATA_TABLES, ident } from './ddl';
import type { Database } from '../db/database';

/** Row counts of the data tables present in `schema` (int, data, cat_map, all_series, all_anomalies). */
export async function dataRowCounts(
  db: Database,
  schema: string,
  present: string[],
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of DATA_TABLES) {
    if (!present.includes(table)) continue;
    const [row] = await db.rows<{ n: number | string }>(
      sql.raw(`SELECT count(*)::bigint AS n FROM ${ident(schema)}.${ident(table)}`),
    );
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}

/** The distinct values of one category in cat_map (the "all" NULLs left out), sorted, at most `limit`. */
export async function categoryValues(
  db: Database,
  schema: string,
  category: string,
  limit: number,
): Promise<{ values: string[]; truncated: boolean }> {
  const col = categoryColumn(category);
  const rows = await db.rows<{ v: string }>(
    sql.raw(
      `SELECT DISTINCT ${col} AS v FROM ${ident(schema)}.cat_map WHERE ${col} IS NOT NULL ORDER BY 1 LIMIT ${Math.floor(limit) + 1}`,
    ),
  );
  const values = rows.map((r) => r.v);
  return { values: values.slice(0, limit), truncated: values.length > limit };
}
