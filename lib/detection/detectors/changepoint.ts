/**
 * ChangePoint: a lasting shift of level. For each day t the mean of the segment after t is compared
 * with the mean of the segment before; segments are whole weeks so the weekly profile cancels out.
 * Values are divided by the series' weekday profile first, so segments that lose special days
 * keep a fair weekday mix. The noise comes from week-over-week differences inside each segment, so a single spike inflates
 * its own noise estimate instead of passing for a shift. The best-scoring day of each run of
 * qualifying days is the change point; the anomaly starts there and lasts while the new level
 * holds: week by week, as long as the week's mean lies on the new level's side of the midpoint
 * between the two levels (to the day in the week where it returns), or until the data ends. A
 * return to the old level is the end of the anomaly, not a second change point.
 */
import type { DetectorImpl, RunInput } from '../detector';
import { segmentMeans, segmentSums, shiftPasses } from '../segment-sums';
import type { Workspace } from '../workspace';
import { leastSurprise, YEAR_DAYS } from '../year-before';

const MEAN_ABS_TO_SIGMA = 1.2533;
/** Days before the segment that a change back to their level is a return (see returnsToEarlier). */
const EARLIER_DAYS = 56;
/** Weeks before the segment whose median weekly level a change back to is a return, too. */
const EARLIER_WEEKS = 16;
const weekMeans = new Float64Array(EARLIER_WEEKS);

/** Days with data in [a, b) (special days left out) and their weekday-normalised sum (segmentSums' prefixes). */
function daysIn(input: RunInput, ws: Workspace, a: number, b: number): number {
  return input.special === null ? b - a : ws.prefixB[b] - ws.prefixB[a];
}

function sumIn(ws: Workspace, a: number, b: number): number {
  return ws.prefixA[b] - ws.prefixA[a];
}

/**
 * Whether the change at `at` from m1 to m2 brings the series back to where it was before the segment
 * that precedes it: to the mean of the EARLIER_DAYS before it, or to the median weekly level of the
 * EARLIER_WEEKS before it (an excursion of up to two months that began before those 56 days: a hotel
 * channel's 8-week halving ended on a day whose "new level" then held for 669 days). The segment
 * before was itself the excursion (a spell of weeks up or down that the scan did not report, or a
 * shift too short to qualify), and its end is not a new level. Judged on the same weekday-normalised
 * sums as the segments.
 */
function returnsToEarlier(
  input: RunInput,
  ws: Workspace,
  at: number,
  m: number,
  m1: number,
  m2: number,
): boolean {
  const hi = at - m;
  const lo = Math.max(input.start, hi - EARLIER_DAYS);
  if (hi - lo < 28) return false;
  const n = daysIn(input, ws, lo, hi);
  if (n < 21) return false;
  const near = (level: number) => Math.abs(m2 - level) < Math.abs(m2 - m1) / 2;
  if (near(sumIn(ws, lo, hi) / n)) return true;
  // The median of the weekly levels further back.
  let k = 0;
  for (let w = 0; w < EARLIER_WEEKS; w++) {
    const b = hi - 7 * w;
    const a = b - 7;
    if (a < input.start) break;
    const days = daysIn(input, ws, a, b);
    if (days >= 4) weekMeans[k++] = sumIn(ws, a, b) / days;
  }
  if (k < 8) return false;
  const sorted = weekMeans.subarray(0, k).sort();
  const median = k % 2 === 1 ? sorted[(k - 1) >> 1] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
  return near(median);
}

/**
 * Whether the change at `at` from m1 to m2 continues a drift: a modest step (at most DRIFT_MAX in
 * log terms) that the segment before the one preceding the change (m0) already made at least half
 * of, in the same direction. The series is on a slope (a season, a trend) rather than stepping to a
 * new level: a step after a flat stretch (m1 ≈ m0) is a change point, and so is any large step.
 */
function continuesDrift(
  input: RunInput,
  ws: Workspace,
  at: number,
  m: number,
  m1: number,
  m2: number,
): boolean {
  const hi = at - m;
  const lo = hi - m;
  if (lo < input.start || !(m1 > 0) || !(m2 > 0)) return false;
  const n = daysIn(input, ws, lo, hi);
  if (n < m / 2) return false;
  const m0 = sumIn(ws, lo, hi) / n;
  if (!(m0 > 0)) return false;
  const step = Math.log(m2 / m1);
  if (step === 0 || Math.abs(step) > DRIFT_MAX) return false;
  return Math.log(m1 / m0) / step >= DRIFT_SHARE;
}

