/**
 * The year before in the period detectors (MOM, QOQ, CW; docs/detectors.md, "The year before"): a
 * period that would be reported is compared with the same period of the previous years, each against
 * its own reference as the detector judged it then. A July that rises over June every year by a
 * similar amount, a Christmas week that falls below the four weeks before every year, is not news;
 * one much larger than the years before is, with the years before as its expectation. As for the day
 * detectors (year-before.ts): the same direction only, at least `least` (half the business threshold)
 * in every previous year looked at (two at most; the smaller counts), never more than today's.
 * Looked up only for periods that would be reported.
 */
import type { RunInput } from '../detector';
import { logRatio } from '../kernels';
import { sameDateBefore, YEAR_DAYS } from '../year-before';

/** Previous years looked at. */
const YEARS = 2;

/**
 * The log factor the previous years' periods explain of today's surprise `r` (0: nothing).
 * `surprise(k)` is the surprise of the same period k years back (NaN when that year, or its
 * reference, lies before the history: that year and the ones before say nothing).
 */
export function periodYearFactor(r: number, least: number, surprise: (k: number) => number): number {
  if (!(r !== 0)) return 0;
  let explained = Number.POSITIVE_INFINITY;
  for (let k = 1; k <= YEARS; k++) {
    const s = surprise(k);
    if (Number.isNaN(s)) break;
    // A year that did not move the same way by at least `least`: today's move did not recur.
    if (!(s * r > 0) || Math.abs(s) < least) return 0;
    if (Math.abs(s) < Math.abs(explained)) explained = s;
  }
  if (!Number.isFinite(explained)) return 0;
  return Math.abs(explained) >= Math.abs(r) ? r : explained;
}

/**
 * The surprise (log of actual over predicted) of the `len` days from day u, as CW judges a week: each
 * day against the mean of the same weekday in the four weeks before (special days out of both sides; a
 * ratio's days weighed by their events). NaN when the window or its reference starts before the
 * history or nothing is left to compare.
 */
export function weekSurprise(input: RunInput, u: number, len: number): number {
  const { x, special, weights, start } = input;
  if (u - 28 < start || u + len > input.end) return Number.NaN;
  let actual = 0;
  let predicted = 0;
  for (let t = u; t < u + len; t++) {
    if (special !== null && special[t] !== 0) continue;
    let sum = 0;
    let n = 0;
    for (let k = 1; k <= 4; k++) {
      const v = t - 7 * k;
      if (special !== null && special[v] !== 0) continue;
      const w = weights === undefined ? 1 : weights[v];
      sum += x[v] * w;
      n += w;
    }
    if (!(n > 0)) continue;
    const w = weights === undefined ? 1 : weights[t];
    actual += x[t] * w;
    predicted += (sum / n) * w;
  }
  return predicted > 0 ? logRatio(actual, predicted) : Number.NaN;
}

/**
 * The surprise of the week [a, a + len) k years back: the larger (same direction as r) of the week
 * 364 days back (weekday-aligned) and of the seven days from the same date (fixed-date weeks such as
 * Christmas, which moves by a weekday a year); NaN when neither is in the history.
 */
export function weekYearSurprise(input: RunInput, a: number, len: number, k: number, r: number): number {
  const byWeekday = weekSurprise(input, a - YEAR_DAYS * k, len);
  const u = sameDateBefore(input.dayIndex0, a, k);
  const byDate = u === a - YEAR_DAYS * k ? Number.NaN : weekSurprise(input, u, len);
  if (Number.isNaN(byDate)) return byWeekday;
  if (Number.isNaN(byWeekday)) return byDate;
  return byWeekday * r >= byDate * r ? byWeekday : byDate;
}
