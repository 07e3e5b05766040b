/**
 * One row per incident (filter setting `incidents`, docs/filters.md "Incidents"): the selected records of
 * one incident become one record. It stands on the incident's head — the strongest record of its broadest
 * series — when the filter selected it, else on the strongest selected member: its id, series, type,
 * dates, SIN and SIM are that record's, so that a leaf that moved its district ranks as the district's
 * event. Its categories and figures are its first root cause's (actual, expected and change per day over
 * the head's window, change % and change cum over it: rowFigures), so that the row names the combination
 * that caused it and shows that combination's own change; the broad series' figures are in
 * `incident.broad`. It carries `incident` (id, size, the broad series, the root causes with the share of
 * the broad change each explains, every type and measure, and its standing, which Sort by SIN orders
 * incident rows by: standing.ts) and, on request, `members`.
 * Members of the other direction than the incident (echoes) never stand for it: a filter that selected only
 * those has no row for the incident.
 * Records without an incident (detected before incidents were built) are events of their own.
 */
import type { Incident, IncidentCause } from '../incidents/types';
import { explainsOf } from './explains';
import { mergeEvents } from './events';
import { standingOf } from './standing';
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
      seriesId: i.broad.seriesId,
      categories: inOrder(i.broad.categories, like),
      actual: i.broad.actual,
      expected: i.broad.expected,
      change: i.broad.change,
      changePct: i.broad.changePct,
    },
    rootCauses: i.rootCauses.map((c) => ({
      seriesId: c.seriesId,
      categories: inOrder(c.categories, like),
      actual: c.actual,
      expected: c.expected,
      change: c.change,
      changePct: c.changePct,
      ...explainsOf(c, i.broad),
      broad: c.broad,
      ...(c.effect ? { effect: c.effect } : {}),
      ...(c.mixOf ? { mixOf: c.mixOf } : {}),
    })),
  };
}

type Figures = Pick<
  AnomalyRecord,
  'actualValue' | 'predictedValue' | 'change' | 'changePct' | 'changeCum' | 'sharePct' | 'recurrence'
>;

/**
 * The row's figures: the root cause's over the head's window (its totals, per day like every record's)
 * when the row stands on the head's measure and window, else null (the row keeps its own record's
 * figures and categories). Its share of the view is the head's scaled by the cause's part of the broad
 * series' actual; its recurrence that of a selected record of the cause's series, measure and type.
 */
function rowFigures(
  row: AnomalyRecord,
  cause: IncidentCause | undefined,
  incident: Incident,
  selected: readonly AnomalyRecord[],
): Figures | null {
  if (!cause || row.measure !== incident.head.measure || row.startDate !== incident.head.startDate)
    return null;
  const days = Math.max(1, row.duration);
  const own = selected.find(
    (m) => m.seriesId === cause.seriesId && m.measure === row.measure && m.type === row.type,
  );
  const part = incident.broad.actual > 0 && cause.actual >= 0 ? cause.actual / incident.broad.actual : null;
  return {
    actualValue: cause.actual / days,
    predictedValue: cause.expected / days,
    change: cause.change / days,
    changePct: cause.changePct,
    changeCum: cause.change,
    sharePct: row.sharePct === null || part === null ? null : row.sharePct * Math.min(1, part),
    recurrence: cause.seriesId === row.seriesId ? row.recurrence : (own?.recurrence ?? null),
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
    const figures = rowFigures(head, cause, incident, selected);
    out.push({
      ...head,
      ...figures,
      categories: cause && figures ? inOrder(cause.categories, head.categories) : head.categories,
      types: incident.types,
      incidentId: incident.id,
      incident: {
        ...incidentOf(incident, head.categories),
        standing: standingOf(head.sin, selected, incident.result),
      },
      members,
    });
  }
  return [...out, ...mergeEvents(loose)];
}
