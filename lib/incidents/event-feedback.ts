/**
 * The footprint of an event that was given feedback (docs/feedback.md, "On an incident"): its direction,
 * window, member series and root causes by their categories, independent of measures, detectors and
 * incident ids. At every cycle each incident is matched against the footprints of its view: an incident
 * that is the same event (same direction, a window that overlaps or touches, a member on one of the event's
 * series or within one of its root causes, and no root cause of another event), and an incident made only of
 * the event's echoes (Peer and Mix records beside its branch that start within a day of it, either
 * direction), inherits the feedback on every member, however the records were regrouped.
 */
import { fromEpochDay, toEpochDay } from '../calendar/days';
import type { Database } from '../db/database';
import { deleteEventFeedback, readEventFeedback, upsertEventFeedback } from '../feedback/event-feedback-rows';
import type { FeedbackStatus } from '../feedback/types';
import type { MemberRecord } from './grouping';
import type { Categories, IncidentCause } from './types';

export interface Footprint {
  incidentId: number;
  status: FeedbackStatus;
  note: string;
  userId: number | null;
  email: string;
  result: 'Positive' | 'Negative';
  startDay: number;
  endDay: number;
  /** The event's member series (ids are stable across loads) with their categories. */
  series: Array<{ seriesId: number; categories: Categories }>;
  /** Its root causes; a `broad` one is the broad series itself. */
  causes: Array<{ categories: Categories; broad: boolean }>;
}

/** An incident of the current cycle as the matching reads it. */
export interface CycleIncident {
  id: number;
  result: 'Positive' | 'Negative';
  startDay: number;
  endDay: number;
  members: readonly MemberRecord[];
  rootCauses: ReadonlyArray<Pick<IncidentCause, 'categories' | 'broad'>>;
}

/** A series' category values in the order of `names` (null = all). */
type Values = ReadonlyArray<string | null>;

const valuesOf = (c: Categories, names: readonly string[]): Values => names.map((n) => c[n] ?? null);

/** True when `inner` is `outer` or lies under it (each category `outer` fixes, `inner` fixes alike). */
function within(outer: Values, inner: Values): boolean {
  return outer.every((v, k) => v === null || v === inner[k]);
}

/** True when `echo` stands beside `event`'s branch: one category both fix differs, every other one `echo` fixes agrees. */
function beside(echo: Values, event: Values): boolean {
  let diff = 0;
  for (let k = 0; k < echo.length; k++) {
    if (echo[k] === null || echo[k] === event[k]) continue;
    if (event[k] === null) return false;
    diff++;
  }
  return diff === 1;
}

const RELATIVE = new Set(['Peer', 'Mix']);

const touches = (a: { startDay: number; endDay: number }, b: { startDay: number; endDay: number }) =>
  a.startDay <= b.endDay + 1 && b.startDay <= a.endDay + 1;

/**
 * Pure: for each incident, the footprint whose feedback it inherits, or undefined. `seriesValues` gives a
 * series' category values in the order of `names` (undefined for a series the catalog no longer has).
 */
export function inheritedFootprints(
  incidents: readonly CycleIncident[],
  footprints: readonly Footprint[],
  names: readonly string[],
  seriesValues: (seriesId: number) => Values | undefined,
): Array<Footprint | undefined> {
  const prepared = footprints.map((f) => ({
    f,
    ids: new Set(f.series.map((s) => s.seriesId)),
    specific: f.causes.filter((c) => !c.broad).map((c) => valuesOf(c.categories, names)),
    branches: [...f.causes.map((c) => c.categories), ...f.series.map((s) => s.categories)].map((c) =>
      valuesOf(c, names),
    ),
  }));
  return incidents.map((incident) => {
    const own = incident.rootCauses.filter((c) => !c.broad).map((c) => valuesOf(c.categories, names));
    let best: Footprint | undefined;
    let bestScore = 0;
    for (const p of prepared) {
      const score =
        incident.result === p.f.result && touches(incident, p.f) && !otherCause(own, p.specific)
          ? sameEvent(incident.members, p, seriesValues) + (causedWithin(own, p.specific) ? 1 : 0)
          : 0;
      if (score > bestScore) [best, bestScore] = [p.f, score];
    }
    if (best || !incident.members.every((m) => RELATIVE.has(m.type))) return best;
    // An incident of echoes only: the event's siblings that looked low next to it (or high next to its fall).
    for (const p of prepared) {
      const score = incident.members.filter((m) => {
        const v = seriesValues(m.seriesId);
        if (!v || Math.abs(m.startDay - p.f.startDay) > 1) return false;
        return (
          p.ids.has(m.seriesId) ||
          p.specific.some((c) => within(c, v)) ||
          p.branches.some((b) => beside(v, b))
        );
      }).length;
      if (score > bestScore) [best, bestScore] = [p.f, score];
    }
    return best;
  });
}

/** True when the incident names a specific root cause unrelated to each of the event's (another event's cause). */
function otherCause(own: readonly Values[], event: readonly Values[]): boolean {
  if (own.length === 0 || event.length === 0) return false;
  return !own.some((c) => event.some((e) => within(e, c) || within(c, e)));
}

/** True when the incident names specific root causes, each within one of the event's (the event seen from a broader series). */
function causedWithin(own: readonly Values[], event: readonly Values[]): boolean {
  return own.length > 0 && own.every((c) => event.some((e) => within(e, c)));
}

/** How many members move like the event over its days on one of its series or within one of its causes. */
function sameEvent(
  members: readonly MemberRecord[],
  p: { f: Footprint; ids: Set<number>; specific: Values[] },
  seriesValues: (seriesId: number) => Values | undefined,
): number {
  let n = 0;
  for (const m of members) {
    if (m.result !== p.f.result || !touches(m, p.f)) continue;
    if (p.ids.has(m.seriesId)) n++;
    else {
      const v = seriesValues(m.seriesId);
      if (v && p.specific.some((c) => within(c, v))) n++;
    }
  }
  return n;
}

/** The footprints of a view's events that were given feedback. */
export async function readFootprints(db: Database, dataViewId: number): Promise<Footprint[]> {
  const rows = await readEventFeedback(db, dataViewId);
  return rows.map((r) => ({
    incidentId: Number(r.incident_id),
    status: r.status,
    note: r.note,
    userId: r.user_id === null ? null : Number(r.user_id),
    email: r.email,
    result: r.result,
    startDay: toEpochDay(r.s),
    endDay: toEpochDay(r.e),
    series: (typeof r.series === 'string' ? JSON.parse(r.series) : r.series) as Footprint['series'],
    causes: (typeof r.causes === 'string' ? JSON.parse(r.causes) : r.causes) as Footprint['causes'],
  }));
}

/** Stores (or replaces) the footprint of the event given feedback as incident `f.incidentId`. */
export async function saveFootprint(db: Database, dataViewId: number, f: Footprint): Promise<void> {
  await upsertEventFeedback(db, dataViewId, {
    incident_id: f.incidentId,
    status: f.status,
    note: f.note,
    user_id: f.userId,
    email: f.email,
    result: f.result,
    s: fromEpochDay(f.startDay),
    e: fromEpochDay(f.endDay),
    series: f.series,
    causes: f.causes,
  });
}

export async function deleteFootprint(db: Database, dataViewId: number, incidentId: number): Promise<number> {
  return deleteEventFeedback(db, dataViewId, incidentId);
}
