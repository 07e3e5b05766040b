/**
 * The one table of detector params: kind, bounds, default and meaning of every param. The engine
 * derives its defaults and checks from it (params.ts) and the data view definition re-exports it
 * (lib/dataviews/definition/detector-params.ts), so a deployed view runs with the defaults that
 * `scripts/eval.ts` measures. Defaults were chosen on that eval (docs/detectors.md).
 */

export const MODES = ['positive', 'negative', 'both'] as const;

export interface ParamSpec {
  kind: 'number' | 'integer' | 'boolean' | 'mode';
  /** Absent: the param is optional and stays unset when omitted. */
  default?: number | boolean | (typeof MODES)[number];
  /** Inclusive lower bound. */
  min?: number;
  /** Exclusive lower bound (the value must be greater). */
  above?: number;
  max?: number;
  description: string;
}

type Specs = Record<string, ParamSpec>;

export const COMMON_SPECS = {
  useSpecialDates: {
    kind: 'boolean',
    default: true,
    description:
      "On by default: a view's special dates are configured to be used. Apply the view's special dates, rules and periods: special days stay out of baselines and comparisons, and an anomaly on a special day whose impact matches its direction is not reported (a window anomaly of mom, qoq, mpy, cw or changepoint when such days are at least a seventh of its days).",
  },
  mode: {
    kind: 'mode',
    default: 'both',
    description: 'Report increases (positive), decreases (negative) or both.',
  },
  minValue: {
    kind: 'number',
    description: 'Skip the series when its average over the scanned days with data lies below this.',
  },
  maxValue: {
    kind: 'number',
    description: 'Skip the series when its average over the scanned days with data lies above this.',
  },
  minVolume: {
    kind: 'number',
    min: 0,
    description:
      "Materiality: a day (for period detectors, a period per day) whose expected value lies below this is not judged, and an anomaly whose average daily volume (the larger of actual and expected) lies below it is dropped, so 1 → 3 bookings is never +200 %. In events for counts and for amounts judged in their events (the view's count varies), in the value's own unit for an amount without events (a constant count). Unset: 10 events a day, and for an amount without events 0.1 % of the view total's mean daily value (the same verdict in any unit). 0 judges everything.",
  },
  maxMissingPct: {
    kind: 'number',
    default: 50,
    min: 0,
    max: 100,
    description:
      'Skip the series when more than this % of the scanned days had no source data (gap-filled values are no evidence); not applied by gap.',
  },
  adaptAfterDays: {
    kind: 'integer',
    default: 7,
    min: 0,
    max: 3660,
    description:
      'A change flagged on this many consecutive days (same direction) becomes the new normal: the anomaly ends and the baseline moves to the new level. 0 = never. Used by dod, wow, spike, dt, peer, mix and cardinality.',
  },
} satisfies Specs;

function noiseThreshold(defaultK: number, residual: string): ParamSpec {
  return {
    kind: 'number',
    default: defaultK,
    above: 0,
    description: `Strictness: the change must also exceed this many robust standard deviations of the series' own recent residuals (${residual}; at least 1 % of the expected value and, for counts, 1/sqrt(expected)). Higher reports less.`,
  };
}

const DAY_RESIDUALS =
  "the same comparison on earlier days that were not flagged, on the log scale: the larger of a 4-week weighted mean of absolute residuals and their 98th percentile over 16 weeks; in the series' units at least its own day noise";
const PERIOD_RESIDUALS = 'the same comparison on the last 12 periods that were not flagged';

function periodChange(defaultPct: number, defaultK: number, what: string, residual: string) {
  return {
    percentualChange: {
      kind: 'number',
      default: defaultPct,
      above: 0,
      description: `Minimum change in % of the expected value: ${what}.`,
    },
    threshold: noiseThreshold(defaultK, residual),
    ...COMMON_SPECS,
  } satisfies Specs;
}

function lookBack(what: string): ParamSpec {
  return {
    kind: 'integer',
    default: 28,
    min: 7,
    max: 3660,
    description: `Days of history (rounded to whole weeks) for ${what}.`,
  };
}

