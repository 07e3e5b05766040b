/**
 * MOM, QOQ, MPY and CW compare the total of a calendar period with what a reference period
 * predicts. The prediction takes each weekday's mean in the reference and sums it over the
 * weekdays of the current period, so day count and weekday mix are normalised.
 */
import { civilFromDays, daysFromCivil } from '../../calendar/days';
import type { DetectorImpl, RunInput } from '../detector';
import { classifyPct, weekdayOf } from '../kernels';
import type { PercentChangeParams } from '../params';
import type { Workspace } from '../workspace';

const ymd = [0, 0, 0];

/** Start indices (relative to dayIndex0) of calendar periods of `months` months covering [0, n). */
function monthBounds(dayIndex0: number, n: number, months: number, out: Int32Array): number {
  civilFromDays(dayIndex0, ymd);
  let year = ymd[0];
  let month = ymd[1] - ((ymd[1] - 1) % months);
  let count = 0;
  for (;;) {
    const idx = daysFromCivil(year, month, 1) - dayIndex0;
    out[count++] = idx;
    if (idx >= n) return count;
    month += months;
    if (month > 12) {
      month -= 12;
      year += 1;
    }
  }
}

/** Start indices of Monday-to-Sunday weeks covering [0, n). */
function weekBounds(dayIndex0: number, n: number, out: Int32Array): number {
  let idx = -weekdayOf(dayIndex0);
  let count = 0;
  for (;;) {
    out[count++] = idx;
    if (idx >= n) return count;
    idx += 7;
  }
}

/**
 * Where period j's reference starts and ends: `lag` periods back (1: the previous period, 12: the
 * same month a year before), or with lag 0 the 28 days before the period (cw).
 */
function comparePeriods(
  input: RunInput,
  p: PercentChangeParams,
  ws: Workspace,
  count: number,
  lag: number,
): Float64Array {
  const { x, special, start, end, dayIndex0 } = input;
  const e = ws.expected;
  const f = ws.flags;
  const b = ws.bounds;
  const sum = ws.weekSum;
  const cnt = ws.weekCount;
  e.fill(Number.NaN, 0, end);
  f.fill(0, 0, end);
  const frac = p.percentualChange / 100;
  // Weekday of day 0; a day's weekday is (wd0 + index) mod 7 (indices may be negative before start).
  const wd0 = weekdayOf(dayIndex0);
  for (let j = 0; j + 1 < count; j++) {
    const a = b[j];
    if (a < start) continue;
    if (a >= end) break;
    const full = b[j + 1] - a;
    const stop = Math.min(b[j + 1], end);
    // A trailing partial period counts once it has at least half of its days.
    if (stop - a < Math.ceil(full / 2)) continue;
    let from: number;
    let to: number;
    if (lag === 0) {
      from = a - 28;
      to = a;
    } else {
      if (j - lag < 0) continue;
      from = b[j - lag];
      to = b[j - lag + 1];
    }
    if (from < start) continue;
    for (let w = 0; w < 7; w++) {
      sum[w] = 0;
      cnt[w] = 0;
    }
    let allSum = 0;
    let allCnt = 0;
    let wd = (wd0 + from) % 7;
    for (let u = from; u < to; u++) {
      if (special === null || special[u] === 0) {
        const v = x[u];
        sum[wd] += v;
        cnt[wd]++;
        allSum += v;
        allCnt++;
      }
      wd = wd === 6 ? 0 : wd + 1;
    }
    if (allCnt === 0) continue;
    const allMean = allSum / allCnt;
    // Each weekday's mean once per period, not once per day.
    for (let w = 0; w < 7; w++) sum[w] = cnt[w] > 0 ? sum[w] / cnt[w] : allMean;
    let actual = 0;
    let predicted = 0;
    wd = (wd0 + a) % 7;
    for (let t = a; t < stop; t++) {
      if (special === null || special[t] === 0) {
        const mean = sum[wd];
        e[t] = mean;
        actual += x[t];
        predicted += mean;
      }
      wd = wd === 6 ? 0 : wd + 1;
    }
    const flag = classifyPct(actual, predicted, frac);
    if (flag !== 0) for (let t = a; t < stop; t++) f[t] = flag;
  }
  return x;
}

export const mom: DetectorImpl<'mom'> = {
  type: 'mom',
  code: 'MOM',
  aggregate: true,
  minHistory: () => 45,
  run: (input, p, ws) => {
    const count = monthBounds(input.dayIndex0, input.x.length, 1, ws.bounds);
    return comparePeriods(input, p, ws, count, 1);
  },
};

export const qoq: DetectorImpl<'qoq'> = {
  type: 'qoq',
  code: 'QOQ',
  aggregate: true,
  minHistory: () => 135,
  run: (input, p, ws) => {
    const count = monthBounds(input.dayIndex0, input.x.length, 3, ws.bounds);
    return comparePeriods(input, p, ws, count, 1);
  },
};

export const mpy: DetectorImpl<'mpy'> = {
  type: 'mpy',
  code: 'MPY',
  aggregate: true,
  minHistory: () => 380,
  run: (input, p, ws) => {
    const count = monthBounds(input.dayIndex0, input.x.length, 1, ws.bounds);
    return comparePeriods(input, p, ws, count, 12);
  },
};

export const cw: DetectorImpl<'cw'> = {
  type: 'cw',
  code: 'CW',
  aggregate: true,
  minHistory: () => 35,
  run: (input, p, ws) => {
    const count = weekBounds(input.dayIndex0, input.x.length, ws.bounds);
    return comparePeriods(input, p, ws, count, 0);
  },
};
