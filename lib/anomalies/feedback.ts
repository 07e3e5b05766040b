/** Feedback on the records a filter shows: set on every record by its stable key (docs/feedback.md). */
import type { Database } from '../db/database';
import { feedbackByKey, recordKey } from '../feedback/records';
import type { AggregateRecord, AnomalyRecord } from '../filters/types';

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
  const byKey = await feedbackByKey(db, [...views], { dateFrom, dateTo });
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
