/** The contract between the engine and one detector implementation. */
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
