/**
 * Feedback on an event (docs/feedback.md, "On an incident"): given on an incident, it is stored on every
 * member record (every series, measure and level of it), naming the incident; after each detection cycle,
 * a member of the same event that was not there when the feedback was given (another measure, another
 * detector, a record that starts a day later) is given the same feedback, so an event dismissed once never
 * comes back as another of its members.
 */
import { sql } from 'drizzle-orm';
import { fromEpochDay, toEpochDay } from '../calendar/days';
import { categoryColumn } from '../dataset/ddl';
import { catalogTable } from '../dataset/catalog';
import type { Database } from '../db/database';
import { readViews } from '../dataviews/scope';
import {
  deleteFeedbackWhere,
  type FeedbackRow,
  incidentFeedbackOfView,
  insertFeedbackIfAbsent,
  type NewFeedback,
  selectFeedback,
  upsertFeedback,
} from '../feedback/repository';
import { mayChangeFeedback, toFeedbackRecord } from '../feedback/access';
import { FEEDBACK_STATUSES, type FeedbackRecord, type FeedbackStatus } from '../feedback/types';
import { type Caller, requireRead } from '../identity/caller';
import { ForbiddenError, NotFoundError, ValidationError } from '../shared/errors';
import type { MemberRecord } from './grouping';
import {
  type CycleIncident,
  deleteFootprint,
  type Footprint,
  inheritedFootprints,
  readFootprints,
  saveFootprint,
} from './event-feedback';
import { type MemberKeyRow, readIncidentMemberKeys } from '../process-job';
import { readIncidents } from './read';
import { hasIncidents } from './store';

/** The body of PUT /anomalies/feedback/incident (schema `feedback-incident-put`). */
export interface IncidentFeedbackInput {
  dataViewId: number;
  incidentId: number;
  status: FeedbackStatus;
  note?: string;
}

export interface IncidentFeedbackAnswer {
  dataViewId: number;
  incidentId: number;
  status: FeedbackStatus;
  note: string;
  /** The feedback now stored on each member record of the incident. */
  members: FeedbackRecord[];
}

/**
 * PUT /anomalies/feedback/incident: marks every member record of an incident confirmed, expected or not an
 * anomaly, in one transaction. Anyone who can read the view may; where a member already carries another
 * person's feedback only they or an administrator may change it (403 naming them, nothing written).
 */
export async function putIncidentFeedback(
  db: Database,
  caller: Caller,
  input: IncidentFeedbackInput,
): Promise<IncidentFeedbackAnswer> {
  requireRead(caller);
  if (!FEEDBACK_STATUSES.includes(input.status))
    throw ValidationError.field('status', `must be one of ${FEEDBACK_STATUSES.join(', ')}`);
  const [view] = await readViews(caller, db, { ids: [input.dataViewId], deployed: true });
  const missing = new NotFoundError(
    `Incident ${input.incidentId} of data view ${input.dataViewId} was not found.`,
  );
  if (!view) throw missing;
  if (!(await hasIncidents(db, view.schema))) throw missing;
  const members = await readIncidentMemberKeys(db, view.schema, input.incidentId);
  if (members.length === 0) throw missing;
  const note = (input.note ?? '').trim();
  return db.tx(async (tx) => {
    const ids: number[] = [];
    for (const m of members) {
      const key = {
        dataViewId: view.id,
        seriesId: Number(m.series_id),
        measure: m.measure,
        type: m.type,
        startDate: m.s,
      };
      const [existing] = await selectFeedback(
        tx,
        sql`data_view_id = ${key.dataViewId} AND series_id = ${key.seriesId} AND measure = ${key.measure}
          AND type = ${key.type} AND start_date = ${key.startDate}::date`,
      );
      if (existing && !mayChangeFeedback(caller, existing))
        throw new ForbiddenError(
          `A member of incident ${input.incidentId} carries feedback by ${existing.email}; only they or an administrator can change it.`,
        );
      const id = await upsertFeedback(tx, {
        ...key,
        endDate: m.e,
        status: input.status,
        note,
        userId: caller.userId,
        email: caller.email,
        incidentId: input.incidentId,
      });
      if (id !== null) ids.push(id);
    }
    const footprint = await footprintOf(tx, { id: view.id, schema: view.schema }, input.incidentId, members);
    if (footprint)
      await saveFootprint(tx, view.id, {
        ...footprint,
        status: input.status,
        note,
        userId: caller.userId,
        email: caller.email,
      });
    const rows = await selectFeedback(tx, sql`id = ANY(${`{${ids.join(',')}}`}::int[])`);
    return {
      dataViewId: view.id,
      incidentId: input.incidentId,
      status: input.status,
      note,
      members: rows.map(toFeedbackRecord),
    };
  });
}

