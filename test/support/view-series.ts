/** A loaded view's series as the series store reads them, for pipeline tests. */
import { sql } from 'drizzle-orm';
import { epochDayToYyyymmdd } from '../../lib/calendar/days';
import { type GapFill, readSeries, viewDays } from '../../lib/dataset/series-store';
import { schemaNameFor } from '../../lib/dataset/ddl';
import type { Database } from '../../lib/db/database';

export interface ViewSeries {
  /** The view's days, YYYYMMDD. */
  days: number[];
  /** Per series (by series_id): value and count per day, null before the series' first day with data. */
  byId: Map<number, { values: Array<number | null>; counts: Array<number | null>; present: number[] }>;
}

/** Every series of view `viewId` over the view's days, filled as `fill` says. */
export async function viewSeries(db: Database, viewId: number, fill: GapFill = 'zero'): Promise<ViewSeries> {
  const source = { schema: schemaNameFor(viewId), fill };
  const range = await viewDays(db, source);
  const ids = (
    await db.rows<{ id: number }>(sql.raw(`SELECT series_id AS id FROM ${source.schema}.cat_map ORDER BY 1`))
  ).map((r) => Number(r.id));
  const byId: ViewSeries['byId'] = new Map();
  if (!range) return { days: [], byId };
  const [value, count] = await readSeries(db, source, ids, range, ['value', 'count']);
  const n = range.days;
  for (const [r, id] of ids.entries()) {
    const present = Array.from(value.present.subarray(r * n, (r + 1) * n));
    const first = present.indexOf(1);
    const cut = (xs: Float64Array) =>
      Array.from(xs.subarray(r * n, (r + 1) * n), (v, t) => (first < 0 || t < first ? null : v));
    byId.set(id, { values: cut(value.values), counts: cut(count.values), present });
  }
  const days = Array.from({ length: n }, (_, t) => epochDayToYyyymmdd(range.dayIndex0 + t));
  return { days, byId };
}
