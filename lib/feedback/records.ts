/**
 * Feedback as anomaly records meet it: a record's key, the feedback of a set of views by key, and the SQL
 * (and the same rule in memory) that hides dismissed records. lib/anomalies attaches it to the records it shows.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { feedbackOfViews } from './repository';
import { type FeedbackKey, keyString, type RecordFeedback } from './types';

/** The fields of an anomaly record that make its stable key (a record without a measure is on the value). */
export interface KeyFields {
  dataViewId: number;
  seriesId: number;
  measure?: FeedbackKey['measure'] | null;
  type: string;
  startDate: string;
}

/** The record's key string (see keyString). */
export function recordKey(a: KeyFields): string {
  return keyString({
    dataViewId: a.dataViewId,
    seriesId: a.seriesId,
    measure: a.measure ?? 'value',
    type: a.type,
    startDate: a.startDate,
  });
}

/** The dismissal rule over a record aliased `r` and a feedback aliased `f` of its view and series. */
const DISMISSES = (
  r: string,
) => `((f.measure = coalesce(${r}.measure, 'value') AND f.type = ${r}.type AND f.start_date = ${r}.start_date
      AND f.status IN ('expected', 'not-anomaly'))
    OR (f.status = 'not-anomaly' AND ${r}.start_date >= f.start_date AND ${r}.end_date <= f.end_date))`;

/**
 * A condition over a view's all_anomalies (alias `a`) that is true when the record is NOT dismissed: no feedback
 * "expected" or "not-anomaly" on its key, and no "not-anomaly" on the same series whose window holds the
 * record's dates, whatever its measure (a record marked not an anomaly is not reported again for the same
 * window, whatever detector or measure flags it after a re-detection). With `incidentsOf` (the view's records
 * table, schema-qualified, when its records carry incident ids: lib/process-job's `anomaliesTable`) a record is dismissed too when another member of its incident is:
 * feedback on an event applies to every member, measure and level of it.
 */
export function notDismissedCondition(dataViewId: number, incidentsOf?: string): SQL {
  const own = sql`NOT EXISTS (SELECT 1 FROM anomaly_feedback f
    WHERE f.data_view_id = ${dataViewId} AND f.series_id = a.series_id AND ${sql.raw(DISMISSES('a'))})`;
  if (!incidentsOf) return own;
  return sql`${own} AND (a.incident_id IS NULL OR a.incident_id NOT IN (
    SELECT b.incident_id FROM ${sql.raw(incidentsOf)} b JOIN anomaly_feedback f
      ON f.data_view_id = ${dataViewId} AND f.series_id = b.series_id
    WHERE b.incident_id IS NOT NULL AND ${sql.raw(DISMISSES('b'))}))`;
}

/** The same rule in memory, for records already read (alerts). */
export function isDismissed(
  a: Omit<KeyFields, 'dataViewId'> & { endDate: string },
  feedback: ReadonlyArray<{
    seriesId: number;
    measure: string;
    type: string;
    startDate: string;
    endDate: string;
    status: string;
  }>,
): boolean {
  return feedback.some(
    (f) =>
      f.seriesId === a.seriesId &&
      ((f.measure === (a.measure ?? 'value') &&
        f.type === a.type &&
        f.startDate === a.startDate &&
        (f.status === 'expected' || f.status === 'not-anomaly')) ||
        (f.status === 'not-anomaly' && a.startDate >= f.startDate && a.endDate <= f.endDate)),
  );
}

/** The feedback of `dataViewIds` whose records start within the window, by key string (see recordKey). */
export async function feedbackByKey(
  db: Database,
  dataViewIds: readonly number[],
  window: { dateFrom: string; dateTo: string },
): Promise<Map<string, RecordFeedback>> {
  const byKey = new Map<string, RecordFeedback>();
  for (const f of await feedbackOfViews(db, dataViewIds, window)) {
    byKey.set(keyString(f), {
      id: f.id,
      status: f.status,
      note: f.note,
      email: f.email,
      updatedAt: f.updatedAt,
      incidentId: f.incidentId,
    });
  }
  return byKey;
}
