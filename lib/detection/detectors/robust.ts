/**
 * Spike and DT: a day against the mean of the same weekday over the last weeks, judged by a
 * robust measure of the recent noise. Spike: additive residual over a robust noise scale (a
 * z-score), and at least minChangePct away from the expected value. DT: relative residual outside Tukey fences of the recent relative residuals,
 * a band that follows the weekly profile because it scales with the weekday's level.
 */
import type { DetectorImpl, RunInput } from '../detector';
import {
  cleanValue,
  cleanWarmup,
  clearFlags,
  DayNoise,
  logRatio,
  RunTracker,
  relevel,
  relevelWeekday,
  ShiftMemory,
  sameWeekdayMean,
} from '../kernels';
import { QuartileWindow } from '../quartile-window';
import type { SortedWindow } from '../sorted-window';
import type { DtParams, SpikeParams } from '../params';
import type { Workspace } from '../workspace';
import { leastSurprise, YEAR_DAYS, YearAdjustments, yearFactor } from '../year-before';

/** Noise below this share of the level is treated as this share, so flat series stay sane. */
const MIN_RELATIVE_SCALE = 0.01;
/**
 * The noise scale is the mean of the smallest 75 % of the recent absolute residuals: as robust to a
 * few outliers as the median, steadier over a short window. For normal noise that mean is 0.5147 σ.
 */
const TRIM = 0.75;
const TRIMMED_MEAN_TO_SIGMA = 1 / 0.5147;
const tracker = new RunTracker();
const shifts = new ShiftMemory();
/**
 * The tail of the series' own residuals (see DayNoise): a day must also lie beyond the deviations
 * the series shows on its usual bursty days, so a series with frequent bursts does not report each.
 */
const tailNoise = new DayNoise();
/** DT's tail test in robust standard deviations at the default sensitivity 3 (it scales with it). */
const DT_TAIL_K = 3.5 / 3;
const quartiles = new QuartileWindow(64);
const years = new YearAdjustments();

const WARMUP_THRESHOLD = 3.5;
/**
 * Two days in a row: a day that misses the noise test but lies beyond threshold / sqrt(2) scales,
 * after a day that did the same in the same direction, makes both an anomaly (their mean z-score
 * times sqrt(2) passes the threshold). A short drop of two or three days on a small series is as
 * strong evidence as one day twice as far out; one such day alone is still noise.
 */
const PAIR_FACTOR = Math.SQRT1_2;
/** DT: the business threshold it does not have, for the least move a previous year must show (year-before.ts leastSurprise). */
const DT_LEAST_SURPRISE = 0.2;
/** DT: a count must differ from its expectation by this many sqrt(expected) (Poisson noise). */
const POISSON_K = 3;
const WARMUP_MIN_REL = 0.2;

/**
 * Ends the warm-up: outliers of the first weeks are cleaned, then the noise window is filled with
 * the residuals of the warm-up days' second half against the cleaned same-weekday means.
 */
function warmUp(
  c: Float64Array,
  x: Float64Array,
  start: number,
  stop: number,
  threshold: number,
  minRel: number,
  special: Uint8Array | null,
  win: { push(value: number): void },
  relative: boolean,
  weights?: Float64Array,
  weightRef = 0,
): void {
  cleanWarmup(c, x, start, stop, threshold, minRel, special);
  for (let u = start + 7; u < stop; u++) {
    if (special !== null && special[u] !== 0) continue;
    const exp = sameWeekdayMean(c, u, 4, start);
    if (Number.isNaN(exp)) continue;
    // A ratio's residuals are weighed by their events, as the detector's loop weighs them.
    const wf = weights === undefined ? 1 : ratioWeight(weights, weightRef, u);
    if (relative) {
      if (exp > 0) win.push((c[u] / exp - 1) * wf);
    } else win.push(Math.abs(c[u] - exp) * wf);
  }
}

/**
 * sameWeekdayMean for a day whose whole span lies at or after the series start: the same sum in
 * the same order. NaN marks a cleaned value left out; it is rare, so the values are summed without
 * a test first (four weeks a step) and only a NaN sum, which any NaN value gives, takes the
 * careful loop.
 */
function recentMean(c: Float64Array, t: number, span: number): number {
  const stop = t - span;
  let sum = 0;
  let u = t - 7;
  for (; u - 21 >= stop; u -= 28) sum = sum + c[u] + c[u - 7] + c[u - 14] + c[u - 21];
  for (; u >= stop; u -= 7) sum += c[u];
  if (!Number.isNaN(sum)) return sum / (span / 7);
  return meanSkippingNaN(c, t, span);
}

