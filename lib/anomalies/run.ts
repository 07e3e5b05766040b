/** Runs filter settings over the stored anomalies of the caller's data views: scope in SQL, then runFilter and comments. */
import { attachComments } from '../comments/matching';
import type { Database } from '../db/database';
import type { Caller } from '../identity/caller';
import { parseFilterSettings } from '../filters/parse';
import { withoutMembers } from '../filters/events';
import { runFilter } from '../filters/run';
import { incidentKey, incidentOf } from '../filters/incidents';
import { readIncidents } from '../incidents/read';
import type { Incident } from '../incidents/types';
import { resolveTimeRange } from '../filters/time-range';
import type {
  AggregateRecord,
  AnomalyIncident,
  AnomalyRecord,
  FilterDefinition,
  FilterSettings,
  TimeRangePreset,
} from '../filters/types';
import type { Clock } from '../shared/clock';
import { TooLargeError } from '../shared/errors';
import { withFeedback } from './feedback';
import { readComments } from '../comments/in-window';
import { readableViews, resolveViews, sharedFiscalCalendar, type ViewTarget } from '../filters/data-views';
import { FISCAL_PRESETS } from '../filters/types';
import { type ReadMode, readSpans, readViewAnomalies } from './query';

export interface AnomalyDeps {
  db: Database;
  clock: Clock;
  /** The service time zone (SERVICE_TIME_ZONE) in which presets are resolved. */
  timeZone: string;
  /** The most anomalies a merged, aggregated or incident run reads (FILTER_MAX_RECORDS); DEFAULT_MAX_RUN_RECORDS when absent. */
  maxRecords?: number;
}

/** Default of FILTER_MAX_RECORDS. */
export const DEFAULT_MAX_RUN_RECORDS = 50_000;

/** The answer of by-filter and query: records plus what was actually searched. */
export interface FilterAnswer {
  filter?: { id: number; name: string };
  timeRange: { preset: TimeRangePreset; dateFrom: string; dateTo: string };
  dataViews: Array<{ id: number; dataView: string }>;
  warnings: string[];
  anomalies: AnomalyRecord[];
  aggregates?: AggregateRecord[];
  /**
   * Only when asked for (`recordIncidents`): the incident of every shown record that belongs to one, by
   * `<dataViewId>:<incidentId>` (incident rows carry their own).
   */
  recordIncidents?: Record<string, AnomalyIncident>;
}

/** Options of a run that are not filter settings. */
export interface RunOptions {
  /** Events (mergeEvents) carry their `members`; off by default. */
  members?: boolean;
  /** The answer carries `recordIncidents` (summaries tell of incidents whatever the filter's rows are). */
  recordIncidents?: boolean;
  /**
   * Overrides the filter's `hideDismissed` (the query parameter showDismissed): false leaves dismissed records
   * and incidents out, true lists them. Listed or not, a dismissed row never ranks above one that is not.
   */
  showDismissed?: boolean;
}

const DISMISSED = new Set(['expected', 'not-anomaly']);

/** The rows in their order, those whose feedback dismisses them after the others (a stable partition). */
export function dismissedLast(rows: readonly AnomalyRecord[]): AnomalyRecord[] {
  const dismissed = (r: AnomalyRecord) => DISMISSED.has(r.feedback?.status ?? '');
  return [...rows.filter((r) => !dismissed(r)), ...rows.filter(dismissed)];
}

function readMode(settings: FilterSettings, cap: number): ReadMode {
  // Aggregates describe every selected anomaly, so aggregation reads them all; so do events, whose
  // members may rank anywhere. Otherwise only the Top N.
  if (settings.isAggregated || settings.mergeEvents || settings.incidents) return { kind: 'all', cap };
  return { kind: 'top', sortBy: settings.sortBy, limit: settings.limit, splitByType: settings.splitByType };
}

function categoryWarnings(settings: FilterSettings, targets: readonly ViewTarget[]): string[] {
  // Only views the filter names explicitly: with "every view" a category of some views is expected.
  if (settings.dataViews.length === 0) return [];
  const out: string[] = [];
  for (const view of targets) {
    const missing = Object.keys(settings.categories).filter((c) => !view.categories.includes(c));
    if (missing.length) {
      out.push(
        `Data view '${view.label}' has no category ${missing.join(', ')}; no anomaly of it matches categoriesFilter.`,
      );
    }
  }
  return out;
}

/** The stored incidents of the records read, by incidentKey (one read per view that has some). */
async function readRecordIncidents(
  db: Database,
  targets: readonly ViewTarget[],
  perView: readonly AnomalyRecord[][],
): Promise<Map<string, Incident>> {
  const out = new Map<string, Incident>();
  await Promise.all(
    targets.map(async (view, i) => {
      const ids = [
        ...new Set(perView[i].map((r) => r.incidentId).filter((id): id is number => typeof id === 'number')),
      ];
      for (const incident of await readIncidents(db, view, ids))
        out.set(incidentKey(view.id, incident.id), incident);
    }),
  );
  return out;
}

/** Every record of a run that shows comments: the anomalies, events' members, aggregates' members. */
function shownRecords(run: { anomalies: AnomalyRecord[]; aggregates?: AggregateRecord[] }): AnomalyRecord[] {
  const out: AnomalyRecord[] = [];
  const add = (r: AnomalyRecord) => {
    out.push(r);
    for (const m of r.members ?? []) out.push(m);
  };
  for (const a of run.anomalies) add(a);
  for (const g of run.aggregates ?? []) for (const m of g.members) add(m);
  return out;
}

