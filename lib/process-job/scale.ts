/**
 * The scale of a measure (analysis.measureProperties.<measure>.scale, docs/dataview-definition.md): ratio
 * (zero means none, moves are judged in percent) or interval (an arbitrary zero, judged in noise units:
 * lib/detection/detectors/interval.ts). Unset, a measure whose view total has data both below and above
 * zero (a balance, a temperature in °C over a winter) is judged as interval.
 */
import type { DataViewAnalysis } from '../dataviews/definition/types';

type Measure = 'value' | 'count' | 'ratio';

/** The scales a definition sets, by measure. */
export function measureScales(
  analysis: Pick<DataViewAnalysis, 'measureProperties'> | undefined,
): Partial<Record<Measure, 'ratio' | 'interval'>> {
  const out: Partial<Record<Measure, 'ratio' | 'interval'>> = {};
  for (const m of ['value', 'count', 'ratio'] as const) {
    const s = analysis?.measureProperties?.[m]?.scale;
    if (s !== undefined) out[m] = s;
  }
  return out;
}

/** True when the series has values below and above zero (days of NaN left out). */
export function crossesZero(total: Float64Array | undefined): boolean {
  if (total === undefined) return false;
  let below = false;
  let above = false;
  for (const v of total) {
    if (v < 0) below = true;
    else if (v > 0) above = true;
    if (below && above) return true;
  }
  return false;
}

/**
 * Whether a measure is judged as interval: set so, or unset and its view total crosses zero (a ratio's
 * total read is its value's, which says nothing of the ratio's sign: a ratio is interval only when set).
 */
export function isIntervalMeasure(
  scale: 'ratio' | 'interval' | undefined,
  measure: Measure,
  total: Float64Array | undefined,
): boolean {
  if (scale !== undefined) return scale === 'interval';
  return measure !== 'ratio' && crossesZero(total);
}
