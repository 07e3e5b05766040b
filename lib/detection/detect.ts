/**
 * The engine's entry points: run every configured detector over one series (detectSeries) or over
 * a shard of series stored as one flat columnar block (detectShard).
 */
import { alignCalendar, NO_DATA, type SpecialCalendar } from '../calendar/special-calendar';
import { ValidationError } from '../shared/errors';
import { AnomalyColumns, type AnomalyOut } from './anomaly-columns';
import { assembleAnomalies } from './assemble';
import type { DetectorImpl, RunInput } from './detector';
import { materialLevel, ratioMinEvents } from './materiality';
import { runInterval } from './detectors/interval';
import { type AnyDetectorParams, type DetectorType, resolveParams, type SpikeParams } from './params';
import { getDetector } from './registry';
import type { AnomalyDraft, DetectionContext, DetectorConfig, SeriesId, SeriesInput, Skip } from './types';
import { Workspace } from './workspace';

export interface ResolvedDetector {
  type: DetectorType;
  impl: DetectorImpl;
  params: AnyDetectorParams;
}

/** Detector configs with defaults applied; throws ValidationError on an unknown type or bad param. */
export function resolveDetectors(
  configs: readonly (DetectorConfig | ResolvedDetector)[],
): ResolvedDetector[] {
  return configs.map((config, i) => {
    if ('impl' in config) return config;
    const impl = getDetector(config.type);
    if (!impl) throw ValidationError.field(`detectors[${i}].type`, `unknown detector type '${config.type}'`);
    const params = resolveParams(
      config.type,
      (config.params ?? {}) as Record<string, unknown>,
      `detectors[${i}].params`,
    );
    return { type: config.type, impl, params };
  });
}

/** Where analysis starts and ends for a series, and the facts the skip rules need. */
export interface SeriesWindow {
  start: number;
  scanFrom: number;
  end: number;
  missingDays: number;
  presentDays: number;
  presentSum: number;
  /**
   * First analysed day without source data whose filled value is no evidence: end when there is
   * none or when the series is sparse (more than 5 % of its days without data: those are zeros).
   */
  firstMissing: number;
}

/** Above this share of analysed days without source data a series is sparse (see firstMissing). */
const SPARSE_MISSING_SHARE = 0.05;

/** Computes the analysed range: first day with data .. n - ignoreLastNDays, scanned tail. */
export function seriesWindow(input: SeriesInput, ctx: DetectionContext): SeriesWindow {
  const n = input.values.length;
  const end = Math.max(0, n - Math.max(0, ctx.ignoreLastNDays ?? 0));
  const present = input.present;
  let start = 0;
  if (present !== undefined) {
    while (start < end && present[start] === 0) start++;
  }
  const scan = Math.max(0, ctx.scanInLastNDays ?? 0);
  const scanFrom = scan > 0 ? Math.max(start, end - scan) : start;
  let missingDays = 0;
  let presentDays = 0;
  let presentSum = 0;
  const x = input.values;
  let firstMissing = end;
  let missingBefore = 0;
  if (present !== undefined) {
    for (let t = start; t < scanFrom; t++)
      if (present[t] === 0) {
        if (firstMissing === end) firstMissing = t;
        missingBefore++;
      }
  }
  for (let t = scanFrom; t < end; t++) {
    if (present !== undefined && present[t] === 0) {
      missingDays++;
      if (firstMissing === end) firstMissing = t;
    } else {
      presentDays++;
      presentSum += x[t];
    }
  }
  const analysed = end - start;
  // Days without data are missing data only in a series that has data on nearly every day; in a
  // sparse one (a leaf without bookings on many days) they are zeros, and evidence.
  // A ratio has no value on a day without events: such a day is never a zero.
  const sparse =
    input.measureKind !== 'ratio' &&
    analysed > 0 &&
    missingBefore + missingDays > SPARSE_MISSING_SHARE * analysed;
  return {
    start,
    scanFrom,
    end,
    missingDays,
    presentDays,
    presentSum,
    firstMissing: sparse ? end : firstMissing,
  };
}

