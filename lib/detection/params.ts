/**
 * Typed detector params and their defaults (docs/detectors.md explains each). Names follow the
 * data view definition (`analysis.detectors[].params`).
 */
import { ValidationError } from '../shared/errors';

export type DetectorType =
  | 'dod'
  | 'wow'
  | 'mom'
  | 'qoq'
  | 'mpy'
  | 'cw'
  | 'gap'
  | 'spike'
  | 'changepoint'
  | 'dt'
  | 'peer'
  | 'mix'
  | 'cardinality';

export const DETECTOR_TYPES: readonly DetectorType[] = [
  'dod',
  'wow',
  'mom',
  'qoq',
  'mpy',
  'cw',
  'gap',
  'spike',
  'changepoint',
  'dt',
  'peer',
  'mix',
  'cardinality',
];

export type Mode = 'positive' | 'negative' | 'both';

export interface CommonParams {
  /** Which results are reported. */
  mode: Mode;
  /** Suppress anomalies on special days and keep those days out of baselines. */
  useSpecialDates: boolean;
  /** Skip the series when its average over the scanned days is below this. */
  minValue?: number;
  /** Skip the series when its average over the scanned days is above this. */
  maxValue?: number;
  /** Drop anomalies whose average daily volume (larger of actual and expected) is below this. */
  minVolume: number;
  /** Skip the series when more than this percentage of the scanned days had no source data. */
  maxMissingPct: number;
  /** A change lasting this many consecutive flagged days becomes the new normal of the baseline. */
  adaptAfterDays: number;
}

export interface PercentChangeParams extends CommonParams {
  /** Minimum relative change, in percent of the expected value. */
  percentualChange: number;
}

export interface GapParams extends CommonParams {
  /** Report runs of missing days longer than this many days. */
  longerThan: number;
  /** Report only runs shorter than this many days (no upper bound when omitted). */
  shorterThan?: number;
}

export interface SpikeParams extends CommonParams {
  /** Robust z-score above which a day is a spike. */
  threshold: number;
  /** Minimum relative change, in percent of the expected value. */
  minChangePct: number;
  /** Days of history for the baseline and the noise scale (rounded to whole weeks). */
  window: number;
}

export interface ChangePointParams extends CommonParams {
  /** Days on each side of a change point. */
  minSegment: number;
  /** Standard errors by which the segment means must differ. */
  threshold: number;
  /** Minimum relative shift of the segment mean, in percent. */
  minChangePct: number;
}

export interface DtParams extends CommonParams {
  /** Band width as a multiple of the interquartile range (Tukey fences: 1.5 mild, 3 far out). */
  sensitivity: number;
  /** Days of history the band learns from (rounded to whole weeks). */
  window: number;
}

export interface WindowPercentParams extends CommonParams {
  percentualChange: number;
  /** Days of history for the baseline (rounded to whole weeks). */
  window: number;
}

export interface CardinalityParams extends WindowPercentParams {
  /** Minimum absolute change of the distinct-value count. */
  minChange: number;
}

export interface DetectorParamsByType {
  dod: PercentChangeParams;
  wow: PercentChangeParams;
  mom: PercentChangeParams;
  qoq: PercentChangeParams;
  mpy: PercentChangeParams;
  cw: PercentChangeParams;
  gap: GapParams;
  spike: SpikeParams;
  changepoint: ChangePointParams;
  dt: DtParams;
  peer: WindowPercentParams;
  mix: WindowPercentParams;
  cardinality: CardinalityParams;
}

export type AnyDetectorParams = DetectorParamsByType[DetectorType];

export const COMMON_DEFAULTS: CommonParams = {
  mode: 'both',
  useSpecialDates: false,
  minVolume: 0,
  maxMissingPct: 50,
  adaptAfterDays: 7,
};

export const DETECTOR_DEFAULTS: { readonly [K in DetectorType]: DetectorParamsByType[K] } = {
  dod: { ...COMMON_DEFAULTS, percentualChange: 30 },
  wow: { ...COMMON_DEFAULTS, percentualChange: 30 },
  cw: { ...COMMON_DEFAULTS, percentualChange: 20 },
  mom: { ...COMMON_DEFAULTS, percentualChange: 15 },
  qoq: { ...COMMON_DEFAULTS, percentualChange: 15 },
  mpy: { ...COMMON_DEFAULTS, percentualChange: 20 },
  gap: { ...COMMON_DEFAULTS, longerThan: 0 },
  spike: { ...COMMON_DEFAULTS, threshold: 3.5, minChangePct: 20, window: 28 },
  changepoint: { ...COMMON_DEFAULTS, minSegment: 14, threshold: 5, minChangePct: 10 },
  dt: { ...COMMON_DEFAULTS, sensitivity: 3, window: 56 },
  peer: { ...COMMON_DEFAULTS, percentualChange: 25, window: 28 },
  mix: { ...COMMON_DEFAULTS, percentualChange: 20, window: 28 },
  cardinality: { ...COMMON_DEFAULTS, percentualChange: 0, minChange: 1, window: 28 },
};

/** Defaults merged with the given params; unknown keys are ignored, wrong types rejected. */
export function resolveParams<T extends DetectorType>(
  type: T,
  raw: Record<string, unknown> = {},
  path = 'params',
): DetectorParamsByType[T] {
  const defaults = DETECTOR_DEFAULTS[type] as unknown as Record<string, unknown>;
  if (!defaults) throw ValidationError.field('type', `unknown detector type '${String(type)}'`);
  const out: Record<string, unknown> = { ...defaults };
  const errors: { path: string; message: string }[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue;
    const known = key in defaults || key === 'minValue' || key === 'maxValue' || key === 'shorterThan';
    if (!known) continue;
    if (key === 'mode') {
      if (value !== 'positive' && value !== 'negative' && value !== 'both') {
        errors.push({ path: `${path}.mode`, message: 'must be positive, negative or both' });
      } else out.mode = value;
    } else if (key === 'useSpecialDates') {
      if (typeof value !== 'boolean') errors.push({ path: `${path}.${key}`, message: 'must be a boolean' });
      else out[key] = value;
    } else if (typeof value !== 'number' || !Number.isFinite(value)) {
      errors.push({ path: `${path}.${key}`, message: 'must be a number' });
    } else out[key] = value;
  }
  if (errors.length > 0) throw new ValidationError(`Invalid detector params`, errors);
  return out as unknown as DetectorParamsByType[T];
}
