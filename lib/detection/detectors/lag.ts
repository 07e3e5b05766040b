/**
 * DOD and WOW: a day against one earlier day. DOD scales yesterday by the weekday profile (so a
 * Monday is not "up" merely for following a Sunday); WOW uses the same weekday a week before.
 */
import type { DetectorImpl, RunInput } from '../detector';
import {
  classifyPct,
  clearFlags,
  DayNoise,
  logRatio,
  relevel,
  relevelWeekday,
  ShiftMemory,
  weekdayOf,
} from '../kernels';
import type { PercentChangeParams } from '../params';
import type { Workspace } from '../workspace';
import { explainedByYears, YEAR_DAYS, YearAdjustments } from '../year-before';

const noise = new DayNoise();
/**
 * Per day: 1 for a change that passed the business threshold but not the noise test (an outlier of
 * the series' usual kind, not reported) and whose own expectation rests on an actual value, else 0. Such a day keeps its value in the
 * baselines (a run of them can be a new level), but the next day of DOD and the same weekday a week
 * later of WOW compare with what it was expected to be: the recovery from an unreported dip is not
 * a +500 % anomaly.
 */
let outliers: Int8Array = new Int8Array(1024);

function grow(a: Int8Array, n: number): Int8Array {
  return a.length >= n ? a : new Int8Array(Math.max(n, a.length * 2));
}
const shifts = new ShiftMemory();
const years = new YearAdjustments();

const PROFILE_WEEKS = 8;
const PROFILE_DAYS = PROFILE_WEEKS * 7;

function rebuildWeekSums(
  c: Float64Array,
  sum: Float64Array,
  cnt: Float64Array,
  from: number,
  to: number,
  wdFrom: number,
) {
  sum.fill(0);
  cnt.fill(0);
  let wd = wdFrom;
  for (let u = from; u <= to; u++) {
    const v = c[u];
    if (!Number.isNaN(v)) {
      sum[wd] += v;
      cnt[wd]++;
    }
    wd = wd === 6 ? 0 : wd + 1;
  }
}

function runDod(input: RunInput, p: PercentChangeParams, ws: Workspace): Float64Array {
  const { x, special, start, end } = input;
  const e = ws.expected;
  const f = ws.flags;
  const c = ws.clean;
  // Every analysed day is written below; only the days before the first one need clearing.
  e.fill(Number.NaN, 0, start);
  f.fill(0, 0, start);
  const sum = ws.weekSum;
  const cnt = ws.weekCount;
  sum.fill(0);
  cnt.fill(0);
  const frac = p.percentualChange / 100;
  const adapt = p.adaptAfterDays;
  const k = p.threshold;
  const minVolume = input.material;
  noise.reset(end, start);
  // The expectation is one other day: the difference of two days' noise.
  noise.absFloor = Math.SQRT2 * input.daySigma;
  noise.meanLevel = input.dayMean;
  noise.weigh(input.weights, input.weightRef);
  noise.unit = input.unit;
  shifts.reset();
  years.reset();
  let wd = weekdayOf(input.dayIndex0 + start);
  // The run of same-sign flags (see RunTracker), kept in locals: this loop is the hot path.
  let runSign = 0;
  let runLength = 0;
  let runStart = 0;
  outliers = grow(outliers, end);
  outliers.fill(0, 0, end);
  for (let t = start; t < end; t++) {
    const prevWd = wd === 0 ? 6 : wd - 1;
    const xt = x[t];
    let exp = Number.NaN;
    let flag = 0;
    let cand = 0;
    if (t > start && cnt[wd] >= 2 && cnt[prevWd] >= 2) {
      // Yesterday times the ratio of the two weekdays' means, with one division instead of three.
      const sumPrev = sum[prevWd];
      // Yesterday as it would have been expected when it was an outlier of its own (see outliers).
      const prev = outliers[t - 1] === 1 ? e[t - 1] : c[t - 1];
      exp = sumPrev > 0 ? (prev * sum[wd] * cnt[prevWd]) / (cnt[wd] * sumPrev) : sum[wd] / cnt[wd];
      // A ratio's residual has yesterday's noise too (DayNoise.refEvents).
      if (sumPrev > 0) noise.expectedFrom(t, t - 1);
      flag = classifyPct(xt, exp, frac);
      cand = flag;
      // Flagged only when unusual for this series too.
      if (flag !== 0 && !noise.unusual(xt - exp, exp, k, t)) flag = 0;
    }
    // An isolated outlier only (yesterday was not one): its expectation rests on an actual value.
    outliers[t] = flag === 0 && cand !== 0 && (t === start || outliers[t - 1] === 0) ? 1 : 0;
    // The way back from an accepted shift (a return to normal) and what the same time of the previous
    // years showed are expected: such a day is handled as flagged in the baselines but not reported.
    const explained =
      flag !== 0 &&
      (shifts.returns(logRatio(xt, exp)) ||
        (t - YEAR_DAYS >= start && explainedByYears(input, e, t, exp, frac, k, noise, years)));
    e[t] = exp;
    // Reported only when material; baselines are cleaned of the day either way.
    f[t] = exp >= minVolume && !explained ? flag : 0;
    const isSpecial = special !== null && special[t] !== 0;
    if (!isSpecial && exp > 0) noise.recordRatio(t, xt, exp, flag !== 0);
    let rebuilt = false;
    // The cleaned value of day t (what later profiles see).
    let ct = exp;
    if (isSpecial) {
      // Explained days neither extend nor break a run and stay out of the profile.
      c[t] = exp;
    } else if (flag === 0) {
      ct = xt;
      c[t] = xt;
      runSign = 0;
      runLength = 0;
    } else {
      c[t] = exp;
      if (flag !== runSign) {
        runSign = flag;
        runLength = 0;
        runStart = t;
      }
      runLength++;
      if (adapt > 0 && runLength >= adapt) {
        if (shifts.accept(relevel(c, x, e, runStart, t, PROFILE_DAYS, start, special)))
          clearFlags(f, runStart, t);
        runSign = 0;
        runLength = 0;
        rebuilt = true;
      } else if (t - 7 >= start && f[t - 7] === flag && (special === null || special[t - 7] === 0)) {
        // Two flags of the same sign a week apart: the weekday's profile, not the day, is off.
        relevelWeekday(c, x, e, t, PROFILE_WEEKS, start);
        rebuilt = true;
      }
    }
    if (rebuilt) {
      const from = Math.max(start, t - PROFILE_DAYS + 1);
      rebuildWeekSums(c, sum, cnt, from, t, weekdayOf(input.dayIndex0 + from));
    } else {
      // Day t enters the weekday's profile and the same weekday eight weeks before leaves it, in
      // one update (NaN days were never in it).
      let ds = 0;
      let dn = 0;
      if (!Number.isNaN(ct)) {
        ds = ct;
        dn = 1;
      }
      const old = t - PROFILE_DAYS;
      if (old >= start) {
        const co = c[old];
        if (!Number.isNaN(co)) {
          ds -= co;
          dn--;
        }
      }
      sum[wd] += ds;
      cnt[wd] += dn;
    }
    wd = wd === 6 ? 0 : wd + 1;
  }
  years.apply(e);
  return x;
}