/**
 * Detectors that judge a ratio: gap (its presence is the value's), mix (a ratio is no share of its
 * parent's), cardinality (it counts children with a value) and peer do not. Peer's expectation of an
 * average per event is its own four weeks' mean moved by the median change of its peers' averages, two
 * noisy estimates of which the second moves with every peer's mix: on generated cubes without a single
 * change of price, one-day Peer records of a ratio were most of the rows that no event explained at the
 * top of the incident list (docs/detection-quality.md, "The cube family"). A series' own price change is
 * judged by the others.
 */
/**
 * The detectors that judge an interval measure (an arbitrary zero: docs/detectors.md, "Interval measures"):
 * spike, as a robust z-score in the series' noise units (detectors/interval.ts), and gap. The others'
 * tests are percentages, which mean nothing on such a scale.
 */
export const INTERVAL_TYPES: ReadonlySet<DetectorType> = new Set(['spike', 'gap']);

export const RATIO_TYPES: ReadonlySet<DetectorType> = new Set([
  'dod',
  'wow',
  'mom',
  'qoq',
  'mpy',
  'cw',
  'spike',
  'changepoint',
  'dt',
]);

/** The mean of a ratio's weights (events a day) over the days with data in [from, to); 0 without weights. */
function meanWeight(input: SeriesInput, from: number, to: number): number {
  const weights = input.weights;
  if (weights === undefined) return 0;
  const present = input.present;
  let sum = 0;
  let days = 0;
  for (let t = from; t < to; t++) {
    if (present !== undefined && present[t] === 0) continue;
    sum += weights[t];
    days++;
  }
  return days > 0 ? sum / days : 0;
}

/** Why a detector will not run on this series, or null when it will. */
export function skipReason(input: SeriesInput, d: ResolvedDetector, w: SeriesWindow): Skip | null {
  const req = d.impl.requires;
  if (req !== undefined && input[req] === undefined) {
    return { reason: 'missing-input', message: `${d.type} needs ${req}` };
  }
  if (w.start >= w.end || w.presentDays === 0)
    return { reason: 'no-data', message: 'no source data in the analysed days' };
  const p = d.params;
  const scanned = w.end - w.scanFrom;
  if (d.type !== 'gap' && scanned > 0 && (w.missingDays / scanned) * 100 > p.maxMissingPct) {
    const pct = ((w.missingDays / scanned) * 100).toFixed(1);
    return {
      reason: 'gap-amount',
      message: `${pct}% of the scanned days have no data (limit ${p.maxMissingPct}%)`,
    };
  }
  if (input.measureKind === 'interval' && !INTERVAL_TYPES.has(d.type))
    return {
      reason: 'not-for-measure',
      message: `${d.type} judges in percent; an interval measure is judged by spike, in its noise units`,
    };
  if (input.measureKind === 'ratio') {
    if (!RATIO_TYPES.has(d.type))
      return { reason: 'not-for-measure', message: `${d.type} does not judge a ratio of two measures` };
    const events = meanWeight(input, w.scanFrom, w.end);
    const need = ratioMinEvents(p.minVolume);
    if (events < need)
      return {
        reason: 'few-events',
        message: `${events.toFixed(1)} events a day on average behind the ratio, fewer than ${need}`,
      };
  }
  const avg = w.presentSum / w.presentDays;
  if (p.minValue !== undefined && avg < p.minValue) {
    return { reason: 'average-below-min', message: `average ${avg} is below minValue ${p.minValue}` };
  }
  if (p.maxValue !== undefined && avg > p.maxValue) {
    return { reason: 'average-above-max', message: `average ${avg} is above maxValue ${p.maxValue}` };
  }
  const need = (d.impl.minHistory as (p: AnyDetectorParams) => number)(p);
  if (w.end - w.start < need) {
    return { reason: 'too-short', message: `${w.end - w.start} days of data, ${need} needed` };
  }
  return null;
}

