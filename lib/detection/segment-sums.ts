/**
 * ChangePoint's segment statistics from prefix sums. Every sum is accumulated day by day in the
 * same order as a plain loop would, so results are the same to the bit; the speed comes from the
 * loop shapes: without special days the weekday weights stay in locals over whole weeks (no
 * weekday bookkeeping per day), and each day's segment mean serves as the "after" mean of day t
 * and the "before" mean of day t + m, one division for both.
 */
import type { RunInput } from './detector';
import { weekdayOf } from './kernels';
import type { Workspace } from './workspace';

/**
 * Weekday weights into ws.weekSum (overall mean / weekday mean, 1 where either is not positive:
 * multiplying by them divides out the weekday profile), then the weighted prefix sums of the values
 * (ws.prefixA) and of the week-over-week absolute differences (ws.prefixC). Special days stay out of
 * all of them; with special days, ws.prefixB and ws.prefixD count the days in each sum (without,
 * the counts follow from the positions and are not written).
 */
export function segmentSums(input: RunInput, ws: Workspace): void {
  const { x, special, start, end } = input;
  const wd0 = weekdayOf(input.dayIndex0 + start);
  const weights = ws.weekSum;
  const days = ws.weekCount;
  if (special === null) {
    const total = plainWeekdaySums(x, start, end, wd0, weights, days);
    toWeights(weights, days, total, end - start);
    plainPrefixSums(x, weights, start, end, wd0, ws.prefixA, ws.prefixC);
    return;
  }
  weights.fill(0);
  days.fill(0);
  let total = 0;
  let totalDays = 0;
  for (let u = start, wd = wd0; u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
    if (special[u] !== 0) continue;
    weights[wd] += x[u];
    days[wd]++;
    total += x[u];
    totalDays++;
  }
  toWeights(weights, days, total, totalDays);
  specialPrefixSums(x, special, weights, start, end, wd0, ws);
}

/**
 * Means of the segments [t, t + m) into means[t] (sums over counts, or over m when counts is null),
 * and into out the days t whose segment after differs from the one before by the size test; returns
 * how many. An empty segment's mean is NaN (0 / 0), which fails the size test.
 */
export function segmentMeans(
  sumX: Float64Array,
  counts: Float64Array | null,
  start: number,
  end: number,
  m: number,
  minRel: number,
  means: Float64Array,
  out: Int32Array,
): number {
  let n = 0;
  for (let t = start; t <= end - m; t++) {
    const mean = (sumX[t + m] - sumX[t]) / (counts === null ? m : counts[t + m] - counts[t]);
    means[t] = mean;
    if (t >= start + m && shiftPasses(means[t - m], mean, minRel)) out[n++] = t;
  }
  return n;
}

/** The size test: the mean after (m2) differs from the mean before (m1) by at least minRel of m1. */
export function shiftPasses(m1: number, m2: number, minRel: number): boolean {
  const shift = Math.abs(m2 - m1);
  return m1 === 0 ? shift > 0 : shift >= minRel * Math.abs(m1);
}

function toWeights(weights: Float64Array, days: Float64Array, total: number, totalDays: number): void {
  const overall = totalDays > 0 ? total / totalDays : 0;
  for (let w = 0; w < 7; w++) {
    const mean = days[w] > 0 ? weights[w] / days[w] : 0;
    weights[w] = mean > 0 && overall > 0 ? overall / mean : 1;
  }
}

/** Per-weekday sums into sums and day counts into days; returns the total. */
function plainWeekdaySums(
  x: Float64Array,
  start: number,
  end: number,
  wd0: number,
  sums: Float64Array,
  days: Float64Array,
): number {
  sums.fill(0);
  let total = 0;
  let u = start;
  let wd = wd0;
  for (; wd !== 0 && u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
    sums[wd] += x[u];
    total += x[u];
  }
  // Whole weeks from a Monday: each weekday's sum in its own local (twice as fast as indexing).
  let s0 = sums[0];
  let s1 = sums[1];
  let s2 = sums[2];
  let s3 = sums[3];
  let s4 = sums[4];
  let s5 = sums[5];
  let s6 = sums[6];
  for (; u + 7 <= end; u += 7) {
    let v = x[u];
    s0 += v;
    total += v;
    v = x[u + 1];
    s1 += v;
    total += v;
    v = x[u + 2];
    s2 += v;
    total += v;
    v = x[u + 3];
    s3 += v;
    total += v;
    v = x[u + 4];
    s4 += v;
    total += v;
    v = x[u + 5];
    s5 += v;
    total += v;
    v = x[u + 6];
    s6 += v;
    total += v;
  }
  sums[0] = s0;
  sums[1] = s1;
  sums[2] = s2;
  sums[3] = s3;
  sums[4] = s4;
  sums[5] = s5;
  sums[6] = s6;
  for (wd = 0; u < end; u++, wd++) {
    sums[wd] += x[u];
    total += x[u];
  }
  for (let w = 0; w < 7; w++) {
    const first = start + ((w - wd0 + 7) % 7);
    days[w] = first < end ? Math.floor((end - 1 - first) / 7) + 1 : 0;
  }
  return total;
}