function runWow(input: RunInput, p: PercentChangeParams, ws: Workspace): Float64Array {
  const { x, special, start, end } = input;
  const e = ws.expected;
  const f = ws.flags;
  const c = ws.clean;
  // Every analysed day is written below; only the days before the first one need clearing.
  e.fill(Number.NaN, 0, start);
  f.fill(0, 0, start);
  const frac = p.percentualChange / 100;
  const adapt = p.adaptAfterDays;
  const k = p.threshold;
  const minVolume = input.material;
  noise.reset(end, start);
  // The expectation is one other day: the difference of two days' noise.
  noise.absFloor = Math.SQRT2 * input.daySigma;
  noise.meanLevel = input.dayMean;
  noise.weigh(input.weights, input.weightRef);
  noise.unit = input.unit;
  shifts.reset();
  years.reset();
  // The run of same-sign flags (see RunTracker), kept in locals: this loop is the hot path.
  let runSign = 0;
  let runLength = 0;
  let runStart = 0;
  outliers = grow(outliers, end);
  outliers.fill(0, 0, end);
  const head = Math.min(end, start + 7);
  for (let t = start; t < head; t++) {
    e[t] = Number.NaN;
    f[t] = 0;
    c[t] = special !== null && special[t] !== 0 ? Number.NaN : x[t];
  }
  for (let t = head; t < end; t++) {
    const xt = x[t];
    // The same weekday a week before; further back when that day's value is unknown.
    let ref = t - 7;
    let usedOutlier = false;
    let exp = c[ref];
    for (let u = t - 14, k = 1; k < 4 && u >= start && Number.isNaN(exp); u -= 7, k++) {
      ref = u;
      exp = c[u];
    }
    // The reference day as it would have been expected when it was an outlier of its own.
    if (outliers[ref] === 1 && !Number.isNaN(e[ref])) {
      exp = e[ref];
      usedOutlier = true;
    }
    // A ratio's residual has the reference day's noise too (DayNoise.refEvents).
    if (!usedOutlier) noise.expectedFrom(t, ref);
    let flag = classifyPct(xt, exp, frac);
    const cand = flag;
    // Flagged only when unusual for this series too.
    if (flag !== 0 && !noise.unusual(xt - exp, exp, k, t)) flag = 0;
    // Its expectation must rest on an actual value (not on another outlier's expectation).
    outliers[t] = flag === 0 && cand !== 0 && !usedOutlier ? 1 : 0;
    // A return to normal or the same time of the previous years (see runDod).
    const explained =
      flag !== 0 &&
      (shifts.returns(logRatio(xt, exp)) ||
        (t - YEAR_DAYS >= start && explainedByYears(input, e, t, exp, frac, k, noise, years)));
    e[t] = exp;
    // Reported only when material; baselines are cleaned of the day either way.
    f[t] = exp >= minVolume && !explained ? flag : 0;
    const isSpecial = special !== null && special[t] !== 0;
    if (!isSpecial && exp > 0) noise.recordRatio(t, xt, exp, flag !== 0);
    if (isSpecial) {
      // Explained days neither extend nor break a run and stay out of the baseline.
      c[t] = exp;
      continue;
    }
    if (flag === 0) {
      c[t] = xt;
      runSign = 0;
      runLength = 0;
      continue;
    }
    c[t] = exp;
    if (flag !== runSign) {
      runSign = flag;
      runLength = 0;
      runStart = t;
    }
    runLength++;
    if (adapt > 0 && runLength >= adapt) {
      if (shifts.accept(relevel(c, x, e, runStart, t, 7, start, special))) clearFlags(f, runStart, t);
      runSign = 0;
      runLength = 0;
    } else if (t - 7 >= start && f[t - 7] === flag && (special === null || special[t - 7] === 0)) {
      // Two flags of the same sign a week apart mean the reference, not the day, is off.
      c[t] = xt;
      c[t - 7] = x[t - 7];
    }
  }
  years.apply(e);
  return x;
}

export const dod: DetectorImpl<'dod'> = {
  type: 'dod',
  code: 'DOD',
  aggregate: false,
  minHistory: () => 15,
  run: runDod,
};

export const wow: DetectorImpl<'wow'> = {
  type: 'wow',
  code: 'WOW',
  aggregate: false,
  minHistory: () => 8,
  run: runWow,
};
