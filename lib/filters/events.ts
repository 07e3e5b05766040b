/**
 * One event across detectors (docs/filters.md, "Events"): records of the same data view, series,
 * measure and result whose dates overlap (inclusive, also through another record: A overlaps B
 * overlaps C) are one event. The event is presented as its strongest record — the highest SIN,
 * ties to the smaller id — with `types` (every type that flagged it, the strongest's first, the
 * others by name) and `members` (every record, strongest first).
 */
import type { AnomalyRecord } from './types';

const sinOf = (r: AnomalyRecord) =>
  r.sin === null || Number.isNaN(r.sin) ? Number.NEGATIVE_INFINITY : r.sin;

/** Strongest first: SIN descending, then the smaller id. */
function stronger(a: AnomalyRecord, b: AnomalyRecord): number {
  const d = sinOf(b) - sinOf(a);
  if (d !== 0 && !Number.isNaN(d)) return d > 0 ? 1 : -1;
  return a.id - b.id;
}

function eventOf(members: AnomalyRecord[]): AnomalyRecord {
  members.sort(stronger);
  const head = members[0];
  const others = [...new Set(members.map((m) => m.type))].filter((t) => t !== head.type).sort();
  return { ...head, types: [head.type, ...others], members };
}

/**
 * The records merged into events, one record per event (a record that overlaps nothing is an event
 * of one, with `types` [its type] and itself as its only member). Output order: by data view, series,
 * measure, result and start; rank them afterwards.
 */
export function mergeEvents(records: readonly AnomalyRecord[]): AnomalyRecord[] {
  const sorted = [...records].sort(
    (a, b) =>
      a.dataViewId - b.dataViewId ||
      a.seriesId - b.seriesId ||
      (a.measure ?? 'value').localeCompare(b.measure ?? 'value') ||
      a.result.localeCompare(b.result) ||
      (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : 0) ||
      a.id - b.id,
  );
  const out: AnomalyRecord[] = [];
  let current: AnomalyRecord[] = [];
  let end = '';
  const same = (a: AnomalyRecord, b: AnomalyRecord) =>
    a.dataViewId === b.dataViewId &&
    a.seriesId === b.seriesId &&
    (a.measure ?? 'value') === (b.measure ?? 'value') &&
    a.result === b.result;
  for (const r of sorted) {
    const prev = current[0];
    // yyyy-MM-dd strings order like dates: overlap when this one starts on or before the running end.
    if (prev !== undefined && same(prev, r) && r.startDate <= end) {
      current.push(r);
      if (r.endDate > end) end = r.endDate;
      continue;
    }
    if (current.length) out.push(eventOf(current));
    current = [r];
    end = r.endDate;
  }
  if (current.length) out.push(eventOf(current));
  return out;
}

/** The records without their `members` (the answer carries members only when asked for). */
export function withoutMembers<T extends { members?: unknown }>(records: readonly T[]): T[] {
  return records.map((r) => {
    if (r.members === undefined) return r;
    const { members: _members, ...rest } = r;
    return rest as T;
  });
}
