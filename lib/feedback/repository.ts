/** Storage of anomaly feedback (table anomaly_feedback, migration 0010). */
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import type { FeedbackKey, FeedbackRecord, FeedbackStatus } from './types';

interface Raw {
  id: number;
  data_view_id: number;
  series_id: number;
  measure: 'value' | 'count' | 'ratio';
  type: string;
  start_date: string;
  end_date: string;
  status: FeedbackStatus;
  note: string;
  user_id: number | null;
  email: string;
  created_at: string;
  updated_at: string;
}

export type FeedbackRow = FeedbackRecord & { userId: number | null };

// Text, made SQL where it is used: no drizzle call may run when a bundled module loads (see
// lib/anomalies/query.ts).
const COLUMNS = `id, data_view_id, series_id, measure, type, start_date::text AS start_date,
  end_date::text AS end_date, status, note, user_id, email,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;

function toRow(r: Raw): FeedbackRow {
  return {
    id: Number(r.id),
    dataViewId: Number(r.data_view_id),
    seriesId: Number(r.series_id),
    measure: r.measure,
    type: r.type,
    startDate: r.start_date,
    endDate: r.end_date,
    status: r.status,
    note: r.note,
    userId: r.user_id === null ? null : Number(r.user_id),
    email: r.email,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function selectFeedback(db: Database, where: SQL): Promise<FeedbackRow[]> {
  const rows = await db.rows<Raw>(
    sql`SELECT ${sql.raw(COLUMNS)} FROM anomaly_feedback WHERE ${where} ORDER BY data_view_id, start_date, id`,
  );
  return rows.map(toRow);
}

export async function findFeedbackByKey(db: Database, k: FeedbackKey): Promise<FeedbackRow | undefined> {
  return (
    await selectFeedback(
      db,
      sql`data_view_id = ${k.dataViewId} AND series_id = ${k.seriesId} AND measure = ${k.measure}
          AND type = ${k.type} AND start_date = ${k.startDate}::date`,
    )
  )[0];
}

export async function findFeedbackById(db: Database, id: number): Promise<FeedbackRow | undefined> {
  return (await selectFeedback(db, sql`id = ${id}`))[0];
}

/** Inserts or replaces the feedback of a key; the author becomes the given user. */
export async function upsertFeedback(
  db: Database,
  k: FeedbackKey & { endDate: string; status: FeedbackStatus; note: string; userId: number; email: string },
): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`
    INSERT INTO anomaly_feedback (data_view_id, series_id, measure, type, start_date, end_date, status, note, user_id, email)
    VALUES (${k.dataViewId}, ${k.seriesId}, ${k.measure}, ${k.type}, ${k.startDate}::date, ${k.endDate}::date,
            ${k.status}, ${k.note}, ${k.userId}, ${k.email})
    ON CONFLICT (data_view_id, series_id, measure, type, start_date) DO UPDATE
      SET end_date = EXCLUDED.end_date, status = EXCLUDED.status, note = EXCLUDED.note,
          user_id = EXCLUDED.user_id, email = EXCLUDED.email, updated_at = now()
    RETURNING id`);
  return Number(row.id);
}

export async function deleteFeedbackRow(db: Database, id: number): Promise<void> {
  await db.rows(sql`DELETE FROM anomaly_feedback WHERE id = ${id}`);
}

/** Feedback of the given views whose start date lies in [dateFrom, dateTo] (the keys of shown records). */
export async function feedbackOfViews(
  db: Database,
  dataViewIds: readonly number[],
  window: { dateFrom: string; dateTo: string },
): Promise<FeedbackRow[]> {
  if (dataViewIds.length === 0) return [];
  const ids = sql.join(
    dataViewIds.map((id) => sql`${id}`),
    sql`, `,
  );
  return selectFeedback(
    db,
    sql`data_view_id IN (${ids}) AND start_date BETWEEN ${window.dateFrom}::date AND ${window.dateTo}::date`,
  );
}