/** The share of a step that the step before it must have made for the two to be one drift. */
const DRIFT_SHARE = 0.5;
/** The largest step (log of the ratio of segment means, about ±22 %) that can be part of a drift. */
const DRIFT_MAX = 0.2;

export function segmentDays(minSegment: number): number {
  return Math.max(14, Math.round(minSegment / 7) * 7);
}

/** The days that pass the size test (see segmentMeans); grown on demand. */
let candidates = new Int32Array(1024);

export const changepoint: DetectorImpl<'changepoint'> = {
  type: 'changepoint',
  code: 'ChangePoint',
  aggregate: true,
  minHistory: (p) => 2 * segmentDays(p.minSegment),
  run: (input, p, ws) => {
    const { x, special, start, end } = input;
    const e = ws.expected;
    const f = ws.flags;
    e.fill(Number.NaN, 0, end);
    f.fill(0, 0, end);
    const m = segmentDays(p.minSegment);
    // Divide out the weekday profile so that segments missing some (special) days stay comparable.
    segmentSums(input, ws);
    const means = ws.clean;
    const threshold = p.threshold;
    const minRel = p.minChangePct / 100;
    if (candidates.length < end) candidates = new Int32Array(end);
    const counts = special === null ? null : ws.prefixB;
    const nc = segmentMeans(ws.prefixA, counts, start, end, m, minRel, means, candidates);
    let next = 0;
    let bestT = -1;
    let bestZ = 0;
    let bestM1 = 0;
    let bestM2 = 0;
    let emitted = 0;
    // The last anomaly: where it ends, its sign and the level before it.
    let prevStop = -1;
    let prevSign = 0;
    let prevM1 = 0;
    let prevM2 = 0;
    ws.flagged = false;
    /**
     * A change point found at `at`. A change back across the last anomaly's end is its return to
     * the old level (that anomaly already ends there), not a new one. A change back inside the last
     * anomaly ends it there, and starts a new one only when it overshoots the level before that
     * anomaly by more than half of its step (a hotel's 7-week drop ended by its return in November
     * stayed "below the midpoint" with the winter season until April). Any other change inside the
     * last anomaly (a further fall) ends it and starts a new one.
     */
    const accept = (at: number, z: number, m1: number, m2: number) => {
      const sign = z > 0 ? 1 : -1;
      if (prevSign !== 0 && sign !== prevSign && at < prevStop - 7) {
        f.fill(0, at, prevStop);
        e.fill(Number.NaN, at, prevStop);
        prevStop = at;
        const beyond = sign > 0 ? m2 - prevM1 : prevM1 - m2;
        if (beyond <= Math.abs(prevM2 - prevM1) / 2) {
          prevSign = 0;
          return;
        }
      }
      // The same shift at the same time of the previous years: a season, not news (year-before.ts).
      const year = yearShift(input, ws, at, m, m1, m2, minRel, threshold);
      if (year !== 0) {
        const left = m1 * Math.exp(Math.log(m2 / m1) - year);
        if (!shiftPasses(m1, left, minRel) || Math.abs((z * (left - m1)) / (m2 - m1)) < threshold) return;
      }
      // Back to the level of the weeks before the segment: the end of an excursion, not a new level.
      if (returnsToEarlier(input, ws, at, m, m1, m2)) return;
      // A slope that carries on (a season, a trend): no step to a new level.
      if (continuesDrift(input, ws, at, m, m1, m2)) return;
      if (prevSign !== 0 && sign !== prevSign && at >= prevStop - 7 && at < prevStop + m) {
        prevSign = 0;
        return;
      }
      if (prevStop > at) {
        f.fill(0, at, prevStop);
        e.fill(Number.NaN, at, prevStop);
      }
      prevStop = emit(input, ws, at, m, z, m1, m2, emitted++, Math.exp(year));
      prevSign = sign;
      prevM1 = m1;
      prevM2 = m2;
      ws.flagged = true;
    };
    const last = end - m;
    let t = start + m;
    while (t <= last) {
      // Outside a run a day that fails the size test changes nothing: go to the next that passes.
      if (bestT < 0) {
        while (next < nc && candidates[next] < t) next++;
        if (next === nc) break;
        t = candidates[next];
      }
      const m1 = means[t - m];
      const m2 = means[t];
      // Inside a run, a day that fails the size test ends it.
      const passes = shiftPasses(m1, m2, minRel);
      const z = passes ? zScore(t, m, m1, m2, special !== null, ws, input.unit) : 0;
      const qualifies = passes && Math.abs(z) >= threshold;
      if (qualifies && (bestT < 0 || z > 0 === bestZ > 0)) {
        if (bestT < 0 || Math.abs(z) > Math.abs(bestZ)) {
          bestT = t;
          bestZ = z;
          bestM1 = m1;
          bestM2 = m2;
        }
        t++;
        continue;
      }
      if (bestT >= 0) {
        accept(bestT, bestZ, bestM1, bestM2);
        t = Math.max(t, bestT + m);
        bestT = -1;
        continue;
      }
      t++;
    }
    if (bestT >= 0) accept(bestT, bestZ, bestM1, bestM2);
    return x;
  },
};