/**
 * The footprint of an incident (its direction, window, member series and root causes by categories): what
 * later cycles recognise the event by, whatever its records' keys and incident id become.
 */
async function footprintOf(
  db: Database,
  view: { id: number; schema: string },
  incidentId: number,
  members: readonly MemberKeyRow[],
): Promise<Omit<Footprint, 'status' | 'note' | 'userId' | 'email'> | undefined> {
  const [incident] = await readIncidents(db, view, [incidentId]);
  if (!incident) return undefined;
  const names = Object.keys(incident.broad.categories);
  const ids = [...new Set(members.map((m) => Number(m.series_id)))];
  const cols = names.map((n, k) => `${categoryColumn(n)} AS v${k}`).join(', ');
  const rows = await db.rows<Record<string, unknown>>(
    sql.raw(`SELECT series_id${cols ? `, ${cols}` : ''} FROM ${catalogTable(view.schema)}
      WHERE series_id = ANY('{${ids.join(',')}}'::int[]) ORDER BY series_id`),
  );
  return {
    incidentId,
    result: incident.result,
    startDay: toEpochDay(incident.startDate),
    endDay: toEpochDay(incident.endDate),
    series: rows.map((r) => ({
      seriesId: Number(r.series_id),
      categories: Object.fromEntries(names.map((n, k) => [n, (r[`v${k}`] as string | null) ?? null])),
    })),
    causes: incident.rootCauses.map((c) => ({ categories: c.categories, broad: c.broad })),
  };
}

/** Feedback given on one incident, as the carry-over reads it. */
interface EventFeedback {
  incidentId: number;
  status: FeedbackStatus;
  note: string;
  userId: number | null;
  email: string;
  series: Set<number>;
  startDay: number;
  endDay: number;
}

/** Pure: the feedback of a view given on incidents, one entry per incident (rows oldest first). */
export function eventFeedback(rows: readonly FeedbackRow[]): EventFeedback[] {
  const by = new Map<number, EventFeedback>();
  for (const r of rows) {
    if (r.incidentId === null) continue;
    const s = toEpochDay(r.startDate);
    const e = toEpochDay(r.endDate);
    const f = by.get(r.incidentId);
    if (!f) {
      by.set(r.incidentId, {
        incidentId: r.incidentId,
        status: r.status,
        note: r.note,
        userId: r.userId,
        email: r.email,
        series: new Set([r.seriesId]),
        startDay: s,
        endDay: e,
      });
      continue;
    }
    f.series.add(r.seriesId);
    f.startDay = Math.min(f.startDay, s);
    f.endDay = Math.max(f.endDay, e);
  }
  return [...by.values()];
}

/**
 * Pure: for each incident (its member records), the event feedback it continues, or undefined: one whose
 * series it shares with a window that overlaps or touches (a day either side, as grouping compares records).
 * The event feedback sharing the most member series wins.
 */
export function continuedFeedback(
  incidents: ReadonlyArray<readonly MemberRecord[]>,
  feedback: readonly EventFeedback[],
): Array<EventFeedback | undefined> {
  return incidents.map((members) => {
    let best: EventFeedback | undefined;
    let bestShared = 0;
    for (const f of feedback) {
      let shared = 0;
      for (const m of members)
        if (f.series.has(m.seriesId) && m.startDay <= f.endDay + 1 && m.endDay >= f.startDay - 1) shared++;
      if (shared > bestShared) {
        best = f;
        bestShared = shared;
      }
    }
    return best;
  });
}

