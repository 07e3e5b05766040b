/**
 * Feedback use cases: any caller who can read a data view marks a record of it confirmed, expected or not an
 * anomaly (with an optional note); the author (or an administrator) changes or removes it. Invisible views are 404.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { DETECTORS } from '../detection/index';
import { assertReadable, readableBy, readViews } from '../dataviews/scope';
import { type Caller, requireRead } from '../identity/caller';
import { ForbiddenError, NotFoundError, ValidationError } from '../shared/errors';
import {
  deleteFeedbackRow,
  type FeedbackRow,
  findFeedbackById,
  findFeedbackByKey,
  selectFeedback,
  upsertFeedback,
} from './repository';
import { mayChangeFeedback, toFeedbackRecord } from './access';
import { FEEDBACK_STATUSES, type FeedbackKey, type FeedbackRecord, type FeedbackStatus } from './types';

/** The body of PUT /anomalies/feedback (schema `feedback-put`). */
export interface FeedbackInput extends FeedbackKey {
  status: FeedbackStatus;
  note?: string;
}

const notFound = (what: string) => new NotFoundError(`${what} was not found.`);

/** Anomaly type codes by their lower case: `dod` and `changepoint` are taken as DOD and ChangePoint, as filters take them. */
const TYPE_CODES = new Map(
  Object.values(DETECTORS).map((d) => [d.code.toLowerCase(), d.code as string] as const),
);
const canonicalType = (type: string) => TYPE_CODES.get(type.toLowerCase()) ?? type;

/**
 * The end date of the current record of a key in a view's schema, or undefined: a port, since the records
 * table is the process job's, a module above this one (lib/process-job's `recordEndDate`).
 */
export type RecordEndDate = (
  db: Database,
  schema: string,
  key: Omit<FeedbackKey, 'dataViewId'>,
) => Promise<{ endDate: string } | undefined>;

/** The current anomaly of a key in the view's records (its end date), or undefined. */
async function currentAnomaly(
  caller: Caller,
  db: Database,
  k: FeedbackKey,
  recordEndDate: RecordEndDate,
): Promise<{ endDate: string } | undefined> {
  const [view] = await readViews(caller, db, { ids: [k.dataViewId], deployed: true });
  if (!view) return undefined;
  return recordEndDate(db, view.schema, k);
}

/**
 * PUT /anomalies/feedback: gives or changes the feedback on a record's key; 404 unless the record exists now
 * (read through `recordEndDate`).
 */
export async function putFeedback(
  db: Database,
  caller: Caller,
  input: FeedbackInput,
  recordEndDate: RecordEndDate,
): Promise<FeedbackRecord> {
  requireRead(caller);
  if (!FEEDBACK_STATUSES.includes(input.status))
    throw ValidationError.field('status', `must be one of ${FEEDBACK_STATUSES.join(', ')}`);
  assertReadable(caller, input.dataViewId);
  const key: FeedbackKey = {
    dataViewId: input.dataViewId,
    seriesId: input.seriesId,
    measure: input.measure ?? 'value',
    type: canonicalType(input.type),
    startDate: input.startDate,
  };
  const existing = await findFeedbackByKey(db, key);
  if (existing && !mayChangeFeedback(caller, existing)) {
    throw new ForbiddenError(
      `Feedback on this record was given by ${existing.email}; only they or an administrator can change it.`,
    );
  }
  const anomaly = await currentAnomaly(caller, db, key, recordEndDate);
  // Feedback that exists may be changed even when a re-detection no longer reports the record.
  if (!anomaly && !existing)
    throw notFound(
      `Anomaly (data view ${key.dataViewId}, series ${key.seriesId}, ${key.measure}, ${key.type}, ${key.startDate})`,
    );
  const endDate = anomaly?.endDate ?? existing?.endDate ?? key.startDate;
  const id = (await upsertFeedback(db, {
    ...key,
    endDate,
    status: input.status,
    note: (input.note ?? '').trim(),
    userId: caller.userId,
    email: caller.email,
  })) as number;
  return toFeedbackRecord((await findFeedbackById(db, id)) as FeedbackRow);
}

async function visibleRow(db: Database, caller: Caller, id: number): Promise<FeedbackRow> {
  requireRead(caller);
  const row = await findFeedbackById(db, id);
  if (!row) throw notFound(`Feedback ${id}`);
  assertReadable(caller, row.dataViewId, 'Feedback');
  return row;
}

export async function getFeedback(db: Database, caller: Caller, id: number): Promise<FeedbackRecord> {
  return toFeedbackRecord(await visibleRow(db, caller, id));
}

/** DELETE /anomalies/feedback/{id}: the author or an administrator. */
export async function deleteFeedback(db: Database, caller: Caller, id: number): Promise<void> {
  const row = await visibleRow(db, caller, id);
  if (!mayChangeFeedback(caller, row))
    throw new ForbiddenError(
      `Feedback ${id} was given by ${row.email}; only they or an administrator can remove it.`,
    );
  await deleteFeedbackRow(db, id);
}

/** GET /anomalies/feedback: feedback on the data views the caller can read, optionally of one view and/or status. */
export async function listFeedback(
  db: Database,
  caller: Caller,
  q: { dataViewId?: number; status?: string; seriesId?: number },
): Promise<FeedbackRecord[]> {
  requireRead(caller);
  if (q.status !== undefined && !FEEDBACK_STATUSES.includes(q.status as FeedbackStatus))
    throw ValidationError.field(
      'status',
      `must be one of ${FEEDBACK_STATUSES.join(', ')}, got '${q.status.slice(0, 50)}'`,
    );
  if (q.dataViewId !== undefined) assertReadable(caller, q.dataViewId);
  const conditions = [readableBy(caller, sql`data_view_id`)];
  if (q.dataViewId !== undefined) conditions.push(sql`data_view_id = ${q.dataViewId}`);
  if (q.seriesId !== undefined) conditions.push(sql`series_id = ${q.seriesId}`);
  if (q.status !== undefined) conditions.push(sql`status = ${q.status}`);
  return (await selectFeedback(db, sql.join(conditions, sql` AND `))).map(toFeedbackRecord);
}
