/**
 * One row per incident (filter setting `incidents`, docs/filters.md "Incidents"): the selected records of
 * one incident become one record. Its figures are those of the incident's head — the strongest record of
 * its broadest series — when the filter selected it, else of the strongest selected member, so that a
 * leaf that moved its district ranks as the district's event; its categories are the first root cause's,
 * so that the row names the combination that caused it. It carries `incident` (id, size, the broad
 * series, the root causes, every type and measure) and, on request, `members`.
 * Members of the other direction than the incident (echoes) never stand for it: a filter that selected only
 * those has no row for the incident.
 * Records without an incident (detected before incidents were built) are events of their own.
 */
import type { Incident } from '../incidents/types';
import { mergeEvents } from './events';
import type { AnomalyIncident, AnomalyRecord } from './types';
import { hasOwn, setOwn } from '../shared/own';

/** Key of an incident across views. */
export const incidentKey = (dataViewId: number, incidentId: number) => `${dataViewId}:${incidentId}`;

const sinOf = (r: AnomalyRecord) =>
  r.sin === null || Number.isNaN(r.sin) ? Number.NEGATIVE_INFINITY : r.sin;

function stronger(a: AnomalyRecord, b: AnomalyRecord): number {
  const d = sinOf(b) - sinOf(a);
  if (d !== 0 && !Number.isNaN(d)) return d > 0 ? 1 : -1;
  return a.id - b.id;
}

type Categories = Record<string, string | null>;

/**
 * `c` with its keys in the order of `like` (the view's categories, as the records carry them): stored
 * incidents come back from jsonb with their keys reordered.
 */
function inOrder(c: Categories, like: Categories | undefined): Categories {
  if (!like) return c;
  const out: Categories = {};
  for (const k of Object.keys(like)) if (hasOwn(c, k)) setOwn(out, k, c[k]);
  for (const k of Object.keys(c)) if (!hasOwn(out, k)) setOwn(out, k, c[k]);
  return out;
}

/** The incident as a row carries it; category keys in the order of `like` when given. */
export function incidentOf(i: Incident, like?: Categories): AnomalyIncident {
  return {
    id: i.id,
    size: i.size,
    startDate: i.startDate,
    endDate: i.endDate,
    firstSeenAt: i.firstSeenAt,
    measures: i.measures,
    types: i.types,
    broad: {
      categories: inOrder(i.broad.categories, like),
      actual: i.broad.actual,
      expected: i.broad.expected,
      change: i.broad.change,
      changePct: i.broad.changePct,
    },
    rootCauses: i.rootCauses.map((c) => ({
      categories: inOrder(c.categories, like),
      actual: c.actual,
      expected: c.expected,
      change: c.change,
      changePct: c.changePct,
      explainsPct: c.explainsPct,
      broad: c.broad,
    })),
  };
}

function isHead(r: AnomalyRecord, i: Incident): boolean {
  return (
    r.seriesId === i.head.seriesId &&
    r.measure === i.head.measure &&
    r.type === i.head.type &&
    r.startDate === i.head.startDate
  );
}

/**
 * The records merged into incidents, one record per incident (see the module comment); `incidents`
 * holds the stored incidents by incidentKey. Output order: as mergeEvents; rank them afterwards.
 */
export function mergeIncidents(
  records: readonly AnomalyRecord[],
  incidents: ReadonlyMap<string, Incident>,
): AnomalyRecord[] {
  const groups = new Map<string, AnomalyRecord[]>();
  const loose: AnomalyRecord[] = [];
  for (const r of records) {
    const key =
      r.incidentId === null || r.incidentId === undefined ? null : incidentKey(r.dataViewId, r.incidentId);
    if (key === null || !incidents.has(key)) {
      loose.push(r);
      continue;
    }
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const out: AnomalyRecord[] = [];
  for (const [key, selected] of groups) {
    const incident = incidents.get(key) as Incident;
    // An incident is a rise or a drop (its head's result). Its members of the other direction are echoes (a
    // sibling that looks low next to a spike): they stay members but never stand for it, so a filter of drops
    // that selected only the echoes of a rise has no row for that rise.
    const sameWay = selected.filter((m) => m.result === incident.result).sort(stronger);
    if (sameWay.length === 0) continue;
    const members = [...selected].sort(stronger);
    const head = sameWay.find((m) => isHead(m, incident)) ?? sameWay[0];
    const cause = incident.rootCauses[0];
    out.push({
      ...head,
      categories: cause ? inOrder(cause.categories, head.categories) : head.categories,
      types: incident.types,
      incidentId: incident.id,
      incident: incidentOf(incident, head.categories),
      members,
    });
  }
  return [...out, ...mergeEvents(loose)];
}
