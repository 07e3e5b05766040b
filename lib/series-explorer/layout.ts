/**
 * The part of a view's layout that the preview of one series needs: the root, the series' own peer group
 * and the groups of its children, with the view's day range. readLayout reads every series, a cost that
 * grows with the view (docs/performance.md, Measurements behind the code); this reads only the series around
 * one, with the same grouping and order, so the groups it returns equal readLayout's for that series.
 */
import { sql } from 'drizzle-orm';
import { catalogTable, seriesStatsTable } from '../dataset/catalog';
import type { Database } from '../db/database';
import { differingCategorySql, type LayoutRow, layoutOf, type ViewLayout } from '../process-job/layout';

export async function seriesLayout(
  db: Database,
  schema: string,
  categories: Array<{ name: string }>,
  seriesId: number,
): Promise<ViewLayout> {
  const cat = differingCategorySql(categories);
  const [own] = await db.rows<{ parent_series_id: number | null }>(
    sql`SELECT parent_series_id FROM ${sql.raw(catalogTable(schema))} WHERE series_id = ${seriesId}`,
  );
  const parent = own?.parent_series_id ?? null;
  // The few rows first (one scan of cat_map), then their parents by primary key: no hash of the whole table.
  const rows = await db.rows<LayoutRow>(sql`
    WITH c AS MATERIALIZED (
      SELECT * FROM ${sql.raw(catalogTable(schema))}
      WHERE parent_series_id IS NULL OR series_id = ${seriesId} OR parent_series_id = ${seriesId}
        ${parent === null ? sql`` : sql`OR parent_series_id = ${Number(parent)}`}
    )
    SELECT c.series_id, c.parent_series_id, ${sql.raw(cat)} AS cat FROM c
    LEFT JOIN ${sql.raw(catalogTable(schema))} p ON p.series_id = c.parent_series_id
    ORDER BY c.parent_series_id NULLS FIRST, 3 NULLS FIRST, c.series_id`);
  const [range] = await db.rows<{ first: number | null; last: number | null }>(
    sql.raw(`SELECT min(first_day) AS first, max(last_day) AS last FROM ${seriesStatsTable(schema)}`),
  );
  return layoutOf(rows, range?.first ?? null, range?.last ?? null, '');
}
