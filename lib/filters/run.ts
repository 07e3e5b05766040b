/** Runs a filter over anomalies already scoped to its data views and time range. */
import { aggregateAnomalies } from './aggregate';
import { rankAggregates, rankAnomalies } from './rank';
import { applyFilter } from './select';
import type { FilterRun, FilterSettings } from './types';

/**
 * Select, then rank and cut to the Top N; when aggregating, every selected anomaly (not only the Top N)
 * is grouped, and the aggregates are ranked and cut to the Top N on their own.
 */
export function runFilter(
  anomalies: Parameters<typeof applyFilter>[0],
  settings: Omit<FilterSettings, 'timeRange' | 'dateFrom' | 'dateTo' | 'dataViews'>,
): FilterRun {
  const selected = applyFilter(anomalies, settings);
  const ranked = rankAnomalies(selected, settings.sortBy, settings.limit, settings.splitByType);
  if (!settings.isAggregated) return { anomalies: ranked };
  const aggregates = aggregateAnomalies(selected, settings);
  return {
    anomalies: ranked,
    aggregates: rankAggregates(aggregates, settings.sortBy, settings.limit, settings.splitByType),
  };
}