/** Weighted prefix sums without special days (see segmentSums). */
function plainPrefixSums(
  x: Float64Array,
  w: Float64Array,
  start: number,
  end: number,
  wd0: number,
  sumX: Float64Array,
  sumD: Float64Array,
): void {
  let sx = 0;
  let sd = 0;
  sumX[start] = 0;
  sumD[start] = 0;
  let u = start;
  let wd = wd0;
  // The first week has no week-over-week differences.
  for (; u < start + 7 && u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
    sx += x[u] * w[wd];
    sumX[u + 1] = sx;
    sumD[u + 1] = 0;
  }
  for (; wd !== 0 && u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
    sx += x[u] * w[wd];
    sumX[u + 1] = sx;
    sd += Math.abs(x[u] - x[u - 7]) * w[wd];
    sumD[u + 1] = sd;
  }
  // Whole weeks from a Monday with the weights in locals (a third faster than indexing by weekday).
  const w0 = w[0];
  const w1 = w[1];
  const w2 = w[2];
  const w3 = w[3];
  const w4 = w[4];
  const w5 = w[5];
  const w6 = w[6];
  for (; u + 7 <= end; u += 7) {
    let v = x[u];
    sx += v * w0;
    sumX[u + 1] = sx;
    sd += Math.abs(v - x[u - 7]) * w0;
    sumD[u + 1] = sd;
    v = x[u + 1];
    sx += v * w1;
    sumX[u + 2] = sx;
    sd += Math.abs(v - x[u - 6]) * w1;
    sumD[u + 2] = sd;
    v = x[u + 2];
    sx += v * w2;
    sumX[u + 3] = sx;
    sd += Math.abs(v - x[u - 5]) * w2;
    sumD[u + 3] = sd;
    v = x[u + 3];
    sx += v * w3;
    sumX[u + 4] = sx;
    sd += Math.abs(v - x[u - 4]) * w3;
    sumD[u + 4] = sd;
    v = x[u + 4];
    sx += v * w4;
    sumX[u + 5] = sx;
    sd += Math.abs(v - x[u - 3]) * w4;
    sumD[u + 5] = sd;
    v = x[u + 5];
    sx += v * w5;
    sumX[u + 6] = sx;
    sd += Math.abs(v - x[u - 2]) * w5;
    sumD[u + 6] = sd;
    v = x[u + 6];
    sx += v * w6;
    sumX[u + 7] = sx;
    sd += Math.abs(v - x[u - 1]) * w6;
    sumD[u + 7] = sd;
  }
  for (wd = 0; u < end; u++, wd++) {
    sx += x[u] * w[wd];
    sumX[u + 1] = sx;
    sd += Math.abs(x[u] - x[u - 7]) * w[wd];
    sumD[u + 1] = sd;
  }
}

/** Weighted prefix sums and their counts with special days left out (see segmentSums). */
function specialPrefixSums(
  x: Float64Array,
  special: Uint8Array,
  w: Float64Array,
  start: number,
  end: number,
  wd0: number,
  ws: Workspace,
): void {
  const sumX = ws.prefixA;
  const cntX = ws.prefixB;
  const sumD = ws.prefixC;
  const cntD = ws.prefixD;
  sumX[start] = 0;
  cntX[start] = 0;
  sumD[start] = 0;
  cntD[start] = 0;
  let sx = 0;
  let nx = 0;
  let sd = 0;
  let nd = 0;
  for (let u = start, wd = wd0; u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
    if (special[u] === 0) {
      sx += x[u] * w[wd];
      nx++;
      if (u - 7 >= start && special[u - 7] === 0) {
        sd += Math.abs(x[u] - x[u - 7]) * w[wd];
        nd++;
      }
    }
    sumX[u + 1] = sx;
    cntX[u + 1] = nx;
    sumD[u + 1] = sd;
    cntD[u + 1] = nd;
  }
}