/** Business threshold (%) and strictness (k) of the percent-change detectors, chosen on the eval. */
const DEFAULTS = {
  dod: { pct: 30, k: 4 },
  wow: { pct: 30, k: 4 },
  mom: { pct: 15, k: 3 },
  qoq: { pct: 15, k: 3 },
  mpy: { pct: 20, k: 3 },
  cw: { pct: 20, k: 3 },
  peer: { pct: 25, k: 4 },
  mix: { pct: 20, k: 4 },
  cardinality: { pct: 10, k: 4 },
};

const MONTH_PREDICTION = "each weekday's mean in the reference period summed over this period's weekdays";

/** Every param of every detector type, in the order stored definitions list them. */
export const PARAM_SPECS = {
  dod: periodChange(
    DEFAULTS.dod.pct,
    DEFAULTS.dod.k,
    "yesterday scaled by the weekday profile (mean of today's weekday / mean of yesterday's over the last 8 weeks)",
    DAY_RESIDUALS,
  ),
  wow: periodChange(
    DEFAULTS.wow.pct,
    DEFAULTS.wow.k,
    'the same weekday one week earlier (further back when that day has no value)',
    DAY_RESIDUALS,
  ),
  mom: periodChange(
    DEFAULTS.mom.pct,
    DEFAULTS.mom.k,
    `a calendar month's total against the previous month (${MONTH_PREDICTION})`,
    PERIOD_RESIDUALS,
  ),
  qoq: periodChange(
    DEFAULTS.qoq.pct,
    DEFAULTS.qoq.k,
    `a calendar quarter's total against the previous quarter (${MONTH_PREDICTION})`,
    PERIOD_RESIDUALS,
  ),
  mpy: periodChange(
    DEFAULTS.mpy.pct,
    DEFAULTS.mpy.k,
    `a calendar month's total against the same month one year earlier (${MONTH_PREDICTION})`,
    PERIOD_RESIDUALS,
  ),
  cw: periodChange(
    DEFAULTS.cw.pct,
    DEFAULTS.cw.k,
    "a calendar week's (Monday-Sunday) total against each weekday's mean over the four weeks before it",
    PERIOD_RESIDUALS,
  ),
  gap: {
    longerThan: {
      kind: 'integer',
      default: 0,
      min: 0,
      description: 'Report runs of days without source data longer than this many days (0: any missing day).',
    },
    shorterThan: {
      kind: 'integer',
      above: 0,
      description: 'Only report runs shorter than this many days (unset: no upper bound).',
    },
    ...COMMON_SPECS,
  },
  spike: {
    threshold: {
      kind: 'number',
      default: 4,
      above: 0,
      description:
        "Robust z-score a day must exceed: its difference from the same weekday's mean over the window, divided by the noise scale (mean of the smallest 75 % of the window's absolute residuals, scaled to a standard deviation; at least 1 % of the level).",
    },
    minChangePct: {
      kind: 'number',
      default: 10,
      min: 0,
      description:
        'The difference must also be at least this % of the expected value, so very smooth series do not report small wiggles.',
    },
    window: {
      kind: 'integer',
      default: 28,
      min: 3,
      max: 3660,
      description:
        "Days of history (rounded to whole weeks) for the same weekday's mean and the noise scale.",
    },
    ...COMMON_SPECS,
  },
  changepoint: {
    minSegment: {
      kind: 'integer',
      default: 14,
      min: 2,
      max: 3660,
      description:
        'Days compared on each side of a candidate change point (rounded to whole weeks, at least 14); the anomaly starts at the change point and lasts while the new level holds (at least this many days).',
    },
    threshold: {
      kind: 'number',
      default: 5,
      above: 0,
      description:
        'Standard errors by which the mean after a day must differ from the mean before it (weekday profile divided out; noise from week-over-week differences inside the segments).',
    },
    minChangePct: {
      kind: 'number',
      default: 20,
      min: 0,
      description: 'The shift must also be at least this % of the mean before the change point.',
    },
    ...COMMON_SPECS,
  },
  dt: {
    sensitivity: {
      kind: 'number',
      default: 3,
      above: 0,
      description:
        "Tukey-fence multiple: a day is flagged when its relative residual (actual / same weekday's mean - 1) lies outside [Q1 - k·IQR, Q3 + k·IQR] of the window's relative residuals (1.5 mild, 3 far out).",
    },
    window: {
      kind: 'integer',
      default: 56,
      min: 7,
      max: 3660,
      description: "Days of history (rounded to whole weeks) for the same weekday's mean and the band.",
    },
    ...COMMON_SPECS,
  },
  peer: {
    percentualChange: {
      kind: 'number',
      default: DEFAULTS.peer.pct,
      above: 0,
      description:
        "Minimum change in % of the expected value: the series' same-weekday mean over the window moved by its peers' median change (peers: same parent).",
    },
    threshold: noiseThreshold(DEFAULTS.peer.k, DAY_RESIDUALS),
    window: lookBack("the series' same-weekday mean and the peers' median change"),
    ...COMMON_SPECS,
  },
  mix: {
    percentualChange: {
      kind: 'number',
      default: DEFAULTS.mix.pct,
      above: 0,
      description:
        "Minimum change in % of the expected value: today's parent value times the series' share of its parent on the same weekday over the window.",
    },
    threshold: noiseThreshold(DEFAULTS.mix.k, DAY_RESIDUALS),
    window: lookBack("the series' share of its parent"),
    ...COMMON_SPECS,
  },
  cardinality: {
    percentualChange: {
      kind: 'number',
      default: DEFAULTS.cardinality.pct,
      min: 0,
      description:
        "Minimum change in % of the expected number of children with a non-zero value (the same weekday's mean count over the window); the change must also reach minChange.",
    },
    minChange: {
      kind: 'number',
      default: 1,
      min: 0,
      description: 'Minimum absolute change of that count (1: one child appearing or disappearing).',
    },
    threshold: noiseThreshold(DEFAULTS.cardinality.k, DAY_RESIDUALS),
    window: lookBack('the expected count'),
    ...COMMON_SPECS,
  },
} satisfies Record<string, Specs>;

