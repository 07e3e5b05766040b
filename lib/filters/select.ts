/** Selection of anomalies by a filter's settings, apart from data-view and time scoping (done by the query). */
import type { AnomalyRecord, NumericBound, SelectionSettings } from './types';
import { ownValue } from '../shared/own';

export { rankAnomalies } from './rank';

function inBound(value: number | null, bound: NumericBound | undefined): boolean {
  if (!bound || (bound.from === null && bound.to === null)) return true;
  // A measure the detector could not compute cannot satisfy a bound.
  if (value === null || Number.isNaN(value)) return false;
  if (bound.from !== null && value < bound.from) return false;
  if (bound.to !== null && value > bound.to) return false;
  return true;
}

function abs(v: number | null): number | null {
  return v === null ? null : Math.abs(v);
}

/**
 * Anomalies that satisfy the filter: type (case-insensitive), result sign, measure, not a welcome move (with
 * hideWelcome; records carry their `news`), every category constraint,
 * and the inclusive numeric bounds (change and change % by magnitude). Input order is kept.
 */
export function applyFilter(
  anomalies: readonly AnomalyRecord[],
  settings: Partial<SelectionSettings>,
): AnomalyRecord[] {
  const types = settings.anomalyTypes?.length
    ? new Set(settings.anomalyTypes.map((t) => t.toLowerCase()))
    : null;
  const results = settings.anomalyResults?.length ? new Set(settings.anomalyResults) : null;
  const measures = settings.measures?.length ? new Set<string>(settings.measures) : null;
  const constraints = Object.entries(settings.categories ?? {});
  const { recurrence, changePct, change, sharePct } = settings;
  return anomalies.filter((a) => {
    if (types && !types.has(a.type.toLowerCase())) return false;
    if (results && !results.has(a.result)) return false;
    if (measures && !measures.has(a.measure ?? 'value')) return false;
    if (settings.hideWelcome && a.news === 'good') return false;
    for (const [name, value] of constraints) if (ownValue(a.categories, name) !== value) return false;
    return (
      inBound(a.recurrence, recurrence) &&
      inBound(abs(a.changePct), changePct) &&
      inBound(abs(a.change), change) &&
      inBound(a.sharePct, sharePct)
    );
  });
}

/** Data-view and time scoping in memory (the repository does the same in SQL): ids listed and dates overlapping. */
export function scopeAnomalies(
  anomalies: readonly AnomalyRecord[],
  scope: { dataViewIds?: readonly number[] | null; dateFrom: string; dateTo: string },
): AnomalyRecord[] {
  const ids = scope.dataViewIds ? new Set(scope.dataViewIds) : null;
  return anomalies.filter(
    (a) => (!ids || ids.has(a.dataViewId)) && a.startDate <= scope.dateTo && a.endDate >= scope.dateFrom,
  );
}
