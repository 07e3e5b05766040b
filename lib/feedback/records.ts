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

/**
 * A condition over a view's all_anomalies (alias `a`) that is true when the record is NOT dismissed: no feedback
 * "expected" or "not-anomaly" on its key, and no "not-anomaly" on the same series and measure whose window holds
 * the record's dates (a record marked not an anomaly is not reported again for the same window, whatever detector
 * flags it after a re-detection).
 */
export function notDismissedCondition(dataViewId: number): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM anomaly_feedback f
    WHERE f.data_view_id = ${dataViewId} AND f.series_id = a.series_id AND f.measure = coalesce(a.measure, 'value')
      AND ((f.type = a.type AND f.start_date = a.start_date AND f.status IN ('expected', 'not-anomaly'))
        OR (f.status = 'not-anomaly' AND a.start_date >= f.start_date AND a.end_date <= f.end_date)))`;
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
      f.measure === (a.measure ?? 'value') &&
      ((f.type === a.type &&
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
    });
  }
  return byKey;
}
