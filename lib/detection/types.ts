/** Shapes shared by the detection engine, its callers (process worker, preview) and the detectors. */
import type { FiscalCalendar } from '../calendar/fiscal';
import type { SpecialCalendar } from '../calendar/special-calendar';
import type { MeasureKind } from './materiality';
import type { DetectorParamsByType, DetectorType } from './params';

export type AnomalyType =
  | 'DOD'
  | 'WOW'
  | 'MOM'
  | 'QOQ'
  | 'MPY'
  | 'CW'
  | 'Gap'
  | 'Spike'
  | 'ChangePoint'
  | 'DT'
  | 'Peer'
  | 'Mix'
  | 'Cardinality';

export type AnomalyResult = 'Positive' | 'Negative';

export type SeriesId = number | string;

/** One series as columnar arrays; every array has values.length entries aligned by day. */
export interface SeriesInput {
  seriesId: SeriesId;
  /** Epoch day of values[0]. */
  dayIndex0: number;
  /** Daily values after gap filling. */
  values: Float64Array;
  /** 1 where the source had data (before gap filling); needed by gap, used for skip reasons. */
  present?: Uint8Array;
  /** Total of the data view per day, for the share %. */
  totalValues?: Float64Array;
  /** Parent series per day (mix). */
  parentValues?: Float64Array;
  /** Median relative change of the series' peer group per day (peer), from buildPeerBaseline. */
  peerChange?: Float64Array;
  /** Distinct non-zero child values per day (cardinality), from buildCardinalityBaseline. */
  cardinality?: Float64Array;
  /**
   * Value per event, when the values are amounts and the view counts their events (revenue and
   * bookings): Σ value / Σ count of the series. Materiality (minVolume) and the Poisson noise floors
   * are then judged in events (expected / valuePerEvent): a day expected to bring one booking is not
   * material however large its price, and its revenue is as noisy as one booking. Absent or not
   * positive: the values are the events (1). Read only when measureKind is `events`.
   */
  valuePerEvent?: number;
  /**
   * What the values are (materiality.ts): `events` (the default: counts, or amounts judged in their
   * events through valuePerEvent) or `amount` (an amount in an unknown unit: no Poisson floor, and a
   * materiality relative to totalValues unless minVolume is set), so that the verdict on an amount
   * does not depend on the unit it is expressed in.
   */
  measureKind?: MeasureKind;
  /**
   * With measureKind `ratio`: the events behind each day's ratio (the count measure), aligned with
   * values. A day's noise is taken as that of an average of its events (it shrinks with
   * sqrt(events)), and the anomaly's actual and expected values are averages per event (Σ value ÷
   * Σ count over its days).
   */
  weights?: Float64Array;
  /**
   * The series' own numbers whose share of totalValues is the anomaly's share % (default values): a
   * ratio's share is that of its value measure in the view's total value.
   */
  shareOf?: Float64Array;
}

export interface DetectorConfig<T extends DetectorType = DetectorType> {
  type: T;
  params?: Partial<DetectorParamsByType[T]> | Record<string, unknown>;
}

export interface DetectionContext {
  /** Special dates of the data view; used by detectors with useSpecialDates. */
  calendar?: SpecialCalendar;
  /**
   * A series' own calendar where it has one (holidays of its country, joined with the view's special
   * dates), used instead of `calendar`; same-calendar series share one object.
   */
  seriesCalendar?: (seriesId: SeriesId) => SpecialCalendar | undefined;
  /** The view's fiscal calendar: the period detectors compare fiscal months, quarters and weeks. */
  fiscal?: FiscalCalendar;
  /** Exclude the most recent N days from analysis. */
  ignoreLastNDays?: number;
  /** Report anomalies only in the last N analysed days; 0 or absent = whole history. */
  scanInLastNDays?: number;
  /** Anomalies of this type the series had before values[0] (added to recurrence). */
  history?: (seriesId: SeriesId, type: AnomalyType) => number;
}

/** An anomaly ready to be written; identity is (seriesId, type, startDay). */
export interface AnomalyDraft {
  seriesId: SeriesId;
  type: AnomalyType;
  startDay: number;
  endDay: number;
  startDate: string;
  endDate: string;
  duration: number;
  actualValue: number;
  predictedValue: number;
  change: number;
  changePct: number | null;
  changeCum: number;
  sharePct: number | null;
  recurrence: number;
  result: AnomalyResult;
}

export type SkipReason =
  | 'no-data'
  | 'few-events'
  | 'not-for-measure'
  | 'gap-amount'
  | 'average-below-min'
  | 'average-above-max'
  | 'missing-input'
  | 'too-short';

export interface Skip {
  reason: SkipReason;
  message: string;
}