/**
 * The comments of each shown record: those whose window overlaps the record's own dates (whatever the
 * filter's window) and whose categories match. One read over the span of the shown records.
 */
async function withComments(
  db: Database,
  viewIds: readonly number[],
  run: { anomalies: AnomalyRecord[]; aggregates?: AggregateRecord[] },
): Promise<{ anomalies: AnomalyRecord[]; aggregates?: AggregateRecord[] }> {
  const shown = shownRecords(run);
  if (shown.length === 0) return run;
  let dateFrom = shown[0].startDate;
  let dateTo = shown[0].endDate;
  for (const r of shown) {
    if (r.startDate < dateFrom) dateFrom = r.startDate;
    if (r.endDate > dateTo) dateTo = r.endDate;
  }
  const comments = await readComments(db, viewIds, { dateFrom, dateTo });
  const attach = (records: AnomalyRecord[]): AnomalyRecord[] =>
    attachComments(records, comments).map((r) =>
      r.members ? { ...r, members: attachComments(r.members, comments) } : r,
    );
  return {
    anomalies: attach(run.anomalies),
    aggregates: run.aggregates?.map((g) => ({ ...g, members: attach(g.members) })),
  };
}

/** Drops the events' members (from the list and from aggregate members) when they were not asked for. */
function stripMembers(run: { anomalies: AnomalyRecord[]; aggregates?: AggregateRecord[] }) {
  return {
    anomalies: withoutMembers(run.anomalies),
    aggregates: run.aggregates?.map((g) => ({ ...g, members: withoutMembers(g.members) })),
  };
}

/**
 * Merging, aggregating and grouping into incidents need every selected anomaly at once, so such a run reads
 * at most `cap` of them (docs/filters.md, "Bounds"); past it the caller is told how to select fewer.
 */
function refuseOverCap(perView: readonly AnomalyRecord[][], cap: number, settings: FilterSettings): void {
  const read = perView.reduce((n, records) => n + records.length, 0);
  if (read <= cap) return;
  const what = [
    settings.mergeEvents && 'merges events',
    settings.isAggregated && 'aggregates',
    settings.incidents && 'groups incidents',
  ].filter(Boolean);
  const message = `selects more than ${cap.toLocaleString('en-US')} anomalies, and a run that ${what.join(' and ')} reads them all at once: choose a shorter time range, or fewer anomalies with dataViews, categoriesFilter, anomalyTypes or higher thresholds`;
  throw new TooLargeError(`The filter ${message}.`, [{ path: 'timeRange', message }]);
}

/**
 * Runs a schema-valid filter body for the caller. `strict`: unknown or invisible data views are a 400
 * (unsaved settings) instead of a warning (a saved filter).
 */
export async function runFilterDefinition(
  deps: AnomalyDeps,
  caller: Caller,
  definition: Partial<FilterDefinition>,
  strict: boolean,
  options: RunOptions = {},
): Promise<FilterAnswer> {
  const settings = parseFilterSettings(
    options.showDismissed === undefined
      ? definition
      : { ...definition, hideDismissed: !options.showDismissed },
  );
  const custom = { dateFrom: settings.dateFrom ?? undefined, dateTo: settings.dateTo ?? undefined };
  const fiscal = FISCAL_PRESETS[settings.timeRange] !== undefined;
  // A fiscal time range is the views' fiscal period: resolved once the views are known.
  let window = fiscal
    ? undefined
    : resolveTimeRange(settings.timeRange, deps.clock.now(), deps.timeZone, custom);
  const { targets, warnings } = resolveViews(
    await readableViews(deps.db, caller),
    settings.dataViews,
    strict,
  );
  window ??= resolveTimeRange(
    settings.timeRange,
    deps.clock.now(),
    deps.timeZone,
    custom,
    sharedFiscalCalendar(targets),
  );
  warnings.push(...categoryWarnings(settings, targets));
  const mode = readMode(settings, deps.maxRecords ?? DEFAULT_MAX_RUN_RECORDS);
  const spans = await readSpans(deps.db, targets);
  const perView = await Promise.all(
    targets.map((view) =>
      readViewAnomalies(deps.db, view, spans.get(view.id) ?? null, window, settings, mode),
    ),
  );
  if (mode.kind === 'all') refuseOverCap(perView, mode.cap, settings);
  const incidents = settings.incidents ? await readRecordIncidents(deps.db, targets, perView) : undefined;
  const ranked = runFilter(perView.flat(), settings, incidents);
  const recordIncidents = options.recordIncidents
    ? await readRecordIncidents(
        deps.db,
        targets,
        targets.map((v) => ranked.anomalies.filter((r) => r.dataViewId === v.id && !r.incident)),
      )
    : undefined;
  const commented = await withComments(
    deps.db,
    targets.map((v) => v.id),
    options.members ? ranked : stripMembers(ranked),
  );
  const run = await withFeedback(deps.db, commented);
  const answer: FilterAnswer = {
    timeRange: { preset: settings.timeRange, ...window },
    dataViews: targets.map((v) => ({ id: v.id, dataView: v.label })),
    warnings,
    anomalies: dismissedLast(run.anomalies),
  };
  if (settings.isAggregated) answer.aggregates = run.aggregates ?? [];
  if (recordIncidents)
    answer.recordIncidents = Object.fromEntries([...recordIncidents].map(([k, i]) => [k, incidentOf(i)]));
  return answer;
}
