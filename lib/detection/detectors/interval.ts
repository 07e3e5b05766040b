/**
 * The judgement of an interval measure (docs/detectors.md, "Interval measures"): a measure whose zero is
 * arbitrary (a temperature, a satisfaction score, a balance that crosses zero), where a percent means
 * nothing (20 °C → 25 °C is +25 %, the same move in °F +13 %). A day is judged in the series' own noise
 * units: a robust z-score of its difference from the same weekdays. Expected = the mean of the same weekday
 * over the last `window` days (whole weeks) of the cleaned series, levelled additively by the last 7
 * days against the window (a season moves the level, not a ratio of it); the noise scale is the median
 * absolute residual of the window's judged, unflagged days × 1.4826 (a standard deviation for normal
 * noise). A day is flagged when |z| reaches `threshold`; materiality is that threshold, in noise units:
 * no percent floor, no volume (the level of an interval measure says nothing of its importance). Flagged
 * days enter later baselines as their expected values until a run lasts `adaptAfterDays` (then the new
 * level is accepted). Pure; fills ws.expected and ws.flags as every detector does.
 */
import { NO_DATA, SUPPRESS_NEGATIVE, SUPPRESS_POSITIVE } from '../../calendar/special-calendar';
import type { RunInput } from '../detector';
import type { Workspace } from '../workspace';

export interface IntervalParams {
  /** |z| a day must reach, in noise units. */
  threshold: number;
  /** Days of history (rounded to whole weeks, at least two weeks) for the expectation and the scale. */
  window: number;
  /** A run of this many flagged days of one sign becomes the new normal (0: never). */
  adaptAfterDays: number;
}

/** Residuals the scale needs before a day is judged. */
const MIN_RESIDUALS = 7;
/** Median absolute deviation to a standard deviation, for normal noise. */
const MAD_TO_SD = 1.4826;

function median(a: number[]): number {
  a.sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

/** Mean of the finite values of clean[from, to), NaN when none. */
function meanOf(clean: Float64Array, from: number, to: number): number {
  let s = 0;
  let n = 0;
  for (let u = Math.max(0, from); u < to; u++)
    if (Number.isFinite(clean[u])) {
      s += clean[u];
      n++;
    }
  return n > 0 ? s / n : Number.NaN;
}

/** The levelled same-weekday expectation of day t from the cleaned days before it, NaN in the warm-up. */
function expectationAt(clean: Float64Array, t: number, weeks: number, start: number): number {
  let s = 0;
  let n = 0;
  for (let k = 1; k <= weeks; k++) {
    const u = t - 7 * k;
    if (u < start) break;
    if (Number.isFinite(clean[u])) {
      s += clean[u];
      n++;
    }
  }
  if (n < 2) return Number.NaN;
  const recent = meanOf(clean, t - 7, t);
  const whole = meanOf(clean, t - 7 * weeks, t);
  return s / n + (Number.isFinite(recent) && Number.isFinite(whole) ? recent - whole : 0);
}

/** Judges an interval series; returns the array whose window sums are the anomalies' actual values. */
export function runInterval(input: RunInput, p: IntervalParams, ws: Workspace): Float64Array {
  const { x, special, start, end } = input;
  const weeks = Math.max(2, Math.round(p.window / 7));
  const span = 7 * weeks;
  const clean = ws.clean;
  const resid = new Float64Array(end).fill(Number.NaN);
  ws.flags.fill(0, 0, end);
  ws.expected.fill(Number.NaN, 0, end);
  clean.fill(Number.NaN, 0, end);
  let runSign = 0;
  let runLength = 0;
  let any = false;
  for (let t = start; t < end; t++) {
    const flags = special ? special[t] : 0;
    if (flags & NO_DATA) continue;
    const exp = expectationAt(clean, t, weeks, start);
    if (!Number.isFinite(exp)) {
      clean[t] = x[t];
      continue;
    }
    ws.expected[t] = exp;
    const r = x[t] - exp;
    const window: number[] = [];
    for (let u = Math.max(start, t - span); u < t; u++)
      if (Number.isFinite(resid[u])) window.push(Math.abs(resid[u]));
    const scale = window.length >= MIN_RESIDUALS ? MAD_TO_SD * median(window) : 0;
    const sign = Math.sign(r);
    if (scale > 0 && Math.abs(r) >= p.threshold * scale) {
      ws.flags[t] = sign;
      any = true;
      runLength = sign === runSign ? runLength + 1 : 1;
      runSign = sign;
      // A change that lasts is the new normal: from then on its days are the baseline.
      clean[t] = p.adaptAfterDays > 0 && runLength >= p.adaptAfterDays ? x[t] : exp;
      continue;
    }
    runSign = 0;
    runLength = 0;
    // Special days stay out of baselines and of the noise scale.
    if (flags & (SUPPRESS_POSITIVE | SUPPRESS_NEGATIVE)) clean[t] = exp;
    else {
      clean[t] = x[t];
      resid[t] = r;
    }
  }
  ws.flagged = any;
  return x;
}
