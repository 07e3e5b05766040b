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
 * against the detector's own expectation, is for this series (a halving as large as a doubling).
 * Each judged day records its absolute log residual and its value; the scale is worked out only
 * for a day that passes the business threshold, from the records before it: the larger of the mean
 * absolute residual of the unflagged days among the last 28 (each clipped at 4× their mean)
 * × 1.2533 and the tail, the third-largest of the last 112 days, flagged ones included (about their
 * 98th percentile) ÷ 2.326: both a standard deviation for normal noise, the tail larger for a series with
 * frequent bursts. At least 1 % and, for counts, 1 / sqrt(expected) (Poisson noise); nothing is
 * flagged before 7 records.
 */
export class DayNoise {
  /** Apply the Poisson floor (off for cardinality: a count of children is not a count of events). */
  poisson = true;
  /** Value per event (RunInput.unit): the Poisson floor is that of expected / unit events. */
  unit = 1;
  /** Least offset of logRatio (cardinality: half a child, so that 2 → 0 children is not -4.6). */
  logOffset = 0;
  /**
   * Least scale in the series' units at the series' mean level (the comparison's share of
   * RunInput.daySigma); at another level it scales with sqrt(level / mean), as count noise does.
   */
  absFloor = 0;
  /** The series' mean (RunInput.dayMean). */
  meanLevel = 0;
  /**
   * A ratio's events per day and their mean (RunInput.weights, weightRef): a day's residual is that
   * of an average of its events, so it is weighed by sqrt(weights[t] / weightRef) before it is
   * recorded or judged (a day of few bookings is a noisy average rate), and the floor in the series'
   * units grows by sqrt(weightRef / weights[t]). Null: every day weighs the same.
   */
  weights: Float64Array | null = null;
  weightRef = 0;
  /**
   * Per day, the events behind its expectation when that is one other day (DOD: yesterday, WOW: a week
   * before; set by expectedFrom), else 0. The residual of two averages has the noise of both: a busy day
   * compared with a thin one is no surer than the thin one, so the day's residual is weighed by
   * sqrt(2 / (weightRef / events + weightRef / its reference's events)) instead — 1 when both hold the
   * mean events. Without it a Saturday of a shop (1.5 times the events) against a thin week before
   * counted 1.22 times its residual, and one-day WOW and DOD drops of a ratio's pure noise stood at the
   * top of the cube family's incident lists.
   */
  private refEvents = new Float64Array(0);

  /** Sets the weights of a run (RunInput.weights, weightRef). */
  weigh(weights: Float64Array | undefined, weightRef: number): void {
    this.weights = weights !== undefined && weightRef > 0 ? weights : null;
    this.weightRef = weightRef;
  }

  /** Day t's expectation is day `ref` (see refEvents); only with weights. Before t is recorded or judged. */
  expectedFrom(t: number, ref: number): void {
    const w = this.weights;
    if (w === null) return;
    if (this.refEvents.length < w.length) this.refEvents = new Float64Array(w.length);
    this.refEvents[t] = ref >= 0 && w[ref] > 0 ? w[ref] : 0;
  }

  /** The factor by which day t's log residual is weighed (1 without weights). */
  private weightAt(t: number): number {
    const w = this.weights;
    if (w === null) return 1;
    const v = w[t];
    if (!(v > 0)) return 0;
    const r = t < this.refEvents.length ? this.refEvents[t] : 0;
    return r > 0 ? Math.sqrt(2 / (this.weightRef / v + this.weightRef / r)) : Math.sqrt(v / this.weightRef);
  }
  /**
   * Per day: the absolute log residual r of a judged day (-2 - r when it was flagged), -1 for a day
   * not judged; and its value.
   */
  private res = new Float64Array(0);
  private val = new Float64Array(0);
  /**
   * A day recorded by its actual and expected value (recordRatio) whose residual is not worked out yet:
   * 1 judged, 2 flagged, 0 when res holds the day. Most days are never looked at by a noise test (their
   * change fails the floors), so their logarithm is taken only when a test reads them.
   */
  private pend = new Uint8Array(0);
  private act = new Float64Array(0);
  private expd = new Float64Array(0);
  private offs = new Float64Array(0);
  private from = 0;

  /** Starts a series of n days whose judged days begin at `from`. */
  reset(n = 0, from = 0): void {
    if (this.res.length < n) {
      const size = Math.max(n, Math.ceil(this.res.length * 1.5));
      this.res = new Float64Array(size);
      this.val = new Float64Array(size);
      this.pend = new Uint8Array(size);
      this.act = new Float64Array(size);
      this.expd = new Float64Array(size);
      this.offs = new Float64Array(size);
    }
    this.res.fill(-1, 0, n);
    this.pend.fill(0, 0, n);
    this.refEvents.fill(0);
    this.from = from;
  }

  /**
   * Records judged day t with its |log residual| and value. A flagged day counts only towards the
   * tail (where, as one of the three largest, one anomaly does not move it), so that a series whose
   * bursts are reported at first learns that they are usual.
   */
  record(t: number, absLog: number, value: number, flagged: boolean): void {
    if (this.weights !== null) absLog *= this.weightAt(t);
    if (!(absLog >= 0)) return;
    this.res[t] = flagged ? -2 - absLog : absLog;
    this.val[t] = value;
    this.pend[t] = 0;
  }