/**
 * The shift's z-score at t: the difference of the segment means over the noise, which comes from
 * the week-over-week differences inside both segments (their prefix sums from segmentSums), and is at
 * least the Poisson noise of the events of a day at the level before.
 */
function zScore(
  t: number,
  m: number,
  m1: number,
  m2: number,
  withSpecial: boolean,
  ws: Workspace,
  unit: number,
): number {
  const cntX = ws.prefixB;
  const sumD = ws.prefixC;
  const cntD = ws.prefixD;
  // Without special days every segment is full: these are the counts the prefix counts would give.
  const n1 = withSpecial ? cntX[t] - cntX[t - m] : m;
  const n2 = withSpecial ? cntX[t + m] - cntX[t] : m;
  const dCount = withSpecial ? cntD[t] - cntD[t - m + 7] + cntD[t + m] - cntD[t + 7] : 2 * (m - 7);
  const dSum = sumD[t] - sumD[t - m + 7] + sumD[t + m] - sumD[t + 7];
  let sigma = dCount > 0 ? (MEAN_ABS_TO_SIGMA * dSum) / dCount / Math.SQRT2 : 0;
  // At least 1 % of the level and the Poisson noise of a day's events (sqrt(events) × unit) at the
  // higher of the two levels, the same for a fall and for the rise back: a lucky fortnight of a
  // series selling 50 suites a day is not a new level, and a leaf's halving too small to report does
  // not come back as a "doubling" judged at the low level's noise.
  const floor = Math.max(0.01 * Math.abs(m1), Math.sqrt(Math.max(Math.abs(m1), Math.abs(m2)) * unit)) + 1e-9;
  if (sigma < floor) sigma = floor;
  return (m2 - m1) / (sigma * Math.sqrt(1 / n1 + 1 / n2));
}

/** Days a year back, in whole weeks (weekday-aligned). */
const YEAR = YEAR_DAYS;

/**
 * The log of the shift at the same change point in the previous years (one or two years back, within
 * a segment's days of it, both showing it by the size test; the smaller counts) that explains part of
 * this one's log shift: of the same sign, at most this one (0: none). The segments of a year before are read from the same means (weekday profile
 * divided out), so a season's yearly step is expected and only its excess is judged.
 */
function yearShift(
  input: RunInput,
  ws: Workspace,
  at: number,
  m: number,
  m1: number,
  m2: number,
  minRel: number,
  threshold: number,
): number {
  const means = ws.clean;
  const start = input.start;
  const withSpecial = input.special !== null;
  if (!(m1 > 0) || !(m2 > 0)) return 0;
  const r = Math.log(m2 / m1);
  let explained = Number.POSITIVE_INFINITY;
  for (let k = 1; k <= 2; k++) {
    const at0 = at - YEAR * k;
    if (at0 - m < start) break;
    // The year shows the shift when it moved the same way by at least half the size test at the same
    // day, or, since a change point on a gradual move (a season's rise) is placed only to within a
    // segment, when a change point within m days of it did so and passed the noise test then. The
    // largest counts.
    let s = 0;
    const least = leastSurprise(minRel);
    for (let u = Math.max(at0 - m, start + m); u <= at0 + m; u++) {
      const a = means[u - m];
      const b = means[u];
      if (!(a > 0) || !(b > 0)) continue;
      const su = Math.log(b / a);
      if (!(su * r > 0) || Math.abs(su) < least || Math.abs(su) <= Math.abs(s)) continue;
      if (u === at0 || Math.abs(zScore(u, m, a, b, withSpecial, ws, input.unit)) >= threshold) s = su;
    }
    if (s === 0) return 0;
    if (Math.abs(s) < Math.abs(explained)) explained = s;
  }
  if (!Number.isFinite(explained)) return 0;
  return Math.abs(explained) >= Math.abs(r) ? r : explained;
}
/** Days on each side of a week that its seasonal factor averages over a year back. */
const SEASON_SPAN = 14;

