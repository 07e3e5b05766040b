/** Feedback on anomaly records: attached to every shown record by its stable key, and the SQL that hides dismissed ones. */
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import type { AggregateRecord, AnomalyRecord } from '../filters/types';
import { feedbackOfViews } from './repository';
import { keyString, type RecordFeedback } from './types';

/** The record's key string (see keyString). */
export function recordKey(
  a: Pick<AnomalyRecord, 'dataViewId' | 'seriesId' | 'measure' | 'type' | 'startDate'>,
): string {
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
  a: Pick<AnomalyRecord, 'seriesId' | 'measure' | 'type' | 'startDate' | 'endDate'>,
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

type Run = { anomalies: AnomalyRecord[]; aggregates?: AggregateRecord[] };

function shown(run: Run): AnomalyRecord[] {
  const out: AnomalyRecord[] = [];
  const add = (r: AnomalyRecord) => {
    out.push(r);
    for (const m of r.members ?? []) out.push(m);
  };
  for (const a of run.anomalies) add(a);
  for (const g of run.aggregates ?? []) for (const m of g.members) add(m);
  return out;
}

/** Sets `feedback` (null when none) on every shown record: anomalies, events' members, aggregates' members. */
export async function withFeedback<R extends Run>(db: Database, run: R): Promise<R> {
  const records = shown(run);
  if (records.length === 0) return run;
  let dateFrom = records[0].startDate;
  let dateTo = records[0].startDate;
  const views = new Set<number>();
  for (const r of records) {
    if (r.startDate < dateFrom) dateFrom = r.startDate;
    if (r.startDate > dateTo) dateTo = r.startDate;
    views.add(r.dataViewId);
  }
  const rows = await feedbackOfViews(db, [...views], { dateFrom, dateTo });
  const byKey = new Map<string, RecordFeedback>();
  for (const f of rows) {
    byKey.set(keyString(f), {
      id: f.id,
      status: f.status,
      note: f.note,
      email: f.email,
      updatedAt: f.updatedAt,
    });
  }
  const set = (r: AnomalyRecord): AnomalyRecord => {
    const out: AnomalyRecord = { ...r, feedback: byKey.get(recordKey(r)) ?? null };
    if (r.members) out.members = r.members.map(set);
    return out;
  };
  return {
    ...run,
    anomalies: run.anomalies.map(set),
    aggregates: run.aggregates?.map((g) => ({ ...g, members: g.members.map(set) })),
  };
}
