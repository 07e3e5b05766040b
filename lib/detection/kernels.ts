/** Small numeric helpers shared by the detector loops; all allocation-free. */

/**
 * +1 / -1 when actual differs from expected by at least `fraction` of |expected|, else 0 (also
 * when either is NaN). Compares against a band instead of dividing: it runs for every day.
 */
export function classifyPct(actual: number, expected: number, fraction: number): number {
  const diff = actual - expected;
  if (expected === 0) return diff > 0 ? 1 : diff < 0 ? -1 : 0;
  const band = fraction * Math.abs(expected);
  return diff >= band ? 1 : diff <= -band ? -1 : 0;
}

/** Weekday (Monday = 0) of index 0 of a series starting at epoch day dayIndex0. */
export function weekdayOf(epochDay: number): number {
  return (((epochDay + 3) % 7) + 7) % 7;
}

/** Mean of the cleaned values on the same weekday over the `weeks` weeks before t (NaN entries skipped). */
export function sameWeekdayMean(c: Float64Array, t: number, weeks: number, start: number): number {
  let sum = 0;
  let count = 0;
  for (let k = 1, u = t - 7; k <= weeks && u >= start; k++, u -= 7) {
    const v = c[u];
    // NaN marks a special day whose expectation was unknown: it stays out of the baseline.
    if (!Number.isNaN(v)) {
      sum += v;
      count++;
    }
  }
  return count === 0 ? Number.NaN : sum / count;
}

/**
 * Tracks runs of same-sign flags. When a run reaches `adaptAfter` days the change is accepted as
 * the new normal: the run's cleaned values become the actual ones and the `lookback` days before it
 * are scaled to the new level, so baselines stop comparing against the old level.
 */
export class RunTracker {
  sign = 0;
  length = 0;
  start = 0;
  /** Values pushed into a rolling window during the run (undone on acceptance). */
  pushes = 0;

  reset(): void {
    this.sign = 0;
    this.length = 0;
    this.pushes = 0;
  }

  /**
   * Records day t's flag; returns true when the run has just become long enough to accept.
   * Special days neither extend nor break a run: their deviation is explained.
   */
  step(flag: number, t: number, adaptAfter: number, isSpecial = false): boolean {
    if (isSpecial) return false;
    if (flag === 0) {
      this.sign = 0;
      this.length = 0;
      this.pushes = 0;
      return false;
    }
    if (flag !== this.sign) {
      this.sign = flag;
      this.length = 0;
      this.pushes = 0;
      this.start = t;
    }
    this.length++;
    return adaptAfter > 0 && this.length >= adaptAfter;
  }
}

/**
 * The noise model of the day detectors: how unusual a day's residual log(actual / expected),
 * against the detector's own expectation, is for this series. The scale is an exponentially
 * weighted mean of the absolute log residuals of earlier judged days that were not flagged
 * (the running mean over the first 28, then a 28-day memory), each clipped at 4 scales so that an
 * odd day cannot inflate it, × 1.2533 (a standard deviation for normal noise). It is at least 1 %
 * and, for counts, 1 / sqrt(expected) (Poisson noise). Nothing is flagged before 7 residuals.
 */
export class DayNoise {
  private mean = 0;
  count = 0;
  /** Apply the Poisson floor (off for cardinality: a count of children is not a count of events). */
  poisson = true;
  /** Least offset of logRatio (cardinality: half a child, so that 2 → 0 children is not -4.6). */
  logOffset = 0;
  /**
   * Least scale in the series' units at the series' mean level (the comparison's share of
   * RunInput.daySigma); at another level it scales with sqrt(level / mean), as count noise does.
   */
  absFloor = 0;
  /** The series' mean (RunInput.dayMean) and its recent level (28-day weighted mean of judged days). */
  meanLevel = 0;
  private level = 0;
  /** The last TAIL_DAYS absolute relative residuals (unclipped), for the tail scale. */
  private readonly tail = new Float64Array(TAIL_DAYS);
  private tailHead = 0;
  private tailSize = 0;

  reset(): void {
    this.mean = 0;
    this.count = 0;
    this.level = 0;
    this.tailHead = 0;
    this.tailSize = 0;
  }