  /**
   * Records judged day t as record(t, |logRatio(actual, expected, minOffset)|, actual, flagged) does,
   * the logarithm taken when a noise test first reads the day. Once per day and run, before any record(t).
   */
  recordRatio(t: number, actual: number, expected: number, flagged: boolean, minOffset = 0): void {
    this.pend[t] = flagged ? 2 : 1;
    this.act[t] = actual;
    this.expd[t] = expected;
    this.offs[t] = minOffset;
  }

  /** Works out a pending day of recordRatio (as record would have stored it). */
  private resolve(u: number): void {
    const flagged = this.pend[u] === 2;
    this.pend[u] = 0;
    const actual = this.act[u];
    this.record(u, Math.abs(logRatio(actual, this.expd[u], this.offs[u])), actual, flagged);
  }

  /**
   * Whether a change of diff against exp on day t exceeds k scales: on the log scale (a ratio's
   * upper tail would otherwise hide every drop), and in the series' units against the floor.
   */
  unusual(diff: number, exp: number, k: number, t: number): boolean {
    const raw = Math.abs(logRatio(exp + diff, exp, this.logOffset));
    // The floors first: most changes that fail them need no look at the records.
    let least = NOISE_MIN_RELATIVE;
    if (this.poisson && this.unit > 0) {
      const poisson = Math.sqrt(this.unit / Math.abs(exp));
      if (least < poisson) least = poisson;
    }
    if (!(raw >= k * least)) return false;
    const d = this.weights === null ? raw : raw * this.weightAt(t);
    const res = this.res;
    const lo = Math.max(this.from, t - TAIL_DAYS);
    const near = t - NOISE_MEMORY;
    // The last 28 days first: their clipped mean is a lower bound of the scale, and most changes that
    // fail it need no look at the 112 days of the tail. The sums run over the same days in the same
    // order as before, so the scale is the same to the last bit.
    let nearN = 0;
    let nearSum = 0;
    let levelSum = 0;
    const pend = this.pend;
    for (let u = t - 1; u >= near && u >= lo; u--) {
      if (pend[u] !== 0) this.resolve(u);
      const v = res[u];
      if (v < 0) continue;
      nearN++;
      nearSum += v;
      levelSum += this.val[u];
    }
    let s = 0;
    if (nearN > 0) {
      // The mean again with each residual clipped at 4× the plain mean.
      const cap = (4 * nearSum) / nearN;
      let clipped = 0;
      for (let u = t - 1; u >= near && u >= lo; u--) {
        const v = res[u];
        if (v >= 0) clipped += v < cap ? v : cap;
      }
      s = (NOISE_MEAN_ABS_TO_SIGMA * clipped) / nearN;
    }
    if (k >= 0 && !(d >= k * s)) return false;
    // The tail: the three largest residuals of the last 112 days (and how many there are).
    let n = 0;
    let a = 0;
    let b = 0;
    let c = 0;
    for (let u = t - 1; u >= lo; u--) {
      if (pend[u] !== 0) this.resolve(u);
      let v = res[u];
      if (v === -1) continue;
      if (v < 0) {
        // A flagged day joins the tail only once its event is over (two weeks on), so that a run of
        // flagged days does not mask its own later days.
        if (u >= t - 14) continue;
        v = -2 - v;
      }
      n++;
      if (v > c) {
        if (v > a) {
          c = b;
          b = a;
          a = v;
        } else if (v > b) {
          c = b;
          b = v;
        } else c = v;
      }
    }
    if (n < NOISE_MIN_DAYS) return false;
    const tail = (n < 20 ? a : n < 56 ? b : c) / TAIL_Q98_TO_SIGMA;
    if (s < tail) s = tail;
    if (!(d >= k * s)) return false;
    let floor = this.absFloor;
    if (this.weights !== null) {
      // A ratio's day noise is that of an average of its events.
      const w = this.weightAt(t);
      if (floor > 0) floor = w > 0 ? floor / w : Number.POSITIVE_INFINITY;
    } else if (floor > 0 && this.meanLevel > 0 && nearN > 0)
      floor *= Math.sqrt(Math.max(0, levelSum / nearN) / this.meanLevel);
    return Math.abs(diff) >= k * floor;
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
 * log(actual / expected) with 1 % of the expected value (at least minOffset) added to both, so that
 * a day at 0 is a large but finite move (about -4.6). Small moves (most days) take a cubic series
 * instead of a logarithm (error below 3e-5).
 */
export function logRatio(actual: number, expected: number, minOffset = 0): number {
  const e = expected < 0 ? -expected : expected;
  const c = (0.01 * e > minOffset ? 0.01 * e : minOffset) + 1e-9;
  const b = e + c;
  const r = ((actual > 0 ? actual : 0) + c - b) / b;
  if (r < 0.1 && r > -0.1) return r - (r * r) / 2 + (r * r * r) / 3;
  return Math.log(1 + r);
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

  /**
   * Whether a day at log ratio `lr` (log(actual / expected) against the accepted new level) brings the
   * series back to its old normal, within half of the departure: the return of an accepted shift, to be
   * handled as flagged (its run is the way back) but not reported. A return to normal is not a rise.
   */
  returns(lr: number): boolean {
    const d = this.departure;
    return d !== 0 && lr * d < 0 && Math.abs(d + lr) <= 0.5 * Math.abs(d);
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