/**
 * The seasonal factor of a span after a change point: the series' mean over the same span a year
 * earlier (widened by two weeks on each side) divided by its mean over the segment after the
 * change point a year earlier; 1 without a full year of history before the change point.
 */
class Season {
  private readonly base: number;
  constructor(
    private readonly input: RunInput,
    private readonly ws: Workspace,
    from: number,
    m: number,
  ) {
    this.base =
      from - YEAR - SEASON_SPAN >= input.start
        ? this.mean(from - YEAR - SEASON_SPAN, from - YEAR + m + SEASON_SPAN)
        : Number.NaN;
  }

  private mean(a: number, b: number): number {
    const n = daysIn(this.input, this.ws, a, b);
    return n > 0 ? sumIn(this.ws, a, b) / n : Number.NaN;
  }

  factor(a: number, b: number): number {
    if (!(this.base > 0)) return 1;
    const lo = a - YEAR - SEASON_SPAN;
    const hi = Math.min(b - YEAR + SEASON_SPAN, this.input.end);
    if (lo < this.input.start || hi <= lo) return 1;
    const ly = this.mean(lo, hi);
    return ly > 0 ? ly / this.base : 1;
  }
}

/**
 * Flags the anomaly from the change point `from` for as long as the new level holds (at least the
 * segment after it) with the sign of z, alternating magnitudes between anomalies; expected values
 * are the days scaled back to the level before. Returns the day after the anomaly.
 */
function emit(
  input: RunInput,
  ws: Workspace,
  from: number,
  m: number,
  z: number,
  m1: number,
  m2: number,
  index: number,
  /** The previous years' share of the shift (year-before.ts): the expected level is m1 × this. */
  yearFactor = 1,
): number {
  const { x, special, end } = input;
  const e = ws.expected;
  const f = ws.flags;
  const sumX = ws.prefixA;
  const cntX = special === null ? null : ws.prefixB;
  const mid = (m1 + m2) / 2;
  const up = m2 > m1;
  // With a year of history, the midpoint follows last year's season where that ends the anomaly
  // sooner (never later): the level of the same weeks a year earlier relative to that of the
  // segment after the change point. An autumn's decline that happens every year is not the new
  // level holding.
  const season = new Season(input, ws, from, m);
  const midOf = (a: number, b: number) => {
    const f = season.factor(a, b);
    return up ? (f > 1 ? mid * f : mid) : f < 1 ? mid * f : mid;
  };
  // Whole weeks while their mean stays on the new level's side of the midpoint.
  let stop = Math.min(from + m, end);
  while (stop < end) {
    const next = Math.min(stop + 7, end);
    const n = cntX === null ? next - stop : cntX[next] - cntX[stop];
    if (n === 0) {
      stop = next;
      continue;
    }
    const mean = (sumX[next] - sumX[stop]) / n;
    const weekMid = midOf(stop, next);
    if (up ? mean > weekMid : mean < weekMid) {
      stop = next;
      continue;
    }
    // The level returned during this week: keep its leading days that are still on the new side.
    while (stop < next) {
      if (cntX !== null && cntX[stop + 1] === cntX[stop]) {
        stop++;
        continue;
      }
      const v = sumX[stop + 1] - sumX[stop];
      const dayMid = midOf(stop, next);
      if (up ? v > dayMid : v < dayMid) stop++;
      else break;
    }
    break;
  }
  const sign = z > 0 ? 1 : -1;
  const mark = (index & 1) === 0 ? sign : 2 * sign;
  const scale = m2 !== 0 ? (m1 * yearFactor) / m2 : Number.NaN;
  for (let u = from; u < stop; u++) {
    f[u] = mark;
    if (special === null || special[u] === 0) e[u] = !Number.isNaN(scale) ? x[u] * scale : m1;
  }
  return stop;
}