  /**
   * The tail scale: about the 98th percentile of the recent absolute residuals (the third largest
   * of the ring; fewer ranks while it fills) ÷ 2.326, a standard deviation for normal noise and more for a series
   * with frequent bursts, so that its usual bursts are not news.
   */
  private tailSigma(): number {
    const n = this.tailSize;
    // The rank from the top: 1 below 20 residuals, 2 below 56, 3 from 56 (about the 98th
    // percentile of 112; an isolated holiday or two do not set it).
    const rank = n < 20 ? 1 : n < 56 ? 2 : 3;
    let a = 0;
    let b = 0;
    let c = 0;
    for (let i = 0; i < n; i++) {
      const v = this.tail[i];
      if (v > a) {
        c = b;
        b = a;
        a = v;
      } else if (v > b) {
        c = b;
        b = v;
      } else if (v > c) c = v;
    }
    return (rank === 1 ? a : rank === 2 ? b : c) / TAIL_Q98_TO_SIGMA;
  }

  /** Relative scale (a standard deviation) at expected value exp. */
  scale(exp: number): number {
    let s = NOISE_MEAN_ABS_TO_SIGMA * this.mean;
    const t = this.tailSigma();
    if (s < t) s = t;
    if (this.poisson) {
      const poisson = 1 / Math.sqrt(Math.abs(exp));
      if (s < poisson) s = poisson;
    }
    return s < NOISE_MIN_RELATIVE ? NOISE_MIN_RELATIVE : s;
  }

  /**
   * Whether a change of diff against exp exceeds k scales (false during the first 7 residuals): on
   * the log scale, |log(actual / expected)| against the scale, so that a halving and a doubling are
   * equally unusual (a ratio's upper tail would otherwise hide every drop); and in the series' units
   * against the floor.
   */
  unusual(diff: number, exp: number, k: number): boolean {
    if (this.count < NOISE_MIN_DAYS) return false;
    const d = Math.abs(logRatio(exp + diff, exp, this.logOffset));
    if (!(d >= k * this.scale(exp))) return false;
    let floor = this.absFloor;
    if (floor > 0 && this.meanLevel > 0) floor *= Math.sqrt(Math.max(0, this.level) / this.meanLevel);
    return Math.abs(diff) >= k * floor;
  }

  /** Adds |logRatio| of a judged, unflagged day and its value (for the level). */
  push(absRel: number, value: number): void {
    if (!(absRel >= 0) || absRel === Number.POSITIVE_INFINITY) return;
    if (!Number.isNaN(value))
      this.level += (value - this.level) / (this.count < NOISE_MEMORY ? this.count + 1 : NOISE_MEMORY);
    this.tail[this.tailHead] = absRel;
    this.tailHead = this.tailHead + 1 === TAIL_DAYS ? 0 : this.tailHead + 1;
    if (this.tailSize < TAIL_DAYS) this.tailSize++;
    const n = this.count + 1;
    if (n > NOISE_MIN_DAYS) {
      const cap = 4 * this.mean;
      if (absRel > cap) absRel = cap;
    }
    this.count = n;
    this.mean += (absRel - this.mean) / (n < NOISE_MEMORY ? n : NOISE_MEMORY);
  }
}

const NOISE_MEAN_ABS_TO_SIGMA = 1.2533;
const TAIL_DAYS = 112;
/** The 98th percentile of |N(0, 1)|. */
const TAIL_Q98_TO_SIGMA = 2.326;
const NOISE_MIN_RELATIVE = 0.01;
const NOISE_MIN_DAYS = 7;
const NOISE_MEMORY = 28;

/**
 * log(actual / expected) with 1 % of the expected value added to both, so that a day at 0 is a
 * large but finite move (about -4.6).
 */
export function logRatio(actual: number, expected: number, minOffset = 0): number {
  const c = Math.max(0.01 * Math.abs(expected), minOffset) + 1e-9;
  return Math.log((Math.max(0, actual) + c) / (Math.abs(expected) + c));
}

/**
 * Remembers how far accepted level changes have moved a series from its old normal (as a log
 * ratio). A later accepted change in the opposite direction that brings the level back within half
 * of that departure is a return to normal: the detector drops its flags (the shift was reported at
 * its onset, and ChangePoint covers its duration).
 */
export class ShiftMemory {
  departure = 0;

  reset(): void {
    this.departure = 0;
  }

  /** Records an accepted change of ratio (actual / expected); true when it is a return to normal. */
  accept(ratio: number): boolean {
    if (!(ratio > 0) || !Number.isFinite(ratio)) {
      this.departure = 0;
      return false;
    }
    const lr = Math.log(ratio);
    const d = this.departure;
    if (d !== 0 && lr * d < 0 && Math.abs(d + lr) <= 0.5 * Math.abs(d)) {
      this.departure = 0;
      return true;
    }
    this.departure = d + lr;
    return false;
  }
}

/** Clears the flags of days [from, to] (a run that was a return to normal). */
export function clearFlags(f: Int8Array, from: number, to: number): void {
  for (let u = from; u <= to; u++) f[u] = 0;
}

