/**
 * ChangePoint: a lasting shift of level. For each day t the mean of the segment after t is compared
 * with the mean of the segment before; segments are whole weeks so the weekly profile cancels out.
 * Values are divided by the series' weekday profile first, so segments that lose special days
 * keep a fair weekday mix. The noise comes from week-over-week differences inside each segment, so a single spike inflates
 * its own noise estimate instead of passing for a shift. The best-scoring day of each run of
 * qualifying days is the change point; the anomaly covers the segment after it.
 */
import type { DetectorImpl } from '../detector';
import { weekdayOf } from '../kernels';

const MEAN_ABS_TO_SIGMA = 1.2533;

export function segmentDays(minSegment: number): number {
  return Math.max(14, Math.round(minSegment / 7) * 7);
}

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
    const sumX = ws.prefixA;
    const cntX = ws.prefixB;
    const sumD = ws.prefixC;
    const cntD = ws.prefixD;
    // Divide out the weekday profile so that segments missing some (special) days stay comparable.
    const profile = ws.weekSum;
    const days = ws.weekCount;
    profile.fill(0);
    days.fill(0);
    const wd0 = weekdayOf(input.dayIndex0 + start);
    let total = 0;
    let totalDays = 0;
    for (let u = start, wd = wd0; u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
      if (special !== null && special[u] !== 0) continue;
      profile[wd] += x[u];
      days[wd]++;
      total += x[u];
      totalDays++;
    }
    const overall = totalDays > 0 ? total / totalDays : 0;
    for (let w = 0; w < 7; w++) {
      const mean = days[w] > 0 ? profile[w] / days[w] : 0;
      profile[w] = mean > 0 && overall > 0 ? overall / mean : 1;
    }
    sumX[start] = 0;
    cntX[start] = 0;
    sumD[start] = 0;
    cntD[start] = 0;
    let sx = 0;
    let sd = 0;
    let nd = 0;
    if (special === null) {
      // The common case without a calendar, without its per-day tests.
      for (let u = start, wd = wd0; u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
        const w = profile[wd];
        const xu = x[u];
        sx += xu * w;
        sumX[u + 1] = sx;
        cntX[u + 1] = u + 1 - start;
        if (u - 7 >= start) {
          sd += Math.abs(xu - x[u - 7]) * w;
          nd++;
        }
        sumD[u + 1] = sd;
        cntD[u + 1] = nd;
      }
    } else {
      let nx = 0;
      for (let u = start, wd = wd0; u < end; u++, wd = wd === 6 ? 0 : wd + 1) {
        const ok = special[u] === 0;
        if (ok) {
          sx += x[u] * profile[wd];
          nx++;
          if (u - 7 >= start && special[u - 7] === 0) {
            sd += Math.abs(x[u] - x[u - 7]) * profile[wd];
            nd++;
          }
        }
        sumX[u + 1] = sx;
        cntX[u + 1] = nx;
        sumD[u + 1] = sd;
        cntD[u + 1] = nd;
      }
    }
    const threshold = p.threshold;
    const minRel = p.minChangePct / 100;
    let bestT = -1;
    let bestZ = 0;
    let bestM1 = 0;
    let bestM2 = 0;
    const emit = () => {
      const sign = bestZ > 0 ? 1 : -1;
      const stop = Math.min(bestT + m, end);
      const scale = bestM2 !== 0 ? bestM1 / bestM2 : Number.NaN;
      for (let u = bestT; u < stop; u++) {
        f[u] = sign;
        if (special === null || special[u] === 0) e[u] = !Number.isNaN(scale) ? x[u] * scale : bestM1;
      }
    };
    let t = start + m;
    while (t <= end - m) {
      const n1 = cntX[t] - cntX[t - m];
      const n2 = cntX[t + m] - cntX[t];
      let qualifies = false;
      let z = 0;
      let m1 = 0;
      let m2 = 0;
      if (n1 > 0 && n2 > 0) {
        m1 = (sumX[t] - sumX[t - m]) / n1;
        m2 = (sumX[t + m] - sumX[t]) / n2;
        const shift = Math.abs(m2 - m1);
        // Most days fail the size test: the noise and z-score are needed only for those that pass.
        if (m1 === 0 ? shift > 0 : shift >= minRel * Math.abs(m1)) {
          const dCount = cntD[t] - cntD[t - m + 7] + cntD[t + m] - cntD[t + 7];
          const dSum = sumD[t] - sumD[t - m + 7] + sumD[t + m] - sumD[t + 7];
          let sigma = dCount > 0 ? (MEAN_ABS_TO_SIGMA * dSum) / dCount / Math.SQRT2 : 0;
          const floor = 0.01 * Math.abs(m1) + 1e-9;
          if (sigma < floor) sigma = floor;
          z = (m2 - m1) / (sigma * Math.sqrt(1 / n1 + 1 / n2));
          qualifies = Math.abs(z) >= threshold;
        }
      }
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
        emit();
        // The next change needs a full segment after this one.
        t = Math.max(t, bestT + m);
        bestT = -1;
        continue;
      }
      t++;
    }
    if (bestT >= 0) emit();
    return x;
  },
};