/**
 * After a cycle's incidents are written: every incident that is an event given feedback (its footprint,
 * event-feedback.ts), or the echoes of one, has it on each member that carries none of its own (never
 * overriding a feedback on their key). Feedback given before footprints were kept continues by the series
 * it was stored on. Answers how many records got one, and the incidents that now carry each feedback (by the
 * incident it was given on): where a dismissed incident's event went when its own records are gone.
 */
export async function carryIncidentFeedback(
  db: Database,
  viewId: number,
  incidents: readonly CycleIncident[],
  names: readonly string[],
  seriesValues: (seriesId: number) => ReadonlyArray<string | null> | undefined,
): Promise<{ carried: number; heirs: Map<number, number[]> }> {
  const heirs = new Map<number, number[]>();
  const footprints = await readFootprints(db, viewId);
  const traced = new Set(footprints.map((f) => f.incidentId));
  const legacy = eventFeedback(await incidentFeedbackOfView(db, viewId)).filter(
    (f) => !traced.has(f.incidentId),
  );
  if (footprints.length === 0 && legacy.length === 0) return { carried: 0, heirs };
  const inherited = inheritedFootprints(incidents, footprints, names, seriesValues);
  const continued = continuedFeedback(
    incidents.map((i) => i.members),
    legacy,
  );
  const rows: NewFeedback[] = [];
  incidents.forEach((incident, i) => {
    const f: Pick<Footprint, 'incidentId' | 'status' | 'note' | 'userId' | 'email'> | undefined =
      inherited[i] ?? continued[i];
    if (!f) return;
    heirs.set(f.incidentId, [...(heirs.get(f.incidentId) ?? []), incident.id]);
    for (const m of incident.members)
      rows.push({
        dataViewId: viewId,
        seriesId: m.seriesId,
        measure: m.measure as NewFeedback['measure'],
        type: m.type,
        startDate: fromEpochDay(m.startDay),
        endDate: fromEpochDay(m.endDay),
        status: f.status,
        note: f.note,
        userId: f.userId,
        email: f.email,
        // The event's feedback stays one: removing it (by the incident it was given on) removes it all.
        incidentId: f.incidentId,
      });
  });
  return { carried: await insertFeedbackIfAbsent(db, rows), heirs };
}

/**
 * DELETE /anomalies/feedback/incident/{dataViewId}/{incidentId}: removes the feedback given on an incident
 * from every member (its author or an administrator; 403 naming the author otherwise). Answers how many.
 */
export async function deleteIncidentFeedback(
  db: Database,
  caller: Caller,
  dataViewId: number,
  incidentId: number,
): Promise<number> {
  requireRead(caller);
  const [view] = await readViews(caller, db, { ids: [dataViewId] });
  const rows = view
    ? await selectFeedback(db, sql`data_view_id = ${dataViewId} AND incident_id = ${incidentId}`)
    : [];
  const [footprint] = view
    ? (await readFootprints(db, dataViewId)).filter((f) => f.incidentId === incidentId)
    : [];
  if (rows.length === 0 && !footprint)
    throw new NotFoundError(`Feedback on incident ${incidentId} of data view ${dataViewId} was not found.`);
  const other =
    rows.find((r) => !mayChangeFeedback(caller, r)) ??
    (footprint && !mayChangeFeedback(caller, footprint) ? footprint : undefined);
  if (other)
    throw new ForbiddenError(
      `Feedback on incident ${incidentId} was given by ${other.email}; only they or an administrator can remove it.`,
    );
  await db.tx(async (tx) => {
    await deleteFeedbackWhere(tx, sql`data_view_id = ${dataViewId} AND incident_id = ${incidentId}`);
    await deleteFootprint(tx, dataViewId, incidentId);
  });
  return rows.length;
}