/**
 * Days without source data are no evidence: every detector but gap sees them as NO_DATA days
 * (out of baselines and comparisons, never flagged). Returns the detector's calendar flags with
 * those days marked (in ws.mask), or the calendar flags as they are when every day has data.
 */
function maskNoData(
  input: SeriesInput,
  w: SeriesWindow,
  calendar: Uint8Array | null,
  ws: Workspace,
): Uint8Array {
  // The same series and calendar as the detector before (detectors run one series at a time).
  if (ws.maskFor === input.values && ws.maskCalendar === calendar && ws.maskEnd === w.end) return ws.mask;
  const present = input.present as Uint8Array;
  const m = ws.mask;
  if (calendar !== null) m.set(calendar.subarray(0, w.end));
  else m.fill(0, 0, w.end);
  for (let t = w.firstMissing; t < w.end; t++) if (present[t] === 0) m[t] |= NO_DATA;
  ws.maskFor = input.values;
  ws.maskCalendar = calendar;
  ws.maskEnd = w.end;
  return m;
}

/**
 * The series with each day without source data replaced by the same weekday's value a week before
 * (already replaced when that one was missing too), or the next known one after it near the start;
 * computed once per series (ws.imputed) for the window detectors.
 */
function imputeNoData(input: SeriesInput, w: SeriesWindow, ws: Workspace): Float64Array {
  if (ws.imputedFor === input.values && ws.imputedStart === w.start && ws.imputedEnd === w.end)
    return ws.imputed;
  const x = input.values;
  const present = input.present as Uint8Array;
  const y = ws.imputed;
  y.set(x.subarray(0, w.end));
  for (let t = w.firstMissing; t < w.end; t++) {
    if (present[t] !== 0) continue;
    if (t - 7 >= w.start) {
      y[t] = y[t - 7];
      continue;
    }
    let u = t + 7;
    while (u < w.end && present[u] === 0) u += 7;
    y[t] = u < w.end ? x[u] : 0;
  }
  ws.imputedFor = input.values;
  ws.imputedStart = w.start;
  ws.imputedEnd = w.end;
  return y;
}

/**
 * The series' day-level noise (RunInput.daySigma): mean absolute difference between days a week
 * apart that both had data (each clipped at 2.5 × the plain mean), × 1.2533 / √2; once per series
 * (cached in the workspace).
 */
function daySigma(input: SeriesInput, w: SeriesWindow, ws: Workspace): number {
  if (ws.sigmaFor === input.values && ws.sigmaStart === w.start && ws.sigmaEnd === w.end) return ws.sigma;
  ws.sigmaMean = 0;
  const x = input.values;
  const present = input.present;
  let sum = 0;
  let count = 0;
  for (let t = w.start + 7; t < w.end; t++) {
    if (present !== undefined && (present[t] === 0 || present[t - 7] === 0)) continue;
    sum += Math.abs(x[t] - x[t - 7]);
    count++;
  }
  // A second pass clips each difference at 2.5 × the mean, so that bursts and shifts do not pass
  // for noise (about 3 % below the plain mean for normal noise).
  const cap = count > 0 ? (2.5 * sum) / count : 0;
  let clipped = 0;
  for (let t = w.start + 7; t < w.end; t++) {
    if (present !== undefined && (present[t] === 0 || present[t - 7] === 0)) continue;
    const d = Math.abs(x[t] - x[t - 7]);
    clipped += d < cap ? d : cap;
  }
  const sigma = count > 0 ? ((clipped / count) * 1.2533) / Math.SQRT2 : 0;
  let level = 0;
  let days = 0;
  for (let t = w.start; t < w.end; t++) {
    if (present !== undefined && present[t] === 0) continue;
    level += x[t];
    days++;
  }
  ws.sigmaMean = days > 0 ? level / days : 0;
  ws.sigmaFor = input.values;
  ws.sigmaStart = w.start;
  ws.sigmaEnd = w.end;
  ws.sigma = sigma;
  return sigma;
}

/**
 * Runs one detector and appends its anomalies; returns the skip reason when it did not run.
 * After a run, ws.expected and ws.flags hold the per-day result (used by the preview).
 */
