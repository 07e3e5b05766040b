/** The contract between the engine and one detector implementation. */
import type { FiscalCalendar } from '../calendar/fiscal';
import type { DetectorParamsByType, DetectorType } from './params';
import type { AnomalyType } from './types';
import type { Workspace } from './workspace';

/** What a detector reads; indices are days from values[0]. */
export interface RunInput {
  x: Float64Array;
  present: Uint8Array | undefined;
  /** Calendar flags aligned with x when useSpecialDates is on, else null. */
  special: Uint8Array | null;
  /** First day with source data: nothing before it is a baseline or a finding. */
  start: number;
  /** One past the last analysed day (ignoreLastNDays already removed). */
  end: number;
  dayIndex0: number;
  parent?: Float64Array;
  peer?: Float64Array;
  cardinality?: Float64Array;
  /**
   * The series' own day-level noise in its units: the mean absolute week-over-week difference of
   * the analysed days with data × 1.2533 / √2 (a standard deviation of one day for normal noise).
   * A floor of the noise tests, so that a ratio to one low day of a sparse series is not news.
   */
  daySigma: number;
  /** Mean of the analysed days with data (the level daySigma belongs to). */
  dayMean: number;
  /**
   * Value per event of counts (SeriesInput.valuePerEvent, 1 without it): the Poisson floors are those
   * of expected / unit events. 0 for an amount: no Poisson floor.
   */
  unit: number;
  /**
   * Materiality in the series' units (materiality.ts materialLevel): a day expected below it is not
   * reported, a period expected below it per day is not judged, an anomaly below it is dropped.
   */
  material: number;
  /**
   * A ratio's events per day (SeriesInput.weights) and their mean over the analysed days with data:
   * the noise tests weigh a day's residual by sqrt(weights[t] / weightRef). Undefined otherwise.
   */
  weights: Float64Array | undefined;
  weightRef: number;
  /** The view's fiscal calendar: MOM, QOQ, MPY and CW compare its periods instead of calendar ones. */
  fiscal?: FiscalCalendar;
}

export type RequiredInput = 'present' | 'parentValues' | 'peerChange' | 'cardinality';

export interface DetectorImpl<T extends DetectorType = DetectorType> {
  type: T;
  code: AnomalyType;
  /**
   * Aggregate detectors compare window totals and leave special days out of both sides, so an
   * overlap with a special day does not suppress their anomalies.
   */
  aggregate: boolean;
  requires?: RequiredInput;
  /** Days of data needed before anything can be flagged. */
  minHistory(params: DetectorParamsByType[T]): number;
  /**
   * Fills ws.expected and ws.flags for days [0, input.end) and returns the array whose window
   * sums are the anomaly's actual value (usually input.x).
   */
  run(input: RunInput, params: DetectorParamsByType[T], ws: Workspace): Float64Array;
}
