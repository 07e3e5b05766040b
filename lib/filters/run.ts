/** Runs a filter over anomalies already scoped to its data views and time range. */
import { aggregateAnomalies } from './aggregate';
import type { Incident } from '../incidents/types';
import { mergeEvents } from './events';
import { mergeIncidents } from './incidents';
import { rankAggregates, rankAnomalies } from './rank';
import { applyFilter } from './select';
import type { FilterRun, FilterSettings } from './types';

/**
 * Select, merge the records of one incident (incidents) or of one event (mergeEvents), then rank and cut to the Top N;
 * when aggregating, every selected record (not only the Top N) is grouped, and the aggregates are
 * ranked and cut to the Top N on their own. Events carry their members; the caller drops them when
 * they were not asked for.
 */
export function runFilter(
  anomalies: Parameters<typeof applyFilter>[0],
  settings: Omit<
    FilterSettings,
    'timeRange' | 'dateFrom' | 'dateTo' | 'dataViews' | 'mergeEvents' | 'incidents'
  > & {
    mergeEvents?: boolean;
    incidents?: boolean;
  },
  /** The stored incidents of the records (by incidentKey), for `incidents`. */
  incidents: ReadonlyMap<string, Incident> = new Map(),
): FilterRun {
  const filtered = applyFilter(anomalies, settings);
  const selected = settings.incidents
    ? mergeIncidents(filtered, incidents)
    : settings.mergeEvents
      ? mergeEvents(filtered)
      : filtered;
  const ranked = rankAnomalies(selected, settings.sortBy, settings.limit, settings.splitByType);
  if (!settings.isAggregated) return { anomalies: ranked };
  const aggregates = aggregateAnomalies(selected, settings);
  return {
    anomalies: ranked,
    aggregates: rankAggregates(aggregates, settings.sortBy, settings.limit, settings.splitByType),
  };
}