/** Days of the recent level that the expectation is scaled to (see levelledMean). */
const RECENT = 7;

/**
 * The expectation of spike and DT: the same weekday's mean over the window (recentMean), scaled by
 * the mean of the last week against the mean of the whole window (cleaned values, special days
 * left out). A same-weekday mean of four weeks lags a trend or a season by about two and a half
 * weeks; on a large aggregate, whose noise is small, that lag alone read as a spike (a district's
 * Friday 26 % below its last four Fridays while the season had fallen 7 % and its noise is 3 %).
 * Falls back to the plain mean without a full window or enough days of the last week.
 */
function levelledMean(c: Float64Array, t: number, span: number, start: number): number {
  const base = recentMean(c, t, span);
  if (t - span < start) return base;
  level.at(c, t, span);
  if (level.n7 < RECENT * 0.7 || level.nw < span / 2 || level.sw <= 0) return base;
  return base * (level.s7 / level.n7 / (level.sw / level.nw));
}

/**
 * Sums of the cleaned values over the window and its last week before day t, kept by adding the
 * newest day and dropping the oldest; recounted when the day is not the next one or the cleaned
 * values before t were rewritten (a change accepted as the new level, a weekday re-levelled).
 */
class WindowLevel {
  sw = 0;
  nw = 0;
  s7 = 0;
  n7 = 0;
  private t = -1;

  invalidate(): void {
    this.t = -1;
  }

  at(c: Float64Array, t: number, span: number): void {
    if (this.t >= 0 && this.t === t - 1) {
      const v = c[t - 1];
      if (!Number.isNaN(v)) {
        this.sw += v;
        this.nw++;
        this.s7 += v;
        this.n7++;
      }
      const old = c[t - 1 - span];
      if (!Number.isNaN(old)) {
        this.sw -= old;
        this.nw--;
      }
      const week = c[t - 1 - RECENT];
      if (!Number.isNaN(week)) {
        this.s7 -= week;
        this.n7--;
      }
    } else {
      this.sw = 0;
      this.nw = 0;
      this.s7 = 0;
      this.n7 = 0;
      for (let u = t - span; u < t; u++) {
        const v = c[u];
        if (Number.isNaN(v)) continue;
        this.sw += v;
        this.nw++;
        if (u >= t - RECENT) {
          this.s7 += v;
          this.n7++;
        }
      }
    }
    this.t = t;
  }
}

const level = new WindowLevel();

function meanSkippingNaN(c: Float64Array, t: number, span: number): number {
  let sum = 0;
  let count = 0;
  for (let u = t - 7, stop = t - span; u >= stop; u -= 7) {
    const v = c[u];
    if (!Number.isNaN(v)) {
      sum += v;
      count++;
    }
  }
  return count === 0 ? Number.NaN : sum / count;
}

/**
 * The warm-up days [start, start + span): no expectation and no flag; cleaned values are the
 * actual ones (NaN on special days). Returns where the judged days begin: every later day gets its
 * expected value and flag in the detector's loop.
 */
function openWarmup(input: RunInput, span: number, ws: Workspace): number {
  const { x, special, start, end } = input;
  const c = ws.clean;
  const warmEnd = Math.min(end, start + span);
  ws.expected.fill(Number.NaN, 0, warmEnd);
  ws.flags.fill(0, 0, warmEnd);
  for (let t = start; t < warmEnd; t++) c[t] = special !== null && special[t] !== 0 ? Number.NaN : x[t];
  return warmEnd;
}

function weeksOf(window: number): number {
  return Math.max(1, Math.round(window / 7));
}

/**
 * The z-score of residual r against the noise scale of the window's absolute residuals (0 when
 * it cannot reach `low`). The scale's trimmed mean needs a sorted window, but it is at most the plain
 * mean, so a residual beyond `high` even at the scale that mean gives (less a margin for rounding)
 * gets that lower bound without sorting: that settles most of the big changes that reach this test.
 */
