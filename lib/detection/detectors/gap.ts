/**
 * Gap: runs of consecutive days without source data, measured on the presence flags before gap
 * filling. Days before the first data are not a gap (the series did not exist yet); a run that
 * reaches the last analysed day is (data stopped arriving).
 */
import type { DetectorImpl } from '../detector';

/** A run of missing days is reported when its chance (see below) is below this: log(0.1 %). */
const LOG_GAP_CHANCE = Math.log(0.001);
const GAP_HISTORY = 112;

export const gap: DetectorImpl<'gap'> = {
  type: 'gap',
  code: 'Gap',
  aggregate: false,
  requires: 'present',
  minHistory: () => 2,
  run: (input, p, ws) => {
    const { x, start, end } = input;
    const present = input.present as Uint8Array;
    const e = ws.expected;
    const f = ws.flags;
    e.fill(Number.NaN, 0, end);
    f.fill(0, 0, end);
    const longer = p.longerThan;
    const shorter = p.shorterThan ?? Number.POSITIVE_INFINITY;
    let t = start;
    while (t < end) {
      if (present[t] !== 0) {
        t++;
        continue;
      }
      let stop = t;
      while (stop < end && present[stop] === 0) stop++;
      const len = stop - t;
      // A gap is news only when a run this long is unlikely for this series: a series that had data
      // on each of the 16 weeks before reports any missing day; otherwise, with q the share of
      // those days without data, q^len must be below 0.1 % (a leaf that often has no bookings on a
      // day reports only a long silence).
      let seen = 0;
      let missed = 0;
      for (let u = Math.max(start, t - GAP_HISTORY); u < t; u++) {
        seen++;
        if (present[u] === 0) missed++;
      }
      // Under 4 weeks of history the rate is estimated with half a missing day added.
      const q = seen >= 28 ? missed / seen : (missed + 0.5) / (seen + 1);
      const regular = seen > 0 && (q === 0 || len * Math.log(q) < LOG_GAP_CHANCE);
      if (regular && len > longer && len < shorter) {
        // Expected: the same weekday's mean over the 4 weeks before the gap, counting present days only.
        let fallbackSum = 0;
        let fallbackCnt = 0;
        for (let u = Math.max(start, t - 28); u < t; u++) {
          if (present[u] !== 0) {
            fallbackSum += x[u];
            fallbackCnt++;
          }
        }
        const fallback = fallbackCnt > 0 ? fallbackSum / fallbackCnt : 0;
        let expSum = 0;
        for (let u = t; u < stop; u++) {
          let s = 0;
          let k = 0;
          let weeks = 0;
          for (let v = u - 7; weeks < 4 && v >= start; v -= 7) {
            if (v >= t) continue;
            weeks++;
            if (present[v] !== 0) {
              s += x[v];
              k++;
            }
          }
          e[u] = k > 0 ? s / k : fallback;
          expSum += e[u];
          f[u] = -1;
        }
        // Materiality: missing days that would have held almost nothing are not reported.
        if (expSum / len < input.material) {
          for (let u = t; u < stop; u++) {
            f[u] = 0;
            e[u] = Number.NaN;
          }
        }
      }
      t = stop;
    }
    return ws.zeros;
  },
};
