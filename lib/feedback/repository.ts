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
  incident_id: number | null;
  created_at: string;
  updated_at: string;
}

export type FeedbackRow = FeedbackRecord & { userId: number | null };

// Text, made SQL where it is used: no drizzle call may run when a bundled module loads (see
// lib/anomalies/query.ts).
const COLUMNS = `id, data_view_id, series_id, measure, type, start_date::text AS start_date,
  end_date::text AS end_date, status, note, user_id, email, incident_id,
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
    incidentId: r.incident_id === null ? null : Number(r.incident_id),
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
  k: FeedbackKey & {
    endDate: string;
    status: FeedbackStatus;
    note: string;
    userId: number | null;
    email: string;
    /** The incident the feedback was given on (null: on the record alone). */
    incidentId?: number | null;
  },
  /** Keep a feedback that exists on the key (a later cycle's member joins an event's feedback, never overrides one). */
  onlyIfAbsent = false,
): Promise<number | null> {
  const [row] = await db.rows<{ id: number }>(sql`
    INSERT INTO anomaly_feedback (data_view_id, series_id, measure, type, start_date, end_date, status, note, user_id, email, incident_id)
    VALUES (${k.dataViewId}, ${k.seriesId}, ${k.measure}, ${k.type}, ${k.startDate}::date, ${k.endDate}::date,
            ${k.status}, ${k.note}, ${k.userId}, ${k.email}, ${k.incidentId ?? null})
    ON CONFLICT (data_view_id, series_id, measure, type, start_date) ${
      onlyIfAbsent
        ? sql`DO NOTHING`
        : sql`DO UPDATE
      SET end_date = EXCLUDED.end_date, status = EXCLUDED.status, note = EXCLUDED.note,
          user_id = EXCLUDED.user_id, email = EXCLUDED.email, incident_id = EXCLUDED.incident_id, updated_at = now()`
    }
    RETURNING id`);
  return row ? Number(row.id) : null;
}

/** A feedback to add where its key has none. */
export type NewFeedback = FeedbackKey & {
  endDate: string;
  status: FeedbackStatus;
  note: string;
  userId: number | null;
  email: string;
  incidentId: number | null;
};

/** Adds the feedback of each key that has none, in one statement; answers how many were added. */
export async function insertFeedbackIfAbsent(db: Database, rows: readonly NewFeedback[]): Promise<number> {
  if (rows.length === 0) return 0;
  const payload = JSON.stringify(
    rows.map((r) => ({
      v: r.dataViewId,
      s: r.seriesId,
      m: r.measure,
      t: r.type,
      a: r.startDate,
      b: r.endDate,
      st: r.status,
      n: r.note,
      u: r.userId,
      e: r.email,
      i: r.incidentId,
    })),
  );
  const added = await db.rows<{ id: number }>(sql`
    INSERT INTO anomaly_feedback (data_view_id, series_id, measure, type, start_date, end_date, status, note, user_id, email, incident_id)
    SELECT x.v, x.s, x.m, x.t, x.a, x.b, x.st, x.n, x.u, x.e, x.i
    FROM jsonb_to_recordset(${payload}::jsonb) AS x(v int, s int, m text, t text, a date, b date, st text, n text, u int, e text, i int)
    ON CONFLICT (data_view_id, series_id, measure, type, start_date) DO NOTHING
    RETURNING id`);
  return added.length;
}

/** The feedback of a view given on incidents (incident_id set), oldest first. */
export async function incidentFeedbackOfView(db: Database, dataViewId: number): Promise<FeedbackRow[]> {
  return selectFeedback(db, sql`data_view_id = ${dataViewId} AND incident_id IS NOT NULL`);
}

export async function deleteFeedbackRow(db: Database, id: number): Promise<void> {
  await db.rows(sql`DELETE FROM anomaly_feedback WHERE id = ${id}`);
}

export async function deleteFeedbackWhere(db: Database, where: SQL): Promise<void> {
  await db.rows(sql`DELETE FROM anomaly_feedback WHERE ${where}`);
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
