/** Comments that can match anomalies of some data views in a date window (matching itself is ./matching.ts). */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';

/** A stored comment as attached to the anomaly records it matches. */
export interface WindowComment {
  id: number;
  text: string;
  email: string;
  dataViewId: number;
  dateFrom: string;
  dateTo: string;
  categories: Record<string, string | null>;
}

/** Comments of the views whose validity window overlaps dateFrom..dateTo, oldest first. */
export async function readComments(
  db: Database,
  dataViewIds: readonly number[],
  window: { dateFrom: string; dateTo: string },
): Promise<WindowComment[]> {
  if (dataViewIds.length === 0) return [];
  const ids = sql.join(
    dataViewIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await db.rows<{
    id: number;
    text: string;
    email: string;
    data_view_id: number;
    date_from: string;
    date_to: string;
    categories: string;
  }>(sql`SELECT id, text, email, data_view_id, date_from::text AS date_from, date_to::text AS date_to,
                categories::text AS categories
         FROM comments
         WHERE data_view_id IN (${ids}) AND date_from <= ${window.dateTo}::date AND date_to >= ${window.dateFrom}::date
         ORDER BY date_from, id`);
  return rows.map((r) => ({
    id: Number(r.id),
    text: r.text,
    email: r.email,
    dataViewId: Number(r.data_view_id),
    dateFrom: r.date_from,
    dateTo: r.date_to,
    categories: (JSON.parse(r.categories ?? '{}') ?? {}) as Record<string, string | null>,
  }));
}
