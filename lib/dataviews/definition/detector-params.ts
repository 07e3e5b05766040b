/**
 * Detector types and their typed params with documented defaults: the one table the definition
 * validator and the detection engine both read (docs/dataview-definition.md mirrors it).
 */

export const DETECTOR_TYPES = [
  'dod',
  'wow',
  'mom',
  'qoq',
  'mpy',
  'gap',
  'spike',
  'changepoint',
  'dt',
  'cw',
  'peer',
  'mix',
  'cardinality',
] as const;
export type DetectorType = (typeof DETECTOR_TYPES)[number];

export const DETECTOR_MODES = ['positive', 'negative', 'both'] as const;
/** Which direction of change a detector reports. */
export type DetectorMode = (typeof DETECTOR_MODES)[number];

/** Params every detector accepts. */
export interface CommonParams {
  useSpecialDates: boolean;
  mode: DetectorMode;
  minValue?: number;
  maxValue?: number;
  minVolume: number;
}
/** dod, wow, mom, qoq, mpy, cw: period-over-period comparison. */
export interface ChangeParams extends CommonParams {
  percentualChange: number;
}
export interface GapParams extends CommonParams {
  longerThan: number;
  shorterThan?: number;
}
export interface SpikeParams extends CommonParams {
  threshold: number;
  window: number;
}
export interface ChangePointParams extends CommonParams {
  minSegment: number;
  threshold: number;
}
export interface DtParams extends CommonParams {
  sensitivity: number;
  window: number;
}
export interface PeerParams extends CommonParams {
  percentualChange: number;
  baselineDays: number;
}
export interface MixParams extends CommonParams {
  percentualChange: number;
  baselineDays: number;
}
export interface CardinalityParams extends CommonParams {
  percentualChange: number;
  baselineDays: number;
}

export interface DetectorParamsByType {
  dod: ChangeParams;
  wow: ChangeParams;
  mom: ChangeParams;
  qoq: ChangeParams;
  mpy: ChangeParams;
  cw: ChangeParams;
  gap: GapParams;
  spike: SpikeParams;
  changepoint: ChangePointParams;
  dt: DtParams;
  peer: PeerParams;
  mix: MixParams;
  cardinality: CardinalityParams;
}
export type DetectorParams = DetectorParamsByType[DetectorType];

/** One configured detector with every param resolved; discriminated by `type`. */
export type DetectorConfig = {
  [T in DetectorType]: { type: T; params: DetectorParamsByType[T] };
}[DetectorType];

/** Detectors that need baseline tables (rebuilt by the "recalculate baseline" action). */
export const BASELINE_DETECTORS: readonly DetectorType[] = ['peer', 'mix', 'cardinality'];

export interface ParamSpec {
  kind: 'number' | 'integer' | 'boolean' | 'mode';
  /** Absent: the param is optional and stays unset when omitted. */
  default?: number | boolean | DetectorMode;
  /** Inclusive lower bound. */
  min?: number;
  /** Exclusive lower bound (the value must be greater). */
  above?: number;
  max?: number;
  description: string;
}

type SpecsOf<P> = { [K in keyof P]-?: ParamSpec };

const COMMON: SpecsOf<CommonParams> = {
  useSpecialDates: {
    kind: 'boolean',
    default: false,
    description:
      'Suppress anomalies that overlap the special dates, rules and periods with a matching impact.',
  },
  mode: {
    kind: 'mode',
    default: 'both',
    description: 'Report increases (positive), decreases (negative) or both.',
  },
  minValue: { kind: 'number', description: 'Skip series whose average value lies below this.' },
  maxValue: { kind: 'number', description: 'Skip series whose average value lies above this.' },
  minVolume: {
    kind: 'number',
    default: 0,
    min: 0,
    description:
      'Skip series whose average daily count (value when there is no count column) lies below this.',
  },
};