/**
 * Accepts a run [from, to] as the new level (see RunTracker); special days keep their cleaned
 * value. Returns the run's ratio of actual to expected (NaN when not positive).
 */
export function relevel(
  c: Float64Array,
  actual: Float64Array,
  expected: Float64Array,
  from: number,
  to: number,
  lookback: number,
  start: number,
  special: Uint8Array | null,
): number {
  let sa = 0;
  let se = 0;
  for (let u = from; u <= to; u++) {
    if (special !== null && special[u] !== 0) continue;
    const e = expected[u];
    if (!Number.isNaN(e)) {
      sa += actual[u];
      se += e;
    }
    c[u] = actual[u];
  }
  const lo = Math.max(start, from - lookback);
  if (se > 0 && sa > 0) {
    const ratio = sa / se;
    for (let u = lo; u < from; u++) c[u] *= ratio;
    return ratio;
  }
  const delta = (sa - se) / (to - from + 1);
  for (let u = lo; u < from; u++) c[u] += delta;
  return Number.NaN;
}

/** The cleaned value of day t: actual, or expected when flagged or special (NaN if unknown then). */
export function cleanValue(actual: number, expected: number, flag: number, isSpecial: boolean): number {
  if (flag !== 0) return expected;
  return isSpecial ? expected : actual;
}

/**
 * Accepts a weekday-level change: day t and the same weekday a week before were both flagged with
 * the same sign, so the weekday's baseline (not the day) is off. Both days keep their actual value
 * and the older same-weekday values in the baseline are scaled to the new level.
 */
export function relevelWeekday(
  c: Float64Array,
  actual: Float64Array,
  expected: Float64Array,
  t: number,
  weeks: number,
  start: number,
): void {
  const a = actual[t] + actual[t - 7];
  const e = expected[t] + (!Number.isNaN(expected[t - 7]) ? expected[t - 7] : expected[t]);
  c[t] = actual[t];
  c[t - 7] = actual[t - 7];
  const ratio = e > 0 && a > 0 ? a / e : Number.NaN;
  const delta = (a - e) / 2;
  for (let k = 2, u = t - 14; k <= weeks && u >= start; k++, u -= 7) {
    c[u] = !Number.isNaN(ratio) ? c[u] * ratio : c[u] + delta;
  }
}

const warmScratch = new Float64Array(512);
const warmMedian = new Float64Array(7);

/** Median of values[0..k) (reordered in place): an insertion sort for the few values of a warm-up. */
function medianOf(values: Float64Array, k: number): number {
  if (k === 0) return Number.NaN;
  if (k > 64) {
    values.subarray(0, k).sort();
  } else {
    for (let i = 1; i < k; i++) {
      const v = values[i];
      let j = i - 1;
      while (j >= 0 && values[j] > v) {
        values[j + 1] = values[j];
        j--;
      }
      values[j + 1] = v;
    }
  }
  return k % 2 === 1 ? values[(k - 1) >> 1] : (values[k / 2 - 1] + values[k / 2]) / 2;
}

/**
 * Before a rolling detector has a noise estimate, an outlier in its first weeks would sit in every
 * later baseline. This replaces, in the cleaned series, each warm-up day that lies more than
 * `threshold` robust standard deviations (and `minRel` of the level) from its weekday's median.
 */
export function cleanWarmup(
  c: Float64Array,
  x: Float64Array,
  start: number,
  stop: number,
  threshold: number,
  minRel: number,
  special: Uint8Array | null,
): void {
  const span = stop - start;
  if (span < 14 || span > warmScratch.length) return;
  for (let w = 0; w < 7; w++) {
    let k = 0;
    for (let u = start + w; u < stop; u += 7)
      if (special === null || special[u] === 0) warmScratch[k++] = x[u];
    warmMedian[w] = medianOf(warmScratch, k);
  }
  let k = 0;
  for (let u = start; u < stop; u++) {
    const m = warmMedian[(u - start) % 7];
    if (!Number.isNaN(m) && (special === null || special[u] === 0)) warmScratch[k++] = Math.abs(x[u] - m);
  }
  const sigma = 1.4826 * medianOf(warmScratch, k);
  for (let u = start; u < stop; u++) {
    if (special !== null && special[u] !== 0) continue;
    const m = warmMedian[(u - start) % 7];
    if (Number.isNaN(m)) continue;
    const d = Math.abs(x[u] - m);
    if (d > threshold * Math.max(sigma, 0.01 * Math.abs(m)) && d > minRel * Math.abs(m)) c[u] = m;
  }
}