export function runDetector(
  input: SeriesInput,
  d: ResolvedDetector,
  ctx: DetectionContext,
  w: SeriesWindow,
  calendarFlags: Uint8Array | null,
  ws: Workspace,
  out: AnomalyOut,
): Skip | null {
  const skip = skipReason(input, d, w);
  if (skip !== null) return skip;
  ws.ensure(input.values.length);
  const calendar = d.params.useSpecialDates ? calendarFlags : null;
  const missing = d.type !== 'gap' && input.present !== undefined && w.firstMissing < w.end;
  // Window detectors read days without data as the same weekday's nearest known value (they stay
  // on their fast paths and a missing day moves no total); day detectors see them as NO_DATA.
  const windowed = missing && d.impl.aggregate;
  const special = missing && !windowed ? maskNoData(input, w, calendar, ws) : calendar;
  const runInput: RunInput = {
    x: windowed ? imputeNoData(input, w, ws) : input.values,
    present: input.present,
    special,
    start: w.start,
    end: w.end,
    dayIndex0: input.dayIndex0,
    parent: input.parentValues,
    peer: input.peerChange,
    cardinality: input.cardinality,
    daySigma: d.type === 'gap' ? 0 : daySigma(input, w, ws),
    dayMean: ws.sigmaMean,
    unit: poissonUnit(input),
    material: materialLevel(input.measureKind ?? 'events', d.params.minVolume, unitOf(input), () =>
      totalLevel(input, w, ws),
    ),
    weights: input.measureKind === 'ratio' ? input.weights : undefined,
    weightRef: input.measureKind === 'ratio' ? meanWeight(input, w.start, w.end) : 0,
    fiscal: ctx.fiscal,
  };
  ws.flagged = true;
  const interval = input.measureKind === 'interval' && d.type === 'spike';
  const actual = interval
    ? runInterval(runInput, d.params as SpikeParams, ws)
    : (d.impl.run as (i: RunInput, p: AnyDetectorParams, ws: Workspace) => Float64Array)(
        runInput,
        d.params,
        ws,
      );
  if (!ws.flagged) return null;
  const before = out.length;
  assembleAnomalies(
    {
      seriesId: input.seriesId,
      code: d.impl.code,
      aggregate: d.impl.aggregate,
      params: d.params,
      dayIndex0: input.dayIndex0,
      values: input.values,
      actual,
      expected: ws.expected,
      flags: ws.flags,
      flagWords: ws.flagWords,
      special,
      total: input.totalValues,
      shareOf: input.shareOf,
      weights: runInput.weights,
      start: w.start,
      scanFrom: w.scanFrom,
      end: w.end,
      recurrenceBase: ctx.history?.(input.seriesId, d.impl.code) ?? 0,
      material: runInput.material,
    },
    out,
  );
  // An interval measure's change is in its units, never a percent (an arbitrary zero).
  if (input.measureKind === 'interval') {
    if (Array.isArray(out)) for (let i = before; i < out.length; i++) out[i].changePct = null;
    else out.noPercent = true;
  }
  return null;
}

/** The series' value per event (1: the values are events). */
export function unitOf(input: SeriesInput): number {
  const v = input.valuePerEvent;
  return v !== undefined && v > 0 && Number.isFinite(v) ? v : 1;
}

/** RunInput.unit: the value per event of counts, 0 (no Poisson floor) for anything else. */
function poissonUnit(input: SeriesInput): number {
  return (input.measureKind ?? 'events') === 'events' ? unitOf(input) : 0;
}

/**
 * The view total's mean daily value over the series' analysed days with data (the series' own without
 * totalValues): what an amount's default materiality is a share of. Once per series (cached).
 */