function change(defaultPct: number, what: string): SpecsOf<ChangeParams> {
  return {
    percentualChange: {
      kind: 'number',
      default: defaultPct,
      above: 0,
      description: `Minimum change in % against ${what}.`,
    },
    ...COMMON,
  };
}

const baselineDays: ParamSpec = {
  kind: 'integer',
  default: 28,
  min: 7,
  max: 3660,
  description: 'Days of history the baseline table is built from.',
};

/** Every param of every detector type with its bounds and default. */
export const DETECTOR_PARAM_SPECS: { [T in DetectorType]: SpecsOf<DetectorParamsByType[T]> } = {
  dod: change(30, 'the previous day'),
  wow: change(25, 'the same weekday of the previous week'),
  mom: change(20, 'the same day of the previous month'),
  qoq: change(20, 'the same day of the previous quarter'),
  mpy: change(20, 'the same day of the same month one year earlier'),
  cw: change(25, 'the same weekday of the same ISO calendar week one year earlier'),
  gap: {
    longerThan: {
      kind: 'integer',
      default: 0,
      min: 0,
      description: 'Report runs of days without data longer than this many days.',
    },
    shorterThan: {
      kind: 'integer',
      above: 0,
      description: 'Only report runs shorter than this many days (unset: no upper bound).',
    },
    ...COMMON,
  },
  spike: {
    threshold: {
      kind: 'number',
      default: 3.5,
      above: 0,
      description: 'Robust z-score (median and MAD of the window) a day must exceed.',
    },
    window: {
      kind: 'integer',
      default: 28,
      min: 3,
      max: 3660,
      description: 'Days of history before the day.',
    },
    ...COMMON,
  },
  changepoint: {
    minSegment: {
      kind: 'integer',
      default: 14,
      min: 2,
      max: 3660,
      description: 'Minimum days on each side of a level shift.',
    },
    threshold: {
      kind: 'number',
      default: 5,
      above: 0,
      description: 'Level shift, in standard deviations of the series, needed to report a change point.',
    },
    ...COMMON,
  },
  dt: {
    sensitivity: {
      kind: 'number',
      default: 3,
      above: 0,
      description: 'Width of the dynamic band in robust deviations around the seasonal expectation.',
    },
    window: {
      kind: 'integer',
      default: 56,
      min: 7,
      max: 3660,
      description: 'Days of history the band learns from.',
    },
    ...COMMON,
  },
  peer: {
    percentualChange: {
      kind: 'number',
      default: 25,
      above: 0,
      description:
        "Deviation in % from the expected value: the series' own level moved by its peers' median change (same parent).",
    },
    baselineDays,
    ...COMMON,
  },
  mix: {
    percentualChange: {
      kind: 'number',
      default: 20,
      above: 0,
      description:
        "Deviation in % from the expected value: today's parent value times the series' usual share of it.",
    },
    baselineDays,
    ...COMMON,
  },
  cardinality: {
    percentualChange: {
      kind: 'number',
      default: 20,
      above: 0,
      description: 'Change in % of the number of active series (non-zero days) against the baseline.',
    },
    baselineDays,
    ...COMMON,
  },
};

/** Params of `type` with every default applied; `overrides` win (handy in engine tests). */
export function withDefaults<T extends DetectorType>(
  type: T,
  overrides: Partial<DetectorParamsByType[T]> = {},
): DetectorParamsByType[T] {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(DETECTOR_PARAM_SPECS[type]) as [string, ParamSpec][]) {
    if (spec.default !== undefined) out[key] = spec.default;
  }
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) out[key] = value;
  return out as unknown as DetectorParamsByType[T];
}

/** Lower-case detector code for user input in any case, or undefined when unknown. */
export function detectorTypeOf(input: unknown): DetectorType | undefined {
  if (typeof input !== 'string') return undefined;
  const code = input.trim().toLowerCase();
  return (DETECTOR_TYPES as readonly string[]).includes(code) ? (code as DetectorType) : undefined;
}
