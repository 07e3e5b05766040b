/**
 * DOD and WOW: a day against one earlier day. DOD scales yesterday by the weekday profile (so a
 * Monday is not "up" merely for following a Sunday); WOW uses the same weekday a week before.
 */
import type { DetectorImpl, RunInput } from '../detector';
import { classifyPct, cleanValue, RunTracker, relevel, relevelWeekday, weekdayOf } from '../kernels';
import type { PercentChangeParams } from '../params';
import type { Workspace } from '../workspace';

const PROFILE_WEEKS = 8;
const PROFILE_DAYS = PROFILE_WEEKS * 7;
const tracker = new RunTracker();

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
  e.fill(Number.NaN, 0, end);
  f.fill(0, 0, end);
  const sum = ws.weekSum;
  const cnt = ws.weekCount;
  sum.fill(0);
  cnt.fill(0);
  const frac = p.percentualChange / 100;
  const adapt = p.adaptAfterDays;
  const wd0 = weekdayOf(input.dayIndex0 + start);
  let wd = wd0;
  tracker.reset();
  for (let t = start; t < end; t++) {
    const prevWd = wd === 0 ? 6 : wd - 1;
    let exp = Number.NaN;
    if (t > start && cnt[wd] >= 2 && cnt[prevWd] >= 2) {
      const meanNow = sum[wd] / cnt[wd];
      const meanPrev = sum[prevWd] / cnt[prevWd];
      exp = meanPrev > 0 ? (c[t - 1] * meanNow) / meanPrev : meanNow;
    }
    const xt = x[t];
    let flag = 0;
    if (!Number.isNaN(exp)) flag = classifyPct(xt, exp, frac);
    e[t] = exp;
    f[t] = flag;
    const isSpecial = special !== null && special[t] !== 0;
    c[t] = cleanValue(xt, exp, flag, isSpecial);
    const accept = tracker.step(flag, t, adapt, isSpecial);
    // Two flags of the same sign a week apart: the weekday's profile, not the day, is off.
    const chained =
      !accept &&
      flag !== 0 &&
      !isSpecial &&
      t - 7 >= start &&
      f[t - 7] === flag &&
      (special === null || special[t - 7] === 0);
    if (accept || chained) {
      if (accept) relevel(c, x, e, tracker.start, t, PROFILE_DAYS, start, special);
      else relevelWeekday(c, x, e, t, PROFILE_WEEKS, start);
      const from = Math.max(start, t - PROFILE_DAYS + 1);
      rebuildWeekSums(c, sum, cnt, from, t, weekdayOf(input.dayIndex0 + from));
      if (accept) tracker.reset();
    } else {
      const ct = c[t];
      if (!Number.isNaN(ct)) {
        sum[wd] += ct;
        cnt[wd]++;
      }
      const old = t - PROFILE_DAYS;
      if (old >= start) {
        const co = c[old];
        if (!Number.isNaN(co)) {
          sum[wd] -= co;
          cnt[wd]--;
        }
      }
    }
    wd = wd === 6 ? 0 : wd + 1;
  }
  return x;
}

function runWow(input: RunInput, p: PercentChangeParams, ws: Workspace): Float64Array {
  const { x, special, start, end } = input;
  const e = ws.expected;
  const f = ws.flags;
  const c = ws.clean;
  e.fill(Number.NaN, 0, end);
  f.fill(0, 0, end);
  const frac = p.percentualChange / 100;
  const adapt = p.adaptAfterDays;
  tracker.reset();
  for (let t = start; t < end; t++) {
    const xt = x[t];
    const isSpecial = special !== null && special[t] !== 0;
    // The same weekday a week before; further back when that day's value is unknown.
    let exp = Number.NaN;
    for (let u = t - 7, k = 0; k < 4 && u >= start && Number.isNaN(exp); u -= 7, k++) exp = c[u];
    const flag = !Number.isNaN(exp) ? classifyPct(xt, exp, frac) : 0;
    e[t] = exp;
    f[t] = flag;
    c[t] = cleanValue(xt, exp, flag, isSpecial);
    // Two flags of the same sign a week apart mean the reference, not the day, is off.
    const chained =
      flag !== 0 &&
      !isSpecial &&
      t - 7 >= start &&
      f[t - 7] === flag &&
      (special === null || special[t - 7] === 0);
    if (tracker.step(flag, t, adapt, isSpecial)) {
      relevel(c, x, e, tracker.start, t, 7, start, special);
      tracker.reset();
    } else if (chained) {
      c[t] = xt;
      c[t - 7] = x[t - 7];
    }
  }
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