function totalLevel(input: SeriesInput, w: SeriesWindow, ws: Workspace): number {
  if (ws.levelFor === input.values && ws.levelStart === w.start && ws.levelEnd === w.end) return ws.level;
  const total = input.totalValues ?? input.values;
  const present = input.totalValues === undefined ? input.present : undefined;
  let sum = 0;
  let days = 0;
  for (let t = w.start; t < w.end; t++) {
    if (present !== undefined && present[t] === 0) continue;
    const v = total[t];
    if (Number.isNaN(v)) continue;
    sum += v;
    days++;
  }
  ws.level = days > 0 ? Math.abs(sum / days) : 0;
  ws.levelFor = input.values;
  ws.levelStart = w.start;
  ws.levelEnd = w.end;
  return ws.level;
}

const sharedWorkspace = new Workspace();

/** All anomalies of one series under the given detectors (skipped detectors report nothing). */
export function detectSeries(
  input: SeriesInput,
  detectors: readonly (DetectorConfig | ResolvedDetector)[],
  ctx: DetectionContext = {},
  ws: Workspace = sharedWorkspace,
): AnomalyDraft[] {
  const resolved = resolveDetectors(detectors);
  const out: AnomalyDraft[] = [];
  const w = seriesWindow(input, ctx);
  const own = ctx.seriesCalendar?.(input.seriesId) ?? ctx.calendar;
  const calendar =
    own && resolved.some((d) => d.params.useSpecialDates)
      ? alignCalendar(own, input.dayIndex0, input.values.length)
      : null;
  ws.imputedFor = null;
  ws.sigmaFor = null;
  ws.maskFor = null;
  ws.levelFor = null;
  for (const d of resolved) runDetector(input, d, ctx, w, calendar, ws, out);
  return out;
}

/**
 * A shard: S series of the same days stored row-major in flat arrays (row s = days
 * [s * days, (s + 1) * days)), as the worker reads them from the data table.
 */
export interface ShardInput {
  dayIndex0: number;
  days: number;
  seriesIds: ArrayLike<SeriesId>;
  values: Float64Array;
  present?: Uint8Array;
  /** Total of the data view per day (length `days`, shared by all rows). */
  totalValues?: Float64Array;
  parentValues?: Float64Array;
  peerChange?: Float64Array;
  cardinality?: Float64Array;
}

/** All anomalies of a shard, as columns; rows are zero-copy views, the workspace is reused across rows. */
export function detectShard(
  shard: ShardInput,
  detectors: readonly (DetectorConfig | ResolvedDetector)[],
  ctx: DetectionContext = {},
  ws: Workspace = sharedWorkspace,
): AnomalyColumns {
  const resolved = resolveDetectors(detectors);
  const out = new AnomalyColumns();
  const n = shard.days;
  const uses = resolved.some((d) => d.params.useSpecialDates);
  const viewFlags = ctx.calendar && uses ? alignCalendar(ctx.calendar, shard.dayIndex0, n) : null;
  const aligned = new Map<SpecialCalendar, Uint8Array>();
  const flagsOf = (id: SeriesId): Uint8Array | null => {
    const own = uses ? ctx.seriesCalendar?.(id) : undefined;
    if (own === undefined) return viewFlags;
    let f = aligned.get(own);
    if (!f) aligned.set(own, (f = alignCalendar(own, shard.dayIndex0, n)));
    return f;
  };
  ws.ensure(n);
  const rows = shard.seriesIds.length;
  const row = (a: Float64Array | undefined, s: number) =>
    a === undefined ? undefined : a.subarray(s * n, s * n + n);
  for (let s = 0; s < rows; s++) {
    const input: SeriesInput = {
      seriesId: shard.seriesIds[s],
      dayIndex0: shard.dayIndex0,
      values: shard.values.subarray(s * n, s * n + n),
      present: shard.present?.subarray(s * n, s * n + n),
      totalValues: shard.totalValues,
      parentValues: row(shard.parentValues, s),
      peerChange: row(shard.peerChange, s),
      cardinality: row(shard.cardinality, s),
    };
    const w = seriesWindow(input, ctx);
    ws.imputedFor = null;
    ws.sigmaFor = null;
    ws.maskFor = null;
    ws.levelFor = null;
    const calendar = flagsOf(input.seriesId);
    for (const d of resolved) runDetector(input, d, ctx, w, calendar, ws, out);
  }
  return out;
}

export type { SeriesId };
