/**
 * The `event_feedback` table (lib/feedback owns it, docs/architecture.md, Table owners): feedback given on an
 * incident with the event's footprint, which lib/incidents/event-feedback.ts builds and matches. Its rows
 * travel as stored: dates as yyyy-MM-dd text, the series and causes as JSON.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import type { FeedbackStatus } from './types';

export interface EventFeedbackRow {
  incident_id: number;
  status: FeedbackStatus;
  note: string;
  user_id: number | null;
  email: string;
  result: 'Positive' | 'Negative';
  s: string;
  e: string;
  series: unknown;
  causes: unknown;
}

/** The event feedback of a view, in the order it was first given. */
export async function readEventFeedback(db: Database, dataViewId: number): Promise<EventFeedbackRow[]> {
  return db.rows<EventFeedbackRow>(sql`SELECT incident_id, status, note, user_id, email, result,
      start_date::text AS s, end_date::text AS e, series, causes
    FROM event_feedback WHERE data_view_id = ${dataViewId} ORDER BY id`);
}

/** Stores (or replaces) the feedback on incident `r.incident_id` of a view. */
export async function upsertEventFeedback(
  db: Database,
  dataViewId: number,
  r: EventFeedbackRow,
): Promise<void> {
  await db.rows(sql`INSERT INTO event_feedback (data_view_id, incident_id, result, start_date, end_date, series, causes,
      status, note, user_id, email)
    VALUES (${dataViewId}, ${r.incident_id}, ${r.result}, ${r.s}::date, ${r.e}::date,
      ${JSON.stringify(r.series)}::jsonb, ${JSON.stringify(r.causes)}::jsonb, ${r.status}, ${r.note}, ${r.user_id}, ${r.email})
    ON CONFLICT (data_view_id, incident_id) DO UPDATE SET result = EXCLUDED.result, start_date = EXCLUDED.start_date,
      end_date = EXCLUDED.end_date, series = EXCLUDED.series, causes = EXCLUDED.causes, status = EXCLUDED.status,
      note = EXCLUDED.note, user_id = EXCLUDED.user_id, email = EXCLUDED.email`);
}

/** Removes the feedback on one incident of a view; the rows removed (0 or 1). */
export async function deleteEventFeedback(
  db: Database,
  dataViewId: number,
  incidentId: number,
): Promise<number> {
  const rows = await db.rows<{ id: number }>(
    sql`DELETE FROM event_feedback WHERE data_view_id = ${dataViewId} AND incident_id = ${incidentId} RETURNING id`,
  );
  return rows.length;
}
