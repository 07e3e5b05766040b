/**
 * Good or bad news: a measure's `badWhen` (analysis.measureProperties, docs/dataview-definition.md) says
 * which direction of its moves is bad news. A rise of revenue is welcome, a rise of complaints is not;
 * a measure left at `both` has no welcome moves (docs/filters.md, "Welcome moves"). Pure.
 */
import type { AnomalyMeasure, AnomalyResult, News } from './types';

/** The bad direction of each measure that has one (a measure bad both ways is left out). */
export type BadDirections = Partial<Record<AnomalyMeasure, 'fall' | 'rise'>>;

/** The measures' bad directions from a definition's `analysis.measureProperties`. */
export function badDirectionsOf(
  props: Partial<Record<AnomalyMeasure, { badWhen?: string } | undefined>> | undefined,
): BadDirections {
  const out: BadDirections = {};
  for (const m of ['value', 'count', 'ratio'] as const) {
    const b = props?.[m]?.badWhen;
    if (b === 'fall' || b === 'rise') out[m] = b;
  }
  return out;
}

/** Whether a move of `result` on `measure` is good or bad news; undefined when the measure is bad both ways. */
export function newsOf(bad: BadDirections, measure: AnomalyMeasure, result: AnomalyResult): News | undefined {
  const b = bad[measure];
  if (b === undefined) return undefined;
  const rise = result === 'Positive';
  return (b === 'rise') === rise ? 'bad' : 'good';
}

/** The (measure, result) pairs that are welcome moves: good news for their measure. */
export function welcomeMoves(bad: BadDirections): Array<{ measure: AnomalyMeasure; result: AnomalyResult }> {
  return (Object.entries(bad) as Array<[AnomalyMeasure, 'fall' | 'rise']>).map(([measure, b]) => ({
    measure,
    result: b === 'fall' ? 'Positive' : 'Negative',
  }));
}
