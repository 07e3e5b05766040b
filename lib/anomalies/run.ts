/** Runs filter settings over the stored anomalies of the caller's data views: scope in SQL, then runFilter and comments. */
import { attachComments } from '../comments/matching';
import type { Database } from '../db/database';
import type { Caller } from '../identity/caller';
import { parseFilterSettings } from '../filters/parse';
import { runFilter } from '../filters/run';
import { resolveTimeRange } from '../filters/time-range';
import type {
  AggregateRecord,
  AnomalyRecord,
  FilterDefinition,
  FilterSettings,
  TimeRangePreset,
} from '../filters/types';
import type { Clock } from '../shared/clock';
import { readComments } from './comments';
import { readableViews, resolveViews, type ViewTarget } from './data-views';
import { type ReadMode, readSpans, readViewAnomalies } from './query';

export interface AnomalyDeps {
  db: Database;
  clock: Clock;
  /** The service time zone (SERVICE_TIME_ZONE) in which presets are resolved. */
  timeZone: string;
}

/** The answer of by-filter and query: records plus what was actually searched. */
export interface FilterAnswer {
  filter?: { id: number; name: string };
  timeRange: { preset: TimeRangePreset; dateFrom: string; dateTo: string };
  dataViews: Array<{ id: number; dataView: string }>;
  warnings: string[];
  anomalies: AnomalyRecord[];
  aggregates?: AggregateRecord[];
}

function readMode(settings: FilterSettings): ReadMode {
  // Aggregates describe every selected anomaly, so aggregation reads them all; otherwise only the Top N.
  if (settings.isAggregated) return { kind: 'all' };
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

/**
 * Runs a schema-valid filter body for the caller. `strict`: unknown or invisible data views are a 400
 * (unsaved settings) instead of a warning (a saved filter).
 */
export async function runFilterDefinition(
  deps: AnomalyDeps,
  caller: Caller,
  definition: Partial<FilterDefinition>,
  strict: boolean,
): Promise<FilterAnswer> {
  const settings = parseFilterSettings(definition);
  const window = resolveTimeRange(settings.timeRange, deps.clock.now(), deps.timeZone, {
    dateFrom: settings.dateFrom ?? undefined,
    dateTo: settings.dateTo ?? undefined,
  });
  const { targets, warnings } = resolveViews(
    await readableViews(deps.db, caller),
    settings.dataViews,
    strict,
  );
  warnings.push(...categoryWarnings(settings, targets));
  const mode = readMode(settings);
  const spans = await readSpans(deps.db, targets);
  const [perView, comments] = await Promise.all([
    Promise.all(
      targets.map((view) =>
        readViewAnomalies(deps.db, view, spans.get(view.id) ?? null, window, settings, mode),
      ),
    ),
    readComments(
      deps.db,
      targets.map((v) => v.id),
      window,
    ),
  ]);
  const records = attachComments(perView.flat(), comments);
  const run = runFilter(records, settings);
  const answer: FilterAnswer = {
    timeRange: { preset: settings.timeRange, ...window },
    dataViews: targets.map((v) => ({ id: v.id, dataView: v.label })),
    warnings,
    anomalies: run.anomalies,
  };
  if (settings.isAggregated) answer.aggregates = run.aggregates ?? [];
  return answer;
}
