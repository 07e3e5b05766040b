/**
 * The series catalog of a view (`cat_map`: one row per series, its category values and codes, its parent;
 * `all_series`: per series its first and last day, days with data, totals): lib/dataset owns these tables
 * with the packed series (`data`, `days`, read through series-store.ts) (docs/architecture.md, Per-view
 * tables). A query of another module that joins the catalog takes the table from here.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { ident } from './ddl';

/** The view's `cat_map`, schema-qualified and quoted, for a query that reads or joins the catalog. */
export function catalogTable(schema: string): string {
  return `${ident(schema)}.cat_map`;
}

/** The view's `all_series`, schema-qualified and quoted. */
export function seriesStatsTable(schema: string): string {
  return `${ident(schema)}.all_series`;
}

/**
 * A token that changes whenever the view's cat_map does (another table after a full load, other rows
 * after an incremental one): its oid, row count and highest series id.
 */
export async function catalogToken(db: Database, schema: string): Promise<string> {
  const table = catalogTable(schema);
  const [r] = await db.rows<{ token: string | null }>(
    sql.raw(
      `SELECT concat_ws(':', to_regclass('${table.replace(/'/g, "''")}')::oid, count(*), max(series_id)) AS token FROM ${table}`,
    ),
  );
  return String(r?.token ?? '');
}