function spikeZ(r: number, exp: number, win: SortedWindow, low: number, high: number, unit: number): number {
  // At least 1 % of the level and the Poisson noise of its events: sqrt(expected events) × unit, for
  // the day and for the expectation, itself a mean of a few weeks' events (see expectationVariance).
  const floor = Math.max(MIN_RELATIVE_SCALE * Math.abs(exp), Math.sqrt(Math.abs(exp) * unit * poissonSpread));
  // Within the floor's band no scale can make it a candidate: no need to look at the window.
  if (Math.abs(r) <= low * floor) return 0;
  const most = Math.max(TRIMMED_MEAN_TO_SIGMA * win.mean() * (1 + 1e-9), floor, 1e-9);
  // Beyond `high` even at the largest scale: that lower bound of the z-score is enough.
  if (Math.abs(r) > high * most * (1 + 1e-9)) return r / most;
  let scale = TRIMMED_MEAN_TO_SIGMA * win.lowerMean(TRIM);
  if (scale < floor) scale = floor;
  if (scale < 1e-9) scale = 1e-9;
  return r / scale;
}

/**
 * The Poisson variance of a day's residual against its expectation, in units of the day's own: 1 for
 * the day, plus that of the levelled same-weekday mean (levelledMean): the mean of `weeks` same
 * weekdays (1 / weeks) scaled by the last week's level against the window's (about 1/7 - 1/span).
 * On a large aggregate, whose noise is all Poisson, leaving it out made a lucky month's expectation
 * read as a spike (a district's Saturday 22 % below an expectation 9 % too high).
 */
function expectationVariance(weeks: number): number {
  return 1 + 1 / weeks + 1 / RECENT - 1 / (weeks * 7);
}

/** expectationVariance of the running detector (set per run; spikeZ reads it). */
let poissonSpread = 1;

/**
 * The factor by which a ratio's residual on day t is weighed before it is judged or joins the noise
 * window: the inverse of its standard deviation in units of a day's at the mean events w_ref. The day
 * is an average of w_t events (variance w_ref / w_t) and its expectation a levelled mean of a few weeks'
 * days (expectationVariance − 1, about 0.36 with four weeks), so
 *
 *   factor = sqrt(expectationVariance / (w_ref / w_t + expectationVariance − 1))
 *
 * (1 at the mean events; a day of few bookings is a noisy average, one of many is not judged as if its
 * expectation were exact).
 */
function ratioWeight(weights: Float64Array, weightRef: number, t: number): number {
  const w = weights[t];
  return w > 0 && weightRef > 0 ? Math.sqrt(poissonSpread / (weightRef / w + poissonSpread - 1)) : 0;
}

/**
 * Whether a spike still stands against an expectation that includes the same time of the previous
 * years (year-before.ts): its z-score scaled to the change left, the business threshold and the tail
 * test again. Either way the day's expectation includes the years before from now on (reported against
 * it when it stands; a chart shows it).
 */
function spikeBeyondYears(
  input: RunInput,
  e: Float64Array,
  t: number,
  exp: number,
  z: number,
  minRel: number,
  threshold: number,
): boolean {
  const xt = input.x[t];
  const r0 = logRatio(xt, exp);
  const s = yearFactor(input.x, e, input.special, input.start, input.dayIndex0, t, r0, leastSurprise(minRel));
  if (s === 0) return true;
  const expected = exp * Math.exp(s);
  const r = xt - expected;
  const left = Math.abs(z * (r / (xt - exp)));
  // The day's expectation includes the years before, reported or not (a chart shows it so).
  years.add(t, s);
  return (
    left > threshold &&
    Math.abs(r) >= minRel * Math.abs(expected) &&
    tailNoise.unusual(r, expected, threshold, t)
  );
}

/** DT's counterpart of spikeBeyondYears: the fences, the count test and the tail test against the adjusted expectation. */
function dtBeyondYears(
  input: RunInput,
  e: Float64Array,
  t: number,
  exp: number,
  sensitivity: number,
): boolean {
  const xt = input.x[t];
  const r0 = logRatio(xt, exp);
  // DT has no business threshold of its own: a year shows a move of at least DT_LEAST_SURPRISE.
  const s = yearFactor(
    input.x,
    e,
    input.special,
    input.start,
    input.dayIndex0,
    t,
    r0,
    leastSurprise(DT_LEAST_SURPRISE),
  );
  if (s === 0) return true;
  const expected = exp * Math.exp(s);
  years.add(t, s);
  return (
    quartiles.flag(
      (xt / expected - 1) *
        (input.weights === undefined ? 1 : ratioWeight(input.weights, input.weightRef, t)),
    ) !== 0 &&
    Math.abs(xt - expected) >= POISSON_K * Math.sqrt(expected * input.unit) &&
    tailNoise.unusual(xt - expected, expected, DT_TAIL_K * sensitivity, t)
  );
}

