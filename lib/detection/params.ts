/**
 * Typed detector params. Their defaults, bounds and meanings are the table in param-specs.ts
 * (docs/detectors.md explains each); a data view definition uses the same names, except
 * `baselineDays` for the `window` of peer, mix and cardinality.
 */
import { ValidationError } from '../shared/errors';
import {
  COMMON_SPECS,
  checkParam,
  defaultsOf,
  engineParamNames,
  type MODES,
  PARAM_SPECS,
  type ParamSpec,
} from './param-specs';

export { type ParamSpec, PARAM_SPECS } from './param-specs';

/** A detector type: a key of the params table (param-specs.ts), the one list of detector types. */
export type DetectorType = keyof typeof PARAM_SPECS;

/** Every detector type, in the order of the params table; the registry, the definition checks and the schema follow it. */
export const DETECTOR_TYPES = Object.keys(PARAM_SPECS) as readonly DetectorType[];

export type Mode = (typeof MODES)[number];

export interface CommonParams {
  /** Which results are reported. */
  mode: Mode;
  /** Suppress anomalies on special days and keep those days out of baselines. */
  useSpecialDates: boolean;
  /** Skip the series when its average over the scanned days is below this. */
  minValue?: number;
  /** Skip the series when its average over the scanned days is above this. */
  maxValue?: number;
  /**
   * Days (periods: per day) whose expected value is below this are not judged; anomalies whose daily
   * volume (larger of actual and expected) is below it are dropped. In events for counts and for amounts
   * judged in their events, in the value's own unit for an amount without events. Unset: 10 events, or
   * for an amount a share of the view's total (materiality.ts).
   */
  minVolume?: number;
  /** Skip the series when more than this percentage of the scanned days had no source data. */
  maxMissingPct: number;
  /** A change lasting this many consecutive flagged days becomes the new normal of the baseline. */
  adaptAfterDays: number;
}

export interface PercentChangeParams extends CommonParams {
  /** Minimum relative change, in percent of the expected value. */
  percentualChange: number;
  /** Robust standard deviations of the series' own recent residuals the change must exceed. */
  threshold: number;
}

/** Params of the calendar-period detectors (mom, qoq, mpy, cw). */
export type PeriodParams = PercentChangeParams;

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
  /** Robust standard deviations of the series' own recent residuals the change must exceed. */
  threshold: number;
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

type SpecsOf<P> = { [K in keyof P]-?: ParamSpec };

// Fails to compile when a param of the types above has no spec.
const SPECS: { readonly [K in DetectorType]: SpecsOf<DetectorParamsByType[K]> } = PARAM_SPECS;

export const COMMON_DEFAULTS = defaultsOf(COMMON_SPECS) as unknown as CommonParams;

export const DETECTOR_DEFAULTS = Object.fromEntries(
  DETECTOR_TYPES.map((type) => [type, defaultsOf(SPECS[type])]),
) as unknown as { readonly [K in DetectorType]: DetectorParamsByType[K] };

/**
 * Defaults merged with the given params, checked against the spec table. Unknown keys are
 * ignored; a definition's `baselineDays` is read as `window`.
 */
export function resolveParams<T extends DetectorType>(
  type: T,
  raw: Record<string, unknown> = {},
  path = 'params',
): DetectorParamsByType[T] {
  const specs = Object.hasOwn(SPECS, type) ? (SPECS[type] as unknown as Record<string, ParamSpec>) : null;
  if (!specs) throw ValidationError.field('type', `unknown detector type '${String(type)}'`);
  const out: Record<string, unknown> = { ...DETECTOR_DEFAULTS[type] };
  const errors: { path: string; message: string }[] = [];
  for (const [key, value] of Object.entries(engineParamNames(type, raw))) {
    if (!Object.hasOwn(specs, key) || value === undefined || value === null) continue;
    const checked = checkParam(specs[key], value);
    if (checked.error) errors.push({ path: `${path}.${key}`, message: checked.error });
    else out[key] = checked.value;
  }
  if (errors.length > 0) throw new ValidationError(`Invalid detector params`, errors);
  return out as unknown as DetectorParamsByType[T];
}
