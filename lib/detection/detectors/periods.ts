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

type Reference = (bounds: Int32Array, j: number) => { from: number; to: number } | null;

const ref = { from: 0, to: 0 };

function previousPeriods(lag: number): Reference {
  return (bounds, j) => {
    if (j - lag < 0) return null;
    ref.from = bounds[j - lag];
    ref.to = bounds[j - lag + 1];
    return ref;
  };
}

const PREVIOUS_PERIOD = previousPeriods(1);
const SAME_PERIOD_LAST_YEAR = previousPeriods(12);

const previousFourWeeks: Reference = (bounds, j) => {
  ref.from = bounds[j] - 28;
  ref.to = bounds[j];
  return ref;
};

function comparePeriods(
  input: RunInput,
  p: PercentChangeParams,
  ws: Workspace,
  count: number,
  reference: Reference,
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
  for (let j = 0; j + 1 < count; j++) {
    const a = b[j];
    if (a < start) continue;
    if (a >= end) break;
    const full = b[j + 1] - a;
    const stop = Math.min(b[j + 1], end);
    // A trailing partial period counts once it has at least half of its days.
    if (stop - a < Math.ceil(full / 2)) continue;
    const r = reference(b, j);
    if (r === null || r.from < start) continue;
    sum.fill(0);
    cnt.fill(0);
    let allSum = 0;
    let allCnt = 0;
    let wd = weekdayOf(dayIndex0 + r.from);
    for (let u = r.from; u < r.to; u++) {
      if (special === null || special[u] === 0) {
        sum[wd] += x[u];
        cnt[wd]++;
        allSum += x[u];
        allCnt++;
      }
      wd = wd === 6 ? 0 : wd + 1;
    }
    if (allCnt === 0) continue;
    const allMean = allSum / allCnt;
    let actual = 0;
    let predicted = 0;
    wd = weekdayOf(dayIndex0 + a);
    for (let t = a; t < stop; t++) {
      if (special === null || special[t] === 0) {
        const mean = cnt[wd] > 0 ? sum[wd] / cnt[wd] : allMean;
        e[t] = mean;
        actual += x[t];
        predicted += mean;
      }
      wd = wd === 6 ? 0 : wd + 1;
    }
    const flag = classifyPct(actual, predicted, frac);
    if (flag !== 0) f.fill(flag, a, stop);
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
    return comparePeriods(input, p, ws, count, PREVIOUS_PERIOD);
  },
};

export const qoq: DetectorImpl<'qoq'> = {
  type: 'qoq',
  code: 'QOQ',
  aggregate: true,
  minHistory: () => 135,
  run: (input, p, ws) => {
    const count = monthBounds(input.dayIndex0, input.x.length, 3, ws.bounds);
    return comparePeriods(input, p, ws, count, PREVIOUS_PERIOD);
  },
};

export const mpy: DetectorImpl<'mpy'> = {
  type: 'mpy',
  code: 'MPY',
  aggregate: true,
  minHistory: () => 380,
  run: (input, p, ws) => {
    const count = monthBounds(input.dayIndex0, input.x.length, 1, ws.bounds);
    return comparePeriods(input, p, ws, count, SAME_PERIOD_LAST_YEAR);
  },
};

export const cw: DetectorImpl<'cw'> = {
  type: 'cw',
  code: 'CW',
  aggregate: true,
  minHistory: () => 35,
  run: (input, p, ws) => {
    const count = weekBounds(input.dayIndex0, input.x.length, ws.bounds);
    return comparePeriods(input, p, ws, count, previousFourWeeks);
  },
};