function runSpike(input: RunInput, p: SpikeParams, ws: Workspace): Float64Array {
  const { x, special, start, end, weights, weightRef } = input;
  const e = ws.expected;
  const f = ws.flags;
  const c = ws.clean;
  const weeks = weeksOf(p.window);
  const span = weeks * 7;
  poissonSpread = expectationVariance(weeks);
  const win = ws.window;
  win.reset(span);
  const minScores = Math.ceil(span / 2);
  const threshold = p.threshold;
  const minRel = p.minChangePct / 100;
  const adaptAfter = p.adaptAfterDays;
  const minVolume = input.material;
  tracker.reset();
  shifts.reset();
  tailNoise.reset(end, start);
  // The day's own noise and that of a mean of a few weeks.
  tailNoise.absFloor = 1.1 * input.daySigma;
  tailNoise.meanLevel = input.dayMean;
  tailNoise.weigh(input.weights, input.weightRef);
  tailNoise.unit = input.unit;
  level.invalidate();
  years.reset();
  const warmEnd = openWarmup(input, span, ws);
  if (warmEnd < end) warmUp(c, x, start, warmEnd, threshold, minRel, special, win, false, weights, weightRef);
  let pendingDay = -1;
  let pendingSign = 0;
  for (let t = warmEnd; t < end; t++) {
    const xt = x[t];
    const exp = levelledMean(c, t, span, start);
    const isSpecial = special !== null && special[t] !== 0;
    const r = xt - exp;
    // A ratio's residual is weighed by the events behind it (ratioWeight).
    const rw = weights === undefined ? r : r * ratioWeight(weights, weightRef, t);
    let flag = 0;
    let report = 0;
    // The noise scale is needed only for a change big enough to count (most days are not).
    let weak = 0;
    if (win.size >= minScores && Math.abs(r) >= minRel * Math.abs(exp)) {
      const k = threshold * PAIR_FACTOR;
      // One z-score for both tests: the spike's threshold and the pair's lower one.
      const z = spikeZ(rw, exp, win, k, threshold, input.unit);
      flag = z > threshold ? 1 : z < -threshold ? -1 : 0;
      // One of the series' usual bursts is not reported, but stays out of the baseline.
      if (flag !== 0 && tailNoise.unusual(r, exp, threshold, t)) {
        report = flag;
        // A return to normal after an accepted shift, or what the same time of the previous years
        // showed, is expected (handled as flagged, as then).
        if (
          shifts.returns(logRatio(xt, exp)) ||
          (t - YEAR_DAYS >= start && !spikeBeyondYears(input, e, t, exp, z, minRel, threshold))
        )
          report = 0;
      } else if (!isSpecial) {
        weak = z > k ? 1 : z < -k ? -1 : 0;
        if (weak !== 0 && !tailNoise.unusual(r, exp, k, t)) weak = 0;
        if (weak !== 0 && pendingDay === t - 1 && pendingSign === weak) {
          // The day before and this one together: both are the anomaly.
          flag = report = weak;
          const u = t - 1;
          f[u] = e[u] >= minVolume ? weak : 0;
          c[u] = cleanValue(x[u], e[u], weak, false);
          level.invalidate();
          tailNoise.record(u, Math.abs(logRatio(x[u], e[u])), x[u], true);
          weak = 0;
        }
      }
    }
    pendingDay = weak !== 0 ? t : -1;
    pendingSign = weak;
    if (!isSpecial && exp > 0) tailNoise.recordRatio(t, xt, exp, report !== 0);
    e[t] = exp;
    // Reported only when material; baselines are cleaned of the day either way.
    f[t] = exp >= minVolume ? report : 0;
    c[t] = cleanValue(xt, exp, flag, isSpecial);
    if (!isSpecial && !Number.isNaN(r)) win.push(Math.abs(rw));
    // A quiet day outside a run leaves the tracker as it is: skip the call.
    const accept = (flag !== 0 || tracker.length !== 0) && tracker.step(flag, t, adaptAfter, isSpecial);
    if (flag !== 0 && !isSpecial && !Number.isNaN(r)) tracker.pushes++;
    if (accept) {
      level.invalidate();
      if (shifts.accept(relevel(c, x, e, tracker.start, t, span, start, special)))
        clearFlags(f, tracker.start, t);
      win.popNewest(tracker.pushes);
      tracker.reset();
    } else if (flag !== 0 && !isSpecial && f[t - 7] === flag && (special === null || special[t - 7] === 0)) {
      relevelWeekday(c, x, e, t, weeks, start);
      level.invalidate();
    }
  }
  years.apply(e);
  return x;
}