type SpecTable = typeof PARAM_SPECS;

/**
 * Params a data view definition names differently: the look-back of the detectors that read a
 * baseline table is `baselineDays` there (the documented, stored name), `window` in the engine.
 */
export const DEFINITION_NAMES: { readonly [T in keyof SpecTable]?: Readonly<Record<string, string>> } = {
  peer: { window: 'baselineDays' },
  mix: { window: 'baselineDays' },
  cardinality: { window: 'baselineDays' },
};

/** Params under their engine names; an engine name given as well wins over its definition name. */
export function engineParamNames(type: string, params: Record<string, unknown>): Record<string, unknown> {
  const names = DEFINITION_NAMES[type as keyof SpecTable];
  if (names === undefined) return params;
  const out: Record<string, unknown> = { ...params };
  for (const [engine, definition] of Object.entries(names)) {
    if (!(definition in out)) continue;
    if (out[engine] === undefined || out[engine] === null) out[engine] = out[definition];
    delete out[definition];
  }
  return out;
}

/** The specs of `type` keyed by the definition's names, in table order. */
export function definitionSpecs(type: keyof SpecTable): Specs {
  const names = DEFINITION_NAMES[type] ?? {};
  const out: Specs = {};
  for (const [key, spec] of Object.entries(PARAM_SPECS[type] as Specs)) out[names[key] ?? key] = spec;
  return out;
}

/** The defaults of a spec table (params without a default stay unset). */
export function defaultsOf(specs: Specs): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) if (spec.default !== undefined) out[key] = spec.default;
  return out;
}

/** Checks one value against its spec; returns the normalised value or an error message. */
export function checkParam(spec: ParamSpec, value: unknown): { value?: unknown; error?: string } {
  if (spec.kind === 'boolean') {
    return typeof value === 'boolean' ? { value } : { error: 'must be true or false' };
  }
  if (spec.kind === 'mode') {
    const mode = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
    return mode && (MODES as readonly string[]).includes(mode)
      ? { value: mode }
      : { error: `must be one of: ${MODES.join(', ')}` };
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return { error: 'must be a finite number' };
  if (spec.kind === 'integer' && !Number.isInteger(value)) return { error: 'must be a whole number' };
  if (spec.above !== undefined && !(value > spec.above))
    return { error: `must be greater than ${spec.above}` };
  if (spec.min !== undefined && value < spec.min) return { error: `must be at least ${spec.min}` };
  if (spec.max !== undefined && value > spec.max) return { error: `must be at most ${spec.max}` };
  return { value };
}