function runDt(input: RunInput, p: DtParams, ws: Workspace): Float64Array {
  const { x, special, start, end, weights, weightRef } = input;
  const e = ws.expected;
  const f = ws.flags;
  const c = ws.clean;
  const weeks = weeksOf(p.window);
  const span = weeks * 7;
  const win = quartiles;
  win.reset(span, p.sensitivity, MIN_RELATIVE_SCALE);
  const minScores = Math.ceil(span / 2);
  const adaptAfter = p.adaptAfterDays;
  const minVolume = input.material;
  tracker.reset();
  shifts.reset();
  tailNoise.reset(end, start);
  // The day's own noise and that of a mean of a few weeks.
  tailNoise.absFloor = 1.1 * input.daySigma;
  tailNoise.meanLevel = input.dayMean;
  tailNoise.weigh(input.weights, input.weightRef);
  tailNoise.unit = input.unit;
  level.invalidate();
  years.reset();
  const warmEnd = openWarmup(input, span, ws);
  poissonSpread = expectationVariance(weeks);
  if (warmEnd < end)
    warmUp(c, x, start, warmEnd, WARMUP_THRESHOLD, WARMUP_MIN_REL, special, win, true, weights, weightRef);
  for (let t = warmEnd; t < end; t++) {
    const xt = x[t];
    const isSpecial = special !== null && special[t] !== 0;
    const exp = levelledMean(c, t, span, start);
    let flag = 0;
    let report = 0;
    let rel = Number.NaN;
    if (exp > 0) {
      rel = xt / exp - 1;
      if (weights !== undefined) rel *= ratioWeight(weights, weightRef, t);
      // A count must also move beyond its Poisson noise (3 sqrt(expected)).
      if (win.size >= minScores && Math.abs(xt - exp) >= POISSON_K * Math.sqrt(exp * input.unit)) {
        flag = win.flag(rel);
        // One of the series' usual bursts is not reported, but stays out of the baseline.
        if (flag !== 0 && tailNoise.unusual(xt - exp, exp, DT_TAIL_K * p.sensitivity, t)) report = flag;
        // A return to normal, or what the same time of the previous years showed, is expected.
        if (
          report !== 0 &&
          (shifts.returns(logRatio(xt, exp)) ||
            (t - YEAR_DAYS >= start && !dtBeyondYears(input, e, t, exp, p.sensitivity)))
        )
          report = 0;
      }
      if (!isSpecial) tailNoise.recordRatio(t, xt, exp, report !== 0);
    }
    e[t] = exp;
    // Reported only when material; baselines are cleaned of the day either way.
    f[t] = exp >= minVolume ? report : 0;
    c[t] = cleanValue(xt, exp, flag, isSpecial);
    let pushed = 0;
    if (!isSpecial && !Number.isNaN(rel)) {
      win.push(rel);
      pushed = 1;
    }
    // A quiet day outside a run leaves the tracker as it is: skip the call.
    const accept = (flag !== 0 || tracker.length !== 0) && tracker.step(flag, t, adaptAfter, isSpecial);
    if (flag !== 0) tracker.pushes += pushed;
    if (accept) {
      level.invalidate();
      if (shifts.accept(relevel(c, x, e, tracker.start, t, span, start, special)))
        clearFlags(f, tracker.start, t);
      win.popNewest(tracker.pushes);
      tracker.reset();
    } else if (flag !== 0 && !isSpecial && f[t - 7] === flag && (special === null || special[t - 7] === 0)) {
      relevelWeekday(c, x, e, t, weeks, start);
      level.invalidate();
    }
  }
  years.apply(e);
  return x;
}

export const spike: DetectorImpl<'spike'> = {
  type: 'spike',
  code: 'Spike',
  aggregate: false,
  minHistory: (p) => weeksOf(p.window) * 7 + 1,
  run: runSpike,
};

export const dt: DetectorImpl<'dt'> = {
  type: 'dt',
  code: 'DT',
  aggregate: false,
  minHistory: (p) => weeksOf(p.window) * 7 + 1,
  run: runDt,
};
